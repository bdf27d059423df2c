// What Paydesk tells a person (docs/notifications.md): an approval awaits them, their
// request was decided, a live payout's outcome is unknown or it was declined, a batch finished with
// refusals or unknown outcomes. Each person has an inbox (on a desk, its one person), with read
// and unread state and a link to the pay-in, payout, batch or approval; it is pushed live.
// "Notices", so as not to be mistaken for the gateway's notifications (contract/notifications.ts).
import { z } from 'zod';
import { noInput } from './app';

export const NOTICE_KINDS = [
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.expired',
  'approval.voided',
  'payout.unknown',
  'payout.declined',
  'batch.finished',
  // Watches (docs/notifications.md "Watches"): told when a threshold below is passed.
  'approval.reminder',
  'approval.escalated',
  'profile.silent',
  'sweep.mismatches',
  'decline-rate.high',
  // Security events, for admins.
  'security.new-address',
  'security.role-changed',
] as const;
export const noticeKindSchema = z.enum(NOTICE_KINDS);
export type NoticeKind = z.infer<typeof noticeKindSchema>;

export const noticeViewSchema = z.object({
  id: z.number().int(),
  kind: noticeKindSchema,
  title: z.string(),
  body: z.string(),
  /** The screen it opens: #/approvals/12, #/payouts/7, #/payouts?tab=batch&batch=3. */
  link: z.string(),
  createdAt: z.string(),
  read: z.boolean(),
});
export type NoticeView = z.infer<typeof noticeViewSchema>;

export const inboxSchema = z.object({
  items: z.array(noticeViewSchema),
  nextCursor: z.string().nullable(),
  unread: z.number().int(),
});
export type Inbox = z.infer<typeof inboxSchema>;

export const inboxChangedSchema = z.object({
  /** The person's unread notices now. */
  unread: z.number().int(),
  /** Notices new since the last push (none when only their read state changed). */
  added: z.array(noticeViewSchema),
});
export type InboxChanged = z.infer<typeof inboxChangedSchema>;

export const NOTICE_CHANNELS = ['email', 'chat'] as const;
export const noticeChannelSchema = z.enum(NOTICE_CHANNELS);
export type NoticeChannelName = z.infer<typeof noticeChannelSchema>;

const choiceSchema = z.object({ kind: noticeKindSchema, channel: noticeChannelSchema }).strict();

/** An incoming-webhook URL: https, or http on this machine only (a test's receiver). */
const webhookUrl = z
  .string()
  .max(2000)
  .refine((value) => /^https:\/\/[^\s/]+\/\S*$/.test(value) || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/\S*$/.test(value), { message: 'An https:// webhook address (http:// only on this machine).' });

export const noticeChoicesSchema = z.object({
  /** Where e-mail goes; null: none. */
  email: z.string().email('An e-mail address.').max(320).nullable(),
  /** The chat incoming-webhook URL; null: none. */
  chatUrl: webhookUrl.nullable(),
  /** What goes where: each kind on each channel chosen. */
  choices: z.array(choiceSchema).max(NOTICE_KINDS.length * NOTICE_CHANNELS.length),
});
export type NoticeChoices = z.infer<typeof noticeChoicesSchema>;

export const noticeChannelStatusSchema = z.object({
  channel: noticeChannelSchema,
  /** Whether this server is set up to send on it. */
  configured: z.boolean(),
  lastSentAt: z.string().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
});
export type NoticeChannelStatus = z.infer<typeof noticeChannelStatusSchema>;

/**
 * The thresholds and windows of the watches, one set for the ledger (a team's, or a desk's), set by
 * an admin; DEFAULT_NOTICE_THRESHOLDS until then.
 */
export const noticeThresholdsSchema = z
  .object({
    /** An approval still waiting this long after its request is told to its approvers again. */
    approvalReminderMinutes: z.number().int().min(1).max(7 * 24 * 60),
    /** This long before an approval expires undecided, admins are told (escalation). */
    approvalEscalationMinutes: z.number().int().min(1).max(7 * 24 * 60),
    /** A live profile with pay-ins waiting and no notification from the gateway for this long is told as silent. */
    silenceMinutes: z.number().int().min(1).max(24 * 60),
    /** A method's share of declines among what became final over the window, in percent, that is told. */
    declineRatePercent: z.number().int().min(1).max(100),
    declineRateWindowMinutes: z.number().int().min(5).max(24 * 60),
    /** Fewer final transactions than this in the window tell nothing (a rate of 1 in 2 is not news). */
    declineRateMinimum: z.number().int().min(1).max(100_000),
  })
  .strict();
export type NoticeThresholds = z.infer<typeof noticeThresholdsSchema>;

export const DEFAULT_NOTICE_THRESHOLDS: NoticeThresholds = {
  approvalReminderMinutes: 60,
  approvalEscalationMinutes: 60,
  silenceMinutes: 30,
  declineRatePercent: 20,
  declineRateWindowMinutes: 60,
  declineRateMinimum: 20,
};

export const noticesContract = {
  invoke: {
    /** The person's inbox, newest first. */
    'notices:list': {
      input: z.object({ cursor: z.string().max(200).nullish(), limit: z.number().int().min(1).max(200).optional(), unreadOnly: z.boolean().optional() }).strict(),
      output: inboxSchema,
    },
    /** Marks the person's notices read (those named, or all); returns the unread left. */
    'notices:mark-read': {
      input: z.union([z.object({ ids: z.array(z.number().int().positive()).min(1).max(500) }).strict(), z.object({ all: z.literal(true) }).strict()]),
      output: z.object({ unread: z.number().int() }),
    },
    /** The person's own choices of what reaches them by e-mail and chat (a team server's). */
    'notices:get-choices': { input: noInput, output: noticeChoicesSchema },
    'notices:set-choices': { input: noticeChoicesSchema.strict(), output: noticeChoicesSchema },
    /** Each channel's set-up and last error (admins). */
    'notices:channels': { input: noInput, output: z.array(noticeChannelStatusSchema) },
    /** The watches' thresholds (everyone reads them; admins change them). */
    'notices:get-thresholds': { input: noInput, output: noticeThresholdsSchema },
    'notices:set-thresholds': { input: noticeThresholdsSchema, output: noticeThresholdsSchema },
  },
  push: {
    /** The person's inbox changed (a push for their sessions only on a team server). */
    'notices:inbox-changed': inboxChangedSchema,
  },
} as const;
