// The sender of the notices that leave the app (docs/notifications.md): it drains the
// outbox (notice_deliveries, written with each notice) with retries and exponential backoff. Its
// state is the ledger's, so a kill -9 or a restart loses nothing: what was not marked sent is sent
// after the restart (a message the channel took just before the kill may come twice; each carries
// a stable Message-ID a mail client dedupes by). One instance sends at a time: the sender runs
// where the cluster's `notices` leadership is held (on SQLite, the desk's one process).
// A flood of one kind to one person on one channel becomes one digest: DIGEST_AT or more due at
// once are sent as one message listing them, and all are marked sent by it.
import { LedRounds } from '../led-rounds';
import { maskPansIn } from '../../../shared/redact';
import type { Repositories } from '../../ledger/repositories/index';
import type { DeliveryRecord } from '../../ledger/repositories/notices';
import { isoTime } from '../../ledger/support';
import type { Logger } from '../../logger';
import type { NoticeChannel, NoticeChannelName, OutgoingMessage } from './channels';

export interface SenderTimings {
  /** How often the outbox is looked at. */
  everyMs: number;
  /** The first retry's delay; each next one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Tries before a delivery is given up (failed, its error shown to admins). */
  maxTries: number;
}

export const DEFAULT_SENDER_TIMINGS: SenderTimings = { everyMs: 2_000, baseDelayMs: 5_000, maxDelayMs: 15 * 60_000, maxTries: 8 };
/** This many due at once, of one kind to one address, are sent as one digest. */
export const DIGEST_AT = 5;
/** The most deliveries one look takes. */
const BATCH = 500;

export interface NoticeSenderDeps {
  repos: Pick<Repositories, 'notices'>;
  channels: Partial<Record<NoticeChannelName, NoticeChannel>>;
  /** The server's public URL: a notice's link (#/approvals/12) is made absolute with it. */
  publicUrl: string;
  now: () => Date;
  log: Logger;
  timings?: Partial<SenderTimings>;
}

const errorText = (error: unknown) => maskPansIn(error instanceof Error ? error.message : String(error)).slice(0, 500);

export class NoticeSender extends LedRounds {
  private readonly timings: SenderTimings;

  constructor(private readonly deps: NoticeSenderDeps) {
    const timings = { ...DEFAULT_SENDER_TIMINGS, ...deps.timings };
    super(timings.everyMs);
    this.timings = timings;
  }

  override async close(): Promise<void> {
    await super.close();
    for (const channel of Object.values(this.deps.channels)) channel?.close?.();
  }

  /** A round: what is due in the outbox, sent (by the instance leading the sending only). */
  protected async work(): Promise<void> {
    if (!this.leading) return;
    try {
      const due = await this.deps.repos.notices.due(isoTime(this.deps.now()), BATCH);
      for (const group of groups(due)) await this.send(group);
    } catch (error) {
      try {
        this.deps.log.error('sending notices failed; trying again', error);
      } catch {
        // A failing logger must not end the sender.
      }
    }
  }

  /** One message: a delivery, or a digest of several of one kind to one address. */
  private async send(group: DeliveryRecord[]): Promise<void> {
    const first = group[0]!;
    const channel = this.deps.channels[first.channel];
    const ids = group.map((d) => d.id);
    if (!channel) {
      await this.deps.repos.notices.markTried(ids, `the ${first.channel} channel is not set up on this server`, null);
      return;
    }
    try {
      await channel.send(first.address, this.message(group));
    } catch (error) {
      const text = errorText(error);
      const tries = Math.max(...group.map((d) => d.tries)) + 1;
      const next = tries >= this.timings.maxTries ? null : isoTime(new Date(this.deps.now().getTime() + Math.min(this.timings.maxDelayMs, this.timings.baseDelayMs * 2 ** (tries - 1))));
      await this.deps.repos.notices.markTried(ids, text, next);
      await this.deps.repos.notices.noteChannel(first.channel, text);
      this.deps.log.warn(`a ${first.channel} notice was not sent (try ${tries}${next ? `, again at ${next}` : ', given up'}): ${text}`);
      return;
    }
    await this.deps.repos.notices.markSent(ids, group.length > 1 ? first.id : null);
    await this.deps.repos.notices.noteChannel(first.channel, null);
  }

  /** The message, with any card number masked to its first 6 and last 4 whatever the notice held. */
  private message(group: DeliveryRecord[]): OutgoingMessage {
    const message = this.compose(group);
    return { ...message, subject: maskPansIn(message.subject), text: maskPansIn(message.text) };
  }

  private compose(group: DeliveryRecord[]): OutgoingMessage {
    const link = (d: DeliveryRecord) => `${this.deps.publicUrl.replace(/\/+$/, '')}/${d.link}`;
    if (group.length === 1) {
      const [d] = group as [DeliveryRecord];
      return { id: `notice-delivery-${d.id}`, subject: d.title, text: `${d.body}\n\nOpen: ${link(d)}\n` };
    }
    const shown = group.slice(0, 20);
    const lines = shown.map((d) => `- ${d.title}\n  ${link(d)}`);
    if (group.length > shown.length) lines.push(`…and ${group.length - shown.length} more in Paydesk.`);
    return { id: `notice-digest-${group[0]!.id}`, subject: `Paydesk: ${group.length} notices (${group[0]!.kind})`, text: `${lines.join('\n')}\n` };
  }
}

/** Deliveries as messages: DIGEST_AT or more of one kind to one address on one channel become one digest; others go one by one. */
function groups(due: readonly DeliveryRecord[]): DeliveryRecord[][] {
  const byKey = new Map<string, DeliveryRecord[]>();
  for (const delivery of due) {
    const key = `${delivery.channel}\n${delivery.address}\n${delivery.kind}`;
    byKey.set(key, [...(byKey.get(key) ?? []), delivery]);
  }
  return [...byKey.values()].flatMap((group) => (group.length >= DIGEST_AT ? [group] : group.map((d) => [d])));
}
