// The team: who is signed in (to a team server, or nobody on a single desk), the people of the team
// and their roles, their sessions, the second factor, and a desk's link to a team server.
// On a team server every channel of the contract is authorised by role (roles.ts); these channels
// are how an admin manages people and how each person manages their own sign-in.
import { z } from 'zod';
import { noInput } from './app';

export const TEAM_ROLES = ['admin', 'approver', 'finance', 'support', 'developer'] as const;
export const teamRoleSchema = z.enum(TEAM_ROLES);
export type TeamRole = z.infer<typeof teamRoleSchema>;

/** Lower case letters, digits, dot, dash, underscore; "user" and "system" name Paydesk's own actors in the audit log. */
export const usernameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9._-]{1,39}$/, '2 to 40 characters: letters, digits, dot, dash or underscore, starting with a letter or digit.')
  .refine((name) => name !== 'user' && name !== 'system', 'This name is reserved.');

/** At least 12 characters: a passphrase is easier to remember than symbols. */
export const passwordSchema = z.string().min(12, 'At least 12 characters.').max(200, 'At most 200 characters.');

const displayName = z.string().trim().min(1, 'Give a name.').max(80, 'At most 80 characters.');

export const personSchema = z.object({
  id: z.string(),
  username: z.string(),
  displayName: z.string(),
  role: teamRoleSchema,
  totpEnabled: z.boolean(),
});
export type Person = z.infer<typeof personSchema>;

export const teamPolicySchema = z.object({
  /** Approvers must sign in with a second factor (TOTP). */
  approverTotpRequired: z.boolean(),
});
export type TeamPolicy = z.infer<typeof teamPolicySchema>;

/**
 * Who is using Paydesk. desk: a single desk, nobody signed in (everything allowed, as always).
 * server: this page is served by a team server, signed in as `person`. connected: a desk whose
 * calls go to a team server, signed in there as `person`.
 */
export const teamSessionSchema = z.object({
  mode: z.enum(['desk', 'server', 'connected']),
  person: personSchema.nullable(),
  /** The team server's address (connected), or this server's (server). */
  server: z.string().nullable(),
  policy: teamPolicySchema.nullable(),
  expiresAt: z.string().nullable(),
  /** A desk that was connected and lost its session (revoked or expired): why, to show at once. */
  lostBecause: z.string().nullable(),
});
export type TeamSession = z.infer<typeof teamSessionSchema>;

export const teamUserSchema = personSchema.extend({
  disabled: z.boolean(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});
export type TeamUser = z.infer<typeof teamUserSchema>;

export const teamSessionRowSchema = z.object({
  id: z.string(),
  userId: z.string(),
  username: z.string(),
  client: z.enum(['browser', 'desktop']),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
  /** The session this list was asked from. */
  current: z.boolean(),
});
export type TeamSessionRow = z.infer<typeof teamSessionRowSchema>;

const userId = z.string().min(1).max(100);
const totpCode = z.string().trim().regex(/^\d{6}$/, 'The 6 digits your authenticator app shows.');

export const teamConnectInputSchema = z
  .object({
    /** The team server's address, e.g. https://paydesk.example.com */
    server: z
      .string()
      .trim()
      .url('An address such as https://paydesk.example.com')
      .refine((url) => /^https?:\/\//.test(url), 'Starts with https:// (or http:// for a server on this machine).'),
    username: usernameSchema,
    password: z.string().min(1, 'Required.').max(200),
    totp: totpCode.optional(),
  })
  .strict();
export type TeamConnectInput = z.infer<typeof teamConnectInputSchema>;

export const teamContract = {
  invoke: {
    /** Who is signed in, where, and the team's policy. */
    'team:get-session': { input: noInput, output: teamSessionSchema },
    /** A desk signs in to a team server; its session is kept in the OS keychain. */
    'team:connect': { input: teamConnectInputSchema, output: teamSessionSchema },
    /** A desk signs out of its team server and works on its own ledger again. */
    'team:disconnect': { input: noInput, output: teamSessionSchema },
    'team:list-users': { input: noInput, output: z.object({ users: z.array(teamUserSchema) }) },
    'team:create-user': { input: z.object({ username: usernameSchema, displayName, role: teamRoleSchema, password: passwordSchema }).strict(), output: teamUserSchema },
    /** Role, name or disabled; a person disabled is signed out everywhere. */
    'team:update-user': { input: z.object({ id: userId, displayName: displayName.optional(), role: teamRoleSchema.optional(), disabled: z.boolean().optional() }).strict(), output: teamUserSchema },
    /** An admin sets a new password; the person's sessions end. */
    'team:reset-password': { input: z.object({ id: userId, password: passwordSchema }).strict(), output: teamUserSchema },
    /** One's own password; one's other sessions end. */
    'team:change-password': { input: z.object({ current: z.string().min(1).max(200), password: passwordSchema }).strict(), output: teamSessionSchema },
    /** Sessions of everyone (admin) or one's own. */
    'team:list-sessions': { input: noInput, output: z.object({ sessions: z.array(teamSessionRowSchema) }) },
    'team:revoke-session': { input: z.object({ id: z.string().min(1).max(100) }).strict(), output: z.object({ revoked: z.boolean() }) },
    'team:update-policy': { input: teamPolicySchema.partial().strict(), output: teamPolicySchema },
    /** Starts enrolling one's own authenticator app: a new secret, shown once. */
    'team:start-totp': { input: noInput, output: z.object({ secret: z.string(), uri: z.string() }) },
    /** Confirms the enrolment with a code from the app; sign-in asks for a code from then on. */
    'team:confirm-totp': { input: z.object({ code: totpCode }).strict(), output: teamSessionSchema },
    /** Turns one's second factor off (not for an approver while the policy requires it). */
    'team:disable-totp': { input: z.object({ code: totpCode }).strict(), output: teamSessionSchema },
  },
  push: {
    'team:session-changed': teamSessionSchema,
    /**
     * A linked desk's event stream came back on a server process that cannot replay what the desk
     * missed meanwhile (the team server restarted, or another instance took over): every screen reads again.
     */
    'team:pushes-missed': z.object({}).strict(),
  },
} as const;
