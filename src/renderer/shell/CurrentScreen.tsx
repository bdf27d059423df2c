import { CodeExplorerScreen } from '../features/codes/CodeExplorerScreen';
import { PlaceholderScreen } from '../features/PlaceholderScreen';
import { SettingsScreen } from '../features/settings/SettingsScreen';
import type { Route } from './use-route';

/** One case per screen; each screen reads its own id and params from the route. */
export function CurrentScreen({ route, label, description }: { route: Route; label: string; description: string }) {
  switch (route.screen) {
    case 'settings':
      return <SettingsScreen />;
    case 'codes':
      return <CodeExplorerScreen />;
    default:
      return <PlaceholderScreen title={label} description={description} />;
  }
}
