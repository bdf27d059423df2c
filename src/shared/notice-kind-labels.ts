// Each kind of notice in words a person reads (the settings screen's list of choices). A kind added
// to NOTICE_KINDS without its label here does not compile.
import type { NoticeKind } from './contract/notices';

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
