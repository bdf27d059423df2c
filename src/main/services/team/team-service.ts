// The people of a team server: sign-in (password, then the second factor when one is set or the
// policy requires it), sessions (expiring, revocable, found by the hash of their token), failed
// sign-ins counted and limited, people and roles managed by an admin, one's own password and
// second factor. Every change is audited with the person who made it (the audit log's actor).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Person, TeamPolicy, TeamRole, TeamSession, TeamSessionRow, TeamUser } from '../../../shared/contract';
import type { Repositories } from '../../ledger/repositories/index';
import type { TeamSessionRecord, TeamUserRecord } from '../../ledger/repositories/team';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import type { EventBus } from '../event-bus';
import type { Notices } from '../notices/notices';
import type { EnvelopeKey } from './envelope-key';
import { decoyHash, hashPassword, verifyPassword } from './passwords';
import { totpAccount } from './sealed-values';
import { currentPerson, type RequestPerson } from './request-context';
import { newTotpSecret, totpStep, totpUri } from './totp';

export interface SessionLimits {
  /** A session ends this long after sign-in, whatever happens. Default 12 h. */
  maxAgeMinutes: number;
  /** ...and after this long without a request. Default 60 min. */
  idleMinutes: number;
}

export interface LoginLimits {
  /** Failed sign-ins counted over this window. Default 15 min. */
  windowMinutes: number;
  /** For one name (since its last success). Default 5. */
  perName: number;
  /** From one address, whatever the name. Default 20. */
  perAddress: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxAgeMinutes: 12 * 60, idleMinutes: 60 };
export const DEFAULT_LOGIN_LIMITS: LoginLimits = { windowMinutes: 15, perName: 5, perAddress: 20 };

const POLICY_KEY = 'team.policy';
const DEFAULT_POLICY: TeamPolicy = { approverTotpRequired: false };
/** last_seen_at is written at most this often per session. */
const TOUCH_EVERY_MS = 60_000;

/** Why a sign-in was refused, as the HTTP layer answers it. */
export class SignInError extends Error {
  constructor(
    readonly reason: 'wrong' | 'totp_required' | 'rate_limited',
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

export interface SignedIn {
  token: string;
  session: TeamSessionRecord;
  person: RequestPerson;
}

export interface TeamServiceDeps {
  repos: Repositories;
  key: EnvelopeKey;
  events: EventBus;
  now: Clock;
  sessions?: Partial<SessionLimits>;
  logins?: Partial<LoginLimits>;
  /** Told when sessions end (revoked, a person disabled): the server closes their event streams. */
  onSessionsEnded?: (sessionIds: string[]) => void;
  /** This server's address, for the session view. */
  serverUrl: string;
  /** Told of a sign-in and of a role change, in their transaction (services/notices: security events). */
  notices?: Pick<Notices, 'signedIn' | 'roleChanged'>;
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
const minutes = (n: number) => n * 60_000;

export class TeamService {
  private readonly sessionLimits: SessionLimits;
  private readonly loginLimits: LoginLimits;
  /** The last request of each session this process served, and when that was last written to the ledger. */
  private readonly touched = new Map<string, number>();
  private readonly written = new Map<string, number>();

  constructor(private readonly deps: TeamServiceDeps) {
    this.sessionLimits = { ...DEFAULT_SESSION_LIMITS, ...deps.sessions };
    this.loginLimits = { ...DEFAULT_LOGIN_LIMITS, ...deps.logins };
  }

  private get team() {
    return this.deps.repos.team;
  }

  private nowDate(): Date {
    return new Date(this.deps.now());
  }

  // ---- sign-in and sessions ----

  /**
   * Checks the password (and the second factor when the person has one), within the failed
   * sign-in limits, and opens a session. The same answer for a missing person as for a wrong
   * password, at the same cost.
   */
  async signIn(input: { username: string; password: string; totp?: string | undefined; client: 'browser' | 'desktop'; address: string }): Promise<SignedIn> {
    const username = input.username.trim().toLowerCase();
    await this.refuseWhileLimited(username, input.address);
    const user = await this.team.userByName(username);
    const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash()));
    if (!user || !passwordOk || user.disabled) {
      await this.team.recordLoginFailure(username, input.address);
      throw new SignInError('wrong', 'Wrong user name or password.');
    }
    if (user.totpSecret) {
      if (!input.totp) throw new SignInError('totp_required', 'Enter the 6-digit code from your authenticator app.');
      if (!(await this.acceptTotp(user, user.totpSecret, input.totp))) {
        await this.team.recordLoginFailure(username, input.address);
        throw new SignInError('wrong', 'That code is not valid (or was used already): enter the current one.');
      }
    }
    const token = randomBytes(32).toString('base64url');
    const now = this.nowDate();
    const session = await this.deps.repos.transaction(async () => {
      const opened = await this.team.createSession({ id: randomUUID(), tokenHash: tokenHash(token), userId: user.id, client: input.client, expiresAt: isoTime(new Date(now.getTime() + minutes(this.sessionLimits.maxAgeMinutes))) });
      await this.team.updateUser(user.id, { lastLoginAt: isoTime(now) });
      await this.deps.repos.audit.append({ actor: user.username, action: 'team.sign-in', subject: user.username, details: { client: input.client, address: input.address, session: opened.id } });
      await this.deps.notices?.signedIn(user, input.address);
      return opened;
    });
    return { token, session, person: this.requestPerson(user, session.id) };
  }

  /** The person a session token belongs to, or null: unknown, revoked, expired, idle too long, or its person disabled. */
  async authenticate(token: string): Promise<RequestPerson | null> {
    const session = await this.team.sessionByTokenHash(tokenHash(token));
    if (!session || !this.isOpen(session)) return null;
    const user = await this.team.user(session.userId);
    if (!user || user.disabled) return null;
    const nowMs = this.deps.now().getTime();
    // Remembered at every request; written at most once a minute (or a quarter of the idle time, when shorter).
    const every = Math.min(TOUCH_EVERY_MS, minutes(this.sessionLimits.idleMinutes) / 4);
    this.touched.set(session.id, nowMs);
    if ((this.written.get(session.id) ?? Date.parse(session.lastSeenAt)) + every <= nowMs) {
      this.written.set(session.id, nowMs);
      await this.team.touchSession(session.id);
    }
    return this.requestPerson(user, session.id);
  }

  private isOpen(session: TeamSessionRecord): boolean {
    const now = this.deps.now().getTime();
    const lastSeen = Math.max(Date.parse(session.lastSeenAt), this.touched.get(session.id) ?? 0);
    return session.revokedAt === null && Date.parse(session.expiresAt) > now && lastSeen + minutes(this.sessionLimits.idleMinutes) > now;
  }

  async signOut(token: string): Promise<void> {
    const session = await this.team.sessionByTokenHash(tokenHash(token));
    if (session && (await this.team.revokeSession(session.id))) {
      const user = await this.team.user(session.userId);
      await this.deps.repos.audit.append({ actor: user?.username ?? 'system', action: 'team.sign-out', subject: user?.username ?? null, details: { session: session.id } });
      this.ended([session.id]);
    }
  }

  private async refuseWhileLimited(username: string, address: string): Promise<void> {
    const { windowMinutes, perName, perAddress } = this.loginLimits;
    const now = this.deps.now().getTime();
    const since = isoTime(new Date(now - minutes(windowMinutes)));
    await this.team.pruneLoginFailures(isoTime(new Date(now - minutes(windowMinutes * 4))));
    const { byName, byAddress } = await this.team.loginFailures(username, address, since);
    const limited = byName.length >= perName ? byName[byName.length - perName] : byAddress.length >= perAddress ? byAddress[byAddress.length - perAddress] : undefined;
    if (limited === undefined) return;
    // Free again once the oldest failure that counts leaves the window.
    const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(limited) + minutes(windowMinutes) - now) / 1000));
    throw new SignInError('rate_limited', `Too many failed sign-ins: try again in ${Math.ceil(retryAfterSeconds / 60)} min.`, retryAfterSeconds);
  }

  private async acceptTotp(user: TeamUserRecord, sealedSecret: string, code: string): Promise<boolean> {
    const step = totpStep(this.open(sealedSecret, user.id), user.username, code, this.nowDate());
    return step !== null && (await this.team.takeTotpStep(user.id, step));
  }

  // ---- the session view ----

  async sessionView(person: RequestPerson | undefined = currentPerson()): Promise<TeamSession> {
    const session = person ? await this.team.session(person.sessionId) : undefined;
    return {
      mode: 'server',
      person: person ? publicPerson(person) : null,
      server: this.deps.serverUrl,
      policy: await this.policy(),
      expiresAt: session?.expiresAt ?? null,
      lostBecause: null,
    };
  }

  // ---- people (admin) ----

  async listUsers(): Promise<{ users: TeamUser[] }> {
    return { users: (await this.team.users()).map(userView) };
  }

  async createUser(input: { username: string; displayName: string; role: TeamRole; password: string }): Promise<TeamUser> {
    if (await this.team.userByName(input.username)) throw new ServiceError('conflict', `There is already a person named ${input.username}.`, { username: 'is taken' });
    const passwordHash = await hashPassword(input.password);
    return this.deps.repos.transaction(async () => {
      const user = await this.team.createUser({ id: randomUUID(), username: input.username, displayName: input.displayName, role: input.role, passwordHash });
      await this.audit('team.user-create', user.username, { role: user.role });
      return userView(user);
    });
  }

  /** The first admin, from the server's command line (no one is signed in yet). */
  async createAdminFromCommandLine(input: { username: string; displayName: string; password: string }): Promise<TeamUser> {
    const existing = await this.team.userByName(input.username);
    if (existing) throw new ServiceError('conflict', `There is already a person named ${input.username} (${existing.role}).`);
    const passwordHash = await hashPassword(input.password);
    return this.deps.repos.transaction(async () => {
      const user = await this.team.createUser({ id: randomUUID(), username: input.username, displayName: input.displayName, role: 'admin', passwordHash });
      await this.deps.repos.audit.append({ actor: 'system', action: 'team.user-create', subject: user.username, details: { role: 'admin', by: 'server command line' } });
      return userView(user);
    });
  }

  async updateUser(input: { id: string; displayName?: string | undefined; role?: TeamRole | undefined; disabled?: boolean | undefined }): Promise<TeamUser> {
    const user = await this.requireUser(input.id);
    const me = currentPerson();
    const losesAdmin = user.role === 'admin' && !user.disabled && ((input.role !== undefined && input.role !== 'admin') || input.disabled === true);
    if (losesAdmin && (await this.team.countAdmins()) <= 1) throw new ServiceError('conflict', 'This is the last admin: make someone else admin first.', { role: 'the team needs an admin' });
    if (me?.id === user.id && input.disabled === true) throw new ServiceError('conflict', 'You cannot disable yourself.', { disabled: 'is you' });
    const updated = await this.deps.repos.transaction(async () => {
      const changed = (await this.team.updateUser(user.id, { displayName: input.displayName, role: input.role, disabled: input.disabled })) as TeamUserRecord;
      await this.audit('team.user-update', user.username, { ...(input.role !== undefined ? { role: { from: user.role, to: input.role } } : {}), ...(input.disabled !== undefined ? { disabled: input.disabled } : {}), ...(input.displayName !== undefined ? { displayName: input.displayName } : {}) });
      if (input.role !== undefined) await this.deps.notices?.roleChanged(changed, { from: user.role, to: input.role, by: me ? `${me.displayName} (${me.username})` : 'An admin' });
      return changed;
    });
    // A role change takes effect at the next call (each call reads the person afresh); a disabled person is signed out now.
    if (input.disabled === true) this.ended(await this.team.revokeSessionsOf(user.id));
    else this.publishTo(updated.id);
    return userView(updated);
  }

  async resetPassword(input: { id: string; password: string }): Promise<TeamUser> {
    const user = await this.requireUser(input.id);
    const passwordHash = await hashPassword(input.password);
    await this.deps.repos.transaction(async () => {
      await this.team.updateUser(user.id, { passwordHash });
      await this.audit('team.password-reset', user.username, {});
    });
    this.ended(await this.team.revokeSessionsOf(user.id, currentPerson()?.id === user.id ? currentPerson()?.sessionId : undefined));
    return userView(await this.requireUser(user.id));
  }

  // ---- one's own sign-in ----

  async changePassword(input: { current: string; password: string }): Promise<TeamSession> {
    const me = this.me();
    const user = await this.requireUser(me.id);
    if (!(await verifyPassword(input.current, user.passwordHash))) throw new ServiceError('invalid_input', 'Your current password is not this.', { current: 'is not your current password' });
    const passwordHash = await hashPassword(input.password);
    await this.deps.repos.transaction(async () => {
      await this.team.updateUser(user.id, { passwordHash });
      await this.audit('team.password-change', user.username, {});
    });
    this.ended(await this.team.revokeSessionsOf(user.id, me.sessionId));
    return this.sessionView(me);
  }

  async listSessions(): Promise<{ sessions: TeamSessionRow[] }> {
    const me = this.me();
    const users = new Map((await this.team.users()).map((u) => [u.id, u.username]));
    const open = await this.team.openSessions(me.role === 'admin' ? undefined : me.id);
    return {
      sessions: open.filter((s) => this.isOpen(s)).map((s) => ({ id: s.id, userId: s.userId, username: users.get(s.userId) ?? '?', client: s.client, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, expiresAt: s.expiresAt, current: s.id === me.sessionId })),
    };
  }

  /** An admin ends anyone's session; anyone else only their own. */
  async revokeSession(id: string): Promise<{ revoked: boolean }> {
    const me = this.me();
    const session = await this.team.session(id);
    if (!session || (me.role !== 'admin' && session.userId !== me.id)) throw new ServiceError('not_found', `No session ${id} of yours.`, { id: 'is not a session you may end' });
    const revoked = await this.team.revokeSession(id);
    if (revoked) {
      const owner = await this.team.user(session.userId);
      await this.audit('team.session-revoke', owner?.username ?? session.userId, { session: id });
      this.ended([id]);
    }
    return { revoked };
  }

  async policy(): Promise<TeamPolicy> {
    const stored = await this.deps.repos.settings.get(POLICY_KEY);
    return { ...DEFAULT_POLICY, ...(stored === undefined ? {} : (JSON.parse(stored) as Partial<TeamPolicy>)) };
  }

  async updatePolicy(patch: Partial<TeamPolicy>): Promise<TeamPolicy> {
    const policy = { ...(await this.policy()), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
    await this.deps.repos.transaction(async () => {
      await this.deps.repos.settings.put(new Map([[POLICY_KEY, JSON.stringify(policy)]]));
      await this.audit('team.policy-update', null, policy);
    });
    return policy;
  }

  async startTotp(): Promise<{ secret: string; uri: string }> {
    const me = this.me();
    const secret = newTotpSecret();
    await this.team.updateUser(me.id, { totpPending: this.deps.key.seal(secret, totpAccount(me.id)) });
    return { secret, uri: totpUri(secret, me.username) };
  }

  async confirmTotp(code: string): Promise<TeamSession> {
    const me = this.me();
    const user = await this.requireUser(me.id);
    if (!user.totpPending) throw new ServiceError('conflict', 'Start setting up your authenticator app first.', { code: 'no enrolment in progress' });
    if (!(await this.acceptTotp(user, user.totpPending, code))) throw new ServiceError('invalid_input', 'That code is not valid: enter the one your app shows now.', { code: 'is not valid' });
    await this.deps.repos.transaction(async () => {
      await this.team.updateUser(user.id, { totpSecret: user.totpPending, totpPending: null });
      await this.audit('team.totp-enable', user.username, {});
    });
    return this.refreshed(me);
  }

  async disableTotp(code: string): Promise<TeamSession> {
    const me = this.me();
    const user = await this.requireUser(me.id);
    if (!user.totpSecret) throw new ServiceError('conflict', 'You have no second factor set.');
    if (user.role === 'approver' && (await this.policy()).approverTotpRequired) throw new ServiceError('conflict', 'Approvers must keep a second factor: the team policy requires it.');
    if (!(await this.acceptTotp(user, user.totpSecret, code))) throw new ServiceError('invalid_input', 'That code is not valid: enter the one your app shows now.', { code: 'is not valid' });
    await this.deps.repos.transaction(async () => {
      await this.team.updateUser(user.id, { totpSecret: null, totpPending: null });
      await this.audit('team.totp-disable', user.username, {});
    });
    return this.refreshed(me);
  }

  /** The person's own choice of active profile (each person works on their own). */
  async chooseProfile(profileId: string): Promise<void> {
    const me = this.me();
    await this.team.updateUser(me.id, { activeProfileId: profileId });
  }

  // ---- helpers ----

  private open(sealed: string, userId: string): string {
    return this.deps.key.open(sealed, totpAccount(userId));
  }

  private me(): RequestPerson {
    const me = currentPerson();
    if (!me) throw new ServiceError('unauthorized', 'Sign in to the team server first.');
    return me;
  }

  private async requireUser(id: string): Promise<TeamUserRecord> {
    const user = await this.team.user(id);
    if (!user) throw new ServiceError('not_found', `No person with id ${id}.`, { id: 'is not a person of this team' });
    return user;
  }

  private requestPerson(user: TeamUserRecord, sessionId: string): RequestPerson {
    return { ...publicPerson(user), sessionId, activeProfileId: user.activeProfileId };
  }

  private async refreshed(me: RequestPerson): Promise<TeamSession> {
    const user = await this.requireUser(me.id);
    const view = await this.sessionView(this.requestPerson(user, me.sessionId));
    this.publishTo(me.id, view);
    return view;
  }

  private publishTo(personId: string, view?: TeamSession): void {
    void (async () => {
      const user = await this.team.user(personId);
      if (!user) return;
      for (const session of await this.team.openSessions(personId)) {
        const payload = view ?? (await this.sessionView(this.requestPerson(user, session.id)));
        this.deps.events.publish('team:session-changed', payload, { sessionId: session.id });
      }
    })().catch(() => undefined);
  }

  private ended(sessionIds: string[]): void {
    for (const id of sessionIds) {
      this.touched.delete(id);
      this.written.delete(id);
    }
    if (sessionIds.length > 0) this.deps.onSessionsEnded?.(sessionIds);
  }

  private async audit(action: string, subject: string | null, details: unknown): Promise<void> {
    await this.deps.repos.audit.append({ actor: 'user', action, subject, details });
  }
}

function publicPerson(user: Pick<TeamUserRecord, 'id' | 'username' | 'displayName' | 'role' | 'totpSecret'> | RequestPerson): Person {
  const totpEnabled = 'totpEnabled' in user ? user.totpEnabled : user.totpSecret !== null;
  return { id: user.id, username: user.username, displayName: user.displayName, role: user.role, totpEnabled };
}

function userView(user: TeamUserRecord): TeamUser {
  return { ...publicPerson(user), disabled: user.disabled, createdAt: user.createdAt, lastLoginAt: user.lastLoginAt };
}
