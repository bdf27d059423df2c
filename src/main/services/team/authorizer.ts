// The team server's guard around every contract call: the person's role must be allowed the
// channel (shared/contract/roles.ts); an approver the policy requires a second factor of uses none
// but the sign-in channels until they set one up; a developer works on sandbox and local-emulator
// profiles only: a call naming a live profile is refused, a call that could name a profile and
// does not is scoped to the developer's active profile (which must not be live), and an answer
// naming a live profile is withheld. The renderer hides and disables the same things; this is
// what holds when it does not.
import {
  type ContractErrorBody,
  type Envelope,
  type InvokeChannel,
  type TeamPolicy,
  invokeContract,
  isInvokeChannel,
  refusalText,
  roleAllows,
} from '../../../shared/contract';
import type { Profile } from '../../ledger/repositories/profiles';
import type { RequestPerson } from './request-context';

/** What a person whose second factor is required and missing may still call: to see and set up their sign-in. */
const SIGN_IN_CHANNELS = new Set<InvokeChannel>(['team:get-session', 'team:start-totp', 'team:confirm-totp', 'team:change-password', 'team:list-sessions', 'team:revoke-session', 'app:get-info', 'settings:get', 'settings:update']);

export interface AuthorizerDeps {
  profiles: { list(): Promise<Profile[]>; active(): Promise<Profile | undefined> };
  policy: () => Promise<TeamPolicy>;
}

export type Verdict = { ok: true; input: unknown } | { ok: false; error: ContractErrorBody };

const forbidden = (message: string): Verdict => ({ ok: false, error: { code: 'forbidden', message } });

export class Authorizer {
  constructor(private readonly deps: AuthorizerDeps) {}

  /** Before the call: whether this person may make it, and (a developer's) the input scoped to their profile. */
  async before(person: RequestPerson, channel: string, input: unknown): Promise<Verdict> {
    if (!isInvokeChannel(channel)) return { ok: true, input }; // the dispatcher answers unknown_channel
    if (person.role === 'approver' && !person.totpEnabled && !SIGN_IN_CHANNELS.has(channel) && (await this.deps.policy()).approverTotpRequired) {
      return forbidden('The team requires approvers to sign in with a second factor: set up your authenticator app in Settings → Your sign-in, then sign in again.');
    }
    if (!roleAllows(person.role, channel)) {
      return forbidden(refusalText(person.role, channel));
    }
    if (person.role !== 'developer') return { ok: true, input };
    return this.scopeToDeveloper(person, channel, input);
  }

  /** After the call: a developer's answer that names a live profile is withheld. */
  async after(person: RequestPerson, envelope: Envelope<unknown>): Promise<Envelope<unknown>> {
    if (person.role !== 'developer' || !envelope.ok) return envelope;
    const live = await this.liveProfileIds();
    if (live.size === 0 || !namesAny(envelope.value, live)) return envelope;
    return { ok: false, error: { code: 'forbidden', message: 'This belongs to a live profile: a developer works on sandbox and emulator profiles only.' } };
  }

  private async scopeToDeveloper(person: RequestPerson, channel: InvokeChannel, input: unknown): Promise<Verdict> {
    const live = await this.liveProfileIds();
    const named = isRecord(input) && typeof input.profileId === 'string' ? input.profileId : undefined;
    if (named !== undefined) {
      return live.has(named) ? forbidden('That is a live profile: a developer works on sandbox and emulator profiles only.') : { ok: true, input };
    }
    const schema = invokeContract[channel].input;
    const scoped = { ...(isRecord(input) ? input : {}), profileId: '' };
    if (!safeAccepts(schema, { ...scoped, profileId: 'probe' })) return { ok: true, input }; // the call names no profile
    const active = await this.activeProfile(person);
    if (!active || live.has(active.id)) {
      return forbidden('Your active profile is live: a developer works on sandbox and emulator profiles only. Choose a sandbox or emulator profile first.');
    }
    return { ok: true, input: { ...scoped, profileId: active.id } };
  }

  private async activeProfile(person: RequestPerson): Promise<Profile | undefined> {
    const profiles = await this.deps.profiles.list();
    // A choice archived since is no choice (ProfileService.active does the same).
    return profiles.find((p) => p.id === person.activeProfileId && p.archivedAt === null) ?? (await this.deps.profiles.active());
  }

  private async liveProfileIds(): Promise<Set<string>> {
    return new Set((await this.deps.profiles.list()).filter((p) => p.environment === 'live').map((p) => p.id));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function safeAccepts(schema: { safeParse(value: unknown): { success: boolean } }, value: unknown): boolean {
  try {
    return schema.safeParse(value).success;
  } catch {
    return false;
  }
}

/** Whether a value names one of these profile ids in a `profileId` field, at any depth. */
function namesAny(value: unknown, ids: ReadonlySet<string>, depth = 0): boolean {
  if (depth > 6 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => namesAny(item, ids, depth + 1));
  for (const [key, field] of Object.entries(value)) {
    if (key === 'profileId' && typeof field === 'string' && ids.has(field)) return true;
    if (typeof field === 'object' && namesAny(field, ids, depth + 1)) return true;
  }
  return false;
}
