// Adapters for the ledger views, the webhook inspector, reconciliation and the evidence pack.
import type { EvidenceService } from '../services/evidence/evidence-service';
import type { LedgerViews } from '../services/ledger-views/ledger-views';
import type { NotificationInspector } from '../services/ledger-views/notification-inspector';
import type { ReconciliationService } from '../services/reconciliation/reconciliation-service';
import type { Handlers } from './dispatcher';

type LedgerChannels = 'payins:list' | 'payins:count' | 'payouts:list' | 'payouts:count' | 'search:lookup' | 'payins:timeline' | 'payouts:timeline' | 'codes:usage';
type NotificationChannels = 'notifications:list' | 'notifications:replay';
type ReconciliationChannels =
  | 'reconciliation:totals'
  | 'reconciliation:summary'
  | 'reconciliation:exceptions'
  | 'reconciliation:sweep-start'
  | 'reconciliation:sweep-cancel'
  | 'reconciliation:sweep-status'
  | 'reconciliation:export-csv'
  | 'evidence:export';

export function ledgerHandlers({ views }: { views: LedgerViews }): Pick<Handlers, LedgerChannels> {
  return {
    'payins:list': (input) => views.listPayins(input),
    'payins:count': (input) => ({ total: views.countPayins(input) }),
    'payouts:list': (input) => views.listPayouts(input),
    'payouts:count': (input) => ({ total: views.countPayouts(input) }),
    'search:lookup': ({ query }) => ({ matches: views.lookup(query), orphans: views.lookupOrphans(query) }),
    'payins:timeline': ({ id }) => views.payinTimeline(id),
    'payouts:timeline': ({ id }) => views.payoutTimeline(id),
    'codes:usage': () => views.codesUsage(),
  };
}

/** `publish` announces a stored notification; the applier announces what it applies, so a replayed malformed copy (never applied) is announced here. */
export function notificationHandlers({ inspector, publish }: { inspector: NotificationInspector; publish?: (id: number) => void }): Pick<Handlers, NotificationChannels> {
  return {
    'notifications:list': (input) => inspector.list(input),
    'notifications:replay': ({ id }) => {
      const { notification, replayOf, needsVerification } = inspector.replay(id);
      if (notification.outcome === 'malformed' && notification.id !== replayOf) publish?.(notification.id);
      return { notification, replayOf, needsVerification };
    },
  };
}

export function reconciliationHandlers({ reconciliation, evidence }: { reconciliation: ReconciliationService; evidence: EvidenceService }): Pick<Handlers, ReconciliationChannels> {
  return {
    'reconciliation:totals': (input) => reconciliation.totals(input),
    'reconciliation:summary': ({ profileId, pendingOlderThanMinutes }) => reconciliation.summary(profileId, pendingOlderThanMinutes),
    'reconciliation:exceptions': (input) => reconciliation.exceptions(input),
    'reconciliation:sweep-start': (input) => reconciliation.startSweep(input),
    'reconciliation:sweep-cancel': ({ id }) => reconciliation.cancelSweep(id),
    'reconciliation:sweep-status': () => reconciliation.sweepStatus(),
    'reconciliation:export-csv': (input) => reconciliation.exportCsv(input),
    'evidence:export': ({ subject, id }) => evidence.export(subject, id),
  };
}
