// How web mode and the team server are asked to stop (docs/team.md, "Stopping it"). The first
// SIGINT or SIGTERM starts the one clean stop; later ones only say so in the log. They are
// common: npm passes on the signal it gets, so one sent to the whole process group (Ctrl+C,
// systemd's default KillMode) arrives twice, and an operator may press Ctrl+C again while the
// sends in flight are being recorded. Cutting that short is what a crash does, so the stop is
// bounded by time instead: still running `deadlineMs` after it began, it ends the process with
// status 1, and the next start recovers what was in flight as after a crash.
import type { Logger } from './logger';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** How long a stop may take before the process ends anyway (systemd's TimeoutStopSec is longer). */
export const STOP_DEADLINE_MS = 30_000;

/** The process, as far as stopping goes (tests pass a stand-in). */
export interface SignalledProcess {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
}

/**
 * Resolves with the first stop signal. It listens from the call on, so a stop asked for while the
 * process starts is kept, and it keeps listening, so no later signal ends the process on the spot.
 */
export function stopRequested(log: Logger, options: { deadlineMs?: number; process?: SignalledProcess } = {}): Promise<NodeJS.Signals> {
  const { deadlineMs = STOP_DEADLINE_MS, process: target = process } = options;
  const seconds = Math.round(deadlineMs / 1000);
  return new Promise((resolve) => {
    let first: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (first) {
        log.info(`${signal}: already stopping (since ${first}); the stop ends by itself within ${seconds} s`);
        return;
      }
      first = signal;
      log.info(`${signal}: stopping`);
      const deadline = setTimeout(() => {
        log.error(`still stopping ${seconds} s after ${signal}: exiting now; the next start recovers what was in flight`);
        target.exit(1);
      }, deadlineMs);
      deadline.unref();
      resolve(signal);
    };
    for (const signal of STOP_SIGNALS) target.on(signal, onSignal);
  });
}
