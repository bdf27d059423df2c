// Payouts, keyed by merchantReference per profile (the payout's own request reference, spec 2.7).
import type { Ledger } from '../connection';
import { systemClock, type Clock } from '../support';
import {
  TransactionsStore,
  toBaseRecord,
  type BaseRow,
  type CreateAnswer,
  type RequestFacts,
  type StatusApplied,
  type TransactionRecord,
} from './transactions';

export interface PayoutRecord extends TransactionRecord {
  merchantReference: string;
  payoutId: string | null;
}

export interface PayoutRequest extends RequestFacts {
  merchantReference: string;
}

export interface PayoutCreateAnswer extends Omit<CreateAnswer, 'gatewayId'> {
  payoutId?: string | null;
}

interface PayoutRow extends BaseRow {
  merchant_reference: string;
  payout_id: string | null;
}

export class PayoutsRepository extends TransactionsStore<PayoutRecord, PayoutRow> {
  constructor(db: Ledger, now: Clock = systemClock) {
    super(db, now, { table: 'payouts', kind: 'payout', reference: 'merchant_reference', gatewayId: 'payout_id' });
  }

  protected toRecord(r: PayoutRow): PayoutRecord {
    // Object.assign, not a spread: see PayinsRepository.toRecord.
    return Object.assign(toBaseRecord(r), { merchantReference: r.merchant_reference, payoutId: r.payout_id });
  }

  /** The row of a payout about to be sent (status null until the gateway answers). */
  recordRequest(request: PayoutRequest): PayoutRecord {
    return this.recordRequestRow(request, request.merchantReference, {});
  }

  applyCreateAnswer(id: number, answer: PayoutCreateAnswer): StatusApplied<PayoutRecord> {
    const { payoutId, ...rest } = answer;
    return this.applyCreateAnswerRow(id, { ...rest, gatewayId: payoutId }, {});
  }

  /** recordRequest and applyCreateAnswer in one transaction. */
  upsertFromCreate(request: PayoutRequest, answer: PayoutCreateAnswer): PayoutRecord {
    return this.db.transaction(() => this.applyCreateAnswer(this.recordRequest(request).id, answer).record)();
  }

  byMerchantReference(profileId: string, merchantReference: string): PayoutRecord | undefined {
    const row = this.sql('SELECT * FROM payouts WHERE merchant_reference = ? AND profile_id = ?')
      .get(merchantReference, profileId) as PayoutRow | undefined;
    return row && this.toRecord(row);
  }

  byPayoutId(payoutId: string, profileId?: string): PayoutRecord | undefined {
    const row = (
      profileId === undefined
        ? this.sql('SELECT * FROM payouts WHERE payout_id = ? ORDER BY id LIMIT 1').get(payoutId)
        : this.sql('SELECT * FROM payouts WHERE payout_id = ? AND profile_id = ?').get(payoutId, profileId)
    ) as PayoutRow | undefined;
    return row && this.toRecord(row);
  }
}
