// Profiles: which gateway every action goes to and who we are there. The local-emulator profile is
// created on first run with no configuration; sandbox and live profiles are entered by the user.
import type { EnvironmentKind, ProfileInput, ProfileView } from '../../shared/contract';
import { notificationReach } from '../../shared/notification-reach';
import type { Profile, ProfilesRepository } from '../ledger/repositories/profiles';
import type { AuditLog } from '../ledger/repositories/audit-log';
import type { CredentialService, PublicKeyExport } from './credential-service';
import { ServiceError } from './errors';
import type { EventBus } from './event-bus';
import type { LocalGateway } from './local-gateway';

export const environmentLabels: Record<EnvironmentKind, string> = {
  local: 'Local emulator',
  sandbox: 'Provider sandbox',
  live: 'Live',
};

export interface ProfileServiceDeps {
  profiles: ProfilesRepository;
  audit: AuditLog;
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

/** Sandbox: the user gives {sandbox_url} (ends in /api/); live: the base URL itself (ends in /api/v2). */
export function gatewayBaseUrl(environment: EnvironmentKind, entered: string): string {
  const url = new URL(entered.trim());
  const path = url.pathname.replace(/\/+$/, '');
  if (environment === 'sandbox') {
    if (path.endsWith('/api/v2')) return `${url.origin}${path}`;
    if (!path.endsWith('/api')) throw new ServiceError('invalid_input', 'The sandbox address must end in /api/ (the spec\'s {sandbox_url}).', { baseUrl: 'Must end in /api/' });
    return `${url.origin}${path}/v2`;
  }
  if (!path.endsWith('/api/v2')) {
    throw new ServiceError('invalid_input', 'The live base URL must end in /api/v2.', { baseUrl: 'Must end in /api/v2' });
  }
  if (url.protocol !== 'https:') throw new ServiceError('invalid_input', 'A live gateway must be reached over https.', { baseUrl: 'Must start with https://' });
  return `${url.origin}${path}`;
}

export class ProfileService {
  /** The last profiles push under way (see publish). */
  private publishing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ProfileServiceDeps) {}

  /** First run: a local-emulator profile, active, with nothing to configure. Later runs: follow the emulator's port. */
  async ensureLocalProfile(): Promise<Profile> {
    const { profiles, local } = this.deps;
    const facts = { baseUrl: local.baseUrl, merchantId: local.merchant.merchant_id, merchantSiteId: local.merchant.merchant_site_id };
    for (const profile of (await profiles.list()).filter((p) => p.environment === 'local')) await profiles.update(profile.id, facts);
    let profile = (await profiles.list()).find((p) => p.environment === 'local');
    if (!profile) profile = await profiles.create({ name: 'Local emulator', environment: 'local', ...facts });
    if (!(await profiles.active())) await profiles.activate(profile.id);
    return (await profiles.get(profile.id)) ?? profile;
  }

  async active(): Promise<Profile> {
    const chosen = this.deps.choice?.current();
    const profile = (chosen ? await this.deps.profiles.get(chosen) : undefined) ?? (await this.deps.profiles.active());
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
      id: profile.id,
      name: profile.name,
      environment: profile.environment,
      baseUrl: profile.baseUrl,
      merchantId: profile.merchantId,
      merchantSiteId: profile.merchantSiteId,
      kid: profile.kid,
      notificationPublicUrl: profile.notificationPublicUrl,
      notificationUrl,
      notifications: notificationReach(profile.environment, notificationUrl),
      isActive: (activeId ?? (await this.activeId())) === profile.id,
      // Spec 4, rule 3: payouts are unavailable in the sandbox.
      payoutsEnabled: profile.environment !== 'sandbox',
      credentials: await this.deps.credentials.states(profile),
    };
  }

  async create(input: ProfileInput): Promise<ProfileView> {
    const facts = this.connectionFacts(input.environment, input);
    const profile = await this.deps.profiles.create({
      name: input.name,
      environment: input.environment,
      ...facts,
      notificationPublicUrl: input.notificationPublicUrl ?? null,
    });
    await this.deps.audit.append({ actor: 'user', action: 'profile.create', profileId: profile.id, subject: profile.name, details: { environment: profile.environment, baseUrl: profile.baseUrl } });
    return this.changed(profile.id);
  }

  async update(id: string, patch: Partial<ProfileInput>): Promise<ProfileView> {
    const current = await this.require(id);
    const environment = patch.environment ?? current.environment;
    const connectionChanged = patch.environment !== undefined || patch.baseUrl !== undefined || patch.merchantId !== undefined || patch.merchantSiteId !== undefined;
    const facts = connectionChanged
      ? this.connectionFacts(environment, {
          baseUrl: patch.baseUrl ?? (environment === current.environment ? current.baseUrl : undefined),
          merchantId: patch.merchantId ?? current.merchantId,
          merchantSiteId: patch.merchantSiteId ?? current.merchantSiteId,
        })
      : {};
    // The merchant-token goes out with every call: it must not follow the profile to another
    // address (a compromised renderer could otherwise point a profile at its own server). It is
    // forgotten first, so a failure leaves the old address with its token.
    const moved = environment !== current.environment || ('baseUrl' in facts && facts.baseUrl !== current.baseUrl);
    if (moved && current.environment !== 'local') await this.deps.credentials.clearMerchantToken(current);
    await this.deps.profiles.update(id, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.environment !== undefined ? { environment } : {}),
      ...facts,
      ...(patch.notificationPublicUrl !== undefined ? { notificationPublicUrl: patch.notificationPublicUrl } : {}),
    });
    await this.deps.audit.append({ actor: 'user', action: 'profile.update', profileId: id, subject: current.name, details: { changed: Object.keys(patch) } });
    return this.changed(id);
  }

  async activate(id: string): Promise<ProfileView> {
    const profile = await this.require(id);
    if (this.deps.choice?.current() !== undefined) await this.deps.choice.choose(id);
    else await this.deps.profiles.activate(id);
    await this.deps.audit.append({ actor: 'user', action: 'profile.activate', profileId: id, subject: profile.name, details: { environment: profile.environment } });
    return this.changed(id);
  }

  async delete(id: string): Promise<{ deleted: boolean }> {
    const profile = await this.require(id);
    if (profile.isActive) throw new ServiceError('conflict', 'The active profile cannot be deleted: activate another one first.');
    let deleted: boolean;
    try {
      deleted = await this.deps.profiles.delete(id);
    } catch {
      throw new ServiceError('conflict', `Profile "${profile.name}" has transactions in the ledger and cannot be deleted.`);
    }
    await this.deps.credentials.forget(profile);
    await this.deps.audit.append({ actor: 'user', action: 'profile.delete', profileId: null, subject: profile.name, details: { id } });
    this.deps.onPathsChanged();
    await this.publish();
    return { deleted };
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

  private connectionFacts(environment: EnvironmentKind, input: { baseUrl?: string | undefined; merchantId?: string | undefined; merchantSiteId?: string | undefined }) {
    const { local } = this.deps;
    if (environment === 'local') {
      return { baseUrl: local.baseUrl, merchantId: local.merchant.merchant_id, merchantSiteId: local.merchant.merchant_site_id };
    }
    const fields: Record<string, string> = {};
    if (!input.baseUrl) fields.baseUrl = 'Required for a sandbox or live profile.';
    if (!input.merchantId) fields.merchantId = 'Required: the merchant_id from your integration settings.';
    if (!input.merchantSiteId) fields.merchantSiteId = 'Required: the merchant_site_id from your integration settings.';
    if (Object.keys(fields).length > 0) throw new ServiceError('invalid_input', `Missing: ${Object.keys(fields).join(', ')}.`, fields);
    return { baseUrl: gatewayBaseUrl(environment, input.baseUrl as string), merchantId: input.merchantId as string, merchantSiteId: input.merchantSiteId as string };
  }
}
