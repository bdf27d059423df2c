// Who may call what on a team server: every invoke channel names the roles allowed to call it.
// The server refuses any other role (the guard); the renderer reads the same table to hide or
// disable what the signed-in person cannot do, and to say why. A channel added to the contract
// without its entry here fails the typecheck (the `satisfies` below).
//
// admin: people, profiles, credentials, limits, listener, retention, and everything else.
// approver: reads everything finance reads, and approves or rejects what others submitted for
//   approval (never their own: the service checks the person, docs/team.md "Approvals").
// finance: payouts, batches, reconciliation; imports settlement reports and bank statements and
//   matches their lines (support and approvers read them).
// support: finds and reads transactions, re-reads statuses, exports evidence packs.
// developer: the sandbox playground, JWT tools and the webhook inspector, on sandbox and
//   local-emulator profiles only (the server checks the profile of each call: docs/team.md).
// A single desk has nobody signed in and no roles: everything is allowed there, as always.
import type { InvokeChannel } from './index';
import type { TeamRole } from './team';

const everyone = ['admin', 'approver', 'finance', 'support', 'developer'] as const satisfies readonly TeamRole[];
/** Who reads transactions, notifications and their history. */
const readers = everyone;
const finance = ['admin', 'finance'] as const satisfies readonly TeamRole[];
/** Who sends money or runs the sweep: finance, and developers on the emulator (scoped to non-live profiles). */
const payouts = ['admin', 'finance', 'developer'] as const satisfies readonly TeamRole[];
const reconcilers = ['admin', 'approver', 'finance', 'support'] as const satisfies readonly TeamRole[];
const statusReaders = everyone;
const evidence = ['admin', 'approver', 'finance', 'support'] as const satisfies readonly TeamRole[];
const developers = ['admin', 'developer'] as const satisfies readonly TeamRole[];
const admins = ['admin'] as const satisfies readonly TeamRole[];
/** Who sees what awaits approval: who submits it, who decides it, and admins. */
const approvalReaders = ['admin', 'approver', 'finance', 'developer'] as const satisfies readonly TeamRole[];
const approvers = ['approver'] as const satisfies readonly TeamRole[];

export const CHANNEL_ROLES = {
  // Each person's own inbox.
  'notices:list': everyone,
  'notices:mark-read': everyone,
  'notices:get-choices': everyone,
  'notices:set-choices': everyone,
  'notices:channels': admins,
  'notices:get-thresholds': everyone,
  'notices:set-thresholds': admins,
  'app:get-info': everyone,
  'settings:get': everyone,
  'settings:update': everyone,
  'profiles:list': everyone,
  'profiles:create': admins,
  'profiles:update': admins,
  'profiles:delete': admins,
  'profiles:activate': everyone,
  'profiles:archive': admins,
  'profiles:restore': admins,
  'credentials:set-merchant-token': admins,
  'credentials:clear-merchant-token': admins,
  'credentials:generate-key': admins,
  'credentials:import-key': admins,
  'credentials:export-public-key': admins,
  'payins:create': developers,
  'payins:get': readers,
  'payins:read-status': statusReaders,
  'tokens:tokenize': developers,
  'tokens:list': readers,
  'tokens:charge': developers,
  'payouts:review': payouts,
  'payouts:create': payouts,
  'payouts:get': readers,
  'payouts:read-status': statusReaders,
  'attempts:list': readers,
  'attempts:review': payouts,
  'attempts:resume': payouts,
  'attempts:settle-unknown': payouts,
  'attempts:progress': readers,
  'jwt:sign': developers,
  'jwt:decode': developers,
  'payins:list': readers,
  'payins:count': readers,
  'payouts:list': readers,
  'payouts:count': readers,
  'search:lookup': reconcilers,
  'payins:timeline': readers,
  'payouts:timeline': readers,
  'codes:usage': everyone,
  'notifications:list': readers,
  'notifications:count': readers,
  'notifications:get': readers,
  'notifications:replay': developers,
  'reconciliation:totals': reconcilers,
  'reconciliation:summary': reconcilers,
  'reconciliation:exceptions': reconcilers,
  'reconciliation:sweep-start': finance,
  'reconciliation:sweep-cancel': finance,
  'reconciliation:sweep-status': reconcilers,
  'reconciliation:export-csv': reconcilers,
  'evidence:export': evidence,
  'settings:get-listener': everyone,
  'settings:update-listener': admins,
  'limits:list': everyone,
  'limits:set': admins,
  'limits:remove': admins,
  'limits:set-duplicate-window': admins,
  'limits:check': payouts,
  'batches:create': finance,
  'batches:check': finance,
  'batches:add-items': finance,
  'batches:add-left-out': finance,
  'batches:review': finance,
  'batches:start': finance,
  'batches:discard': finance,
  'batches:pause': finance,
  'batches:resume': finance,
  'batches:cancel': finance,
  'batches:list': reconcilers,
  'batches:get': reconcilers,
  'batches:items': reconcilers,
  'batches:left-out': reconcilers,
  'views:list': everyone,
  'views:save': everyone,
  'views:delete': everyone,
  'payins:export-csv': evidence,
  'payouts:export-csv': evidence,
  'settings:get-notification-retention': everyone,
  'settings:update-notification-retention': admins,
  'team:get-session': everyone,
  'team:connect': everyone,
  'team:disconnect': everyone,
  'team:list-users': admins,
  'team:create-user': admins,
  'team:update-user': admins,
  'team:reset-password': admins,
  'team:change-password': everyone,
  'team:list-sessions': everyone,
  'team:revoke-session': everyone,
  'team:update-policy': admins,
  'team:start-totp': everyone,
  'team:confirm-totp': everyone,
  'team:disable-totp': everyone,
  'approvals:policies': everyone,
  'approvals:set-policy': admins,
  'approvals:remove-policy': admins,
  'approvals:set-expiry': admins,
  'approvals:request-payout': payouts,
  'approvals:request-batch': finance,
  'approvals:list': approvalReaders,
  'approvals:get': approvalReaders,
  'approvals:approve': approvers,
  'approvals:reject': approvers,
  'approvals:withdraw': payouts,
  'statements:upload-begin': finance,
  'statements:upload-chunk': finance,
  'statements:discard-upload': finance,
  'statements:inspect': finance,
  'statements:import': finance,
  'statements:imports': reconcilers,
  'statements:layouts': reconcilers,
  'statements:summary': reconcilers,
  'statements:breaks': reconcilers,
  'statements:settlements': reconcilers,
  'statements:settlement': reconcilers,
  'statements:daily': reconcilers,
  'statements:proposals': reconcilers,
  'statements:decide-proposal': finance,
  'statements:match-line': finance,
  'statements:unmatch-line': finance,
  'statements:match-bank-line': finance,
  'statements:unmatch-bank-line': finance,
  'statements:rematch': finance,
  'statements:export-csv': reconcilers,
} as const satisfies Record<InvokeChannel, readonly TeamRole[]>;

export const ROLE_LABELS: Record<TeamRole, string> = {
  admin: 'Admin',
  approver: 'Approver',
  finance: 'Finance',
  support: 'Support',
  developer: 'Developer',
};

/** What each role is for, in words (Settings → Team, and the refusals). */
export const ROLE_DUTIES: Record<TeamRole, string> = {
  admin: 'people, profiles, credentials, limits and everything else',
  approver: 'reads what finance reads; approves or rejects the payouts and batches others submit',
  finance: 'payouts, batches, reconciliation and statements (imports and matches)',
  support: 'finds and reads transactions and statements, re-reads statuses, exports evidence packs',
  developer: 'the sandbox playground, JWT tools and the webhook inspector, on sandbox and emulator profiles only',
};

/** Whether this role may call this channel (a desk with nobody signed in may call every channel). */
export function roleAllows(role: TeamRole | null, channel: InvokeChannel): boolean {
  return role === null || (CHANNEL_ROLES[channel] as readonly TeamRole[]).includes(role);
}

/** Who may call this channel, in words: for a refusal, and for a disabled control's reason. */
export function allowedRolesText(channel: InvokeChannel): string {
  return (CHANNEL_ROLES[channel] as readonly TeamRole[]).map((role) => ROLE_LABELS[role]).join(', ');
}

/**
 * Why a role may not make this call, in a person's words (the screen's note and the server's
 * refusal alike): never the channel's name, which means nothing on a screen.
 */
export function refusalText(role: TeamRole, channel: InvokeChannel): string {
  return `Your role (${ROLE_LABELS[role]}) may not do this: it is for ${allowedRolesText(channel)}.`;
}
