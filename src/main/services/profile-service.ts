// Profiles: which gateway every action goes to and who we are there. The local-emulator profile is
// created on first run with no configuration; sandbox and live profiles are entered by the user.
import type { EnvironmentKind, ProfileInput, ProfileView } from '../../shared/contract';
import type { Profile, ProfilesRepository } from '../ledger/repositories/profiles';
import type { AuditLog } from '../ledger/repositories/audit-log';
import type { CredentialService } from './credential-service';
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
  constructor(private readonly deps: ProfileServiceDeps) {}

  /** First run: a local-emulator profile, active, with nothing to configure. Later runs: follow the emulator's port. */
  ensureLocalProfile(): Profile {
    const { profiles, local } = this.deps;
    const facts = { baseUrl: local.baseUrl, merchantId: local.merchant.merchant_id, merchantSiteId: local.merchant.merchant_site_id };
    for (const profile of profiles.list().filter((p) => p.environment === 'local')) profiles.update(profile.id, facts);
    let profile = profiles.list().find((p) => p.environment === 'local');
    if (!profile) profile = profiles.create({ name: 'Local emulator', environment: 'local', ...facts });
    if (!profiles.active()) profiles.activate(profile.id);
    return profiles.get(profile.id) ?? profile;
  }

  active(): Profile {
    const profile = this.deps.profiles.active();
    if (!profile) throw new ServiceError('not_found', 'No active profile: create or activate one in Settings.');
    return profile;
  }

  require(id: string): Profile {
    const profile = this.deps.profiles.get(id);
    if (!profile) throw new ServiceError('not_found', `No profile with id ${id}.`);
    return profile;
  }

  async list(): Promise<ProfileView[]> {
    return Promise.all(this.deps.profiles.list().map((profile) => this.view(profile)));
  }

  async view(profile: Profile): Promise<ProfileView> {
    return {
      id: profile.id,
      name: profile.name,
      environment: profile.environment,
      baseUrl: profile.baseUrl,
      merchantId: profile.merchantId,
      merchantSiteId: profile.merchantSiteId,
      kid: profile.kid,
      notificationPublicUrl: profile.notificationPublicUrl,
      notificationUrl: this.deps.notificationUrl(profile),
      isActive: profile.isActive,
      // Spec 4, rule 3: payouts are unavailable in the sandbox.
      payoutsEnabled: profile.environment !== 'sandbox',
      credentials: await this.deps.credentials.states(profile),
    };
  }

  async create(input: ProfileInput): Promise<ProfileView> {
    const facts = this.connectionFacts(input.environment, input);
    const profile = this.deps.profiles.create({
      name: input.name,
      environment: input.environment,
      ...facts,
      notificationPublicUrl: input.notificationPublicUrl ?? null,
    });
    this.deps.audit.append({ actor: 'user', action: 'profile.create', profileId: profile.id, subject: profile.name, details: { environment: profile.environment, baseUrl: profile.baseUrl } });
    return this.changed(profile.id);
  }

  async update(id: string, patch: Partial<ProfileInput>): Promise<ProfileView> {
    const current = this.require(id);
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
    this.deps.profiles.update(id, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.environment !== undefined ? { environment } : {}),
      ...facts,
      ...(patch.notificationPublicUrl !== undefined ? { notificationPublicUrl: patch.notificationPublicUrl } : {}),
    });
    this.deps.audit.append({ actor: 'user', action: 'profile.update', profileId: id, subject: current.name, details: { changed: Object.keys(patch) } });
    return this.changed(id);
  }

  async activate(id: string): Promise<ProfileView> {
    const profile = this.require(id);
    this.deps.profiles.activate(id);
    this.deps.audit.append({ actor: 'user', action: 'profile.activate', profileId: id, subject: profile.name, details: { environment: profile.environment } });
    return this.changed(id);
  }

  async delete(id: string): Promise<{ deleted: boolean }> {
    const profile = this.require(id);
    if (profile.isActive) throw new ServiceError('conflict', 'The active profile cannot be deleted: activate another one first.');
    let deleted: boolean;
    try {
      deleted = this.deps.profiles.delete(id);
    } catch {
      throw new ServiceError('conflict', `Profile "${profile.name}" has transactions in the ledger and cannot be deleted.`);
    }
    await this.deps.credentials.forget(profile);
    this.deps.audit.append({ actor: 'user', action: 'profile.delete', profileId: null, subject: profile.name, details: { id } });
    this.deps.onPathsChanged();
    await this.publish();
    return { deleted };
  }

  async publish(): Promise<void> {
    this.deps.events.publish('profiles:profiles-changed', await this.list());
  }

  private async changed(id: string): Promise<ProfileView> {
    this.deps.onPathsChanged();
    await this.publish();
    return this.view(this.require(id));
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
