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
  /** Archived: hidden from the switcher and pickers, its transactions kept; null while in use. */
  archivedAt: string | null;
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
  /** Absent on a ledger older than 0020 (upgrade tests write profiles with today's repository). */
  archived_at?: string | null;
  created_at: string;
  updated_at: string;
}

/** A rename the migration to 0020 made (a name taken twice, or the emulator's), until it is audited. */
export interface ProfileRename {
  id: number;
  profileId: string;
  oldName: string;
  newName: string;
  reason: 'duplicate' | 'reserved';
  renamedAt: string;
}

/** Another profile already has this name (the ledger's unique index on names said so). */
export class ProfileNameTakenError extends Error {
  constructor(name: string) {
    super(`a profile is already named like "${name}"`);
    this.name = 'ProfileNameTakenError';
  }
}

export type ProfileDeletion = 'deleted' | 'missing' | 'in_use';

/** A constraint the engine refused a write for: SQLite's extended result codes, PostgreSQL's SQLSTATE. */
function violated(error: unknown): 'unique' | 'foreign_key' | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505') return 'unique';
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503') return 'foreign_key';
  return undefined;
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
  archivedAt: r.archived_at ?? null,
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

  /** Throws ProfileNameTakenError when the ledger already holds the name (DO NOTHING: a caller's transaction stays usable on PostgreSQL). */
  async create(input: NewProfile): Promise<Profile> {
    const id = this.newId();
    const at = isoTime(this.now());
    const inserted = await this.db.run(`INSERT INTO profiles (id, name, environment, base_url, merchant_id, merchant_site_id, kid, notification_public_url,
           listener_path_secret, is_active, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) ON CONFLICT DO NOTHING`, [id, input.name, input.environment, input.baseUrl, input.merchantId, input.merchantSiteId, input.kid ?? null,
        input.notificationPublicUrl ?? null, newListenerPathSecret(), at, at]);
    if (inserted === 0) throw new ProfileNameTakenError(input.name);
    return this.require(id);
  }

  /** Throws ProfileNameTakenError when another profile holds the new name. */
  async update(id: string, patch: ProfilePatch): Promise<Profile> {
    const entries = Object.entries(patch).filter(([key, value]) => key in columns && value !== undefined);
    if (entries.length > 0) {
      const sets = entries.map(([key]) => `${columns[key as keyof NewProfile]} = ?`).join(', ');
      let result: number;
      try {
        result = await this.db.run(`UPDATE profiles SET ${sets}, updated_at = ? WHERE id = ?`, [...entries.map(([, value]) => value as string | null), isoTime(this.now()), id]);
      } catch (error) {
        if (violated(error) === 'unique' && patch.name !== undefined) throw new ProfileNameTakenError(patch.name);
        throw error;
      }
      if (result === 0) throw new RangeError(`no profile ${id}`);
    }
    return this.require(id);
  }

  /** Hides a profile from the switcher and pickers; never the ledger's active one (false then, or when there is no such profile). */
  async archive(id: string): Promise<boolean> {
    const at = isoTime(this.now());
    return (await this.db.run('UPDATE profiles SET archived_at = ?, updated_at = ? WHERE id = ? AND is_active = 0', [at, at, id])) === 1;
  }

  async restore(id: string): Promise<boolean> {
    return (await this.db.run('UPDATE profiles SET archived_at = NULL, updated_at = ? WHERE id = ?', [isoTime(this.now()), id])) === 1;
  }

  /** Renames the upgrade to 0020 made that are not audited yet, oldest first. */
  async pendingRenames(): Promise<ProfileRename[]> {
    const rows = await this.db.all<{ id: number; profile_id: string; old_name: string; new_name: string; reason: ProfileRename['reason']; renamed_at: string }>(
      'SELECT id, profile_id, old_name, new_name, reason, renamed_at FROM profile_renames WHERE audited_at IS NULL ORDER BY id',
    );
    return rows.map((r) => ({ id: r.id, profileId: r.profile_id, oldName: r.old_name, newName: r.new_name, reason: r.reason, renamedAt: r.renamed_at }));
  }

  /** Marks a rename audited; false when another instance did it first. */
  async markRenameAudited(id: number): Promise<boolean> {
    return (await this.db.run('UPDATE profile_renames SET audited_at = ? WHERE id = ? AND audited_at IS NULL', [isoTime(this.now()), id])) === 1;
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

  /** in_use: the foreign keys refused it, some ledger row (a transaction, a notification…) refers to the profile. */
  async delete(id: string): Promise<ProfileDeletion> {
    try {
      return (await this.db.run('DELETE FROM profiles WHERE id = ?', [id])) === 1 ? 'deleted' : 'missing';
    } catch (error) {
      if (violated(error) === 'foreign_key') return 'in_use';
      throw error;
    }
  }

  private async require(id: string): Promise<Profile> {
    const profile = await this.get(id);
    if (!profile) throw new RangeError(`no profile ${id}`);
    return profile;
  }
}
