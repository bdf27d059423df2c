import { CodeExplorerScreen } from '../features/codes/CodeExplorerScreen';
import { PayinsScreen } from '../features/payins/PayinsScreen';
import { PayoutsScreen } from '../features/payouts/PayoutsScreen';
import { PlaceholderScreen } from '../features/PlaceholderScreen';
import { PlaygroundScreen } from '../features/playground/PlaygroundScreen';
import { ReconciliationScreen } from '../features/reconciliation/ReconciliationScreen';
import { SettingsScreen } from '../features/settings/SettingsScreen';
import { WebhooksScreen } from '../features/webhooks/WebhooksScreen';
import type { Route } from './use-route';

/** One case per screen; each screen reads its own id and params from the route. */
export function CurrentScreen({ route, label, description }: { route: Route; label: string; description: string }) {
  switch (route.screen) {
    case 'payins':
      return <PayinsScreen id={route.id} params={route.params} />;
    case 'payouts':
      return <PayoutsScreen id={route.id} params={route.params} />;
    case 'settings':
      return <SettingsScreen />;
    case 'codes':
      return <CodeExplorerScreen />;
    case 'reconciliation':
      return <ReconciliationScreen />;
    case 'playground':
      return <PlaygroundScreen tab={route.params.tab} />;
    case 'webhooks':
      return <WebhooksScreen id={route.id} />;
    default:
      return <PlaceholderScreen title={label} description={description} />;
  }
}
