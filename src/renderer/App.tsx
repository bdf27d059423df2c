import { createTheme, MantineProvider } from '@mantine/core';
import { useColorScheme } from '@mantine/hooks';
import { Notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { AppFrame } from './shell/AppFrame';
import { useApp } from './stores/context';

const theme = createTheme({ primaryColor: 'indigo', defaultRadius: 'md' });

export function App() {
  const load = useApp((state) => state.load);
  const preference = useApp((state) => state.settings?.theme ?? 'auto');
  const system = useColorScheme();
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <MantineProvider theme={theme} forceColorScheme={preference === 'auto' ? system : preference}>
      <Notifications position="bottom-right" />
      <AppFrame />
    </MantineProvider>
  );
}
