// The time-based watches (docs/notifications.md "Watches"): what becomes news because
// time passed, not because something happened. Each round reads the admin-set thresholds and tells
//   - approval.reminder: an approval still awaiting approvalReminderMinutes after its request, to
//     its approvers (never its maker), once per approval;
//   - approval.escalated: an approval still awaiting approvalEscalationMinutes before it expires,
//     to admins, once per approval;
//   - profile.silent: a live profile with pay-ins waiting that has heard nothing from the gateway
//     for silenceMinutes, to admins and finance, once per silent spell (a notification received
//     ends the spell; a later silence is told again); at once when its waiting pay-ins were sent
//     with a notification link the gateway cannot reach (a loopback one: shared/notification-reach.ts).
// One instance watches at a time (the cluster's `watches` leadership; on SQLite the desk's one
// process). Exactly once holds across a change of leader too: each notice is written in a
// transaction that takes the `watches` lock and first asks whether it was told already (a notice
// of its kind about its subject; for a silence, one since the profile's newest notification).
import { LedRounds } from '../led-rounds';
import type { NoticeThresholds } from '../../../shared/contract';
import type { Repositories } from '../../ledger/repositories/index';
import type { NewNotice, NoticeRecipients } from '../../ledger/repositories/notices';
import type { WaitingProfile } from '../../ledger/repositories/watches';
import { isoTime } from '../../ledger/support';
import type { Logger } from '../../logger';
import { WATCH_NOTICES } from './notice-kinds';
import type { Notices } from './notices';

/** How often the watches look (thresholds are minutes: half a minute late at most). */
export const DEFAULT_WATCH_EVERY_MS = 30_000;
const MINUTE_MS = 60_000;

export interface WatchesDeps {
  repos: Pick<Repositories, 'watches' | 'approvals' | 'transaction'>;
  notices: Pick<Notices, 'thresholds' | 'watchFound'>;
  now: () => Date;
  log: Logger;
  everyMs?: number;
}

type Found = { notice: NewNotice; to: NoticeRecipients } | undefined;

export class Watches extends LedRounds {
  constructor(private readonly deps: WatchesDeps) {
    super(deps.everyMs ?? DEFAULT_WATCH_EVERY_MS);
  }

  /** A round: every watch once (run by the instance leading the watches, cluster.lead('watches')). */
  protected async work(): Promise<void> {
    try {
      const thresholds = await this.deps.notices.thresholds();
      const now = this.deps.now();
      await this.remind(thresholds, now);
      await this.escalate(thresholds, now);
      await this.silences(thresholds, now);
    } catch (error) {
      try {
        this.deps.log.error('watching for reminders, escalations and silent profiles failed; trying again', error);
      } catch {
        // A failing logger must not end the watches.
      }
    }
  }

  private async remind(thresholds: NoticeThresholds, now: Date): Promise<void> {
    const requestedBy = isoTime(new Date(now.getTime() - thresholds.approvalReminderMinutes * MINUTE_MS));
    for (const id of await this.deps.repos.watches.approvalsRequestedBy(requestedBy, isoTime(now), 'approval.reminder')) {
      await this.tellOnce('approval.reminder', `approval:${id}`, null, async () => {
        const approval = await this.stillAwaiting(id, now);
        return approval && WATCH_NOTICES['approval.reminder'](approval, Math.floor((now.getTime() - Date.parse(approval.createdAt)) / MINUTE_MS));
      });
    }
  }

  private async escalate(thresholds: NoticeThresholds, now: Date): Promise<void> {
    const expiringBy = isoTime(new Date(now.getTime() + thresholds.approvalEscalationMinutes * MINUTE_MS));
    for (const id of await this.deps.repos.watches.approvalsExpiringBy(expiringBy, isoTime(now), 'approval.escalated')) {
      await this.tellOnce('approval.escalated', `approval:${id}`, null, async () => {
        const approval = await this.stillAwaiting(id, now);
        return approval && WATCH_NOTICES['approval.escalated'](approval, Math.ceil((Date.parse(approval.expiresAt) - now.getTime()) / MINUTE_MS));
      });
    }
  }

  private async silences(thresholds: NoticeThresholds, now: Date): Promise<void> {
    const silentBefore = now.getTime() - thresholds.silenceMinutes * MINUTE_MS;
    for (const profile of await this.deps.repos.watches.liveProfilesWaiting()) {
      const since = silentSince(profile);
      // A link the gateway cannot reach is known at once (the submitter marks it): no need to wait out the silence.
      if (profile.unreachableLink === null && Date.parse(since) > silentBefore) continue;
      // Told once per spell: a notice since the newest notification (read again under the lock) tells it was told.
      await this.deps.repos.transaction(async () => {
        await this.deps.repos.watches.lock();
        const last = await this.deps.repos.watches.lastNotificationAt(profile.profileId);
        if (last !== profile.lastNotificationAt) return; // a notification came meanwhile: the spell is over
        if (await this.deps.repos.watches.told('profile.silent', `profile:${profile.profileId}`, last)) return;
        const { notice, to } = WATCH_NOTICES['profile.silent']({ ...profile, silentSince: since, silenceMinutes: thresholds.silenceMinutes, unreachableOrigin: originOf(profile.unreachableLink) });
        await this.deps.notices.watchFound(notice, to);
      });
    }
  }

  /** Writes what `find` finds, unless a notice of `kind` about `subject` (since `since`) was written: under the lock, in one transaction. */
  private async tellOnce(kind: string, subject: string, since: string | null, find: () => Promise<Found>): Promise<void> {
    await this.deps.repos.transaction(async () => {
      await this.deps.repos.watches.lock();
      if (await this.deps.repos.watches.told(kind, subject, since)) return;
      const found = await find();
      if (found) await this.deps.notices.watchFound(found.notice, found.to);
    });
  }

  private async stillAwaiting(id: number, now: Date) {
    const approval = await this.deps.repos.approvals.byId(id);
    return approval && approval.state === 'awaiting' && Date.parse(approval.expiresAt) > now.getTime() ? approval : undefined;
  }
}

/** A link's scheme, host and port: its path is the listener's unguessable one, never told. */
function originOf(link: string | null): string | null {
  if (link === null) return null;
  try {
    return new URL(link).origin;
  } catch {
    return 'an address';
  }
}

/** A silence counts from the later of the newest notification and the oldest pay-in still waiting. */
function silentSince(profile: WaitingProfile): string {
  return profile.lastNotificationAt !== null && profile.lastNotificationAt > profile.oldestWaitingAt ? profile.lastNotificationAt : profile.oldestWaitingAt;
}
