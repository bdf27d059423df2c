// GET /metrics in the Prometheus text format, scraped over loopback HTTP from a team
// server with its metrics token (refused without it), parsed, and moved by real actions: a payout
// sent to the gateway emulator (created, the gateway call, the notification the emulator posts back
// to the listener and its status read) and a malformed notification posted to the listener. Two
// servers in one process keep apart (a registry each), and no label value is an id, a reference,
// an e-mail or a secret.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import type { PayoutReviewView, SubmitResult } from '../../../src/shared/contract';
import { payoutForm } from '../../helpers/fixtures';
import { waitFor } from '../../helpers/poll';
import { desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';

const TOKEN = 'metrics-token-for-the-test-29-2';
const temp = tempDir('paydesk-metrics-');
let server: TeamTestServer;
let other: TeamTestServer;
let admin: TeamClient;

beforeAll(async () => {
  server = await startTeamTestServer(path.join(temp.dir, 'a'), { metricsToken: TOKEN });
  other = await startTeamTestServer(path.join(temp.dir, 'b'), { metricsToken: TOKEN });
  await server.addPerson('alice', 'admin');
  admin = await desktopClient(server.origin, 'alice');
}, 60_000);

afterAll(async () => {
  await server?.close();
  await other?.close();
  temp.cleanup();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[label[1]!] = label[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

async function scrape(origin: string): Promise<Sample[]> {
  const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(await response.text());
}

/** The sum of a metric's samples whose labels include these. */
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

describe('GET /metrics of a team server', () => {
  it('is refused without the metrics token, and with a wrong one', async () => {
    expect((await fetch(`${server.origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.origin}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
  });

  it('counts a payout, its gateway call, its notification and status read, and a malformed notification; apart from another instance; no id in a label', async () => {
    const before = await scrape(server.origin);
    for (const name of ['paydesk_batch_items_in_flight', 'paydesk_approvals_waiting', 'paydesk_instances_alive', 'paydesk_leader', 'paydesk_db_pool_size', 'paydesk_db_pool_in_use', 'paydesk_db_pool_waiting', 'paydesk_event_stream_clients']) {
      expect(before.some((s) => s.name === name), name).toBe(true);
    }
    expect(total(before, 'paydesk_instances_alive')).toBeGreaterThanOrEqual(1);
    expect(total(before, 'paydesk_leader')).toBe(1);

    // An event stream open while it is scraped.
    const stream = await fetch(`${server.origin}/events`, { headers: { authorization: `Bearer ${admin.token}` } });
    const reader = stream.body!.getReader();
    await reader.read();
    expect(total(await scrape(server.origin), 'paydesk_event_stream_clients')).toBe(1);
    await reader.cancel();

    const localId = (await admin.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;
    const reference = `metrics-${Date.now()}`;
    const form = payoutForm('open_banking', { amount: '12.34', reference, profileId: localId, email: 'payee.metrics@example.com' });
    const review = await admin.value<PayoutReviewView>('payouts:review', form);
    const sent = await admin.value<SubmitResult>('payouts:create', { ...form, reviewId: review.reviewId, confirmed: true });
    expect(sent.outcome).toBe('succeeded');

    // A body that is not JSON, posted to the local profile's notification path.
    const secret = (await server.core.ledger.get<{ s: string }>('SELECT listener_path_secret AS s FROM profiles WHERE id = ?', [localId]))!.s;
    const posted = await fetch(server.core.listener.url(secret), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"event": "v2_payout_notification", broken' });
    expect(posted.status).toBe(400);

    const after = await waitFor(
      () => scrape(server.origin),
      (samples) => total(samples, 'paydesk_notifications_applied_total', { event: 'v2_payout_notification' }) > 0 && total(samples, 'paydesk_status_reads_total') > total(before, 'paydesk_status_reads_total'),
      'the emulator’s payout notification to be applied and verified',
      15_000,
    );
    expect(total(after, 'paydesk_transactions_created_total', { kind: 'payout', state: 'succeeded' }) - total(before, 'paydesk_transactions_created_total', { kind: 'payout', state: 'succeeded' })).toBe(1);
    expect(total(after, 'paydesk_gateway_calls_total', { endpoint: 'payout_create', outcome: 'ok' })).toBe(1);
    expect(total(after, 'paydesk_gateway_call_seconds_count', { endpoint: 'payout_create' })).toBe(1);
    expect(total(after, 'paydesk_notifications_received_total', { event: 'v2_payout_notification', outcome: 'acknowledged' })).toBeGreaterThanOrEqual(1);
    expect(total(after, 'paydesk_notifications_received_total', { event: 'none', outcome: 'rejected' }) - total(before, 'paydesk_notifications_received_total', { event: 'none', outcome: 'rejected' })).toBe(1);
    expect(total(after, 'paydesk_notification_ack_seconds_count', { outcome: 'acknowledged' })).toBeGreaterThanOrEqual(1);
    expect(total(after, 'paydesk_gateway_calls_total', { endpoint: 'payout_status' })).toBeGreaterThanOrEqual(1);

    // The other instance in this process counted none of it.
    const elsewhere = await scrape(other.origin);
    expect(total(elsewhere, 'paydesk_transactions_created_total')).toBe(0);
    expect(total(elsewhere, 'paydesk_notifications_received_total')).toBe(0);

    // Label values come from short fixed lists: no id, reference, e-mail, path secret or token.
    const payout = (await admin.value<{ items: { payoutId: string | null }[] }>('payouts:list', { profileId: localId, search: reference })).items[0];
    const secrets = [reference, localId, secret, TOKEN, admin.token, 'payee.metrics@example.com', payout?.payoutId].filter((v): v is string => typeof v === 'string' && v !== '');
    for (const sample of after) {
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(value, `${sample.name}{${label}}`).toMatch(/^([a-z0-9_.+]+|\+Inf)$/i);
        expect(value).not.toMatch(/@|[0-9a-f]{8}-[0-9a-f]{4}-|PO\.|PI\./i);
        for (const secretValue of secrets) expect(value).not.toContain(secretValue);
      }
    }
  });

  it('shows the notices outbox: what waits, since when, and what was given up', async () => {
    const repos = createRepositories(server.core.ledger);
    const before = await scrape(server.origin);
    expect(total(before, 'paydesk_notice_deliveries', { state: 'pending' })).toBe(0);
    expect(total(before, 'paydesk_notice_oldest_pending_seconds')).toBe(0);
    // A person whose chat webhook nobody answers: their notice's message waits in the outbox.
    const person = await server.addPerson('olga', 'finance');
    await repos.notices.setChoices(person.id, { email: null, chatUrl: 'http://127.0.0.1:9/hook' }, [{ kind: 'payout.declined', channel: 'chat' }]);
    const noticeId = await repos.notices.add({ kind: 'payout.declined', subject: 'payout:m-1', title: 'Declined', body: 'A payout was declined.', link: '#/payouts' }, { people: [person.id] });
    const waiting = await waitFor(
      () => scrape(server.origin),
      (samples) => total(samples, 'paydesk_notice_oldest_pending_seconds') > 0,
      'the waiting message to age',
      5_000,
    );
    expect(total(waiting, 'paydesk_notice_deliveries', { state: 'pending' })).toBe(1);
    expect(total(waiting, 'paydesk_notice_deliveries', { state: 'failed' })).toBe(0);
    // Given up after its tries: failed, and nothing waits any more.
    const [delivery] = await server.core.ledger.all<{ id: number }>('SELECT id FROM notice_deliveries WHERE notice_id = ?', [noticeId]);
    await repos.notices.markTried([Number(delivery!.id)], 'connect ECONNREFUSED', null);
    const after = await scrape(server.origin);
    expect(total(after, 'paydesk_notice_deliveries', { state: 'pending' })).toBe(0);
    expect(total(after, 'paydesk_notice_deliveries', { state: 'failed' })).toBe(1);
    expect(total(after, 'paydesk_notice_oldest_pending_seconds')).toBe(0);
  });
});
