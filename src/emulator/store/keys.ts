// Merchant JWT public keys (registered through the admin API, as onboarding would) and the jti
// values already redeemed, which must never be accepted twice (spec 5, rule 4).
import type { EmulatorDb } from './database';

export interface KeyRecord {
  kid: string;
  merchant_id: string;
  public_jwk: Record<string, unknown>;
  created_at: string;
}

export class KeyRepo {
  constructor(private readonly db: EmulatorDb) {}

  upsert(key: KeyRecord): void {
    this.db
      .statement(
        `INSERT INTO jwt_keys (kid, merchant_id, public_jwk, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(kid) DO UPDATE SET merchant_id = excluded.merchant_id, public_jwk = excluded.public_jwk, created_at = excluded.created_at`,
      )
      .run(key.kid, key.merchant_id, JSON.stringify(key.public_jwk), key.created_at);
  }

  find(kid: string): KeyRecord | undefined {
    const row = this.db.statement('SELECT * FROM jwt_keys WHERE kid = ?').get(kid) as (Omit<KeyRecord, 'public_jwk'> & { public_jwk: string }) | undefined;
    return row ? { ...row, public_jwk: JSON.parse(row.public_jwk) as Record<string, unknown> } : undefined;
  }

  list(): KeyRecord[] {
    const rows = this.db.statement('SELECT * FROM jwt_keys ORDER BY created_at').all() as (Omit<KeyRecord, 'public_jwk'> & { public_jwk: string })[];
    return rows.map((r) => ({ ...r, public_jwk: JSON.parse(r.public_jwk) as Record<string, unknown> }));
  }

  isJtiUsed(merchantId: string, jti: string): boolean {
    return this.db.statement('SELECT 1 FROM used_jti WHERE merchant_id = ? AND jti = ?').get(merchantId, jti) !== undefined;
  }

  /** False when the jti was already used (the primary key refuses it). */
  markJtiUsed(merchantId: string, jti: string, at: string): boolean {
    return this.db.statement('INSERT OR IGNORE INTO used_jti (merchant_id, jti, used_at) VALUES (?, ?, ?)').run(merchantId, jti, at).changes === 1;
  }
}
