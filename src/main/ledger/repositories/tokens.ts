// Vaulted card tokens: the gateway's token reference and card metadata (brand, first 6, last 4,
// expiry). Never the PAN or CVV; the table's CHECKs refuse anything longer than 6 / 4 digits.
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';

export type TokenState = 'active' | 'revoked';

export interface CardToken {
  id: number;
  profileId: string;
  tokenRef: string;
  brand: string | null;
  bin: string | null;
  last4: string | null;
  expMonth: string | null;
  expYear: string | null;
  payinId: string | null;
  requestId: string | null;
  state: TokenState;
  createdAt: string;
  updatedAt: string;
}

export interface VaultedToken {
  profileId: string;
  tokenRef: string;
  brand?: string | null;
  bin?: string | null;
  last4?: string | null;
  expMonth?: string | null;
  expYear?: string | null;
  payinId?: string | null;
  requestId?: string | null;
}

interface TokenRow {
  id: number;
  profile_id: string;
  token_ref: string;
  brand: string | null;
  bin: string | null;
  last4: string | null;
  exp_month: string | null;
  exp_year: string | null;
  payin_id: string | null;
  request_id: string | null;
  state: TokenState;
  created_at: string;
  updated_at: string;
}

const toToken = (r: TokenRow): CardToken => ({
  id: r.id,
  profileId: r.profile_id,
  tokenRef: r.token_ref,
  brand: r.brand,
  bin: r.bin,
  last4: r.last4,
  expMonth: r.exp_month,
  expYear: r.exp_year,
  payinId: r.payin_id,
  requestId: r.request_id,
  state: r.state,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class TokensRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  /**
   * Inserts the token, or fills in metadata it lacked (a duplicate notification changes nothing). The
   * stored row's columns are named by their table: PostgreSQL finds a bare name ambiguous beside `excluded`.
   */
  async upsert(token: VaultedToken): Promise<CardToken> {
    const at = isoTime(this.now());
    await this.db.run(`INSERT INTO card_tokens (profile_id, token_ref, brand, bin, last4, exp_month, exp_year, payin_id, request_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (token_ref, profile_id) DO UPDATE SET
           brand = coalesce(card_tokens.brand, excluded.brand), bin = coalesce(card_tokens.bin, excluded.bin), last4 = coalesce(card_tokens.last4, excluded.last4),
           exp_month = coalesce(card_tokens.exp_month, excluded.exp_month), exp_year = coalesce(card_tokens.exp_year, excluded.exp_year),
           payin_id = coalesce(card_tokens.payin_id, excluded.payin_id), request_id = coalesce(card_tokens.request_id, excluded.request_id),
           updated_at = excluded.updated_at`, [token.profileId, token.tokenRef, token.brand ?? null, token.bin ?? null, token.last4 ?? null, token.expMonth ?? null,
        token.expYear ?? null, token.payinId ?? null, token.requestId ?? null, at, at]);
    const stored = await this.byRef(token.profileId, token.tokenRef);
    if (!stored) throw new Error(`token ${token.tokenRef} was not stored`);
    return stored;
  }

  async byId(id: number): Promise<CardToken | undefined> {
    const row = (await this.db.get('SELECT * FROM card_tokens WHERE id = ?', [id])) as TokenRow | undefined;
    return row && toToken(row);
  }

  async byRef(profileId: string, tokenRef: string): Promise<CardToken | undefined> {
    const row = (await this.db.get('SELECT * FROM card_tokens WHERE token_ref = ? AND profile_id = ?', [tokenRef, profileId])) as TokenRow | undefined;
    return row && toToken(row);
  }

  /** Newest first. */
  async list(profileId: string, state?: TokenState): Promise<CardToken[]> {
    const rows = (
      state === undefined
        ? (await this.db.all('SELECT * FROM card_tokens WHERE profile_id = ? ORDER BY created_at DESC, id DESC', [profileId]))
        : (await this.db.all('SELECT * FROM card_tokens WHERE profile_id = ? AND state = ? ORDER BY created_at DESC, id DESC', [profileId, state]))
    ) as TokenRow[];
    return rows.map(toToken);
  }

  /** Marks a token unusable in Paydesk (e.g. after INVALID_OR_EXPIRED_TOKEN); it is kept as history. */
  async revoke(id: number): Promise<CardToken | undefined> {
    await this.db.run("UPDATE card_tokens SET state = 'revoked', updated_at = ? WHERE id = ?", [isoTime(this.now()), id]);
    return this.byId(id);
  }
}
