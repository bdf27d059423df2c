// `npm run gateway -- --port N`: the emulator on its own. Stdout carries exactly one line, the
// JSON ready line, once the port accepts connections; logs go to stderr. SIGINT / SIGTERM close
// it cleanly and exit 0; more of them while it closes are logged and change nothing (npm passes
// on the signal it gets, so one sent to the whole process group arrives twice).
import { parseArgs } from 'node:util';
import { DEFAULT_DELIVERY_SCHEDULE, DEFAULT_FEES, DEFAULT_RATE_LIMIT, startEmulator, type EmulatorOptions, type FeeSchedule } from './index';
import { parseFeeOption } from './domain/settlement/fees';
import { DEFAULT_SETTLEMENT_PERIOD_MS, describePeriod, parsePeriod } from './domain/settlement/periods';
import { errorMessage } from '../shared/error-message';

const HELP = `Paydesk gateway emulator — a local, stateful implementation of Payment Service API V2.

Usage: npm run gateway -- [options]

  --port N                      TCP port on --host; 0 picks a free port (default 0)
  --host ADDR                   address to listen on (default 127.0.0.1)
  --data FILE                   keep state in this SQLite file (default: in memory, lost on exit)
  --merchant-id ID              fixed merchant_id (default: generated once, kept in --data)
  --merchant-site-id ID         fixed merchant_site_id (default: generated once)
  --merchant-token TOKEN        fixed merchant-token (default: generated once)
  --notify-first-delay-ms MS    delay of a notification's first attempt (default ${DEFAULT_DELIVERY_SCHEDULE.firstAttemptDelayMs})
  --notify-first-retry-ms MS    delay of the first retry after a failure (default ${DEFAULT_DELIVERY_SCHEDULE.firstRetryDelayMs})
  --notify-backoff-factor F     each later retry waits F times longer (default ${DEFAULT_DELIVERY_SCHEDULE.backoffFactor})
  --notify-max-delay-ms MS      cap of one retry delay (default ${DEFAULT_DELIVERY_SCHEDULE.maxDelayMs})
  --notify-max-attempts N       attempts in all before a delivery is abandoned (default ${DEFAULT_DELIVERY_SCHEDULE.maxAttempts})
  --notify-timeout-ms MS        an attempt fails when the receiver has not answered in time (default ${DEFAULT_DELIVERY_SCHEDULE.attemptTimeoutMs})
  --rate-limit-burst N          get-status reads available at once per merchant and kind (default ${DEFAULT_RATE_LIMIT.burst})
  --rate-limit-refill N         get-status reads refilled per second (default ${DEFAULT_RATE_LIMIT.refillPerSecond})
  --settle-every PERIOD         settle successful pay-ins once per PERIOD, per currency: 10s, 5m, 1h, 1d
                                (1s to 1d; periods are whole multiples from 1970-01-01T00:00Z; default ${describePeriod(DEFAULT_SETTLEMENT_PERIOD_MS)},
                                a UTC day); POST admin_url/settlements/run settles at once
  --fee METHOD=PCT%+FIXED       fee kept from each settled pay-in of METHOD, e.g. credit_card=2.9%+0.25
                                (repeatable; FIXED in the pay-in's currency; the fee is rounded half up
                                to the currency's minor units). Defaults:
${Object.entries(DEFAULT_FEES).map(([m, r]) => `                                  ${m}=${r.percent}%+${r.fixed}`).join('\n')}
  --enforce-wallet-balance      a payout larger than its currency's payout wallet balance ends C405
                                (default: payouts never refused for funds; top up with POST admin_url/wallet/topups)
  --quiet                       no info logs on stderr (warnings and errors still)
  --help                        this text

Once listening it prints one JSON line on stdout:
  {"base_url":"http://127.0.0.1:N/api/v2","admin_url":"http://127.0.0.1:N/_emulator","merchant_id":"…","merchant_site_id":"…","merchant_token":"…"}
It runs until SIGINT or SIGTERM, then exits 0. See docs/emulator.md for endpoints, scenarios, faults and settlement.
`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  'merchant-id': { type: 'string' },
  'merchant-site-id': { type: 'string' },
  'merchant-token': { type: 'string' },
  'notify-first-delay-ms': { type: 'string' },
  'notify-first-retry-ms': { type: 'string' },
  'notify-backoff-factor': { type: 'string' },
  'notify-max-delay-ms': { type: 'string' },
  'notify-max-attempts': { type: 'string' },
  'notify-timeout-ms': { type: 'string' },
  'rate-limit-burst': { type: 'string' },
  'rate-limit-refill': { type: 'string' },
  'settle-every': { type: 'string' },
  fee: { type: 'string', multiple: true },
  'enforce-wallet-balance': { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

function num(name: string, value: string | undefined, min: number, max: number, integer = true): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return n;
}

export function optionsFromArgs(argv: string[]): EmulatorOptions | 'help' {
  const { values: v } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
  if (v.help) return 'help';
  const delivery = {
    firstAttemptDelayMs: num('notify-first-delay-ms', v['notify-first-delay-ms'], 0, 1_000),
    firstRetryDelayMs: num('notify-first-retry-ms', v['notify-first-retry-ms'], 0, 5_000),
    backoffFactor: num('notify-backoff-factor', v['notify-backoff-factor'], 1, 10, false),
    maxDelayMs: num('notify-max-delay-ms', v['notify-max-delay-ms'], 0, 86_400_000),
    maxAttempts: num('notify-max-attempts', v['notify-max-attempts'], 1, 100),
    attemptTimeoutMs: num('notify-timeout-ms', v['notify-timeout-ms'], 100, 120_000),
  };
  const rateLimit = { burst: num('rate-limit-burst', v['rate-limit-burst'], 1, 100_000), refillPerSecond: num('rate-limit-refill', v['rate-limit-refill'], 0, 100_000, false) };
  const merchant = { merchant_id: v['merchant-id'], merchant_site_id: v['merchant-site-id'], merchant_token: v['merchant-token'] };
  const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) as Partial<T>;
  const settlement = {
    periodMs: settlementPeriod(v['settle-every']),
    fees: fees(v.fee ?? []),
    enforceWalletBalance: v['enforce-wallet-balance'],
  };
  return {
    host: v.host ?? '127.0.0.1',
    port: num('port', v.port, 0, 65_535) ?? 0,
    ...(v.data ? { dataFile: v.data } : {}),
    merchant: defined(merchant),
    delivery: defined(delivery),
    rateLimit: defined(rateLimit),
    settlement: defined(settlement),
    quiet: v.quiet ?? false,
  };
}

function settlementPeriod(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parsePeriod(value);
  if (ms === undefined) throw new UsageError('--settle-every must be a period from 1s to 1d, such as 10s, 5m, 1h or 1d');
  return ms;
}

function fees(values: string[]): Partial<FeeSchedule> {
  const schedule: Partial<FeeSchedule> = {};
  for (const value of values) {
    const parsed = parseFeeOption(value);
    if (typeof parsed === 'string') throw new UsageError(parsed);
    schedule[parsed.method] = parsed.rate;
  }
  return schedule;
}

/**
 * `npm run` starts us as npm -> node (the script line's `exec` replaces npm's shell; tsx is a
 * loader in this process). If the process that launched us dies (npm killed with SIGKILL, or a
 * launcher's shell killed without passing the signal on), nobody could ever stop this server:
 * stop ourselves rather than linger as an orphan holding the port.
 */
function watchLauncher(onGone: () => void): void {
  const launcher = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    onGone();
  }, 500);
  timer.unref();
}

async function main(): Promise<void> {
  let options: EmulatorOptions | 'help';
  try {
    options = optionsFromArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${errorMessage(err)}\n\nRun with --help for the options.\n`);
    process.exit(2);
  }
  if (options === 'help') {
    process.stdout.write(HELP);
    return;
  }
  const emulator = await startEmulator(options);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write(`[gateway-emulator] ${signal}: already shutting down\n`);
      return;
    }
    stopping = true;
    process.stderr.write(`[gateway-emulator] ${signal}: shutting down\n`);
    // A stuck close must not turn a clean stop into a hang.
    setTimeout(() => process.exit(0), 5_000).unref();
    emulator.close().then(
      () => {
        process.stderr.write('[gateway-emulator] stopped\n');
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`[gateway-emulator] close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  watchLauncher(() => stop('launcher gone'));
  const m = emulator.merchant;
  process.stdout.write(
    `${JSON.stringify({ base_url: emulator.baseUrl, admin_url: emulator.adminUrl, merchant_id: m.merchant_id, merchant_site_id: m.merchant_site_id, merchant_token: m.merchant_token })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`[gateway-emulator] failed to start: ${errorMessage(err)}\n`);
  process.exit(1);
});
