// Whether a profile's gateway can read a payout by its merchantReference. A payout whose create
// answer was lost has no payout_id, the only key the spec reads payouts by; reading it by
// merchantReference is an extension (our emulator has it: docs/emulator.md), which a gateway may
// lack. Once the gateway has said it cannot read by that key (an HTTP 400 to such a read asking for
// the payout_id: MISSING_PARAMS, or details naming payout_id), Paydesk does not
// ask it that way again: the refusal is kept in the ledger for the profile and the gateway address it
// has (so across restarts and instances, as a person expects of what a gateway said about itself); a
// profile moved to another address asks again. What settles such a payout is a resume under its own
// Idempotency-Key: the gateway answers a key it knows with its first answer, payout_id included.
import { isJsonObject } from '../../../shared/json';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import { isoTime } from '../../ledger/support';
import type { StatusAnswer } from './read-facts';

/** When the gateway said it cannot read payouts by merchantReference, and what it answered. */
export interface ReferenceReadRefusal {
  at: string;
  /** The answer as a status read records it ("HTTP 400 MISSING_PARAMS"). */
  answer: string;
}

interface Stored extends ReferenceReadRefusal {
  baseUrl: string;
}

const keyOf = (profileId: string) => `gateway.payoutReadByReference.${profileId}`;

const whenText = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

/** What Paydesk says of such a payout, wherever it says it in words (a read not sent, the Unknown outcomes list, a refused re-read). */
export function refusedReferenceReadText(refusal: ReferenceReadRefusal): string {
  return `this gateway reads payouts by payout_id only (asked by merchantReference at ${whenText(refusal.at)}, it answered ${refusal.answer}), so Paydesk does not ask it that way again; resume the payout under the same Idempotency-Key, which the gateway answers with its first answer`;
}

/**
 * The answer to a read by merchantReference that says the gateway cannot read payouts that way: an
 * HTTP 400 asking for the payout_id (MISSING_PARAMS, or details naming payout_id). "No such payout"
 * (a 400 naming merchantReference) is the lookup working, and any other refusal (the merchant
 * inactive, a bad token) says nothing about the key.
 */
export function refusesReferenceReads(answer: StatusAnswer): boolean {
  if (answer.kind !== 'rejected' || answer.status !== 400) return false;
  const { details, reason_code: reason } = answer.body as { details?: unknown; reason_code?: unknown };
  if (isJsonObject(details) && 'merchantReference' in details) return false;
  return reason === 'MISSING_PARAMS' || (isJsonObject(details) && 'payout_id' in details);
}

export class ReferenceReads {
  constructor(private readonly repos: Pick<Repositories, 'settings' | 'profiles'>) {}

  /** The gateway's refusal, if this profile's gateway (at its current address) has said it cannot read by merchantReference. */
  async refusal(profile: Pick<Profile, 'id' | 'baseUrl'>): Promise<ReferenceReadRefusal | null> {
    const text = await this.repos.settings.get(keyOf(profile.id));
    if (text === undefined) return null;
    const stored = JSON.parse(text) as Partial<Stored>;
    if (stored.baseUrl !== profile.baseUrl || typeof stored.at !== 'string' || typeof stored.answer !== 'string') return null;
    return { at: stored.at, answer: stored.answer };
  }

  /** The same, by profile id (a list's rows); null for a profile that is gone. */
  async refusalFor(profileId: string): Promise<ReferenceReadRefusal | null> {
    const profile = await this.repos.profiles.get(profileId);
    return profile ? this.refusal(profile) : null;
  }

  /** Remembers the refusal (part of the open transaction: the read that carried it is recorded with it). */
  async remember(profile: Pick<Profile, 'id' | 'baseUrl'>, answer: string, at: Date): Promise<void> {
    const stored: Stored = { at: isoTime(at), answer, baseUrl: profile.baseUrl };
    await this.repos.settings.put(new Map([[keyOf(profile.id), JSON.stringify(stored)]]));
  }
}
