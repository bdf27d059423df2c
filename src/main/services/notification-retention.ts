// Retention of the raw material of notifications nobody can apply now: malformed ones and
// orphans. Anyone who knows a profile's listener path can post them, up to 256 KiB each, and a
// flood filled the ledger with 177 MB in 40 s. Per profile, their bodies and headers are kept up
// to a count, a size and an age (Settings; audited). Beyond it, the oldest go first, malformed
// ones before orphans (an orphan is a claim that may still be applied when its transaction
// appears): a malformed row is deleted whole, an orphan keeps its row and facts (event, ids,
// status, sizes, time) with body and headers dropped and `raw_pruned_at` set. What is kept is
// never cut. Runs at start-up, every ten minutes, and soon after such notifications pile up.
import type { RetentionPolicy, RetentionUpdate, RetentionView } from '../../shared/contract';
import type { Cluster } from '../ledger/cluster';
import type { Repositories } from '../ledger/repositories/index';
import { isoTime, type Clock } from '../ledger/support';
import type { Logger } from '../logger';
import { ServiceError } from './errors';

export const DEFAULT_RETENTION: RetentionPolicy = { maxCount: 1_000, maxMiB: 64, maxAgeDays: 30 };

const MiB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per transaction: a run over a large backlog leaves the listener's commits room in between. */
const CHUNK = 500;
const PERIOD_MS = 10 * 60 * 1000;
/** A pile-up runs the rule this soon at most after the previous run for the profile. */
const PRESSURE_SPACING_MS = 100;
/** A few run it once this long has passed without another. */
const QUIET_MS = 1_000;

export interface PruneResult {
  profileId: string;
  malformedDeleted: number;
  orphanBodiesPruned: number;
  bytes: number;
}

export interface NotificationRetentionDeps {
  repos: Pick<Repositories, 'retention' | 'audit' | 'profiles' | 'transaction'>;
  now: Clock;
  log: Logger;
  /** How often the rule runs for every profile (tests shorten it). */
  periodMs?: number;
  /** Keeps runs one at a time across the instances of a team server (ledger/cluster.ts). */
  cluster: Pick<Cluster, 'exclusive'>;
}

export class NotificationRetention {
  private timer: NodeJS.Timeout | null = null;
  /** Set by close(): what was awaiting the ledger then schedules nothing more. */
  private closed = false;
  /** Raw bytes and rows stored per profile since its last run. */
  private readonly pressure = new Map<string, { rows: number; bytes: number }>();
  private readonly scheduled = new Map<string, { timer: NodeJS.Timeout; urgent: boolean }>();
  private readonly lastRun = new Map<string, number>();
  private readonly policies = new Map<string, RetentionPolicy>();

  constructor(private readonly deps: NotificationRetentionDeps) {}

  async views(): Promise<RetentionView[]> {
    const views: RetentionView[] = [];
    for (const profile of await this.deps.repos.profiles.list()) views.push(await this.view(profile.id));
    return views;
  }

  async view(profileId: string): Promise<RetentionView> {
    // What is kept is read before the tally of what was dropped: a run that ends in between then
    // shows in the tally too, so a view that finds the ledger within the rule counts every row dropped.
    const kept = await this.deps.repos.retention.kept(profileId);
    const record = await this.deps.repos.retention.get(profileId);
    return {
      profileId,
      policy: await this.policy(profileId),
      isDefault: record?.updatedAt == null,
      changedAt: record?.updatedAt ?? null,
      kept,
      dropped: {
        malformedDeleted: record?.malformedDeleted ?? 0,
        orphanBodiesPruned: record?.orphanBodiesPruned ?? 0,
        bytes: record?.bytesFreed ?? 0,
        lastAt: record?.lastPrunedAt ?? null,
      },
    };
  }

  /** Sets a profile's rule (audited when it changes) and applies it at once. */
  async update(input: RetentionUpdate): Promise<RetentionView> {
    const { retention, audit, profiles, transaction } = this.deps.repos;
    const profile = await profiles.get(input.profileId);
    if (!profile) throw new ServiceError('not_found', `No profile with id ${input.profileId}.`, { profileId: 'No such profile.' });
    const to: RetentionPolicy = { maxCount: input.maxCount, maxMiB: input.maxMiB, maxAgeDays: input.maxAgeDays };
    await transaction(async () => {
      const from = await this.policy(profile.id);
      const unchanged = from.maxCount === to.maxCount && from.maxMiB === to.maxMiB && from.maxAgeDays === to.maxAgeDays;
      // Saving the defaults unchanged still records them: the profile no longer follows later defaults.
      if (unchanged && (await retention.get(profile.id))?.updatedAt != null) return;
      await retention.setRule(profile.id, { maxCount: to.maxCount, maxBytes: to.maxMiB * MiB, maxAgeDays: to.maxAgeDays });
      await audit.append({ actor: 'user', action: 'settings.notification-retention', profileId: profile.id, subject: profile.name, details: { from, to } });
    });
    this.policies.delete(profile.id);
    await this.prune(profile.id);
    return this.view(profile.id);
  }

  /**
   * A malformed or orphan notification was stored for this profile: the rule runs again a second
   * after the last such one, or sooner, at most every PRESSURE_SPACING_MS, while they pile up
   * (an eighth of the count or of the size since the previous run). Returns at once; reading the
   * profile's rule (once, then cached) and scheduling follow.
   */
  noteStored(profileId: string, bytes: number): void {
    const pile = this.pressure.get(profileId) ?? { rows: 0, bytes: 0 };
    pile.rows += 1;
    pile.bytes += bytes;
    this.pressure.set(profileId, pile);
    this.policy(profileId)
      .then((policy) => this.schedule(profileId, policy))
      .catch((error: unknown) => this.deps.log.error(`notification retention could not be scheduled for profile ${profileId}`, error));
  }

  /** Decides from the pile as it is now (calls that awaited the rule together see each other's timer). */
  private schedule(profileId: string, policy: RetentionPolicy): void {
    const pile = this.pressure.get(profileId);
    if (!pile || this.closed) return; // a run since took the pile, or the service has closed
    const urgent = pile.rows >= Math.max(16, policy.maxCount / 8) || pile.bytes >= Math.max(MiB, (policy.maxMiB * MiB) / 8);
    const pending = this.scheduled.get(profileId);
    if (pending && (pending.urgent || !urgent)) {
      if (!urgent) pending.timer.refresh(); // quiet after the last one: the trailing run waits for it
      return;
    }
    if (pending) clearTimeout(pending.timer);
    const wait = urgent ? Math.max(0, (this.lastRun.get(profileId) ?? 0) + PRESSURE_SPACING_MS - Date.now()) : QUIET_MS;
    const timer = setTimeout(() => {
      this.scheduled.delete(profileId);
      void this.runSafely(profileId);
    }, wait);
    this.scheduled.set(profileId, { timer, urgent });
  }

  /** Applies the rule to every profile now (resolves when done), then every period. */
  async start(): Promise<void> {
    await this.runAll();
    if (this.closed) return;
    this.timer = setInterval(() => void this.runAll(), this.deps.periodMs ?? PERIOD_MS);
    this.timer.unref();
  }

  /** Never rejects: each profile's failure is logged by runSafely, a failed listing here. Skipped while another instance runs the rule. */
  private async runAll(): Promise<void> {
    try {
      await this.deps.cluster.exclusive('retention', async () => {
        // Read the rules afresh: another instance of a team server may have changed one.
        this.policies.clear();
        for (const profile of await this.deps.repos.profiles.list()) await this.pruneLogged(profile.id);
      });
    } catch (error) {
      this.deps.log.error('notification retention could not list the profiles', error);
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const { timer } of this.scheduled.values()) clearTimeout(timer);
    this.scheduled.clear();
  }

  /** Applies the rule to one profile now: finds what falls outside it, then drops it chunk by chunk. */
  async prune(profileId: string): Promise<PruneResult> {
    const { retention } = this.deps.repos;
    this.lastRun.set(profileId, Date.now());
    this.pressure.delete(profileId);
    const policy = await this.policy(profileId);
    const cutoff = isoTime(new Date(this.deps.now().getTime() - policy.maxAgeDays * DAY_MS));
    const outside = await retention.outside(profileId, { maxCount: policy.maxCount, maxBytes: policy.maxMiB * MiB, maxAgeDays: policy.maxAgeDays }, cutoff);
    const result: PruneResult = { profileId, malformedDeleted: 0, orphanBodiesPruned: 0, bytes: 0 };
    for (let start = 0; start < outside.length; start += CHUNK) {
      const done = await retention.drop(profileId, outside.slice(start, start + CHUNK));
      result.malformedDeleted += done.malformedDeleted;
      result.orphanBodiesPruned += done.orphanBodiesPruned;
      result.bytes += done.bytes;
    }
    return result;
  }

  /** Never rejects: a failure is logged. While a run is under way (here or in another instance), this one waits its turn. */
  private async runSafely(profileId: string): Promise<void> {
    try {
      const run = await this.deps.cluster.exclusive('retention', () => this.pruneLogged(profileId));
      if (!run.ran && !this.closed && !this.scheduled.has(profileId)) {
        const timer = setTimeout(() => {
          this.scheduled.delete(profileId);
          void this.runSafely(profileId);
        }, QUIET_MS);
        this.scheduled.set(profileId, { timer, urgent: false });
      }
    } catch (error) {
      this.deps.log.error(`notification retention failed for profile ${profileId}`, error);
    }
  }

  /** Never rejects: logs what it dropped, or why it could not. */
  private async pruneLogged(profileId: string): Promise<void> {
    try {
      const result = await this.prune(profileId);
      if (result.malformedDeleted + result.orphanBodiesPruned > 0) {
        this.deps.log.info(
          `notification retention, profile ${profileId}: ${result.malformedDeleted} malformed deleted, ${result.orphanBodiesPruned} orphan bodies dropped, ${result.bytes} bytes`,
        );
      }
    } catch (error) {
      this.deps.log.error(`notification retention failed for profile ${profileId}`, error);
    }
  }

  private async policy(profileId: string): Promise<RetentionPolicy> {
    const cached = this.policies.get(profileId);
    if (cached) return cached;
    const rule = (await this.deps.repos.retention.get(profileId))?.rule;
    const policy = rule ? { maxCount: rule.maxCount, maxMiB: Math.round(rule.maxBytes / MiB), maxAgeDays: rule.maxAgeDays } : DEFAULT_RETENTION;
    this.policies.set(profileId, policy);
    return policy;
  }
}
