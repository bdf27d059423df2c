// What Paydesk tells people (docs/notifications.md). Notices are written by the event
// that causes them, in its transaction (an approval's move with its audit entry, a payout's status
// with its row, an attempt's unknown outcome with the attempt), so none is lost to a crash and none
// is told of an event that did not commit. Each person reads their own inbox; the announcer
// follows the table by id and pushes what is new to the screens of this instance, so on a team
// server with several instances each pushes to its own clients and nobody is told twice.
import { AsyncResource } from 'node:async_hooks';
import { DEFAULT_NOTICE_THRESHOLDS, NOTICE_CHANNELS, noticeThresholdsSchema, type BatchItemState, type Inbox, type NoticeChannelName, type NoticeChannelStatus, type NoticeChoices, type NoticeKind, type NoticeThresholds, type NoticeView, type TeamRole } from '../../../shared/contract';
import { NOTICE_KIND_LABELS, NOTICE_KIND_ROLES } from '../../../shared/notice-kind-labels';
import { describePayoutStatus, describeReason } from '../../../shared/spec/codes';
import { maskPansIn } from '../../../shared/redact';
import type { ApprovalRecord } from '../../ledger/repositories/approvals';
import type { Attempt } from '../../ledger/repositories/attempts';
import type { LedgerEvents, Repositories } from '../../ledger/repositories/index';
import type { NewNotice, NoticeRecipients, NoticeRecord } from '../../ledger/repositories/notices';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { MethodKey } from '../../ledger/repositories/notice-watches';
import type { TransactionKind } from '../../transaction-kinds';
import type { StatusColumns } from '../../ledger/repositories/transactions';
import type { Logger } from '../../logger';
import type { EventBus } from '../event-bus';
import { ServiceError } from '../errors';
import { APPROVAL_NOTICES, BATCH_NOTICES, NOTICE_OF_APPROVAL_ACTION, PAYOUT_NOTICES, type ApprovalFacts, type PayoutFacts } from './notice-kinds';
import { LEDGER_WATCH_NOTICES, SECURITY_NOTICES, type PersonFacts } from './notice-kinds';

/** The announcer looks for new notices this often (a few seconds at most between an event and its bell). */
export const DEFAULT_ANNOUNCE_MS = 1_000;
/** The most notices one look pushes (the rest at the next). */
const ANNOUNCE_BATCH = 500;
/** The settings key of the watches' thresholds. */
const THRESHOLDS_KEY = 'notices.thresholds';
/** A desk's one person. */
export const DESK_RECIPIENT = '';

/** A decline rate told as high is counted again at most this often (to see it fall below). */
const RATE_RECOUNT_MS = 60_000;

/** Environments whose payouts are news: money that is real. */
const TOLD_ENVIRONMENTS: ReadonlySet<string> = new Set(['live']);

export interface NoticesDeps {
  repos: Pick<Repositories, 'notices' | 'profiles' | 'payouts' | 'batches' | 'settings' | 'audit' | 'transaction' | 'noticeWatches'>;
  /** Whether this server sends on a channel (its SMTP server is set up; chat always on a team server). */
  configured?: (channel: NoticeChannelName) => boolean;
  /** A team server tells people by id and role; a desk tells its one person everything. */
  team: boolean;
  /** The person whose request is served (a team server). */
  person: () => { id: string; role: TeamRole } | undefined;
  /** This instance's screens (not relayed: every instance announces to its own). */
  screens: EventBus;
  log: Logger;
  announceMs?: number;
  /** New notices were found written (committed, by any instance): the sender looks at the outbox now, not at its next round. */
  onNew?: () => void;
}

export class Notices {
  private seen = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private round: Promise<void> = Promise.resolve();

  constructor(private readonly deps: NoticesDeps) {}

  // --- written by events, in their transaction ---

  /** An approval's move (its audit entry's action), told to its approvers or its maker. */
  async approvalMoved(approval: ApprovalRecord, action: string, facts: ApprovalFacts): Promise<void> {
    const kind = NOTICE_OF_APPROVAL_ACTION[action];
    if (!kind) return;
    const { notice, to } = APPROVAL_NOTICES[kind](approval, facts);
    await this.tell(notice, to);
  }

  /** A payout's status was written: a live one that became final and not paid is told as declined. */
  async payoutStatusWritten(before: StatusColumns, record: PayoutRecord): Promise<void> {
    await this.declineRateWritten('payout', before, record);
    if (before.final || !record.final || record.statusCategory === 'success' || record.statusCode === null) return;
    const facts = await this.livePayout(record.profileId, record.merchantReference, record);
    if (!facts) return;
    const status = describePayoutStatus(record.statusCode);
    const reason = record.reasonCode === null ? null : `${record.reasonCode}: ${describeReason(record.reasonCode).meaning}`;
    const { notice, to } = PAYOUT_NOTICES['payout.declined'](facts, { code: record.statusCode, meaning: status.meaning, reason });
    await this.tell(notice, to);
  }

  /** A live payout's attempt ended without an answer. */
  async attemptUnknown(attempt: Attempt, why: string): Promise<void> {
    if (attempt.kind !== 'payout') return;
    const row = await this.deps.repos.payouts.byReference(attempt.profileId, attempt.reference);
    const facts = await this.livePayout(attempt.profileId, attempt.reference, row);
    if (!facts) return;
    const { notice, to } = PAYOUT_NOTICES['payout.unknown'](facts, maskPansIn(why).slice(0, 200));
    await this.tell(notice, to);
  }

  /** A live batch ended: told when some of its payouts were refused or their outcome is unknown. */
  async batchFinished(batchId: number, counts: Record<BatchItemState, number>): Promise<void> {
    if (counts.refused === 0 && counts.unknown === 0) return;
    const batch = await this.deps.repos.batches.batch(batchId);
    if (!batch || !TOLD_ENVIRONMENTS.has(batch.environment)) return;
    const profile = await this.deps.repos.profiles.get(batch.profileId);
    const { notice, to } = BATCH_NOTICES['batch.finished']({ id: batchId, fileName: batch.fileName, profileName: profile?.name ?? batch.profileId }, counts);
    await this.tell(notice, to);
  }

  /** A watch's notice (watches.ts), written in the watch's transaction once it found it untold. */
  async watchFound(notice: NewNotice, to: NoticeRecipients): Promise<void> {
    await this.tell(notice, to);
  }

  /** A pay-in's status was written (its method's decline rate). */
  async payinStatusWritten(before: StatusColumns, record: PayinRecord): Promise<void> {
    await this.declineRateWritten('payin', before, record);
  }

  /**
   * A pay-in or payout became final: its live profile's method is told when its decline rate over
   * the window rose to the threshold (with enough finals), once until it is counted below again.
   * Cheap on the listener's path: a success reads one row of decline_rate_alerts and stops unless
   * the rate is told as high; a decline counts the window (an index range) unless it is high and
   * was counted less than a minute ago; a rate told high is counted again at most once a minute.
   */
  private async declineRateWritten(kind: TransactionKind, before: StatusColumns, record: PayinRecord | PayoutRecord): Promise<void> {
    if (before.final || !record.final || record.statusChangedAt === null) return;
    const key: MethodKey = { kind, profileId: record.profileId, method: record.method };
    const state = await this.deps.repos.noticeWatches.rateState(key);
    const at = Date.parse(record.statusChangedAt);
    if (state?.high ? at - Date.parse(state.checkedAt) < RATE_RECOUNT_MS : record.statusCategory === 'success') return;
    const profile = await this.deps.repos.profiles.get(record.profileId);
    if (!profile || !TOLD_ENVIRONMENTS.has(profile.environment)) return;
    const limits = await this.thresholds();
    const since = new Date(at - limits.declineRateWindowMinutes * 60_000).toISOString();
    const window = await this.deps.repos.noticeWatches.declineWindow(key, since);
    // Exact: declined / finals >= percent / 100, in integers.
    const high = window.finals >= limits.declineRateMinimum && window.declined * 100 >= limits.declineRatePercent * window.finals;
    if (state?.high) {
      await this.deps.repos.noticeWatches.counted(key, high);
      return;
    }
    if (!high || !(await this.deps.repos.noticeWatches.markHigh(key))) return;
    const { notice, to } = LEDGER_WATCH_NOTICES['decline-rate.high']({ kind, method: record.method, profileName: profile.name, ...window, windowMinutes: limits.declineRateWindowMinutes, thresholdPercent: limits.declineRatePercent });
    await this.tell(notice, to);
  }

  /**
   * A person of a team server signed in (in the sign-in's transaction): told to admins when the
   * address is new for them and they had signed in before from another (a first sign-in ever, or
   * one from an address they used before, tells nothing).
   */
  async signedIn(person: PersonFacts, address: string): Promise<void> {
    const { first, before } = await this.deps.repos.noticeWatches.recordSignIn(person.id, address);
    if (!first || before === 0) return;
    const { notice, to } = SECURITY_NOTICES['security.new-address'](person, address, before);
    await this.tell(notice, to);
  }

  /** A person's role changed (in the change's transaction): told to admins and to them. */
  async roleChanged(person: PersonFacts, change: { from: string; to: string; by: string }): Promise<void> {
    if (change.from === change.to) return;
    const { notice, to } = SECURITY_NOTICES['security.role-changed'](person, change);
    await this.tell(notice, to);
  }

  /** A sweep ended having found rows newly in mismatch: told once for the run (none new: nothing). */
  async sweepFoundMismatches(found: { sweepId: string; startedAt: string; profileId: string | null; payins: number; payouts: number }): Promise<void> {
    if (found.payins + found.payouts === 0) return;
    await this.deps.repos.transaction(async () => {
      const profile = found.profileId === null ? undefined : await this.deps.repos.profiles.get(found.profileId);
      const { notice, to } = LEDGER_WATCH_NOTICES['sweep.mismatches']({ ...found, profileName: found.profileId === null ? null : (profile?.name ?? found.profileId) });
      await this.tell(notice, to);
    });
  }

  private async livePayout(profileId: string, reference: string, row: PayoutRecord | undefined): Promise<PayoutFacts | undefined> {
    const profile = await this.deps.repos.profiles.get(profileId);
    if (!profile || !TOLD_ENVIRONMENTS.has(profile.environment) || !row) return undefined;
    return { rowId: row.id, reference, amount: row.amount, currency: row.currency, profileName: profile.name };
  }

  private async tell(notice: NewNotice, to: NoticeRecipients): Promise<void> {
    // No card number beyond its first 6 and last 4 is ever kept in a notice, whatever its facts held.
    const masked = { ...notice, title: maskPansIn(notice.title), body: maskPansIn(notice.body) };
    // A desk has one person: everything is for them, whatever role it names.
    await this.deps.repos.notices.add(masked, this.deps.team ? to : { people: [DESK_RECIPIENT] });
  }

  // --- the inbox ---

  async list(input: { cursor?: string | null | undefined; limit?: number | undefined; unreadOnly?: boolean | undefined }): Promise<Inbox> {
    const recipient = this.recipient();
    const page = await this.deps.repos.notices.page(recipient, { cursor: input.cursor, limit: input.limit ?? 50, unreadOnly: input.unreadOnly });
    return { items: page.items.map(noticeView), nextCursor: page.nextCursor, unread: await this.deps.repos.notices.unread(recipient) };
  }

  async markRead(input: { ids: number[] } | { all: true }): Promise<{ unread: number }> {
    const recipient = this.recipient();
    const changed = await this.deps.repos.notices.markRead(recipient, 'ids' in input ? input.ids : 'all');
    const unread = await this.deps.repos.notices.unread(recipient);
    // The person's other sessions (another tab, another desk) show the same count.
    if (changed > 0) this.deps.screens.publish('notices:inbox-changed', { unread, added: [] }, this.audience(recipient));
    return { unread };
  }

  // --- what reaches each person outside the app (a team server's) ---

  async choices(): Promise<NoticeChoices> {
    const { email, chatUrl, choices } = await this.deps.repos.notices.choicesOf(this.teamRecipient());
    return { email, chatUrl, choices: choices as NoticeChoices['choices'] };
  }

  /**
   * Replaces the person's addresses and choices; a channel chosen without its address is refused,
   * and so is a kind never told to the person's role (the screen lists only those).
   */
  async setChoices(input: NoticeChoices): Promise<NoticeChoices> {
    const person = this.teamRecipient();
    const role = this.deps.person()?.role;
    for (const { kind, channel } of input.choices) {
      if (role && !NOTICE_KIND_ROLES[kind].includes(role)) throw new ServiceError('invalid_input', `"${NOTICE_KIND_LABELS[kind]}" is never told to your role (${role}): choose among the kinds listed for it.`, { choices: `${kind} is not told to ${role}` });
      if (channel === 'email' && input.email === null) throw new ServiceError('invalid_input', 'Give an e-mail address to receive notices by e-mail.', { email: 'needed for the e-mail choices' });
      if (channel === 'chat' && input.chatUrl === null) throw new ServiceError('invalid_input', 'Give a chat webhook address to receive notices in chat.', { chatUrl: 'needed for the chat choices' });
    }
    await this.deps.repos.transaction(() => this.deps.repos.notices.setChoices(person, { email: input.email, chatUrl: input.chatUrl }, input.choices));
    return this.choices();
  }

  // --- the watches' thresholds (an admin's, for the whole ledger) ---

  /** The thresholds set, each missing or unreadable one at its default. */
  async thresholds(): Promise<NoticeThresholds> {
    const stored = await this.deps.repos.settings.get(THRESHOLDS_KEY);
    const parsed = noticeThresholdsSchema.safeParse({ ...DEFAULT_NOTICE_THRESHOLDS, ...(stored === undefined ? {} : (JSON.parse(stored) as object)) });
    return parsed.success ? parsed.data : DEFAULT_NOTICE_THRESHOLDS;
  }

  /** Sets every threshold at once; the change is in the audit log with what it was. */
  async setThresholds(input: NoticeThresholds): Promise<NoticeThresholds> {
    await this.deps.repos.transaction(async () => {
      const before = await this.thresholds();
      await this.deps.repos.settings.put(new Map([[THRESHOLDS_KEY, JSON.stringify(input)]]));
      await this.deps.repos.audit.append({ actor: 'user', action: 'notices.thresholds-set', subject: null, details: { from: before, to: input } });
    });
    return this.thresholds();
  }

  /** Each channel: whether this server sends on it, its last success and its last error. */
  async channelStatus(): Promise<NoticeChannelStatus[]> {
    const known = new Map((await this.deps.repos.notices.channels()).map((c) => [c.channel, c]));
    return NOTICE_CHANNELS.map((channel) => ({ channel, configured: this.deps.configured?.(channel) ?? false, lastSentAt: known.get(channel)?.lastSentAt ?? null, lastError: known.get(channel)?.lastError ?? null, lastErrorAt: known.get(channel)?.lastErrorAt ?? null }));
  }

  private teamRecipient(): string {
    if (!this.deps.team) throw new ServiceError('unavailable', 'E-mail and chat notices are a team server\'s (docs/notifications.md): a desk shows its notices in the app and on the desktop.');
    return this.recipient();
  }

  private recipient(): string {
    if (!this.deps.team) return DESK_RECIPIENT;
    const person = this.deps.person();
    if (!person) throw new ServiceError('unauthorized', 'Sign in to read your notices.');
    return person.id;
  }

  private audience(recipient: string) {
    return this.deps.team ? { personId: recipient } : undefined;
  }

  // --- the announcer ---

  /** Pushes what is written from now on (what was written before is in the inbox already). */
  async start(): Promise<void> {
    this.seen = await this.deps.repos.notices.newestId();
    this.running = true;
    this.schedule();
  }

  async close(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.round;
  }

  /** One look now (tests, and after this instance wrote some). */
  announce(): Promise<void> {
    this.round = this.round.then(this.announceRound);
    return this.round;
  }

  private readonly announceRound = AsyncResource.bind(async () => {
    try {
      const fresh = await this.deps.repos.notices.after(this.seen, ANNOUNCE_BATCH);
      if (fresh.length === 0) return;
      this.seen = fresh[fresh.length - 1]!.id;
      this.deps.onNew?.();
      const byRecipient = new Map<string, NoticeRecord[]>();
      for (const notice of fresh) byRecipient.set(notice.recipient, [...(byRecipient.get(notice.recipient) ?? []), notice]);
      for (const [recipient, notices] of byRecipient) {
        const unread = await this.deps.repos.notices.unread(recipient);
        this.deps.screens.publish('notices:inbox-changed', { unread, added: notices.map(noticeView) }, this.audience(recipient));
      }
    } catch (error) {
      try {
        this.deps.log.error('announcing notices failed; trying again', error);
      } catch {
        // A failing logger must not end the announcer.
      }
    }
  });

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      void this.announce().then(() => this.schedule());
    }, this.deps.announceMs ?? DEFAULT_ANNOUNCE_MS).unref();
  }
}

export function noticeView(record: NoticeRecord): NoticeView {
  return { id: record.id, kind: record.kind as NoticeKind, title: record.title, body: record.body, link: record.link, createdAt: record.createdAt, read: record.readAt !== null };
}

/**
 * What the repositories tell (LedgerEvents), held from the wiring's start and forwarded to the
 * notices once they are built on those repositories (services.ts connects them before anything runs).
 */
export class LedgerNotices implements LedgerEvents {
  private notices: Pick<Notices, 'payoutStatusWritten' | 'attemptUnknown' | 'payinStatusWritten'> | undefined;

  connect(notices: Pick<Notices, 'payoutStatusWritten' | 'attemptUnknown' | 'payinStatusWritten'>): void {
    this.notices = notices;
  }

  async payoutStatusWritten(before: StatusColumns, record: PayoutRecord): Promise<void> {
    await this.notices?.payoutStatusWritten(before, record);
  }

  async attemptUnknown(attempt: Attempt, why: string): Promise<void> {
    await this.notices?.attemptUnknown(attempt, why);
  }

  async payinStatusWritten(before: StatusColumns, record: PayinRecord): Promise<void> {
    await this.notices?.payinStatusWritten(before, record);
  }
}
