// What each kind of notice says and who it is for, one entry per kind (docs/notifications.md): a
// kind added to NOTICE_KINDS without its entry fails the typecheck (NOTICE_ENTRIES, below). Texts carry what a person
// needs to act and nothing a message may not (no card number beyond its first 6 and last 4, no
// CVV, merchant-token or key: they are never in the facts given here).
import type { ApprovalKind, NoticeKind } from '../../../shared/contract';
import type { ApprovalRecord } from '../../ledger/repositories/approvals';
import type { NewNotice, NoticeRecipients } from '../../ledger/repositories/notices';

// The people of a team server a kind goes to by role (a desk's notices all go to its one person)
// are the groups the settings screen lists each kind for (shared/notice-kind-labels.ts).
import { ADMINS, APPROVERS, SENDERS } from '../../../shared/notice-kind-labels';

/** What a payout's approval and a batch's differ in, as told. */
const APPROVED_AS_TOLD = {
  payout: { what: (a: ApprovalRecord) => `Payout ${a.subject} of ${a.amount} ${a.currency}`, done: 'the payout was sent' },
  batch: { what: (a: ApprovalRecord) => `Batch ${a.subject} (${a.itemCount} payouts, ${a.amount} ${a.currency})`, done: 'the batch started' },
} as const satisfies Record<ApprovalKind, unknown>;

const what = (a: ApprovalRecord) => APPROVED_AS_TOLD[a.kind].what(a);
const approvalNotice = (kind: NoticeKind, a: ApprovalRecord, title: string, body: string): NewNotice => ({ kind, subject: `approval:${a.id}`, title, body, link: `#/approvals/${a.id}` });

/** What the audit entry of an approval's move says beyond the approval as it was read before it. */
export interface ApprovalFacts {
  approver?: string;
  reason?: string;
}

/** An approval's move, as told: to the approvers (a request, never to its maker) or to its maker (a decision). */
export const APPROVAL_NOTICES = {
  'approval.requested': (a: ApprovalRecord, _d: ApprovalFacts) => ({
    notice: approvalNotice('approval.requested', a, `Approval needed: ${what(a)}`, `${a.makerName} asks for your approval of ${what(a).toLowerCase()}. It expires at ${a.expiresAt}.`),
    to: { roles: APPROVERS, except: a.makerId },
  }),
  'approval.approved': (a: ApprovalRecord, d: ApprovalFacts) => ({
    notice: approvalNotice('approval.approved', a, `Approved: ${what(a)}`, `${d.approver ?? 'An approver'} approved your request; ${APPROVED_AS_TOLD[a.kind].done}.`),
    to: { people: [a.makerId] },
  }),
  'approval.rejected': (a: ApprovalRecord, d: ApprovalFacts) => ({
    notice: approvalNotice('approval.rejected', a, `Rejected: ${what(a)}`, `${d.approver ?? 'An approver'} rejected your request. Reason: ${d.reason ?? '(none given)'}`),
    to: { people: [a.makerId] },
  }),
  'approval.expired': (a: ApprovalRecord, _d: ApprovalFacts) => ({
    notice: approvalNotice('approval.expired', a, `Expired: ${what(a)}`, `Your request expired at ${a.expiresAt} without a decision; nothing was sent.`),
    to: { people: [a.makerId] },
  }),
  'approval.voided': (a: ApprovalRecord, d: ApprovalFacts) => ({
    notice: approvalNotice('approval.voided', a, `Void: ${what(a)}`, `Your request no longer holds${d.reason ? `: ${d.reason}` : ''}. Nothing was sent.`),
    to: { people: [a.makerId] },
  }),
} as const satisfies Partial<Record<NoticeKind, (a: ApprovalRecord, d: ApprovalFacts) => { notice: NewNotice; to: NoticeRecipients }>>;

/** The audit action of an approval's move → the notice it tells (a withdrawal is the maker's own: nobody is told). */
export const NOTICE_OF_APPROVAL_ACTION: Record<string, keyof typeof APPROVAL_NOTICES | null> = {
  'approval.request': 'approval.requested',
  'approval.approve': 'approval.approved',
  'approval.reject': 'approval.rejected',
  'approval.expire': 'approval.expired',
  'approval.void': 'approval.voided',
  'approval.withdraw': null,
};

/** A payout as its notices name it. */
export interface PayoutFacts {
  rowId: number | null;
  reference: string;
  amount: string;
  currency: string;
  profileName: string;
}

const payoutLink = (p: PayoutFacts) => (p.rowId === null ? `#/payouts?search=${encodeURIComponent(p.reference)}` : `#/payouts/${p.rowId}`);

/** A live payout's news, told to who sends payouts (a desk's person). */
export const PAYOUT_NOTICES = {
  'payout.declined': (p: PayoutFacts, status: { code: string; meaning: string; reason: string | null }) => ({
    notice: {
      kind: 'payout.declined',
      subject: `payout:${p.reference}`,
      title: `Payout ${p.reference} declined: ${status.code}`,
      body: `${status.meaning}${status.reason ? ` (${status.reason})` : ''}: ${p.amount} ${p.currency} on ${p.profileName}.`,
      link: payoutLink(p),
    },
    to: { roles: SENDERS },
  }),
  'payout.unknown': (p: PayoutFacts, why: string) => ({
    notice: {
      kind: 'payout.unknown',
      subject: `payout:${p.reference}`,
      title: `Outcome unknown: payout ${p.reference}`,
      body: `Nobody knows yet whether ${p.amount} ${p.currency} on ${p.profileName} was paid (${why}). Do not send it again: Paydesk looks it up; open it to see.`,
      link: payoutLink(p),
    },
    to: { roles: SENDERS },
  }),
} as const satisfies Partial<Record<NoticeKind, (...args: never[]) => { notice: NewNotice & { kind: NoticeKind }; to: NoticeRecipients }>>;

/** A live batch's end with refusals or unknown outcomes, told to who sends payouts (a desk's person). */
export const BATCH_NOTICES = {
  'batch.finished': (b: { id: number; fileName: string; profileName: string }, counts: { sent: number; refused: number; unknown: number }) => ({
    notice: {
      kind: 'batch.finished',
      subject: `batch:${b.id}`,
      title: `Batch ${b.id} finished: ${counts.refused} refused, ${counts.unknown} unknown`,
      body: `${b.fileName} on ${b.profileName}: ${counts.sent} sent, ${counts.refused} refused, ${counts.unknown} of unknown outcome. Open it to see which.`,
      link: `#/payouts?tab=batch&batch=${b.id}`,
    },
    to: { roles: SENDERS },
  }),
} as const satisfies Partial<Record<NoticeKind, (...args: never[]) => { notice: NewNotice & { kind: NoticeKind }; to: NoticeRecipients }>>;

/** A live profile gone silent, as told (services/notices/watches.ts). */
export interface SilentProfileFacts {
  profileId: string;
  name: string;
  waiting: number;
  /** Since when nothing was heard while pay-ins waited. */
  silentSince: string;
  lastNotificationAt: string | null;
  silenceMinutes: number;
  /** The origin of a notification link its pay-ins were sent with that the gateway cannot reach (shared/notification-reach.ts); null: none. */
  unreachableOrigin: string | null;
}

/** What the watches tell when a threshold is passed (docs/notifications.md "Watches"), each once. */
export const WATCH_NOTICES = {
  'approval.reminder': (a: ApprovalRecord, waitedMinutes: number) => ({
    notice: approvalNotice('approval.reminder', a, `Still waiting for approval: ${what(a)}`, `${a.makerName}'s request has waited ${waitedMinutes} minutes for an approver. It expires at ${a.expiresAt}; open it to approve or reject.`),
    to: { roles: APPROVERS, except: a.makerId },
  }),
  'approval.escalated': (a: ApprovalRecord, minutesLeft: number) => ({
    notice: approvalNotice('approval.escalated', a, `Expiring undecided: ${what(a)}`, `${a.makerName}'s request has had no decision and expires at ${a.expiresAt} (in ${minutesLeft} minutes or less). Find an approver, or it expires and nothing is sent.`),
    to: { roles: ADMINS },
  }),
  'profile.silent': (p: SilentProfileFacts) => ({
    notice: {
      kind: 'profile.silent',
      subject: `profile:${p.profileId}`,
      title: p.unreachableOrigin === null ? `No notifications for ${p.name}` : `Notifications cannot reach ${p.name}`,
      body: `The live profile ${p.name} has ${p.waiting} pay-in${p.waiting === 1 ? '' : 's'} waiting${
        p.unreachableOrigin === null
          ? ` and has heard nothing from the gateway for over ${p.silenceMinutes} minutes (since ${p.silentSince}; ${p.lastNotificationAt === null ? 'no notification ever' : `last notification at ${p.lastNotificationAt}`}). Check that its listener address is reachable from the gateway and that the gateway has it as the notification URL`
          : `, sent with a notification address at ${p.unreachableOrigin}, which only this machine answers: the gateway cannot reach it. Set the profile's public URL to where the gateway reaches the notification listener`
      }; until then Paydesk learns their outcomes only by reading their status.`,
      link: `#/settings?edit=${encodeURIComponent(p.profileId)}`,
    },
    to: { roles: SENDERS },
  }),
} as const satisfies Partial<Record<NoticeKind, (...args: never[]) => { notice: NewNotice; to: NoticeRecipients }>>;

/** Where a team server's people are managed (Settings, its Team section). */
const TEAM_LINK = '#/settings?section=team';

/** A team server's person as security notices name them. */
export interface PersonFacts {
  id: string;
  username: string;
  displayName: string;
  role: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export const SECURITY_NOTICES = {
  'security.new-address': (p: PersonFacts, address: string, knownAddresses: number) => ({
    notice: {
      kind: 'security.new-address',
      subject: `person:${p.id}`,
      title: `Sign-in from a new address: ${p.username}`,
      body: `${p.displayName} (${p.username}, ${p.role}) signed in from ${address}, which they never signed in from before (they had from ${plural(knownAddresses, 'other address', 'other addresses')}). If it was not them, end their sessions and reset their password under Team.`,
      link: TEAM_LINK,
    },
    to: { roles: ADMINS },
  }),
  'security.role-changed': (p: PersonFacts, change: { from: string; to: string; by: string }) => ({
    notice: {
      kind: 'security.role-changed',
      subject: `person:${p.id}`,
      title: `Role changed: ${p.username} is now ${change.to}`,
      body: `${change.by} changed the role of ${p.displayName} (${p.username}) from ${change.from} to ${change.to}; it holds from their next request. If this is not expected, see Team and the audit log.`,
      link: TEAM_LINK,
    },
    to: { roles: ADMINS, people: [p.id] },
  }),
} as const satisfies Partial<Record<NoticeKind, (...args: never[]) => { notice: NewNotice & { kind: NoticeKind }; to: NoticeRecipients }>>;

/** A sweep's new mismatches, by kind. */
export interface SweepFindings {
  sweepId: string;
  startedAt: string;
  profileName: string | null;
  payins: number;
  payouts: number;
}

/** The final codes that are not paid, as the lists filter them (every category of a final status but success). */
const DECLINE_CATEGORIES = 'customer_error,decline,validation,merchant_setup,system';
const KIND_WORDS = { payin: { many: 'pay-ins', list: '#/payins' }, payout: { many: 'payouts', list: '#/payouts' } } as const;

export interface DeclineRateFacts {
  kind: 'payin' | 'payout';
  method: string;
  profileName: string;
  finals: number;
  declined: number;
  windowMinutes: number;
  thresholdPercent: number;
}

/** What the sweep and the decline rate watch tell, to who sends and reconciles (admins and finance; a desk's person). */
export const LEDGER_WATCH_NOTICES = {
  'sweep.mismatches': (f: SweepFindings) => ({
    notice: {
      kind: 'sweep.mismatches',
      subject: `sweep:${f.sweepId}`,
      title: `Sweep found ${plural(f.payins + f.payouts, 'new mismatch', 'new mismatches')}`,
      body: `The sweep started ${f.startedAt} (${f.profileName ?? 'all profiles'}) found ${plural(f.payins, 'pay-in')} and ${plural(f.payouts, 'payout')} newly in mismatch: the gateway's answer contradicts what the ledger holds. Review them under Reconciliation.`,
      link: '#/reconciliation',
    },
    to: { roles: SENDERS },
  }),
  'decline-rate.high': (f: DeclineRateFacts) => ({
    notice: {
      kind: 'decline-rate.high',
      subject: `decline-rate:${f.kind}:${f.method}`,
      title: `High decline rate: ${f.method} ${KIND_WORDS[f.kind].many} on ${f.profileName}`,
      body: `${f.declined} of the ${f.finals} ${f.method} ${KIND_WORDS[f.kind].many} of ${f.profileName} that became final in the last ${f.windowMinutes} min were not paid (${Math.floor((f.declined * 1000) / f.finals) / 10}%; told from ${f.thresholdPercent}%). Open them to see their codes; told again only after the rate falls below and rises again.`,
      link: `${KIND_WORDS[f.kind].list}?method=${encodeURIComponent(f.method)}&category=${DECLINE_CATEGORIES}`,
    },
    to: { roles: SENDERS },
  }),
} as const satisfies Partial<Record<NoticeKind, (...args: never[]) => { notice: NewNotice & { kind: NoticeKind }; to: NoticeRecipients }>>;

/** Every kind's entry, whichever table holds it: a kind added to NOTICE_KINDS without one fails the typecheck here. */
export const NOTICE_ENTRIES = {
  ...APPROVAL_NOTICES,
  ...PAYOUT_NOTICES,
  ...BATCH_NOTICES,
  ...WATCH_NOTICES,
  ...SECURITY_NOTICES,
  ...LEDGER_WATCH_NOTICES,
} as const satisfies Record<NoticeKind, unknown>;
