// Vaulted cards. Only metadata is kept (brand, first 6, last 4, expiry): the emulator never
// needs the full number to "charge" a token, so it never stores one.
import type { EmulatorDb } from './database';

export interface CardMetadata {
  brand: string;
  bin: string;
  last4: string;
  exp_month: string;
  exp_year: string;
}

export interface TokenRecord extends CardMetadata {
  token: string;
  merchant_id: string;
  payin_id: string;
  revoked: boolean;
  created_at: string;
}

export class TokenRepo {
  constructor(private readonly db: EmulatorDb) {}

  insert(t: TokenRecord): void {
    this.db
      .statement(
        `INSERT INTO card_tokens (token, merchant_id, payin_id, brand, bin, last4, exp_month, exp_year, revoked, created_at)
         VALUES (@token, @merchant_id, @payin_id, @brand, @bin, @last4, @exp_month, @exp_year, @revoked, @created_at)`,
      )
      .run({ ...t, revoked: t.revoked ? 1 : 0 });
  }

  find(token: string): TokenRecord | undefined {
    const row = this.db.statement('SELECT * FROM card_tokens WHERE token = ?').get(token) as (Omit<TokenRecord, 'revoked'> & { revoked: number }) | undefined;
    return row ? { ...row, revoked: row.revoked === 1 } : undefined;
  }

  revoke(token: string): boolean {
    return this.db.statement('UPDATE card_tokens SET revoked = 1 WHERE token = ?').run(token).changes === 1;
  }
}
