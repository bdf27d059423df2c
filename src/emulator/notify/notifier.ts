// Posts notifications to merchant URLs and retries them on schedule until a 2xx. Every
// delivery is written to the store before its first attempt, so a restart with --data resumes
// what was still pending.
import { setMaxListeners } from 'node:events';
import { stringifyJson } from '../../shared/json';
import type { DeliverySchedule } from '../options';
import { iso, type Clock, type Logger } from '../runtime';
import type { AfterCommit } from '../store/database';
import type { DeliveryRepo } from '../store/deliveries';
import type { FaultState } from './faults';
import { delayBeforeAttempt } from './schedule';
import { sendNotification, type SendResult } from './sender';

export interface NotifierDeps {
  repo: DeliveryRepo;
  clock: Clock;
  schedule: DeliverySchedule;
  faults: FaultState;
  log: Logger;
  /** A delivery is sent only once its row is committed: a creation rolled back notifies no one. */
  afterCommit: AfterCommit;
}

const is2xx = (s: number | null): boolean => s !== null && s >= 200 && s < 300;

export class Notifier {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private held: number[] = [];
  private heldTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: NotifierDeps) {
    // One signal cancels every delivery in flight at close(); each request listens to it while it
    // runs, so more than ten at once is normal, not a leak (Node warns past ten by default).
    setMaxListeners(0, this.abort.signal);
  }

  /** Reschedules deliveries left pending by an earlier run. */
  start(): void {
    const now = this.deps.clock.now();
    for (const d of this.deps.repo.pending()) {
      const due = d.next_attempt_at ? Date.parse(d.next_attempt_at) - now : 0;
      this.schedule(d.id, Math.max(0, due));
    }
  }

  enqueue(event: string, url: string, body: unknown, subjectId: string): number {
    const { clock, schedule, faults } = this.deps;
    const delay = schedule.firstAttemptDelayMs + faults.notifications.delay_ms;
    const id = this.deps.repo.insert({
      event,
      url,
      body: stringifyJson(body),
      subject_id: subjectId,
      created_at: iso(clock.now()),
      next_attempt_at: iso(clock.now() + delay),
    });
    const reorder = faults.notifications.reorder;
    this.deps.afterCommit(() => (reorder ? this.hold(id, delay) : this.schedule(id, delay)));
    return id;
  }

  /** Sends a stored notification again as a new delivery (admin "replay"). */
  redeliver(id: number): number | undefined {
    const d = this.deps.repo.byId(id);
    if (!d) return undefined;
    const copy = this.deps.repo.insert({ event: d.event, url: d.url, body: d.body, subject_id: d.subject_id, created_at: iso(this.deps.clock.now()), next_attempt_at: iso(this.deps.clock.now()) });
    this.deps.afterCommit(() => this.schedule(copy, 0));
    return copy;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    if (this.heldTimer) clearTimeout(this.heldTimer);
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(id: number, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      this.track(this.attempt(id));
    }, delayMs);
    timer.unref(); // pending retries must never keep the process alive
    this.timers.set(id, timer);
  }

  /** Reorder fault: collect deliveries for a window, then send them newest first, one by one. */
  private hold(id: number, delayMs: number): void {
    this.held.push(id);
    if (this.heldTimer) return;
    const window = Math.max(delayMs, this.deps.faults.notifications.reorder_window_ms);
    this.heldTimer = setTimeout(() => {
      const batch = this.held.reverse();
      this.held = [];
      this.heldTimer = undefined;
      this.track(
        (async () => {
          for (const held of batch) if (!this.closed) await this.attempt(held);
        })(),
      );
    }, window);
    this.heldTimer.unref();
  }

  private track(p: Promise<void>): void {
    const tracked = p.catch((err: unknown) => this.deps.log.error('delivery failed unexpectedly', { error: String(err) }));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async send(id: number, url: string, body: string, event: string, attempt: number, abortMidBody: boolean): Promise<SendResult> {
    return sendNotification({
      url,
      body,
      timeoutMs: this.deps.schedule.attemptTimeoutMs,
      abortMidBody,
      signal: this.abort.signal,
      headers: {
        'user-agent': 'paydesk-gateway-emulator/1',
        'x-emulator-event': event,
        'x-emulator-delivery-id': String(id),
        'x-emulator-attempt': String(attempt),
      },
    });
  }

  private async attempt(id: number): Promise<void> {
    const { repo, clock, faults, schedule, log } = this.deps;
    const d = repo.byId(id);
    if (!d || d.state !== 'pending' || this.closed) return;
    const n = d.attempts + 1;
    const startedAt = iso(clock.now());
    const fault = faults.takeDeliveryFailure();
    let result: SendResult;
    if (fault === 'drop') result = { httpStatus: null, error: 'not sent: injected connection failure' };
    else if (fault === 'wrong_status') result = { httpStatus: 503, error: 'not sent: injected HTTP 503' };
    else result = await this.send(id, d.url, d.body, d.event, n, fault === 'abort');
    if (this.closed) return;

    if (is2xx(result.httpStatus)) {
      repo.recordAttempt(
        { delivery_id: id, attempt: n, duplicate: false, started_at: startedAt, http_status: result.httpStatus, error: null },
        { state: 'delivered', next_attempt_at: null, delivered_at: iso(clock.now()), countsAsAttempt: true },
      );
      log.info('notification delivered', { id, event: d.event, attempt: n, status: result.httpStatus });
      await this.sendDuplicates(id, d.url, d.body, d.event, n);
      return;
    }
    const next = delayBeforeAttempt(n + 1, schedule);
    repo.recordAttempt(
      { delivery_id: id, attempt: n, duplicate: false, started_at: startedAt, http_status: result.httpStatus, error: result.error },
      { state: next === undefined ? 'failed' : 'pending', next_attempt_at: next === undefined ? null : iso(clock.now() + next), delivered_at: null, countsAsAttempt: true },
    );
    log.warn(next === undefined ? 'notification abandoned' : 'notification attempt failed', { id, event: d.event, attempt: n, status: result.httpStatus, error: result.error });
    if (next !== undefined) this.schedule(id, next);
  }

  private async sendDuplicates(id: number, url: string, body: string, event: string, n: number): Promise<void> {
    const { repo, clock, faults } = this.deps;
    for (let i = 0; i < faults.notifications.duplicate && !this.closed; i++) {
      const startedAt = iso(clock.now());
      const r = await this.send(id, url, body, event, n, false);
      if (this.closed) return;
      repo.recordAttempt(
        { delivery_id: id, attempt: n, duplicate: true, started_at: startedAt, http_status: r.httpStatus, error: r.error },
        { state: 'delivered', next_attempt_at: null, delivered_at: null, countsAsAttempt: false },
      );
    }
  }
}
