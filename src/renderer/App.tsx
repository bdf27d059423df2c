import { createTheme, MantineProvider } from '@mantine/core';
import { useColorScheme } from '@mantine/hooks';
import { Notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { AppFrame } from './shell/AppFrame';
import { useApp } from './stores/context';

const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  components: {
    // Mantine keeps every select's options mounted (hidden) by default: on the pay-ins screen that
    // is some 280 options and half the page's DOM, rendered before the first row. Options are
    // rendered when a dropdown opens instead.
    Combobox: { defaultProps: { keepMounted: false } },
  },
});

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
