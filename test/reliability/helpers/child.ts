// Starts core-child.ts (or any test script) as a separate process and follows its JSON lines, so
// a test can SIGKILL it at a chosen moment. Every child started here is tracked by pid and killed
// by killAllStarted() in the suite's cleanup: no process outlives a failed test.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../../src/emulator/index';
import type { ChildConfig } from './core-child';

const CHILD_SCRIPT = path.join(import.meta.dirname, 'core-child.ts');

/**
 * The gateway a crash test's children talk to, in the test's own process (it outlives every kill):
 * fast scenarios, deliveries to a killed app retried for minutes, its errors printed (deliveries
 * that fail while the app is down are expected, not worth a line each). `more` on top.
 */
export function startCrashGateway(dataFile: string, more: EmulatorOptions = {}): Promise<EmulatorHandle> {
  return startEmulator({
    dataFile,
    logger: { info: () => {}, warn: () => {}, error: (m, f) => console.error(`emulator: ${m} ${JSON.stringify(f)}`) },
    scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 150 },
    delivery: { firstAttemptDelayMs: 20, firstRetryDelayMs: 200, backoffFactor: 1.5, maxDelayMs: 1_000, maxAttempts: 100 },
    rateLimit: { burst: 200, refillPerSecond: 200 },
    ...more,
  });
}
const started = new Set<ChildProcess>();

export interface ChildLine {
  event: string;
  [key: string]: unknown;
}

export interface RunningChild {
  process: ChildProcess;
  lines: ChildLine[];
  /** Resolves with the first line that matches (or rejects when the child exits first or time runs out). */
  waitFor(match: (line: ChildLine) => boolean, timeoutMs: number): Promise<ChildLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** Writes one JSON line to the child's stdin (started with { stdin: true }). */
  send(line: unknown): void;
}

export function writeConfig(file: string, config: ChildConfig): string {
  writeFileSync(file, JSON.stringify(config));
  return file;
}

export function startChild(configFile: string, run: number, script = CHILD_SCRIPT, options: { stdin?: boolean } = {}): RunningChild {
  // The child is given its ledger's address in its config; it does not pick a test engine itself.
  const { PAYDESK_TEST_ENGINE: _engine, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', script, configFile, String(run)], { stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], env });
  started.add(child);
  const lines: ChildLine[] = [];
  const listeners = new Set<(line: ChildLine) => void>();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    let line: ChildLine;
    try {
      line = JSON.parse(text) as ChildLine;
    } catch {
      line = { event: 'text', text };
    }
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      started.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    process: child,
    lines,
    exited,
    stderr: () => stderr,
    waitFor(match, timeoutMs) {
      const found = lines.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const done = (error: Error | null, line?: ChildLine) => {
          clearTimeout(timer);
          listeners.delete(onLine);
          if (error) reject(error);
          else resolve(line as ChildLine);
        };
        const onLine = (line: ChildLine) => {
          if (match(line)) done(null, line);
        };
        const timer = setTimeout(() => done(new Error(`child run ${run}: no matching line within ${timeoutMs} ms; last lines: ${JSON.stringify(lines.slice(-5))}\n${stderr.slice(-2000)}`)), timeoutMs);
        listeners.add(onLine);
        void exited.then(({ code, signal }) => done(new Error(`child run ${run} exited (${code ?? signal}) before the expected line; last lines: ${JSON.stringify(lines.slice(-5))}\n${stderr.slice(-2000)}`)));
      });
    },
    send(line) {
      if (!child.stdin) throw new Error('this child was started without stdin');
      child.stdin.write(`${JSON.stringify(line)}\n`);
    },
    kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Cleanup for afterAll / finally: SIGKILL every child this module started that is still running. */
export async function killAllStarted(): Promise<void> {
  const running = [...started];
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
