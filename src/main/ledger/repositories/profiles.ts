// Connection profiles: where the gateway is and who we are there. No secrets here (see 0002).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Sql } from '../engine/types';
import { isoTime, systemClock, toFlag, type Clock } from '../support';

export type Environment = 'local' | 'sandbox' | 'live';

export interface Profile {
  id: string;
  name: string;
  environment: Environment;
  baseUrl: string;
  merchantId: string;
  merchantSiteId: string;
  kid: string | null;
  notificationPublicUrl: string | null;
  listenerPathSecret: string;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface NewProfile {
  name: string;
  environment: Environment;
  baseUrl: string;
  merchantId: string;
  merchantSiteId: string;
  kid?: string | null;
  notificationPublicUrl?: string | null;
}

export type ProfilePatch = Partial<NewProfile>;

interface ProfileRow {
  id: string;
  name: string;
  environment: Environment;
  base_url: string;
  merchant_id: string;
  merchant_site_id: string;
  kid: string | null;
  notification_public_url: string | null;
  listener_path_secret: string;
  is_active: number;
  created_at: string;
  updated_at: string;
}

const toProfile = (r: ProfileRow): Profile => ({
  id: r.id,
  name: r.name,
  environment: r.environment,
  baseUrl: r.base_url,
  merchantId: r.merchant_id,
  merchantSiteId: r.merchant_site_id,
  kid: r.kid,
  notificationPublicUrl: r.notification_public_url,
  listenerPathSecret: r.listener_path_secret,
  isActive: r.is_active === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** 32 random bytes as base64url (43 characters): the listener path is the only access control. */
export const newListenerPathSecret = (): string => randomBytes(32).toString('base64url');

const columns: Record<keyof NewProfile, string> = {
  name: 'name',
  environment: 'environment',
  baseUrl: 'base_url',
  merchantId: 'merchant_id',
  merchantSiteId: 'merchant_site_id',
  kid: 'kid',
  notificationPublicUrl: 'notification_public_url',
};

export class ProfilesRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
    private readonly newId: () => string = randomUUID,
  ) {}

  async create(input: NewProfile): Promise<Profile> {
    const id = this.newId();
    const at = isoTime(this.now());
    await this.db.run(`INSERT INTO profiles (id, name, environment, base_url, merchant_id, merchant_site_id, kid, notification_public_url,
           listener_path_secret, is_active, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`, [id, input.name, input.environment, input.baseUrl, input.merchantId, input.merchantSiteId, input.kid ?? null,
        input.notificationPublicUrl ?? null, newListenerPathSecret(), at, at]);
    return this.require(id);
  }

  async update(id: string, patch: ProfilePatch): Promise<Profile> {
    const entries = Object.entries(patch).filter(([key, value]) => key in columns && value !== undefined);
    if (entries.length > 0) {
      const sets = entries.map(([key]) => `${columns[key as keyof NewProfile]} = ?`).join(', ');
      const result = (await this.db.run(`UPDATE profiles SET ${sets}, updated_at = ? WHERE id = ?`, [...entries.map(([, value]) => value as string | null), isoTime(this.now()), id]));
      if (result === 0) throw new RangeError(`no profile ${id}`);
    }
    return this.require(id);
  }

  async get(id: string): Promise<Profile | undefined> {
    const row = (await this.db.get('SELECT * FROM profiles WHERE id = ?', [id])) as ProfileRow | undefined;
    return row && toProfile(row);
  }

  async list(): Promise<Profile[]> {
    return ((await this.db.all('SELECT * FROM profiles ORDER BY created_at, id')) as ProfileRow[]).map(toProfile);
  }

  async active(): Promise<Profile | undefined> {
    const row = (await this.db.get('SELECT * FROM profiles WHERE is_active = 1')) as ProfileRow | undefined;
    return row && toProfile(row);
  }

  /** Makes this profile the only active one. */
  async activate(id: string): Promise<Profile> {
    const at = isoTime(this.now());
    await this.db.atomic(async () => {
      await this.db.run('UPDATE profiles SET is_active = 0, updated_at = ? WHERE is_active = 1 AND id <> ?', [at, id]);
      const result = (await this.db.run('UPDATE profiles SET is_active = ?, updated_at = ? WHERE id = ?', [toFlag(true), at, id]));
      if (result === 0) throw new RangeError(`no profile ${id}`);
    });
    return this.require(id);
  }

  /** The profile a notification path belongs to, if any. */
  async byListenerPath(secret: string): Promise<Profile | undefined> {
    const row = await this.db.get<ProfileRow>('SELECT * FROM profiles WHERE listener_path_secret = ?', [secret]);
    return row && toProfile(row);
  }

  /** A new unguessable path; the old one stops working at once (for a leaked path). */
  async rotateListenerPath(id: string): Promise<Profile> {
    const result = (await this.db.run('UPDATE profiles SET listener_path_secret = ?, updated_at = ? WHERE id = ?', [newListenerPathSecret(), isoTime(this.now()), id]));
    if (result === 0) throw new RangeError(`no profile ${id}`);
    return this.require(id);
  }

  /** Refused by the foreign keys while any ledger row refers to the profile. */
  async delete(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM profiles WHERE id = ?', [id])) === 1;
  }

  private async require(id: string): Promise<Profile> {
    const profile = await this.get(id);
    if (!profile) throw new RangeError(`no profile ${id}`);
    return profile;
  }
}
