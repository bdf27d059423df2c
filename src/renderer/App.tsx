import { MantineProvider } from '@mantine/core';
import { useColorScheme } from '@mantine/hooks';
import { Notifications } from '@mantine/notifications';
import { AppFrame } from './shell/AppFrame';
import { useApp } from './stores/context';
import { colorSchemeManager, cssVariablesResolver, theme } from './theme';

export function App() {
  // Its facts were asked for at boot (main.tsx), with the first screen's data.
  const preference = useApp((state) => state.settings?.theme ?? 'auto');
  const system = useColorScheme();
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} colorSchemeManager={colorSchemeManager} forceColorScheme={preference === 'auto' ? system : preference}>
      <Notifications position="bottom-right" />
      <AppFrame />
    </MantineProvider>
  );
}
