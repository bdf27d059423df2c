import { Loader } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { CodeExplorerScreen } from '../features/codes/CodeExplorerScreen';
import { PayinsScreen } from '../features/payins/PayinsScreen';
import { PlaceholderScreen } from '../features/PlaceholderScreen';
import type { Route } from './use-route';

// Pay-ins, the screen most sessions open on, and the small code explorer ship in the first bundle;
// the other screens (charts, CSV parsing, JWT tools…) load when first opened, so a cold start
// parses a fraction of the code.
const PayoutsScreen = lazy(() => import('../features/payouts/PayoutsScreen').then((m) => ({ default: m.PayoutsScreen })));
const SettingsScreen = lazy(() => import('../features/settings/SettingsScreen').then((m) => ({ default: m.SettingsScreen })));
const NoticeSettingsScreen = lazy(() => import('../features/notices/NoticeSettingsScreen').then((m) => ({ default: m.NoticeSettingsScreen })));
const ReconciliationScreen = lazy(() => import('../features/reconciliation/ReconciliationScreen').then((m) => ({ default: m.ReconciliationScreen })));
const PlaygroundScreen = lazy(() => import('../features/playground/PlaygroundScreen').then((m) => ({ default: m.PlaygroundScreen })));
const ApprovalsScreen = lazy(() => import('../features/approvals/ApprovalsScreen').then((m) => ({ default: m.ApprovalsScreen })));
const WebhooksScreen = lazy(() => import('../features/webhooks/WebhooksScreen').then((m) => ({ default: m.WebhooksScreen })));

/** One case per screen; each screen reads its own id and params from the route. */
export function CurrentScreen({ route, label, description }: { route: Route; label: string; description: string }) {
  return <Suspense fallback={<Loader size="sm" aria-label="Loading screen" />}>{screenFor(route, label, description)}</Suspense>;
}

function screenFor(route: Route, label: string, description: string) {
  switch (route.screen) {
    case 'payins':
      return <PayinsScreen id={route.id} params={route.params} />;
    case 'payouts':
      return <PayoutsScreen id={route.id} params={route.params} />;
    case 'settings':
      // #/settings/notices: the notices' own settings (choices, channels, thresholds).
      return route.id === 'notices' ? <NoticeSettingsScreen /> : <SettingsScreen params={route.params} />;
    case 'codes':
      return <CodeExplorerScreen />;
    case 'reconciliation':
      return <ReconciliationScreen />;
    case 'playground':
      return <PlaygroundScreen tab={route.params.tab} />;
    case 'webhooks':
      return <WebhooksScreen id={route.id} />;
    case 'approvals':
      return <ApprovalsScreen id={route.id} />;
    default:
      return <PlaceholderScreen title={label} description={description} />;
  }
}
