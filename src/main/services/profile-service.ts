// Profiles: which gateway every action goes to and who we are there. The local-emulator profile is
// created on first run with no configuration; sandbox and live profiles are entered by the user.
import type { EnvironmentKind, ProfileInput, ProfileView } from '../../shared/contract';
import { notificationReach } from '../../shared/notification-reach';
import { EMULATOR_PROFILE_NAME, environmentLabels, GATEWAY_ADDRESS, gatewayBaseUrl as parseGatewayAddress, merchantIdProblem, notificationUrlProblem, profileNameProblem } from '../../shared/profile-rules';
import { type Profile, ProfileNameTakenError, type ProfilesRepository } from '../ledger/repositories/profiles';
import type { AuditLog } from '../ledger/repositories/audit-log';
import type { Transaction } from '../ledger/repositories';
import type { CredentialService, PublicKeyExport } from './credential-service';
import { ServiceError } from './errors';
import type { EventBus } from './event-bus';
import type { LocalGateway } from './local-gateway';

export { environmentLabels };

export interface ProfileServiceDeps {
  profiles: ProfilesRepository;
  audit: AuditLog;
  /** One unit of work (repos.transaction): a rename's audit entry and its mark commit together. */
  transaction: Transaction;
  credentials: CredentialService;
  events: EventBus;
  local: LocalGateway;
  notificationUrl: (profile: Profile) => string;
  /** Tells the listener that profile paths changed. */
  onPathsChanged: () => void;
  /** On a team server, each person's own active profile (else the ledger's one active profile). */
  choice?: ActiveProfileChoice;
}

export interface ActiveProfileChoice {
  /** The profile the person being served chose; null or undefined: none (the ledger's active one). */
  current(): string | null | undefined;
  choose(id: string): Promise<void>;
}

/** How each field is called where a refusal lists them (the form shows each beside its field). */
const FIELD_NAMES: Record<string, string> = {
  name: 'Name',
  baseUrl: 'Gateway address',
  merchantId: 'merchant_id',
  merchantSiteId: 'merchant_site_id',
  notificationPublicUrl: 'Notification public URL',
  confirmed: 'Confirmation',
};

function refused(fields: Record<string, string>): ServiceError {
  const listed = Object.entries(fields).map(([field, problem]) => `${FIELD_NAMES[field] ?? field}: ${problem}`);
  return new ServiceError('invalid_input', `The profile was not saved. ${listed.join(' ')}`, fields);
}

const ARCHIVE_INSTEAD = 'Archive it instead: an archived profile leaves the profile switcher and the pickers, its transactions stay visible and filterable, and it can be restored at any time.';

/** Which gateway and merchant a profile speaks to, and as whom: what its view and an evidence pack both show. */
export const profileIdentity = (profile: Profile) => ({
  id: profile.id,
  name: profile.name,
  environment: profile.environment,
  baseUrl: profile.baseUrl,
  merchantId: profile.merchantId,
  merchantSiteId: profile.merchantSiteId,
  kid: profile.kid,
});

export class ProfileService {
  /** The last profiles push under way (see publish). */
  private publishing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ProfileServiceDeps) {}

  /**
   * First run: a local-emulator profile, active, with nothing to configure. Later runs: follow the
   * emulator's port, and audit the renames an upgrade made (names made unique by migration 0020).
   */
  async ensureLocalProfile(): Promise<Profile> {
    const { profiles, local } = this.deps;
    await this.auditRenames();
    const facts = { baseUrl: local.baseUrl, merchantId: local.merchant.merchant_id, merchantSiteId: local.merchant.merchant_site_id };
    for (const profile of (await profiles.list()).filter((p) => p.environment === 'local')) await profiles.update(profile.id, facts);
    let profile = (await profiles.list()).find((p) => p.environment === 'local');
    if (!profile) profile = await profiles.create({ name: EMULATOR_PROFILE_NAME, environment: 'local', ...facts });
    if (!(await profiles.active())) await profiles.activate(profile.id);
    return (await profiles.get(profile.id)) ?? profile;
  }

  /** Each rename the upgrade made, audited once (several instances may start at once: the mark decides). */
  private async auditRenames(): Promise<void> {
    for (const rename of await this.deps.profiles.pendingRenames()) {
      await this.deps.transaction(async () => {
        if (!(await this.deps.profiles.markRenameAudited(rename.id))) return;
        const why = rename.reason === 'reserved' ? `“${EMULATOR_PROFILE_NAME}” is the embedded emulator's name` : 'an older profile has the same name';
        await this.deps.audit.append({ actor: 'system', action: 'profile.rename', profileId: rename.profileId, subject: rename.newName, details: { from: rename.oldName, to: rename.newName, why, upgrade: true, at: rename.renamedAt } });
      });
    }
  }

  /** The active profile for whoever is served: on a team server their own choice, unless it was archived since. */
  async active(): Promise<Profile> {
    const chosen = this.deps.choice?.current();
    const mine = chosen ? await this.deps.profiles.get(chosen) : undefined;
    const profile = (mine && mine.archivedAt === null ? mine : undefined) ?? (await this.deps.profiles.active());
    if (!profile) throw new ServiceError('not_found', 'No active profile: create or activate one in Settings.');
    return profile;
  }

  async require(id: string): Promise<Profile> {
    const profile = await this.deps.profiles.get(id);
    if (!profile) throw new ServiceError('not_found', `No profile with id ${id}.`);
    return profile;
  }

  /** The given profile, or the active one when none is given. */
  resolve(id: string | undefined): Promise<Profile> {
    return id === undefined ? this.active() : this.require(id);
  }

  /** The profile something is sent from: as resolve(), but never an archived one (its transactions stay readable). */
  async forSending(id: string | undefined): Promise<Profile> {
    const profile = await this.resolve(id);
    if (profile.archivedAt !== null) throw new ServiceError('conflict', `Profile “${profile.name}” is archived: nothing is sent from it. Restore it first (Settings → Profiles).`);
    return profile;
  }

  async list(): Promise<ProfileView[]> {
    const activeId = await this.activeId();
    return Promise.all((await this.deps.profiles.list()).map((profile) => this.view(profile, activeId)));
  }

  /** The active profile's id for whoever is served (their own choice on a team server). */
  private async activeId(): Promise<string | undefined> {
    return (await this.active().catch(() => undefined))?.id;
  }

  async view(profile: Profile, activeId?: string): Promise<ProfileView> {
    const notificationUrl = this.deps.notificationUrl(profile);
    return {
      ...profileIdentity(profile),
      notificationPublicUrl: profile.notificationPublicUrl,
      notificationUrl,
      notifications: notificationReach(profile.environment, notificationUrl),
      isActive: (activeId ?? (await this.activeId())) === profile.id,
      archivedAt: profile.archivedAt,
      // Spec 4, rule 3: payouts are unavailable in the sandbox.
      payoutsEnabled: profile.environment !== 'sandbox',
      credentials: await this.deps.credentials.states(profile),
    };
  }

  async create(input: ProfileInput): Promise<ProfileView> {
    const fields: Record<string, string> = {};
    const nameProblem = profileNameProblem(input.name, input.environment, await this.deps.profiles.list());
    if (nameProblem) fields.name = nameProblem;
    const facts = this.connectionFacts(input.environment, input, fields);
    this.checkNotificationUrl(input.environment, input.notificationPublicUrl ?? null, fields);
    if (Object.keys(fields).length > 0 || !facts) throw refused(fields);
    const profile = await this.named(input.name, () =>
      this.deps.profiles.create({ name: input.name, environment: input.environment, ...facts, notificationPublicUrl: input.notificationPublicUrl ?? null }),
    );
    await this.deps.audit.append({ actor: 'user', action: 'profile.create', profileId: profile.id, subject: profile.name, details: { environment: profile.environment, baseUrl: profile.baseUrl } });
    return this.changed(profile.id);
  }

  /** `confirmed`: the person confirmed that the active profile becomes live (a switch to live by another door). */
  async update(id: string, patch: Partial<ProfileInput>, confirmed = false): Promise<ProfileView> {
    const current = await this.require(id);
    const environment = patch.environment ?? current.environment;
    const fields: Record<string, string> = {};
    if (environment === 'live' && current.environment !== 'live' && !confirmed && (current.isActive || (await this.activeId()) === id)) {
      fields.confirmed = 'This is the active profile: saving it as live switches you to real money. Confirm it.';
    }
    if (patch.name !== undefined || patch.environment !== undefined) {
      const problem = profileNameProblem(patch.name ?? current.name, environment, await this.deps.profiles.list(), id);
      if (problem) fields.name = problem;
    }
    const connectionChanged = patch.environment !== undefined || patch.baseUrl !== undefined || patch.merchantId !== undefined || patch.merchantSiteId !== undefined;
    const facts = connectionChanged
      ? this.connectionFacts(
          environment,
          {
            baseUrl: patch.baseUrl ?? (environment === current.environment ? current.baseUrl : undefined),
            merchantId: patch.merchantId ?? current.merchantId,
            merchantSiteId: patch.merchantSiteId ?? current.merchantSiteId,
          },
          fields,
        )
      : {};
    // A live profile's public URL is checked again when the profile becomes live, not only when the URL changes.
    if (patch.notificationPublicUrl !== undefined || patch.environment !== undefined) {
      this.checkNotificationUrl(environment, patch.notificationPublicUrl !== undefined ? patch.notificationPublicUrl : current.notificationPublicUrl, fields);
    }
    if (Object.keys(fields).length > 0 || !facts) throw refused(fields);
    // The merchant-token goes out with every call: it must not follow the profile to another
    // address (a compromised renderer could otherwise point a profile at its own server). It is
    // forgotten first, so a failure leaves the old address with its token.
    const moved = environment !== current.environment || ('baseUrl' in facts && facts.baseUrl !== current.baseUrl);
    if (moved && current.environment !== 'local') await this.deps.credentials.clearMerchantToken(current);
    await this.named(patch.name ?? current.name, () =>
      this.deps.profiles.update(id, {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.environment !== undefined ? { environment } : {}),
        ...facts,
        ...(patch.notificationPublicUrl !== undefined ? { notificationPublicUrl: patch.notificationPublicUrl } : {}),
      }),
    );
    await this.deps.audit.append({ actor: 'user', action: 'profile.update', profileId: id, subject: current.name, details: { changed: Object.keys(patch) } });
    return this.changed(id);
  }

  /**
   * Makes a profile the active one (on a team server, the person's own). A live profile only with
   * `confirmed`: a switch to real money is never one stray click, whichever screen or client asks.
   */
  async activate(id: string, confirmed = false): Promise<ProfileView> {
    const profile = await this.require(id);
    if (profile.archivedAt !== null) throw new ServiceError('conflict', `Profile “${profile.name}” is archived: restore it first (Settings → Profiles).`);
    if (profile.environment === 'live' && !confirmed && (await this.activeId()) !== id) {
      throw new ServiceError('invalid_input', `Profile “${profile.name}” is live: every pay-in and payout sent while it is active moves real money. Confirm the switch to it.`, {
        confirmed: 'must be true: the person confirmed the switch to a live profile',
      });
    }
    if (this.deps.choice?.current() !== undefined) await this.deps.choice.choose(id);
    else await this.deps.profiles.activate(id);
    await this.deps.audit.append({ actor: 'user', action: 'profile.activate', profileId: id, subject: profile.name, details: { environment: profile.environment } });
    return this.changed(id);
  }

  /** Hides a profile from the switcher and the pickers; its transactions, listener path and credentials stay. */
  async archive(id: string): Promise<ProfileView> {
    const profile = await this.require(id);
    if (profile.archivedAt !== null) return this.view(profile);
    if (profile.isActive || (await this.activeId()) === id || !(await this.deps.profiles.archive(id))) {
      throw new ServiceError('conflict', `Profile “${profile.name}” is the active profile and cannot be archived: activate another one first.`);
    }
    await this.deps.audit.append({ actor: 'user', action: 'profile.archive', profileId: id, subject: profile.name, details: { environment: profile.environment } });
    return this.republished(id);
  }

  async restore(id: string): Promise<ProfileView> {
    const profile = await this.require(id);
    if (profile.archivedAt === null) return this.view(profile);
    await this.deps.profiles.restore(id);
    await this.deps.audit.append({ actor: 'user', action: 'profile.restore', profileId: id, subject: profile.name, details: { archivedAt: profile.archivedAt } });
    return this.republished(id);
  }

  async delete(id: string): Promise<{ deleted: boolean }> {
    const profile = await this.require(id);
    if (profile.isActive || (await this.activeId()) === id) throw new ServiceError('conflict', `Profile “${profile.name}” is the active profile and cannot be deleted: activate another one first.`);
    const outcome = await this.deps.profiles.delete(id);
    if (outcome === 'in_use') {
      throw new ServiceError(
        'conflict',
        `Profile “${profile.name}” cannot be deleted: it has transactions in the ledger (pay-ins, payouts or notifications), which keep the profile they were sent with. ` +
          (profile.archivedAt === null ? ARCHIVE_INSTEAD : 'It stays archived: hidden from the switcher and pickers, its transactions visible.'),
      );
    }
    await this.deps.credentials.forget(profile);
    await this.deps.audit.append({ actor: 'user', action: 'profile.delete', profileId: null, subject: profile.name, details: { id } });
    this.deps.onPathsChanged();
    await this.publish();
    return { deleted: outcome === 'deleted' };
  }

  /**
   * Pushes the profiles as they are now. One push at a time, each reading the list after the one
   * before has gone: reading credential states takes a while, and two changes in a row (create,
   * then activate) once pushed the older list last, so screens showed the profile active before.
   */
  publish(): Promise<void> {
    const next = this.publishing.then(async () => this.deps.events.publish('profiles:profiles-changed', await this.list()));
    this.publishing = next.catch(() => undefined);
    return next;
  }

  // A profile's credentials are part of its view (their states), so every change is pushed.

  async setMerchantToken(id: string, token: string): Promise<ProfileView> {
    await this.deps.credentials.setMerchantToken(await this.require(id), token);
    return this.republished(id);
  }

  async clearMerchantToken(id: string): Promise<ProfileView> {
    await this.deps.credentials.clearMerchantToken(await this.require(id));
    return this.republished(id);
  }

  async generateKey(id: string, kid?: string): Promise<PublicKeyExport> {
    const exported = await this.deps.credentials.generateKey(await this.require(id), kid);
    await this.publish();
    return exported;
  }

  async importKey(id: string, privateKey: string, kid?: string): Promise<PublicKeyExport> {
    const exported = await this.deps.credentials.importKey(await this.require(id), privateKey, kid);
    await this.publish();
    return exported;
  }

  async exportPublicKey(id: string): Promise<PublicKeyExport> {
    return this.deps.credentials.exportPublicKey(await this.require(id));
  }

  private async changed(id: string): Promise<ProfileView> {
    this.deps.onPathsChanged();
    return this.republished(id);
  }

  private async republished(id: string): Promise<ProfileView> {
    await this.publish();
    return this.view(await this.require(id));
  }

  /** A write that names a profile: the ledger's unique index has the last word when two people pick one name at once. */
  private async named<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof ProfileNameTakenError) throw refused({ name: `A profile is already named like “${name}”: names must differ by more than case and spaces.` });
      throw error;
    }
  }

  private checkNotificationUrl(environment: EnvironmentKind, url: string | null, fields: Record<string, string>): void {
    const problem = url === null ? null : notificationUrlProblem(environment, url);
    if (problem) fields.notificationPublicUrl = problem;
  }

  /** The gateway and who we are there; each problem goes into `fields` (undefined then). */
  private connectionFacts(
    environment: EnvironmentKind,
    input: { baseUrl?: string | undefined; merchantId?: string | undefined; merchantSiteId?: string | undefined },
    fields: Record<string, string>,
  ): { baseUrl: string; merchantId: string; merchantSiteId: string } | undefined {
    const { local } = this.deps;
    if (environment === 'local') {
      return { baseUrl: local.baseUrl, merchantId: local.merchant.merchant_id, merchantSiteId: local.merchant.merchant_site_id };
    }
    const address = input.baseUrl ? parseGatewayAddress(environment, input.baseUrl) : { problem: `Required for a ${environment} profile, e.g. ${GATEWAY_ADDRESS[environment].example}` };
    if ('problem' in address) fields.baseUrl = address.problem;
    const merchantId = merchantIdProblem('merchant_id', input.merchantId ?? '');
    if (merchantId) fields.merchantId = merchantId;
    const merchantSiteId = merchantIdProblem('merchant_site_id', input.merchantSiteId ?? '');
    if (merchantSiteId) fields.merchantSiteId = merchantSiteId;
    if ('problem' in address || merchantId || merchantSiteId) return undefined;
    return { baseUrl: address.baseUrl, merchantId: (input.merchantId ?? '').trim(), merchantSiteId: (input.merchantSiteId ?? '').trim() };
  }
}
