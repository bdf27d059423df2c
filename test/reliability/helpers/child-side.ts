// What every core child (core-child.ts, batch-child.ts) does the same way, from inside its own
// process: its config file and run number from argv, one JSON line per step on stdout, the core's
// log in a file, calls through the contract, the crash tests' retry and verification timings, and
// a clean stop on SIGTERM / SIGINT (a SIGKILL is the test's).
import { appendFileSync, readFileSync } from 'node:fs';
import type { Core, CoreOptions } from '../../../src/main/core';
import type { Logger } from '../../../src/main/logger';

export { call, must } from '../../helpers/calls';
export { sleep } from '../../helpers/poll';

export type Emit = Record<string, unknown> & { event: string };
export const emit = (line: Emit) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** The child's config (argv[2], a JSON file) and run number (argv[3]). */
export function childArgs<Config>(): { config: Config; run: number } {
  return { config: JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Config, run: Number(process.argv[3] ?? 0) };
}

/** The core's log, appended to `file` with the run number on each line. */
export function fileLogger(file: string, run: number): Logger {
  const line = (level: string, message: string) => appendFileSync(file, `${new Date().toISOString()} run${run} ${level} ${message}\n`);
  return {
    info: (message) => line('info', message),
    warn: (message) => line('warn', message),
    error: (message, error) => line('error', error instanceof Error ? `${message}: ${error.stack ?? error.message}` : message),
  };
}

/** Gateway calls retried fast (a kill lands between tries, not during long waits), with the child's per-call timeout. */
export function crashGateway(timeoutMs: number): NonNullable<CoreOptions['gateway']> {
  return { timeoutMs, runner: { policy: { maxTries: 4, maxTotalMs: 10_000, baseDelayMs: 50, factor: 2, maxDelayMs: 400 } } };
}

/** Status reads rechecked and retried within seconds, so a run settles what it verifies before the next kill. */
export const CRASH_VERIFICATION_TIMINGS = { recheckDelaysMs: [200, 500, 1_000, 2_000, 4_000], retryDelaysMs: [200, 500, 1_000, 2_000, 4_000, 8_000] };

/** Closes the core and exits (0, or 1 when closing failed) on SIGTERM / SIGINT; the returned stop does the same. */
export function stopOnSignals(core: Core, log: Logger): () => void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void core.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('close failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return stop;
}

/** Runs the child; a failure is logged, said on stdout ("failed") and exits 2. */
export function runChild(main: () => Promise<void>, log: Logger): void {
  main().catch((error: unknown) => {
    log.error('child failed', error);
    emit({ event: 'failed', message: error instanceof Error ? error.message : String(error) });
    process.exit(2);
  });
}
