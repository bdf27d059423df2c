// A load balancer's probes on a team server, on its app address and on its
// notification address, without a session: GET /healthz answers 200 while the process serves;
// GET /readyz answers 200 only while the ledger answers, its migrations are current and this
// instance holds its presence lock, else 503 with the reason and nothing else. Once the instance
// stops, /readyz turns 503 while the server still takes requests, so the balancer drains it first.
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { presenceKey, PRESENCE_CLASS } from '../../../src/main/ledger/cluster';
import { instanceIdIn } from '../../../src/main/services/scale-out/instance';
import { testEngine } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';
import { desktopClient, startTeamTestServer, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';

const temp = tempDir('paydesk-health-');
const servers: TeamTestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** One heartbeat a minute: the schema watch does not drain the instance while a test looks at /readyz. */
async function started(name: string): Promise<TeamTestServer> {
  const server = await startTeamTestServer(path.join(temp.dir, name), { core: { scaleOut: { heartbeatMs: 60_000, deadAfterMs: 360_000 } } });
  servers.push(server);
  return server;
}

const probe = async (origin: string, pathname: string) => {
  const response = await fetch(`${origin}${pathname}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The app's origin and the notification listener's. */
const addresses = (server: TeamTestServer) => [server.origin, new URL(server.core.listener.url('x')).origin];

describe('health probes of a team server', () => {
  it('answers /healthz and /readyz on both addresses without a session, saying nothing but the status', async () => {
    const server = await started('ready');
    for (const origin of addresses(server)) {
      expect(await probe(origin, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await probe(origin, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    }
  });

  it('turns /readyz 503 once the instance stops, while /healthz and the calls are still served', async () => {
    const server = await started('stopping');
    await server.addPerson('alice', 'admin');
    const alice = await desktopClient(server.origin, 'alice');
    server.core.health.stopping();
    for (const origin of addresses(server)) {
      expect(await probe(origin, '/readyz')).toEqual({ status: 503, body: { status: 'unavailable', reason: 'stopping', message: 'This instance is stopping.' } });
      expect((await probe(origin, '/healthz')).status).toBe(200);
    }
    expect(await alice.call('settings:get')).toMatchObject({ ok: true });
  });

  it('answers 503 "migrations" when the ledger was migrated past this instance by a step it cannot run with', async () => {
    const server = await started('migrated');
    const newest = await server.core.ledger.get<{ version: number }>('SELECT MAX(version) AS version FROM schema_migrations');
    await server.core.ledger.run('INSERT INTO schema_migrations (version, name, applied_at, oldest_compatible) VALUES (?, ?, ?, NULL)', [Number(newest?.version) + 1, 'from a newer paydesk', new Date().toISOString()]);
    for (const origin of addresses(server)) expect(await probe(origin, '/readyz')).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'migrations' } });
  });

  it.skipIf(testEngine !== 'postgres')('answers 503 "presence" while another session holds its presence lock, and 200 once it holds it again (PostgreSQL)', async () => {
    const server = await started('presence');
    const key = presenceKey(instanceIdIn(path.join(temp.dir, 'presence')));
    const thief = new pg.Client({ connectionString: server.database });
    await thief.connect();
    try {
      // Its lock's connection is cut (a network drop) and the lock taken by another before it reconnects.
      const { rows } = await thief.query<{ pid: number }>(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 2",
        [PRESENCE_CLASS, key],
      );
      expect(rows).toHaveLength(1);
      await thief.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await thief.query('SELECT pg_advisory_lock($1, $2)', [PRESENCE_CLASS, key]);
      for (const origin of addresses(server)) {
        expect(await waitFor(() => probe(origin, '/readyz'), (answer) => answer.status === 503, '/readyz to answer 503', 5_000)).toEqual({
          status: 503,
          body: { status: 'unavailable', reason: 'presence', message: 'This instance does not hold its presence lock on the ledger.' },
        });
      }
      await thief.query('SELECT pg_advisory_unlock($1, $2)', [PRESENCE_CLASS, key]);
      await waitFor(() => probe(server.origin, '/readyz'), (answer) => answer.status === 200, '/readyz to answer 200 again', 10_000);
    } finally {
      await thief.end();
    }
  });
});
