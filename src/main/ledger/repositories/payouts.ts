// Payouts, keyed by merchantReference per profile (the payout's own request reference, spec 2.7).
import type { Sql } from '../engine/types';
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

export class PayoutsRepository extends TransactionsStore<PayoutRecord, PayoutRow, PayoutRequest, PayoutCreateAnswer> {
  constructor(db: Sql, now: Clock = systemClock) {
    super(db, now, { table: 'payouts', kind: 'payout', reference: 'merchant_reference', gatewayId: 'payout_id' });
  }

  protected toRecord(r: PayoutRow): PayoutRecord {
    // Object.assign, not a spread: see PayinsRepository.toRecord.
    return Object.assign(toBaseRecord(r), { merchantReference: r.merchant_reference, payoutId: r.payout_id });
  }

  async recordRequest(request: PayoutRequest): Promise<PayoutRecord> {
    return this.recordRequestRow(request, request.merchantReference, {});
  }

  async applyCreateAnswer(id: number, answer: PayoutCreateAnswer): Promise<StatusApplied<PayoutRecord>> {
    const { payoutId, ...rest } = answer;
    return this.applyCreateAnswerRow(id, { ...rest, gatewayId: payoutId }, {});
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
