import { MantineProvider } from '@mantine/core';
import { useColorScheme } from '@mantine/hooks';
import { Notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { AppFrame } from './shell/AppFrame';
import { useApp } from './stores/context';
import { colorSchemeManager, cssVariablesResolver, theme } from './theme';

export function App() {
  const load = useApp((state) => state.load);
  const preference = useApp((state) => state.settings?.theme ?? 'auto');
  const system = useColorScheme();
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} colorSchemeManager={colorSchemeManager} forceColorScheme={preference === 'auto' ? system : preference}>
      <Notifications position="bottom-right" />
      <AppFrame />
    </MantineProvider>
  );
}
