// Notifications to people: from an event to the mail at a loopback SMTP server, and
// a burst of events folded into digests with not one lost. The parts are the product's own: a
// SQLite ledger, each event's notice written by the notices repository (`notices.add`, the write
// the event's transaction makes, which puts the e-mail deliveries in the outbox), and the
// team server's NoticeSender with its e-mail channel (nodemailer, pooled), woken as on the server
// by the notices' announcer when it finds new notices (every second) and besides looking at the
// outbox every 2 s (DEFAULT_SENDER_TIMINGS, `--every-ms` to try another), sending to an
// `smtp-server` on 127.0.0.1 (plain SMTP, no authentication: the cost measured is Paydesk's, not
// TLS's; the floor goes through the same).
//   1. Latency: --events events, one every 50–250 ms, each to one of 20 people who chose e-mail
//      for its kind; the time from writing the notice to the end of its mail's DATA at the server.
//      Floor: the same number of mails sent one by one straight through nodemailer (a pooled transport
//      of the same options) to the same server, each timed from sendMail to the end of its DATA.
//   2. Burst: --burst events written at once (10 people × 2 kinds); the sender folds them into
//      digests. The time until the outbox is empty, and the count: every notice must be in exactly
//      one mail (a digest's subject says how many it carries, its Message-ID names the delivery
//      the ledger marked as carrying them; a single mail's Message-ID names its delivery).
//      Floor: as many mails as the sender sent, straight through nodemailer to the same server.
//   node --import tsx bench/notices.ts [--events 200] [--burst 10000] [--every-ms 2000] [--timeout 600]
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { openLedger } from '../src/main/ledger/connection';
import { createRepositories } from '../src/main/ledger/repositories/index';
import { emailChannel } from '../src/main/services/notices/channels';
import { DEFAULT_SENDER_TIMINGS, NoticeSender } from '../src/main/services/notices/notice-sender';
import { Notices } from '../src/main/services/notices/notices';
import { EventBus } from '../src/main/services/event-bus';
import type { Logger } from '../src/main/logger';
import { arg, ensureBenchDir, log, percentile, prng, report, round, type Figure } from './lib';

const events = arg('events', 200);
const burst = arg('burst', 10_000);
const everyMs = arg('every-ms', DEFAULT_SENDER_TIMINGS.everyMs);
const timeoutS = arg('timeout', 600);
/** The targets. */
const LATENCY_P99_MS = 2_000;
/** A burst not drained by then is reported as lost (what is still pending). */
const BURST_TIMEOUT_MS = Math.max(60_000, (burst / 500) * everyMs * 3);

const watchdog = setTimeout(() => {
  process.stderr.write(`notices.ts: no end within ${timeoutS} s\n`);
  process.exit(1);
}, timeoutS * 1000);
watchdog.unref();

// --- the SMTP server: every message's arrival time, recipients and text ---------------------------

interface Mail {
  at: number;
  to: string[];
  raw: string;
}
const mails: Mail[] = [];
/** Called on each arrival (the latency phase waits on it). */
let onMail: (mail: Mail) => void = () => {};
const smtp = new SMTPServer({
  authOptional: true,
  // A reverse DNS look-up of 127.0.0.1 per connection would add its own wait to every mail.
  disableReverseLookup: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  size: 10 * 1024 * 1024,
  onData: (stream, session, callback) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const mail = { at: performance.now(), to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') };
      mails.push(mail);
      onMail(mail);
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = (smtp.server.address() as AddressInfo).port;
const smtpOptions = { host: '127.0.0.1', port: smtpPort, from: 'Paydesk <paydesk@example.com>' };

const quietLog: Logger = { info: () => {}, warn: (m) => log(`sender: ${m}`), error: (m, e) => log(`sender: ${m} ${String(e)}`) };
const header = (raw: string, name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(raw)?.[1]?.trim() ?? '';

// --- the ledger and its people ---------------------------------------------------------------------

const dir = mkdtempSync(path.join(ensureBenchDir(), 'notices-'));
const db = await openLedger({ file: path.join(dir, 'ledger.sqlite') });
const repos = createRepositories(db);
const KINDS = ['payout.declined', 'payout.unknown'] as const;
const person = (i: number) => `person-${i}`;
for (let i = 0; i < 20; i++) await repos.notices.setChoices(person(i), { email: `p${i}@example.com`, chatUrl: null }, KINDS.map((kind) => ({ kind, channel: 'email' })));
/** One event's notice, as the payouts' status write adds it: its token `ev-N` is in its title. */
const tell = (n: number, to: string, kind: string) =>
  repos.notices.add({ kind, subject: `payout:${n}`, title: `Payout ev-${n} declined: C501`, body: `Payout ev-${n} of 10.00 EUR was declined (C501).`, link: `#/payouts/${n}` }, { people: [to] });

/** The sender as a team server runs it: leading, and woken by the announcer of new notices. */
async function startSender(): Promise<{ close(): Promise<void> }> {
  const sender = new NoticeSender({ repos, channels: { email: emailChannel(smtpOptions) }, publicUrl: 'http://127.0.0.1', now: () => new Date(), log: quietLog, timings: { everyMs } });
  const announcer = new Notices({ repos, team: true, person: () => undefined, screens: new EventBus(), log: quietLog, onNew: () => void sender.runRound() });
  await announcer.start();
  void sender.lead();
  return {
    async close() {
      await announcer.close();
      await sender.close();
    },
  };
}

/** `count` mails sent one after the other straight through nodemailer; each one's time to the end of its DATA at the server, sorted, and the whole time. */
async function floor(count: number, text: (i: number) => string): Promise<{ latencies: number[]; seconds: number }> {
  const transport = nodemailer.createTransport({ ...smtpOptions, secure: false, pool: true });
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await transport.sendMail({ from: smtpOptions.from, to: `floor${i % 20}@example.com`, subject: `Floor ${i}`, text: text(i), messageId: `<floor-${i}@paydesk>` });
    latencies.push(performance.now() - t);
  }
  transport.close();
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000 };
}

const figures: Figure[] = [];

// --- 1. latency ------------------------------------------------------------------------------------

{
  const written = new Map<number, number>();
  const arrived = new Map<number, number>();
  onMail = (mail) => {
    for (const match of mail.raw.matchAll(/ev-(\d+)\b/g)) {
      const n = Number(match[1]);
      if (written.has(n) && !arrived.has(n)) arrived.set(n, mail.at - written.get(n)!);
    }
  };
  const sender = await startSender();
  const random = prng(30);
  for (let n = 0; n < events; n++) {
    await new Promise((resolve) => setTimeout(resolve, 50 + random(200)));
    written.set(n, performance.now());
    await tell(n, person(n % 20), KINDS[n % 2]!);
  }
  const waitUntil = performance.now() + Math.max(10_000, 3 * everyMs);
  while (arrived.size < events && performance.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 20));
  await sender.close();
  onMail = () => {};
  const latencies = [...arrived.values()].sort((a, b) => a - b);
  const missing = events - arrived.size;
  const bare = await floor(events, (i) => `Floor ${i}\n`);
  log(`latency: ${arrived.size}/${events} arrived, p50 ${round(percentile(latencies, 0.5))} ms, p99 ${round(percentile(latencies, 0.99))} ms; floor p99 ${round(percentile(bare.latencies, 0.99))} ms`);
  // A mail that never came counts as the longest wait.
  const p99 = missing > 0 ? Number.POSITIVE_INFINITY : percentile(latencies, 0.99);
  figures.push({
    name: 'notice event to mail at the SMTP server', value: Number.isFinite(p99) ? round(p99, 1) : 1e9, unit: 'ms p99', target: { op: '<', value: LATENCY_P99_MS }, baseline: round(percentile(bare.latencies, 0.99), 2),
    note: `${events} events, ${missing} never arrived, p50 ${round(percentile(latencies, 0.5), 1)} ms; the sender looks every ${everyMs} ms; baseline: nodemailer straight to the same server, p99 per mail (p50 ${round(percentile(bare.latencies, 0.5), 2)} ms)`,
  });
}

// --- 2. burst ----------------------------------------------------------------------------------

{
  // The latency phase's mails are counted apart: only what arrives from here on is the burst's.
  const before = mails.length;
  const outboxBefore = await repos.notices.outbox();
  if (outboxBefore.pending !== 0) log(`burst: ${outboxBefore.pending} deliveries still pending from the latency phase`);
  const firstId = Number((await db.get<{ id: number | null }>('SELECT max(id) AS id FROM notice_deliveries'))?.id ?? 0);
  const written = performance.now();
  await db.transaction(async () => {
    for (let n = 0; n < burst; n++) await tell(1_000_000 + n, person(n % 10), KINDS[Math.floor(n / 10) % 2]!);
  });
  const writeSeconds = (performance.now() - written) / 1000;
  const started = performance.now();
  const sender = await startSender();
  const deadline = started + BURST_TIMEOUT_MS;
  while (performance.now() < deadline && (await repos.notices.outbox()).pending > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const lastMail = mails.at(-1)?.at ?? performance.now();
  await sender.close();
  const seconds = (Math.max(lastMail, started) - started) / 1000;
  const burstMails = mails.slice(before);

  // Every notice in exactly one mail: each mail's Message-ID names the delivery the ledger marked as carrying it.
  const carried = new Map<number, number>();
  const seenIds = new Set<string>();
  let duplicates = 0;
  for (const mail of burstMails) {
    const id = header(mail.raw, 'Message-ID');
    if (seenIds.has(id)) duplicates++;
    seenIds.add(id);
    const single = /<notice-delivery-(\d+)@paydesk>/.exec(id);
    const digest = /<notice-digest-(\d+)@paydesk>/.exec(id);
    const n = digest ? Number(/Paydesk: (\d+) notices/.exec(header(mail.raw, 'Subject'))?.[1] ?? 0) : single ? 1 : 0;
    const key = Number((single ?? digest)?.[1] ?? 0);
    carried.set(key, (carried.get(key) ?? 0) + n);
  }
  const ledger = await db.all<{ carrier: number; n: number }>(
    `SELECT coalesce(digest_of, id) AS carrier, count(*) AS n FROM notice_deliveries WHERE id > ? AND state = 'sent' GROUP BY coalesce(digest_of, id)`, [firstId]);
  const deliveries = Number((await db.get<{ n: number }>('SELECT count(*) AS n FROM notice_deliveries WHERE id > ?', [firstId]))?.n ?? 0);
  /** Deliveries the ledger says were sent in a mail that carried exactly them. */
  const accounted = ledger.reduce((sum, row) => sum + (carried.get(Number(row.carrier)) === Number(row.n) ? Number(row.n) : 0), 0);
  const inMails = [...carried.values()].reduce((a, b) => a + b, 0);
  const lost = burst - accounted;
  const digests = burstMails.filter((m) => /notice-digest-/.test(header(m.raw, 'Message-ID'))).length;
  const bare = await floor(burstMails.length, (i) => `${burstMails[i]?.raw.length ?? 0} characters\n`);
  log(`burst: ${burst} events (${deliveries} deliveries) in ${burstMails.length} mails (${digests} digests) in ${round(seconds)} s; the mails say ${inMails}; floor ${round(bare.seconds)} s`);
  figures.push(
    { name: `burst of ${burst.toLocaleString('en')} events: notices not in exactly one mail`, value: lost + duplicates, unit: 'notices', target: { op: '<', value: 1 },
      note: `${deliveries} deliveries written, ${accounted} accounted for by a mail, ${inMails} counted in the mails' subjects, ${duplicates} mails twice; ${burstMails.length} mails, ${digests} of them digests` },
    { name: `burst of ${burst.toLocaleString('en')} events: time to the last mail`, value: round(seconds, 2), unit: 's', baseline: round(bare.seconds, 2),
      note: `notices written in one transaction in ${round(writeSeconds, 2)} s (not counted); the sender takes 500 deliveries per look, one look every ${everyMs} ms; baseline: the same ${burstMails.length} mails straight through nodemailer` },
  );
}

await db.close();
await new Promise<void>((resolve) => smtp.close(() => resolve()));
rmSync(dir, { recursive: true, force: true });
report(figures);
clearTimeout(watchdog);
