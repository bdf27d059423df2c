// Payouts, keyed by merchantReference per profile (the payout's own request reference, spec 2.7).
import type { Sql } from '../engine/types';
import { systemClock, type Clock } from '../support';
import { placeholders } from './page';
import {
  TransactionsStore,
  toBaseRecord,
  type BaseRow,
  type RequestFacts,
  type StatusColumns,
  type TransactionRecord,
} from './transactions';

export interface PayoutRecord extends TransactionRecord {
  merchantReference: string;
  payoutId: string | null;
}

export interface PayoutRequest extends RequestFacts {
  merchantReference: string;
  /** Who is paid, normalised (shared/payout-destination.ts beneficiaryKey); null when unknown. */
  beneficiaryKey?: string | null;
}

/** An earlier payout to a beneficiary (PayoutsRepository.toBeneficiaries). */
export interface BeneficiaryPayout {
  id: number;
  merchantReference: string;
  beneficiaryKey: string;
  amount: string;
  currency: string;
  statusCode: string | null;
  final: boolean;
  createdAt: string;
}

interface PayoutRow extends BaseRow {
  merchant_reference: string;
  payout_id: string | null;
}

export class PayoutsRepository extends TransactionsStore<PayoutRecord, PayoutRow, PayoutRequest> {
  constructor(db: Sql, now: Clock = systemClock, statusWritten?: (before: StatusColumns, record: PayoutRecord) => Promise<void>) {
    super(db, now, 'payout', statusWritten);
  }

  protected toRecord(r: PayoutRow): PayoutRecord {
    // Object.assign, not a spread: see PayinsRepository.toRecord.
    return Object.assign(toBaseRecord(r), { merchantReference: r.merchant_reference, payoutId: r.payout_id });
  }

  async recordRequest(request: PayoutRequest): Promise<PayoutRecord> {
    return this.recordRequestRow(request, request.merchantReference, { beneficiary_key: request.beneficiaryKey ?? null });
  }

  /**
   * The profile's payouts to these beneficiaries (keys) created at or after `since`, newest first,
   * except those that failed for good (a final status other than P200: nothing was paid). Read
   * through payouts_beneficiary (migration 0019): only the rows of these keys are visited.
   */
  async toBeneficiaries(profileId: string, keys: readonly string[], since: string): Promise<BeneficiaryPayout[]> {
    if (keys.length === 0) return [];
    const rows = await this.db.all<{ id: number; merchant_reference: string; beneficiary_key: string; amount: string; currency: string; status_code: string | null; final: number; created_at: string }>(
      `SELECT id, merchant_reference, beneficiary_key, amount, currency, status_code, final, created_at FROM payouts
       WHERE profile_id = ? AND beneficiary_key IN (${placeholders(keys)}) AND created_at >= ? AND NOT (final = 1 AND status_code <> 'P200')
       ORDER BY created_at DESC, id DESC`,
      [profileId, ...keys, since],
    );
    return rows.map((r) => ({ id: Number(r.id), merchantReference: r.merchant_reference, beneficiaryKey: r.beneficiary_key, amount: r.amount, currency: r.currency, statusCode: r.status_code, final: r.final === 1, createdAt: r.created_at }));
  }

  /** A payout answer has no column of its own. */
  protected answerColumns(): Record<string, string | null> {
    return {};
  }

  /** byReference by its spec name (merchantReference). */
  async byMerchantReference(profileId: string, merchantReference: string): Promise<PayoutRecord | undefined> {
    return this.byReference(profileId, merchantReference);
  }

  /** byGatewayId by its spec name (payout_id). */
  async byPayoutId(payoutId: string, profileId?: string): Promise<PayoutRecord | undefined> {
    return this.byGatewayId(payoutId, profileId);
  }
}
