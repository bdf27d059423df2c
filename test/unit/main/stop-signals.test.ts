// How web mode and the team server take a stop signal (src/main/stop-signals.ts): the first one
// starts the stop; more while it runs are logged and end nothing; only the deadline ends a stop
// that does not finish, with status 1. The real signals, through npm, are test/reliability/stopping.test.ts's.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../../src/main/logger';
import { stopRequested } from '../../../src/main/stop-signals';

function stubProcess() {
  const signals = new EventEmitter();
  const exits: number[] = [];
  return {
    on: (signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void) => signals.on(signal, listener),
    exit: (code: number) => void exits.push(code),
    signal: (signal: NodeJS.Signals) => signals.emit(signal, signal),
    exits,
  };
}

function recordingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) } };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('stopRequested', () => {
  it('resolves with the first signal and only logs the ones that follow', async () => {
    vi.useFakeTimers();
    const target = stubProcess();
    const { log, lines } = recordingLog();
    const stop = stopRequested(log, { process: target });
    target.signal('SIGTERM');
    target.signal('SIGTERM');
    target.signal('SIGINT');
    expect(await stop).toBe('SIGTERM');
    expect(lines).toEqual(['info SIGTERM: stopping', 'info SIGTERM: already stopping (since SIGTERM); the stop ends by itself within 30 s', 'info SIGINT: already stopping (since SIGTERM); the stop ends by itself within 30 s']);
    expect(target.exits).toEqual([]);
  });

  it('ends a stop still running at the deadline with status 1, whatever signals came meanwhile', async () => {
    vi.useFakeTimers();
    const target = stubProcess();
    const { log, lines } = recordingLog();
    const stop = stopRequested(log, { process: target, deadlineMs: 5_000 });
    target.signal('SIGINT');
    await stop;
    vi.advanceTimersByTime(4_000);
    target.signal('SIGINT');
    vi.advanceTimersByTime(999);
    expect(target.exits).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(target.exits).toEqual([1]);
    expect(lines.at(-1)).toBe('error still stopping 5 s after SIGINT: exiting now; the next start recovers what was in flight');
  });

  it('waits for a signal: none, no stop and no deadline', async () => {
    vi.useFakeTimers();
    const target = stubProcess();
    let stopped = false;
    void stopRequested(recordingLog().log, { process: target, deadlineMs: 1_000 }).then(() => (stopped = true));
    vi.advanceTimersByTime(10_000);
    await Promise.resolve();
    expect({ stopped, exits: target.exits }).toEqual({ stopped: false, exits: [] });
  });
});
