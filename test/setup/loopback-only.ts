// Vitest setup file: a test may reach only this machine. Every host name a test's process looks
// up (the app's gateway client, the emulator's notification deliveries, the PostgreSQL client: all
// of them resolve names through dns.lookup) must be localhost; an IP address passes (it names no
// host; the listener's tests bind 0.0.0.0 and an address this machine lacks). Any other name is
// answered "not found" without asking DNS, and fails the test file that was running, named. Names
// under .invalid (RFC 6761: they never resolve) are looked up as usual, for the tests about a name
// that does not resolve, and so is the host of PAYDESK_TEST_PG_ADMIN_URL, the PostgreSQL server
// the run was given. Child processes (a server a test starts) are not covered.
import dns from 'node:dns';
import net from 'node:net';
import { afterAll, expect } from 'vitest';

const patched = Symbol.for('paydesk.loopback-only');

const givenPostgres = ((): string | undefined => {
  try {
    return new URL(process.env.PAYDESK_TEST_PG_ADMIN_URL ?? '').hostname;
  } catch {
    return undefined;
  }
})();

const allowed = (host: string): boolean => net.isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.invalid') || host === givenPostgres;

type Lookup = (host: string, ...rest: unknown[]) => unknown;

const state = globalThis as typeof globalThis & { [patched]?: { reached: string[] } };
// Once per process (vitest loads this file again for every test file a worker runs).
state[patched] ??= (() => {
  const real = dns.lookup as unknown as Lookup;
  const guard = { reached: [] as string[] };
  (dns as unknown as { lookup: Lookup }).lookup = function lookup(host: string, ...rest: unknown[]) {
    if (typeof host !== 'string' || allowed(host)) return real.call(dns, host, ...rest);
    guard.reached.push(host);
    const callback = rest.at(-1);
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (a test reached for a host off this machine: every test address must be on loopback)`), { code: 'ENOTFOUND', hostname: host });
    if (typeof callback === 'function') process.nextTick(() => (callback as (error: Error) => void)(error));
    return undefined;
  };
  return guard;
})();
const guard = state[patched];

afterAll(() => {
  const hosts = [...new Set(guard.reached.splice(0))];
  expect(hosts, 'hosts this test file reached for off this machine (use 127.0.0.1: a closed port, or a local receiver)').toEqual([]);
});
