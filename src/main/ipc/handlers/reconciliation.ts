import type { reconciliationContract } from '../../../shared/contract';
import type { EvidenceService } from '../../services/evidence/evidence-service';
import type { ReconciliationService } from '../../services/reconciliation/reconciliation-service';
import type { Handlers } from '../dispatcher';

export function reconciliationHandlers({ reconciliation, evidence }: { reconciliation: ReconciliationService; evidence: EvidenceService }): Pick<Handlers, keyof typeof reconciliationContract.invoke> {
  return {
    'reconciliation:totals': (input) => reconciliation.totals(input),
    'reconciliation:summary': (scope) => reconciliation.summary(scope),
    'reconciliation:exceptions': (input) => reconciliation.exceptions(input),
    'reconciliation:sweep-start': (input) => reconciliation.startSweep(input),
    'reconciliation:sweep-cancel': ({ id }) => reconciliation.cancelSweep(id),
    'reconciliation:sweep-status': () => reconciliation.sweepStatus(),
    'reconciliation:export-csv': (input) => reconciliation.exportCsv(input),
    'evidence:export': ({ subject, id }) => evidence.export(subject, id),
  };
}
