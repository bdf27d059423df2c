// Each kind of notice in words a person reads (the settings screen's list of choices), and the
// roles of a team server it can reach: the screen lists a person only the kinds their role is told.
// A kind added to NOTICE_KINDS without its label and its roles here does not compile.
import type { NoticeKind } from './contract/notices';
import { CHANNEL_ROLES } from './contract/roles';
import { TEAM_ROLES, type TeamRole } from './contract/team';

/** The roles notices go to by role (main's services/notices/notice-kinds.ts addresses them with these). */
export const SENDERS = ['admin', 'finance'] as const satisfies readonly TeamRole[];
export const APPROVERS = ['approver'] as const satisfies readonly TeamRole[];
export const ADMINS = ['admin'] as const satisfies readonly TeamRole[];
/** Who may submit a payout or a batch for approval: each is told of its own request's end. */
const MAKERS = TEAM_ROLES.filter((role) => ([...CHANNEL_ROLES['approvals:request-payout'], ...CHANNEL_ROLES['approvals:request-batch']] as readonly TeamRole[]).includes(role));

/** The roles each kind can reach: told to these roles, or to a person (a maker, the one whose role changed) of them. */
export const NOTICE_KIND_ROLES: Record<NoticeKind, readonly TeamRole[]> = {
  'approval.requested': APPROVERS,
  'approval.reminder': APPROVERS,
  'approval.escalated': ADMINS,
  'approval.approved': MAKERS,
  'approval.rejected': MAKERS,
  'approval.expired': MAKERS,
  'approval.voided': MAKERS,
  'payout.unknown': SENDERS,
  'payout.declined': SENDERS,
  'batch.finished': SENDERS,
  'profile.silent': SENDERS,
  'sweep.mismatches': SENDERS,
  'decline-rate.high': SENDERS,
  'security.new-address': ADMINS,
  // To the admins, and to the person whose role it is, whatever it is.
  'security.role-changed': TEAM_ROLES,
};

export const NOTICE_KIND_LABELS = {
  'approval.requested': 'A payout or batch awaits your approval',
  'approval.reminder': 'Reminder: an approval still awaits you',
  'approval.escalated': 'An approval nears its expiry undecided (escalation)',
  'approval.approved': 'Your request was approved',
  'approval.rejected': 'Your request was rejected, with the reason',
  'approval.expired': 'Your request expired without a decision',
  'approval.voided': 'Your request was voided: its batch changed or went away',
  'payout.unknown': "A live payout's outcome is unknown",
  'payout.declined': 'A live payout was declined',
  'batch.finished': 'A live batch finished with refusals or unknown outcomes',
  'profile.silent': "A live profile's notifications stopped arriving",
  'sweep.mismatches': 'The sweep found mismatches',
  'decline-rate.high': "A method's decline rate passed its threshold",
  'security.new-address': 'A sign-in from a new address',
  'security.role-changed': "A person's role changed",
} as const satisfies Record<NoticeKind, string>;
