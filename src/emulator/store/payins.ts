// Pay-ins (plain, tokenization and token charge). The request body itself is not stored: it
// may hold card data, and nothing but the fields below is ever answered.
import type { EmulatorDb } from './database';
import type { CardMetadata } from './tokens';

export type PayinKind = 'payin' | 'tokenization' | 'token_charge';

export interface PayinUrls {
  notification_link: string;
  success_url: string;
  pending_url: string;
  fail_url: string;
  back_url: string;
  tokenization_notification_url?: string;
  redirect_url?: string;
}

export interface PayinRecord {
  payin_id: string;
  merchant_id: string;
  request_id: string;
  kind: PayinKind;
  payment_method: string;
  /** Exact decimal text. */
  amount: string;
  currency: string;
  email: string;
  country: string;
  status_code: number;
  reason_code: string | null;
  /** Status code requested by a +s<code> e-mail tag. */
  scenario: string | null;
  urls: PayinUrls;
  card: CardMetadata | null;
  /** For token charges: the token that was charged. */
  token: string | null;
  created_at: string;
  updated_at: string;
}

type Row = Omit<PayinRecord, 'urls' | 'card'> & { urls: string; card: string | null };

const fromRow = (r: Row): PayinRecord => ({
  ...r,
  urls: JSON.parse(r.urls) as PayinUrls,
  card: r.card === null ? null : (JSON.parse(r.card) as CardMetadata),
});

export class PayinRepo {
  constructor(private readonly db: EmulatorDb) {}

  /** False when the merchant already used this request_id (the unique index refuses it). */
  insert(p: PayinRecord): boolean {
    const r = this.db
      .statement(
        `INSERT OR IGNORE INTO payins (payin_id, merchant_id, request_id, kind, payment_method, amount, currency, email, country,
           status_code, reason_code, scenario, urls, card, token, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      // Positional: cheaper on every create than binding 17 named parameters from a spread copy.
      .run(
        p.payin_id, p.merchant_id, p.request_id, p.kind, p.payment_method, p.amount, p.currency, p.email, p.country,
        p.status_code, p.reason_code, p.scenario, JSON.stringify(p.urls), p.card === null ? null : JSON.stringify(p.card), p.token, p.created_at, p.updated_at,
      );
    return r.changes === 1;
  }

  byId(payinId: string): PayinRecord | undefined {
    const row = this.db.statement('SELECT * FROM payins WHERE payin_id = ?').get(payinId) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  byRequestId(merchantId: string, requestId: string): PayinRecord | undefined {
    const row = this.db.statement('SELECT * FROM payins WHERE merchant_id = ? AND request_id = ?').get(merchantId, requestId) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Moves the status only if it is still `from` (a state machine that never goes back). */
  transition(payinId: string, from: number, to: number, reason: string | null, at: string): boolean {
    return (
      this.db
        .statement('UPDATE payins SET status_code = ?, reason_code = ?, updated_at = ? WHERE payin_id = ? AND status_code = ?')
        .run(to, reason, at, payinId, from).changes === 1
    );
  }

  /** Non-final pay-ins that carry an automatic scenario, to resume after a restart. */
  pendingScenarios(): PayinRecord[] {
    return (this.db.statement('SELECT * FROM payins WHERE scenario IS NOT NULL AND status_code IN (100, 101)').all() as Row[]).map(fromRow);
  }

  count(): number {
    return (this.db.statement('SELECT COUNT(*) AS n FROM payins').get() as { n: number }).n;
  }

  recent(limit: number): PayinRecord[] {
    return (this.db.statement('SELECT * FROM payins ORDER BY created_at DESC, rowid DESC LIMIT ?').all(limit) as Row[]).map(fromRow);
  }
}
