// A code leads to the list of the transactions that carry it. The lists read these hash params
// (agreed names: status, reason, category, method, currency).
import type { CodeKind } from '../../../shared/spec/codes';
import type { ScreenId } from '../../shell/screens';

export function codeListTarget(kind: CodeKind, code: string | number): { screen: ScreenId; params: Record<string, string> } {
  switch (kind) {
    case 'payin_status':
      return { screen: 'payins', params: { status: String(code) } };
    case 'payout_status':
      return { screen: 'payouts', params: { status: String(code) } };
    case 'reason':
      return { screen: 'payins', params: { reason: String(code) } };
  }
}

export const codeKindLabels: Record<CodeKind, string> = { payin_status: 'Pay-in status', payout_status: 'Payout status', reason: 'Reason' };
