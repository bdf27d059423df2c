import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { PostgresEngine } from '../../../src/main/ledger/engine/postgres';
import { ProfilesRepository } from '../../../src/main/ledger/repositories/profiles';
import { payinNotification, post } from '../../helpers/http';
import { freshLedger, openReader, type TestLedger } from '../../helpers/ledger';
import { listenerFixture, type ListenerFixture } from '../../helpers/listener';
import { until } from '../../helpers/poll';
import { endSessions, setDatabaseDefault } from './database-settings';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const cleanups = cleanupsAfterEach();

async function fixture(): Promise<ListenerFixture> {
  const fx = await listenerFixture();
  cleanups.push(() => fx.close());
  return fx;
}

/** Starts the listener in a child process on a fresh ledger (file or database); resolves once it accepts connections. */
async function childListener(): Promise<{ child: ChildProcess; address: TestLedger['address']; secret: string; port: number }> {
  const { db, address, remove } = await freshLedger();
  cleanups.push(remove);
  const secret = (await new ProfilesRepository(db).create({ name: 'p', environment: 'local', baseUrl: 'http://x/api/v2', merchantId: 'm', merchantSiteId: 's' })).listenerPathSecret;
  const script = path.join(import.meta.dirname, '../../helpers/listener-child.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, 'url' in address ? address.url : address.file], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('child listener did not start within 15 s')), 15_000);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`child exited early with ${code}`)));
  });
  return { child, address, secret, port };
}

/**
 * Makes the fixture's ledger refuse the listener's writes until the returned function is called.
 * SQLite: another connection holds the write lock, and the listener's waits only 50 ms for it.
 * PostgreSQL: the database is made read-only for new sessions and the ledger's pool is emptied, so
 * its next session is read-only (no lock to wait on would ever make it fail: it would just wait).
 */
async function refuseWrites(fx: ListenerFixture): Promise<() => Promise<void>> {
  const { db, address } = fx.ledger;
  if ('file' in address) {
    await db.get('PRAGMA busy_timeout = 50');
    const blocker = new Database(address.file);
    blocker.exec('BEGIN IMMEDIATE');
    return async () => {
      blocker.exec('ROLLBACK');
      blocker.close();
    };
  }
  if (!(db instanceof PostgresEngine)) throw new Error('a PostgreSQL address on another engine');
  const renewSessions = async () => {
    await endSessions(address.url);
    await until(() => db.pool.totalCount === 0, 'the pool to drop every ended session', 3_000);
  };
  await setDatabaseDefault(address.url, 'default_transaction_read_only', 'on');
  await renewSessions();
  return async () => {
    await setDatabaseDefault(address.url, 'default_transaction_read_only', null);
    await renewSessions();
  };
}

describe('notification listener: stored before acknowledged', () => {
  it('has every acknowledged notification committed when the process is killed right after the acks', async () => {
    const { child, address, secret, port } = await childListener();
    const url = `http://127.0.0.1:${port}/n/${secret}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    cleanups.push(() => agent.destroy());
    const acked = new Set<string>();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const total = 400;
    const killAfter = 120;
    // All sent at once; the moment the 120th acknowledgement arrives the child gets SIGKILL,
    // with more requests in flight: only what was acknowledged has to be there, all of it.
    const sends = Array.from({ length: total }, (_, i) =>
      post(url, payinNotification(`kill-${i}`), {
        agent,
        onResponse: (status) => {
          if (status !== 200) return;
          acked.add(`kill-${i}`);
          if (acked.size === killAfter) child.kill('SIGKILL');
        },
      }).catch(() => undefined),
    );
    await Promise.all(sends);
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(killAfter);
    expect(acked.size).toBeLessThan(total); // the kill really cut the run short

    // A connection of its own, opened after the kill: what is on disk (SQLite) or committed (PostgreSQL).
    const reader = await openReader(address);
    const stored = new Set((await reader.all<{ transaction_ref: string }>('SELECT transaction_ref FROM notifications')).map((r) => r.transaction_ref));
    await reader.close();
    const lost = [...acked].filter((ref) => !stored.has(ref));
    expect(lost).toEqual([]);
  });

  it('answers 503 (never 2xx) when the ledger cannot take the write, and 200 once it can', async () => {
    const fx = await fixture();
    const allowWrites = await refuseWrites(fx);
    const refused = await post(fx.url, payinNotification('p-busy'));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(fx.stored).toEqual([]);
    expect(await fx.rowCount()).toBe(0);
    await allowWrites();
    expect((await post(fx.url, payinNotification('p-busy'))).status).toBe(200);
    expect(await fx.rowCount()).toBe(1);
  });

  it('answers requests in flight when closed, then refuses connections', async () => {
    const fx = await listenerFixture();
    // Each request has sent its head and half its body when close() starts: truly in flight.
    const bodies = Array.from({ length: 20 }, (_, i) => payinNotification(`close-${i}`));
    const started = bodies.map((body) => {
      const req = http.request(fx.url, { method: 'POST', agent: false, timeout: 10_000, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
      const reply = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('timeout', () => req.destroy(new Error('request timed out')));
        req.on('error', reject);
      });
      const half = Math.floor(body.length / 2);
      const headSent = new Promise<void>((resolve) => req.write(body.slice(0, half), () => resolve()));
      return { req, rest: body.slice(half), reply, headSent };
    });
    await Promise.all(started.map((s) => s.headSent));
    // Loopback: long enough for the listener to accept the 20 connections and read their heads.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = fx.listener.close();
    for (const s of started) s.req.end(s.rest);
    const statuses = await Promise.all(started.map((s) => s.reply));
    await closing;
    expect(statuses).toEqual(bodies.map(() => 200));
    expect(await fx.rowCount()).toBe(bodies.length);
    await expect(post(fx.url, payinNotification('late'))).rejects.toThrow(/ECONNREFUSED/);
    await fx.reader.close();
    await fx.ledger.close();
  });
});
