// Payouts. The destination is stored masked (no full card number, IBAN or account number).
import type { EmulatorDb } from './database';

export interface PayoutRecord {
  payout_id: string;
  merchant_id: string;
  merchant_reference: string;
  method: string;
  amount: string;
  currency: string;
  email: string;
  status_code: string;
  reason_code: string | null;
  scenario: string | null;
  notification_url: string;
  /** Masked payment details, for the admin view. */
  destination: Record<string, string>;
  created_at: string;
  updated_at: string;
}

type Row = Omit<PayoutRecord, 'destination'> & { destination: string };
const fromRow = (r: Row): PayoutRecord => ({ ...r, destination: JSON.parse(r.destination) as Record<string, string> });

export class PayoutRepo {
  constructor(private readonly db: EmulatorDb) {}

  insert(p: PayoutRecord): void {
    this.db
      .statement(
        `INSERT INTO payouts (payout_id, merchant_id, merchant_reference, method, amount, currency, email, status_code,
           reason_code, scenario, notification_url, destination, created_at, updated_at)
         VALUES (@payout_id, @merchant_id, @merchant_reference, @method, @amount, @currency, @email, @status_code,
           @reason_code, @scenario, @notification_url, @destination, @created_at, @updated_at)`,
      )
      .run({ ...p, destination: JSON.stringify(p.destination) });
  }

  byId(payoutId: string): PayoutRecord | undefined {
    const row = this.db.statement('SELECT * FROM payouts WHERE payout_id = ?').get(payoutId) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** The newest payout of this merchant with this merchantReference (a status read by reference). */
  latestByMerchantReference(merchantId: string, reference: string): PayoutRecord | undefined {
    const row = this.db
      .statement('SELECT * FROM payouts WHERE merchant_id = ? AND merchant_reference = ? ORDER BY created_at DESC, rowid DESC LIMIT 1')
      .get(merchantId, reference) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  transition(payoutId: string, from: string, to: string, reason: string | null, at: string): boolean {
    return (
      this.db
        .statement('UPDATE payouts SET status_code = ?, reason_code = ?, updated_at = ? WHERE payout_id = ? AND status_code = ?')
        .run(to, reason, at, payoutId, from).changes === 1
    );
  }

  nonFinal(): PayoutRecord[] {
    return (this.db.statement("SELECT * FROM payouts WHERE status_code IN ('P100', 'P101')").all() as Row[]).map(fromRow);
  }
}
