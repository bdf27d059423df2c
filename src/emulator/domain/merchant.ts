// The one merchant this emulator serves, and the admin switches that reach codes 509 and 514.
import { timingSafeEqual } from 'node:crypto';
import type { MerchantCredentials } from '../options';
import type { Ids } from '../runtime';
import type { MetaRepo } from '../store/meta';

export interface MerchantSettings {
  active: boolean;
  disabled_methods: string[];
}

export const DEFAULT_SETTINGS: MerchantSettings = { active: true, disabled_methods: [] };

/** Fixed credentials win; missing ones come from the stored state, or are generated once. */
export function loadMerchant(meta: MetaRepo, ids: Ids, fixed: Partial<MerchantCredentials> | undefined): MerchantCredentials {
  const stored = meta.get<MerchantCredentials>('merchant');
  const merchant: MerchantCredentials = {
    merchant_id: fixed?.merchant_id ?? stored?.merchant_id ?? ids.secret('mer_').slice(0, 16),
    merchant_site_id: fixed?.merchant_site_id ?? stored?.merchant_site_id ?? ids.secret('site_').slice(0, 17),
    merchant_token: fixed?.merchant_token ?? stored?.merchant_token ?? ids.secret('mt_'),
  };
  meta.set('merchant', merchant);
  return merchant;
}

export class MerchantAccount {
  /** Read on every create, so kept in memory; written through on change (one process owns the state). */
  private current: Readonly<MerchantSettings>;
  private readonly token: Buffer;

  constructor(
    readonly credentials: MerchantCredentials,
    private readonly meta: MetaRepo,
  ) {
    this.current = { ...DEFAULT_SETTINGS, ...meta.get<MerchantSettings>('settings') };
    this.token = Buffer.from(credentials.merchant_token, 'utf8');
  }

  get id(): string {
    return this.credentials.merchant_id;
  }

  get siteId(): string {
    return this.credentials.merchant_site_id;
  }

  /** Constant-time comparison: the token is a secret. */
  tokenMatches(candidate: string): boolean {
    const given = Buffer.from(candidate, 'utf8');
    return given.length === this.token.length && timingSafeEqual(given, this.token);
  }

  get settings(): Readonly<MerchantSettings> {
    return this.current;
  }

  updateSettings(patch: Partial<MerchantSettings>): MerchantSettings {
    const next = { ...this.current, ...patch };
    this.meta.set('settings', next);
    this.current = next;
    return next;
  }
}
