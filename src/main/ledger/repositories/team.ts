// The team server's people, their sessions and failed sign-ins (migration 0015 / postgres 0003).
// A session is found by the SHA-256 of its token: the token itself is never stored.
import type { TeamRole } from '../../../shared/contract';
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';

export interface TeamUserRecord {
  id: string;
  username: string;
  displayName: string;
  role: TeamRole;
  passwordHash: string;
  /** Sealed under the server's envelope key (services/team/sealed.ts); null: no second factor. */
  totpSecret: string | null;
  /** An enrolment started and not confirmed yet (sealed). */
  totpPending: string | null;
  /** The last TOTP time step accepted: a code is never accepted twice. */
  totpLastStep: number | null;
  activeProfileId: string | null;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  lastLoginAt: string | null;
}

export interface TeamSessionRecord {
  id: string;
  userId: string;
  client: 'browser' | 'desktop';
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

interface UserRow {
  id: string;
  username: string;
  display_name: string;
  role: TeamRole;
  password_hash: string;
  totp_secret: string | null;
  totp_pending: string | null;
  totp_last_step: number | string | null;
  active_profile_id: string | null;
  disabled: number;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

interface SessionRow {
  id: string;
  user_id: string;
  client: 'browser' | 'desktop';
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  revoked_at: string | null;
}

const toUser = (r: UserRow): TeamUserRecord => ({
  id: r.id,
  username: r.username,
  displayName: r.display_name,
  role: r.role,
  passwordHash: r.password_hash,
  totpSecret: r.totp_secret,
  totpPending: r.totp_pending,
  totpLastStep: r.totp_last_step === null ? null : Number(r.totp_last_step),
  activeProfileId: r.active_profile_id,
  disabled: r.disabled === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastLoginAt: r.last_login_at,
});

const toSession = (r: SessionRow): TeamSessionRecord => ({
  id: r.id,
  userId: r.user_id,
  client: r.client,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

export type TeamUserPatch = Partial<Pick<TeamUserRecord, 'displayName' | 'role' | 'passwordHash' | 'totpSecret' | 'totpPending' | 'totpLastStep' | 'activeProfileId' | 'disabled' | 'lastLoginAt'>>;

const USER_COLUMNS: Record<keyof TeamUserPatch, string> = {
  displayName: 'display_name',
  role: 'role',
  passwordHash: 'password_hash',
  totpSecret: 'totp_secret',
  totpPending: 'totp_pending',
  totpLastStep: 'totp_last_step',
  activeProfileId: 'active_profile_id',
  disabled: 'disabled',
  lastLoginAt: 'last_login_at',
};

export class TeamRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  private at(): string {
    return isoTime(this.now());
  }

  async createUser(user: Pick<TeamUserRecord, 'id' | 'username' | 'displayName' | 'role' | 'passwordHash'>): Promise<TeamUserRecord> {
    const at = this.at();
    const row = await this.db.get<UserRow>(
      'INSERT INTO team_users (id, username, display_name, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
      [user.id, user.username, user.displayName, user.role, user.passwordHash, at, at],
    );
    return toUser(row as UserRow);
  }

  async user(id: string): Promise<TeamUserRecord | undefined> {
    const row = await this.db.get<UserRow>('SELECT * FROM team_users WHERE id = ?', [id]);
    return row && toUser(row);
  }

  async userByName(username: string): Promise<TeamUserRecord | undefined> {
    const row = await this.db.get<UserRow>('SELECT * FROM team_users WHERE username = ?', [username]);
    return row && toUser(row);
  }

  async users(): Promise<TeamUserRecord[]> {
    return (await this.db.all<UserRow>('SELECT * FROM team_users ORDER BY username')).map(toUser);
  }

  async countAdmins(): Promise<number> {
    return Number((await this.db.get<{ n: number | string }>("SELECT count(*) AS n FROM team_users WHERE role = 'admin' AND disabled = 0"))?.n ?? 0);
  }

  async updateUser(id: string, patch: TeamUserPatch): Promise<TeamUserRecord | undefined> {
    const entries = Object.entries(patch).filter(([, value]) => value !== undefined) as [keyof TeamUserPatch, TeamUserPatch[keyof TeamUserPatch]][];
    const sets = entries.map(([key]) => `${USER_COLUMNS[key]} = ?`);
    const values = entries.map(([key, value]) => (key === 'disabled' ? (value ? 1 : 0) : (value as string | number | null)));
    const row = await this.db.get<UserRow>(`UPDATE team_users SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ? RETURNING *`, [...values, this.at(), id]);
    return row && toUser(row);
  }

  /** Accepts a TOTP step once: false when this step (or a later one) was used already. */
  async takeTotpStep(id: string, step: number): Promise<boolean> {
    const changed = await this.db.run('UPDATE team_users SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)', [step, id, step]);
    return changed === 1;
  }

  async createSession(session: Omit<TeamSessionRecord, 'revokedAt' | 'lastSeenAt' | 'createdAt'> & { tokenHash: string }): Promise<TeamSessionRecord> {
    const at = this.at();
    const row = await this.db.get<SessionRow>(
      'INSERT INTO team_sessions (id, token_hash, user_id, client, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
      [session.id, session.tokenHash, session.userId, session.client, at, at, session.expiresAt],
    );
    return toSession(row as SessionRow);
  }

  async sessionByTokenHash(tokenHash: string): Promise<TeamSessionRecord | undefined> {
    const row = await this.db.get<SessionRow>('SELECT * FROM team_sessions WHERE token_hash = ?', [tokenHash]);
    return row && toSession(row);
  }

  async session(id: string): Promise<TeamSessionRecord | undefined> {
    const row = await this.db.get<SessionRow>('SELECT * FROM team_sessions WHERE id = ?', [id]);
    return row && toSession(row);
  }

  /** Sessions not revoked and not expired, newest first; of one person when userId is given. */
  async openSessions(userId?: string): Promise<TeamSessionRecord[]> {
    const mine = userId === undefined ? '' : ' AND user_id = ?';
    const rows = await this.db.all<SessionRow>(`SELECT * FROM team_sessions WHERE revoked_at IS NULL AND expires_at > ?${mine} ORDER BY created_at DESC, id`, userId === undefined ? [this.at()] : [this.at(), userId]);
    return rows.map(toSession);
  }

  async touchSession(id: string): Promise<void> {
    await this.db.run('UPDATE team_sessions SET last_seen_at = ? WHERE id = ?', [this.at(), id]);
  }

  async revokeSession(id: string): Promise<boolean> {
    return (await this.db.run('UPDATE team_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [this.at(), id])) === 1;
  }

  /** Ends every session not ended yet, of everyone; returns how many. */
  async revokeAllSessions(): Promise<number> {
    return this.db.run('UPDATE team_sessions SET revoked_at = ? WHERE revoked_at IS NULL', [this.at()]);
  }

  /** Ends every open session of a person but `except`; returns the ids ended. */
  async revokeSessionsOf(userId: string, except?: string): Promise<string[]> {
    const open = (await this.openSessions(userId)).filter((s) => s.id !== except);
    for (const session of open) await this.revokeSession(session.id);
    return open.map((s) => s.id);
  }

  async recordLoginFailure(username: string, address: string): Promise<void> {
    await this.db.run('INSERT INTO team_login_failures (username, address, at) VALUES (?, ?, ?)', [username, address, this.at()]);
  }

  /** Failed sign-ins since `since`: for this name (after its last success) and from this address, and the earliest of each. */
  async loginFailures(username: string, address: string, since: string): Promise<{ byName: string[]; byAddress: string[] }> {
    const user = await this.userByName(username);
    const after = user?.lastLoginAt && user.lastLoginAt > since ? user.lastLoginAt : since;
    const byName = await this.db.all<{ at: string }>('SELECT at FROM team_login_failures WHERE username = ? AND at > ? ORDER BY at', [username, after]);
    const byAddress = await this.db.all<{ at: string }>('SELECT at FROM team_login_failures WHERE address = ? AND at > ? ORDER BY at', [address, since]);
    return { byName: byName.map((r) => r.at), byAddress: byAddress.map((r) => r.at) };
  }

  /** Failed sign-ins older than `before` are forgotten (they no longer count). */
  async pruneLoginFailures(before: string): Promise<void> {
    await this.db.run('DELETE FROM team_login_failures WHERE at < ?', [before]);
  }
}

/** The credentials a team server keeps, each sealed under its envelope key (services/team/sealed.ts). */
export class ServerSecretsRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  async get(account: string): Promise<{ sealed: string; keyId: string } | undefined> {
    const row = await this.db.get<{ sealed: string; key_id: string }>('SELECT sealed, key_id FROM server_secrets WHERE account = ?', [account]);
    return row && { sealed: row.sealed, keyId: row.key_id };
  }

  async put(account: string, sealed: string, keyId: string): Promise<void> {
    await this.db.run(
      'INSERT INTO server_secrets (account, sealed, key_id, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (account) DO UPDATE SET sealed = excluded.sealed, key_id = excluded.key_id, updated_at = excluded.updated_at',
      [account, sealed, keyId, isoTime(this.now())],
    );
  }

  /** Stores it unless the account holds one already; false when it did. */
  async putIfAbsent(account: string, sealed: string, keyId: string): Promise<boolean> {
    return (await this.db.run('INSERT INTO server_secrets (account, sealed, key_id, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (account) DO NOTHING', [account, sealed, keyId, isoTime(this.now())])) === 1;
  }

  async delete(account: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM server_secrets WHERE account = ?', [account])) === 1;
  }

  async all(): Promise<{ account: string; sealed: string; keyId: string }[]> {
    return (await this.db.all<{ account: string; sealed: string; key_id: string }>('SELECT account, sealed, key_id FROM server_secrets ORDER BY account')).map((r) => ({ account: r.account, sealed: r.sealed, keyId: r.key_id }));
  }
}
