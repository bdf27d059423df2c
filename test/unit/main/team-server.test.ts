// The team server's command line, its password hashing and a desk's reading of the server's event
// stream: the small parts under the team server, each on its own.
import { describe, expect, it } from 'vitest';
import { pgConnection, pgDumpArgs, pgRestoreArgs } from '../../../src/main/ledger/backup/pg-tools';
import { parseServerOptions, scaleOutTimings, serverUsage, ServerOptionsError } from '../../../src/main/server/options';
import { hashPassword, verifyPassword } from '../../../src/main/services/team/passwords';
import { serverSentEvents } from '../../../src/main/services/team/team-link';

const DB = 'postgres://paydesk@db.example.com:5432/paydesk';

describe('npm run server options', () => {
  it('runs by default, on loopback ports, with the database from the option or the environment', () => {
    const options = parseServerOptions(['--database', DB], {});
    expect(options).toMatchObject({ command: 'run', database: DB, listen: { host: '127.0.0.1', port: 8600 }, notifyListen: { host: '127.0.0.1', port: 8601 }, tls: undefined, sessionHours: 12, idleMinutes: 60, trustProxy: false });
    expect(parseServerOptions([], { PAYDESK_DATABASE_URL: DB }).database).toBe(DB);
    expect(parseServerOptions(['--listen', '0.0.0.0:443', '--notify-listen', '[::]:8443', '--database', DB], {})).toMatchObject({ listen: { host: '0.0.0.0', port: 443 }, notifyListen: { host: '::', port: 8443 } });
  });

  it('takes a shared emulator and the time after which a silent instance is dead (several instances)', () => {
    expect(parseServerOptions(['--database', DB], {})).toMatchObject({ emulatorUrl: undefined, instanceTimeoutSeconds: 20 });
    expect(parseServerOptions(['--database', DB, '--emulator-url', 'http://127.0.0.1:8700/_emulator', '--instance-timeout', '5'], {})).toMatchObject({ emulatorUrl: 'http://127.0.0.1:8700/_emulator', instanceTimeoutSeconds: 5 });
    expect(() => parseServerOptions(['--database', DB, '--emulator-url', '127.0.0.1:8700'], {})).toThrow(/--emulator-url takes the emulator's admin_url/);
    expect(() => parseServerOptions(['--database', DB, '--instance-timeout', '0'], {})).toThrow(/--instance-timeout takes a number above 0/);
  });

  it('takes the most connections to keep to PostgreSQL, 20 by default, a whole number from 4 to 500', () => {
    expect(parseServerOptions(['--database', DB], {}).poolSize).toBe(20);
    expect(parseServerOptions(['--database', DB, '--pool-size', '40'], {}).poolSize).toBe(40);
    for (const bad of ['3', '501', '12.5', 'many']) expect(() => parseServerOptions(['--database', DB, '--pool-size', bad], {})).toThrow(/--pool-size takes a whole number from 4 to 500/);
    expect(serverUsage).toMatch(/--pool-size <n> {7}Connections this instance keeps to PostgreSQL at most \(default 20,\s+4 to 500\)/);
  });

  it('beats six times per instance timeout, and a non-leader tries to lead every heartbeat, at most 2 s apart', () => {
    expect(scaleOutTimings(20)).toEqual({ deadAfterMs: 20_000, heartbeatMs: 20_000 / 6, leaderRetryMs: 2_000 });
    expect(scaleOutTimings(2)).toEqual({ deadAfterMs: 2_000, heartbeatMs: 2_000 / 6, leaderRetryMs: 2_000 / 6 });
    expect(scaleOutTimings(0.5)).toEqual({ deadAfterMs: 500, heartbeatMs: 200, leaderRetryMs: 200 });
  });

  it('says what is wrong: no database, not PostgreSQL, half a certificate, a bad address, an unknown command', () => {
    expect(() => parseServerOptions([], {})).toThrow(/keeps its ledger in PostgreSQL/);
    expect(() => parseServerOptions(['--database', '/tmp/ledger.sqlite'], {})).toThrow(/PostgreSQL URL/);
    expect(() => parseServerOptions(['--database', DB, '--tls-cert', 'c.pem'], {})).toThrow(/both --tls-cert and --tls-key/);
    expect(() => parseServerOptions(['--database', DB, '--listen', 'localhost'], {})).toThrow(/HOST:PORT/);
    expect(() => parseServerOptions(['launch', '--database', DB], {})).toThrow(ServerOptionsError);
    expect(() => parseServerOptions(['create-admin', '--database', DB], {})).toThrow(/--username/);
    expect(() => parseServerOptions(['new-key'], {})).toThrow(/--key-file/);
    expect(() => parseServerOptions(['--database', DB, '--session-hours', '0'], {})).toThrow(/above 0/);
    // new-key needs no database; --help needs nothing.
    expect(parseServerOptions(['new-key', '--key-file', 'k'], {}).command).toBe('new-key');
    expect(parseServerOptions(['--help'], {}).help).toBe(true);
  });
});

describe('backup and restore on the command line', () => {
  it('take --out and --from, each with the database, and say what is missing', () => {
    expect(parseServerOptions(['backup', '--database', DB, '--out', '/var/backups/p.dump'], {})).toMatchObject({ command: 'backup', database: DB, out: '/var/backups/p.dump', keyFile: undefined });
    expect(parseServerOptions(['restore', '--from', 'p.dump', '--key-file', 'k'], { PAYDESK_DATABASE_URL: DB })).toMatchObject({ command: 'restore', database: DB, from: 'p.dump', keyFile: 'k' });
    expect(() => parseServerOptions(['backup', '--database', DB], {})).toThrow(/backup writes the dump to --out/);
    expect(() => parseServerOptions(['restore', '--database', DB], {})).toThrow(/restore needs --from/);
    expect(() => parseServerOptions(['backup', '--out', 'p.dump'], {})).toThrow(/keeps its ledger in PostgreSQL/);
    expect(() => parseServerOptions(['backups', '--database', DB], {})).toThrow(/run, create-admin, new-key, rotate-key, backup or restore/);
    expect(serverUsage).toMatch(/^ {2}backup {10}/m);
    expect(serverUsage).toMatch(/^ {2}restore {9}/m);
  });

  it('give pg_dump and pg_restore the database without its password, which goes in PGPASSWORD only', () => {
    const connection = pgConnection('postgres://paydesk:p%40ss%3Aw0rd@db.example.com:5432/paydesk?sslmode=require');
    expect(connection.dbname).toBe('postgres://paydesk@db.example.com:5432/paydesk?sslmode=require');
    expect(connection.env).toEqual({ PGPASSWORD: 'p@ss:w0rd' });
    const argv = [...pgDumpArgs(connection, '00000003-0000001B-1'), ...pgRestoreArgs(connection, '/backups/p.dump')].join(' ');
    for (const shown of ['p@ss', 'p%40ss', 'w0rd']) expect(argv).not.toContain(shown);
    expect(pgDumpArgs(connection, 'snap')).toEqual(['--format=custom', '--no-owner', '--no-privileges', '--snapshot=snap', `--dbname=${connection.dbname}`]);
    expect(pgRestoreArgs(connection, 'f')).toEqual(['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', `--dbname=${connection.dbname}`, 'f']);
    // A password given as a parameter is taken out too; none at all leaves the environment alone (.pgpass, PGPASSWORD).
    expect(pgConnection('postgresql://u@h/db?password=hunter2&application_name=x')).toMatchObject({ dbname: 'postgresql://u@h/db?application_name=x', env: { PGPASSWORD: 'hunter2' } });
    expect(pgConnection('postgres://u@h/db').env).toEqual({});
  });
});

describe('passwords', () => {
  it('are kept as salted scrypt hashes that verify only the same password', async () => {
    const one = await hashPassword('correct horse battery staple');
    const two = await hashPassword('correct horse battery staple');
    expect(one).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]{43}$/);
    expect(one).not.toBe(two); // a salt of its own
    expect(one).not.toContain('correct horse');
    expect(await verifyPassword('correct horse battery staple', one)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', one)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', 'md5$abc')).toBe(false);
  });
});

describe('a server-sent event stream, read by a desk', () => {
  it('yields each frame with its event and id (an id alone too: where a reconnect resumes), joins data lines, and skips comments and heartbeats, across chunk boundaries', async () => {
    const text = ': connected\n\nid: 6\n\nid: 7\nevent: payouts:payout-changed\ndata: {"a":1}\n\n: heartbeat\n\nid: 8\nevent: x:y\ndata: line one\ndata: line two\n\n';
    const chunks = [text.slice(0, 20), text.slice(20, 61), text.slice(61)];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    const frames = [];
    for await (const frame of serverSentEvents(body)) frames.push(frame);
    expect(frames).toEqual([
      { event: null, id: '6', data: '' },
      { event: 'payouts:payout-changed', id: '7', data: '{"a":1}' },
      { event: 'x:y', id: '8', data: 'line one\nline two' },
    ]);
  });
});
