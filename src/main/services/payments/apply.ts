// Create-call answers → ledger facts. Every status goes through the repositories' forward-only
// applyStatus (a final status never regresses; a contradicting final one is kept as a conflict).
// Status reads are applied by the verification's StatusReader, the one path for every read.
import type { ErrorResponse } from '../../../shared/spec/schemas';
import type { Repositories } from '../../ledger/repositories/index';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';

type Loose = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const code = (value: unknown): string | number | null => (typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : null);

/** The pay-in create answer (2.2), or the error answer (2.3) of a refused request. */
export async function applyPayinCreateAnswer(repos: Repositories, row: Pick<PayinRecord, 'id'>, body: Loose): Promise<void> {
  await repos.payins.applyCreateAnswer(row.id, {
    payinId: text(body.payin_id),
    redirectUrl: text(body.redirect_url),
    statusCode: code(body.status_code),
    reasonCode: text(body.reason_code),
    createdAt: text(body.created_at),
  });
}

export async function applyPayoutCreateAnswer(repos: Repositories, row: Pick<PayoutRecord, 'id'>, body: Loose): Promise<void> {
  await repos.payouts.applyCreateAnswer(row.id, {
    payoutId: text(body.payout_id),
    statusCode: code(body.status_code),
    reasonCode: text(body.reason_code),
    createdAt: text(body.created_at),
  });
}

/** A refused create call carries the refusal's code on the row; one without a code (a bare 413) changes nothing. */
export async function applyRefusal(repos: Repositories, row: { kind: 'payin'; record: Pick<PayinRecord, 'id'> } | { kind: 'payout'; record: Pick<PayoutRecord, 'id'> }, body: ErrorResponse): Promise<void> {
  const statusCode = code(body.status_code);
  if (statusCode === null) return;
  const answer = { statusCode, reasonCode: text(body.reason_code) };
  if (row.kind === 'payin') await repos.payins.applyCreateAnswer(row.record.id, answer);
  else await repos.payouts.applyCreateAnswer(row.record.id, answer);
}
