// Gateway emulator: pay-in creates (credit card, full validation, idempotency key, notification
// scheduled) per second from 64 keep-alive senders in a generator process, with state in memory
// and with `--data FILE`; p99 latency of each. The floor, in the same run right after: a bare
// node:http server in this process under the same generator, the faster of two runs (in-memory
// creates ≥ 30 % of its rate); each one warmed up for --warmup seconds first.
//   node --import tsx bench/emulator-creates.ts [--connections 64] [--seconds 5] [--warmup 1]
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startEmulator } from '../src/emulator/index';
import { arg, bareServerLoad, ensureBenchDir, log, report, round, runLoad, type Figure } from './lib';

/** In-memory creates at least this share of the bare server's rate, same run. */
const SHARE_OF_BARE = 30;

const connections = arg('connections', 64);
const seconds = arg('seconds', 5);
const warmup = arg('warmup', 1);
const dir = mkdtempSync(path.join(ensureBenchDir(), 'emulator-'));
const figures: Figure[] = [];

for (const [label, dataFile] of [['in memory', undefined], ['--data FILE', path.join(dir, 'emulator.sqlite')]] as const) {
  // Notifications go to a closed loopback port far in the future: this measures creates, not deliveries.
  const emu = await startEmulator({ quiet: true, dataFile, delivery: { firstAttemptDelayMs: 3_600_000 } });
  const extra = ['--token', emu.merchant.merchant_token, '--merchant-id', emu.merchant.merchant_id, '--site-id', emu.merchant.merchant_site_id];
  if (warmup > 0) await runLoad({ url: `${emu.baseUrl}/payment/create`, kind: 'payin', connections, seconds: warmup, extra });
  // The emulator runs in this process, the generator in its own: this process's CPU time is the
  // emulator's, a steadier figure than the rate when other work shares the machine.
  const cpuBefore = process.cpuUsage();
  const load = await runLoad({
    url: `${emu.baseUrl}/payment/create`, kind: 'payin', connections, seconds, extra,
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

// The floor, same run: a bare node:http server under the same generator, right after. The issue's
// floor is the one the listener is judged by (the generator's small notification requests); the
// same server answering these very pay-in requests is beside it (there the generator, building
// each pay-in body, is the bound on two cores, which flatters the ratio).
// The fastest of two runs: one bare run in the same process read 27,776/s where the listener's
// floor read 55,273/s minutes before, which doubled the emulator's share for nothing.
const bare = await bareServerLoad({ connections, seconds, warmup, kind: 'notification', runs: 2 });
const barePayin = await bareServerLoad({ connections, seconds, warmup, kind: 'payin' });
log(`bare node:http: ${JSON.stringify(bare)}; answering pay-in requests: ${JSON.stringify(barePayin)}`);
const inMemory = figures.find((f) => f.name === 'emulator pay-in creates (in memory)')!;
const inMemoryCpu = figures.find((f) => f.name === 'emulator CPU per pay-in create (in memory)')!;
inMemory.baseline = bare.rate;
inMemoryCpu.baseline = bare.cpuPerRequestUs;
figures.push({ name: 'emulator pay-in creates (in memory) / bare node:http', value: round((100 * inMemory.value) / Math.max(1, bare.rate), 1), unit: '%', target: { op: '>=', value: SHARE_OF_BARE },
  note: `${inMemory.value}/s ÷ ${bare.rate}/s (bare server, the faster of ${bare.rates.join(' and ')}/s; p99 ${bare.p99_ms} ms, ${bare.cpuPerRequestUs} µs CPU per request); answering the same pay-in requests it did ${barePayin.rate}/s (${round((100 * inMemory.value) / Math.max(1, barePayin.rate), 1)} %), ${barePayin.cpuPerRequestUs} µs CPU per request` });
report(figures);
