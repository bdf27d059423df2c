// What a team server instance tells Prometheus (docs/team.md, "Health, metrics and logs"), through
// prom-client on a registry of its own (never the library's global one: several instances in one
// process, as tests run them, keep apart). Counters and histograms are moved by the services as
// things happen (a notification answered or applied, a status read, a gateway call, a create
// answered); gauges are read at each scrape from what holds them (the ledger, the presence, the
// pool, the event streams). Every label value comes from a short fixed list (an event of the
// spec, an outcome, an endpoint name): never an id, a reference, an e-mail or a secret, so the
// number of series stays bounded whatever the traffic.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isNotificationEvent } from '../../shared/spec/events';
import { ENDPOINTS, type EndpointName } from '../gateway/endpoints';
import type { TransactionKind } from '../ledger/status';

/** What the gauges read at each scrape; each one missing is not reported. */
export interface MetricSources {
  batchItemsInFlight?: () => Promise<number>;
  approvalsWaiting?: () => Promise<number>;
  instancesAlive?: () => Promise<number>;
  leader?: () => boolean;
  pool?: () => { size: number; inUse: number; waiting: number } | null;
  streamClients?: () => number;
  noticeOutbox?: () => Promise<{ pending: number; failed: number; oldestPendingAt: string | null }>;
}

/** How a notification's answer reads as an outcome: stored and acknowledged, refused, or to be sent again. */
export type NotificationAnswer = 'acknowledged' | 'rejected' | 'unavailable' | 'not_found';

export const answerOutcome = (status: number): NotificationAnswer => (status === 200 ? 'acknowledged' : status === 404 ? 'not_found' : status === 503 ? 'unavailable' : 'rejected');

/** An event of the spec as its label; anything else (a malformed body's) is "other", none "none". */
const eventLabel = (event: string | null | undefined): string => (event === null || event === undefined ? 'none' : isNotificationEvent(event) ? event : 'other');

const ENDPOINT_BY_PATH = new Map(Object.entries(ENDPOINTS).map(([name, endpoint]) => [endpoint.path, name as EndpointName]));

/** The endpoint a gateway URL calls, by its path's end (the base URL before it is the profile's). */
export function endpointOf(url: string): EndpointName | 'other' {
  let pathname: string;
  try {
    pathname = new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return 'other';
  }
  for (const [path, name] of ENDPOINT_BY_PATH) if (pathname === `/${path}` || pathname.endsWith(`/${path}`)) return name;
  return 'other';
}

const gatewayOutcome = (status: number): string => (status === 429 ? 'rate_limited' : status < 300 ? 'ok' : status < 500 ? 'client_error' : 'server_error');

export class Metrics {
  readonly registry = new Registry();
  private readonly sources: MetricSources = {};
  private readonly notificationsReceived: Counter<'event' | 'outcome'>;
  private readonly notificationAck: Histogram<'outcome'>;
  private readonly notificationsApplied: Counter<'event' | 'outcome'>;
  private readonly statusReads: Counter<'result'>;
  private readonly gatewayCalls: Counter<'endpoint' | 'outcome'>;
  private readonly gatewayLatency: Histogram<'endpoint'>;
  private readonly gatewayRateLimited: Counter<'endpoint'>;
  private readonly created: Counter<'kind' | 'state'>;

  /** `processMetrics`: the process's own (CPU, memory, event loop; once per process, so the server's alone). */
  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.notificationsReceived = new Counter({ name: 'paydesk_notifications_received_total', help: 'Notifications the listener answered, by event and by how it answered (acknowledged: stored, 200).', labelNames: ['event', 'outcome'], registers });
    this.notificationAck = new Histogram({ name: 'paydesk_notification_ack_seconds', help: 'From a notification arriving to its answer (stored durably first when acknowledged).', labelNames: ['outcome'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers });
    this.notificationsApplied = new Counter({ name: 'paydesk_notifications_applied_total', help: 'Stored notifications applied to the ledger, by event and outcome (applied, duplicate, orphan, ...).', labelNames: ['event', 'outcome'], registers });
    this.statusReads = new Counter({ name: 'paydesk_status_reads_total', help: 'Status reads, by result.', labelNames: ['result'], registers });
    this.gatewayCalls = new Counter({ name: 'paydesk_gateway_calls_total', help: 'Calls to the gateway, by endpoint and outcome (ok, rate_limited, client_error, server_error, network_error).', labelNames: ['endpoint', 'outcome'], registers });
    this.gatewayLatency = new Histogram({ name: 'paydesk_gateway_call_seconds', help: 'How long a gateway call took to answer (or fail).', labelNames: ['endpoint'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20], registers });
    this.gatewayRateLimited = new Counter({ name: 'paydesk_gateway_rate_limited_total', help: 'Gateway answers 429 (too many requests), by endpoint.', labelNames: ['endpoint'], registers });
    this.created = new Counter({ name: 'paydesk_transactions_created_total', help: 'Pay-ins and payouts created, by kind and the state their create ended in (succeeded, rejected, unknown, ...).', labelNames: ['kind', 'state'], registers });
    const gauge = (name: string, help: string, read: (set: (value: number) => void) => Promise<void> | void) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          await read((value) => this.set(value));
        },
      });
    const { sources } = this;
    gauge('paydesk_batch_items_in_flight', 'Batch items being sent now (on the whole ledger).', async (set) => sources.batchItemsInFlight && set(await sources.batchItemsInFlight()));
    gauge('paydesk_approvals_waiting', 'Approval requests awaiting a decision (on the whole ledger).', async (set) => sources.approvalsWaiting && set(await sources.approvalsWaiting()));
    gauge('paydesk_instances_alive', 'Instances alive on this ledger, as this one sees them (itself included).', async (set) => sources.instancesAlive && set(await sources.instancesAlive()));
    gauge('paydesk_leader', '1 while this instance leads the recovery (one instance at a time), else 0.', (set) => sources.leader && set(sources.leader() ? 1 : 0));
    gauge('paydesk_db_pool_size', 'Ledger connections this instance keeps at most (PostgreSQL pool, --pool-size).', (set) => {
      const pool = sources.pool?.();
      if (pool) set(pool.size);
    });
    gauge('paydesk_db_pool_in_use', 'Ledger connections of this instance in use (PostgreSQL pool).', (set) => {
      const pool = sources.pool?.();
      if (pool) set(pool.inUse);
    });
    gauge('paydesk_db_pool_waiting', 'Queries of this instance waiting for a ledger connection (PostgreSQL pool).', (set) => {
      const pool = sources.pool?.();
      if (pool) set(pool.waiting);
    });
    gauge('paydesk_event_stream_clients', 'Event streams (/events) open on this instance.', (set) => sources.streamClients && set(sources.streamClients()));
    new Gauge({
      name: 'paydesk_notice_deliveries',
      help: 'E-mail and chat messages of the notices outbox waiting to be sent (pending) or given up after their tries (failed), on the whole ledger.',
      labelNames: ['state'],
      registers,
      async collect() {
        const outbox = await sources.noticeOutbox?.();
        if (!outbox) return;
        this.set({ state: 'pending' }, outbox.pending);
        this.set({ state: 'failed' }, outbox.failed);
      },
    });
    gauge('paydesk_notice_oldest_pending_seconds', 'How long the oldest message still waiting in the notices outbox has waited since its notice (0: none waits).', async (set) => {
      const outbox = await sources.noticeOutbox?.();
      if (outbox) set(outbox.oldestPendingAt === null ? 0 : Math.max(0, (Date.now() - Date.parse(outbox.oldestPendingAt)) / 1000));
    });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'paydesk_' });
  }

  /** Where the gauges read from (each source given once, by whoever holds it). */
  readFrom(sources: MetricSources): void {
    Object.assign(this.sources, sources);
  }

  notificationAnswered(event: string | null, status: number, seconds: number): void {
    const outcome = answerOutcome(status);
    this.notificationsReceived.inc({ event: eventLabel(event), outcome });
    this.notificationAck.observe({ outcome }, seconds);
  }

  notificationApplied(event: string | null, outcome: string): void {
    this.notificationsApplied.inc({ event: eventLabel(event), outcome });
  }

  statusRead(result: string): void {
    this.statusReads.inc({ result });
  }

  transactionCreated(kind: TransactionKind, state: string): void {
    this.created.inc({ kind, state });
  }

  /** `fetch`, each call counted by endpoint and outcome and timed. */
  gatewayFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
    return async (input, init) => {
      const endpoint = endpointOf(input instanceof Request ? input.url : String(input));
      const started = performance.now();
      const done = (outcome: string) => {
        this.gatewayCalls.inc({ endpoint, outcome });
        this.gatewayLatency.observe({ endpoint }, (performance.now() - started) / 1000);
        if (outcome === 'rate_limited') this.gatewayRateLimited.inc({ endpoint });
      };
      try {
        const response = await fetch(input, init);
        done(gatewayOutcome(response.status));
        return response;
      } catch (error) {
        done('network_error');
        throw error;
      }
    };
  }

  /** The Prometheus text of every metric now. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
