// Gateway emulator: pay-in creates (credit card, full validation, idempotency key, notification
// scheduled) per second from 64 keep-alive senders in a generator process, with state in memory
// and with `--data FILE`; p99 latency of each.
//   node --import tsx bench/emulator-creates.ts [--connections 64] [--seconds 5]
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startEmulator } from '../src/emulator/index';
import { arg, ensureBenchDir, log, report, runLoad, type Figure } from './lib';

const connections = arg('connections', 64);
const seconds = arg('seconds', 5);
const dir = mkdtempSync(path.join(ensureBenchDir(), 'emulator-'));
const figures: Figure[] = [];

for (const [label, dataFile] of [['in memory', undefined], ['--data FILE', path.join(dir, 'emulator.sqlite')]] as const) {
  // Notifications go to a closed loopback port far in the future: this measures creates, not deliveries.
  const emu = await startEmulator({ quiet: true, dataFile, delivery: { firstAttemptDelayMs: 3_600_000 } });
  // The emulator runs in this process, the generator in its own: this process's CPU time is the
  // emulator's, a steadier figure than the rate when other work shares the machine.
  const cpuBefore = process.cpuUsage();
  const load = await runLoad({
    url: `${emu.baseUrl}/payment/create`, kind: 'payin', connections, seconds,
    extra: ['--token', emu.merchant.merchant_token, '--merchant-id', emu.merchant.merchant_id, '--site-id', emu.merchant.merchant_site_id],
  });
  const cpu = process.cpuUsage(cpuBefore);
  await emu.close();
  const cpuPerCreate = Math.round((cpu.user + cpu.system) / Math.max(1, load.ok + load.failed));
  log(`emulator ${label}: ${JSON.stringify(load)}, ${cpuPerCreate} µs CPU per request`);
  const note = `${connections} senders, ${load.ok.toLocaleString('en')} created, ${load.failed} refused or failed`;
  figures.push({ name: `emulator pay-in creates (${label})`, value: load.rate, unit: 'creates/s', ...(dataFile ? {} : { target: { op: '>=' as const, value: 10_000 } }), note });
  figures.push({ name: `emulator pay-in create latency (${label})`, value: load.p99_ms, unit: 'ms p99', note: `p50 ${load.p50_ms} ms` });
  figures.push({ name: `emulator CPU per pay-in create (${label})`, value: cpuPerCreate, unit: 'µs', note: 'user + system time of the emulator process during the load, per request answered' });
}
rmSync(dir, { recursive: true, force: true });
report(figures);
