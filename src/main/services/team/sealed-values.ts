// Everything a team server keeps sealed under its envelope key (envelope-key.ts): the credentials
// of server_secrets (merchant-tokens, JWT private keys, the approvals' digest key) and each
// person's second-factor secret. Rotation re-seals them all; a backup records which keys they
// need, and a restore proves the key it is given opens every one (server/backup.ts).
import type { Repositories } from '../../ledger/repositories/index';
import { EnvelopeKey } from './envelope-key';

/** The account a person's second-factor secret is sealed for (bound into its seal). */
export const totpAccount = (userId: string): string => `totp:${userId}`;

export interface SealedValue {
  account: string;
  sealed: string;
}

export async function sealedValues(repos: Pick<Repositories, 'serverSecrets' | 'team'>): Promise<SealedValue[]> {
  const values: SealedValue[] = (await repos.serverSecrets.all()).map(({ account, sealed }) => ({ account, sealed }));
  for (const user of await repos.team.users()) {
    for (const sealed of [user.totpSecret, user.totpPending]) if (sealed) values.push({ account: totpAccount(user.id), sealed });
  }
  return values;
}

/** The ids of the keys that sealed them (never a key itself), sorted. */
export function keyIdsOf(values: readonly SealedValue[]): string[] {
  return [...new Set(values.map((v) => EnvelopeKey.idOf(v.sealed) ?? '(unknown form)'))].sort();
}

/** The accounts whose sealed value this key does not open: [] when it opens every one. */
export function notOpenedBy(key: EnvelopeKey, values: readonly SealedValue[]): string[] {
  return values.filter((v) => !opens(key, v)).map((v) => v.account);
}

function opens(key: EnvelopeKey, value: SealedValue): boolean {
  try {
    key.open(value.sealed, value.account);
    return true;
  } catch {
    return false;
  }
}
