// Main-process log: structured JSON lines (pino), one per event, on standard error (the team
// server's, for journald or a log shipper) and, on a desk, in paydesk.log of its data directory too
// (docs/team.md, "Health, metrics and logs"). Every line carries the time, the level, the message,
// the instance once known, and, inside a request, its request id and the person signed in
// (log-context.ts). Callers pass messages and fields, never secrets or card data; what slips in
// anyway is masked twice: pino's own `redact` on the fields that carry credentials, card numbers,
// CVVs, passwords, tokens and authorization headers, and the shared masker on the free text of
// messages and errors (a card number as a word, a bearer token, a password in a database address).
import pino, { type DestinationStream, type Level } from 'pino';
import { maskPansIn, REDACTED } from '../shared/redact';
import { currentLogContext } from './log-context';

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, error?: unknown, fields?: LogFields): void;
  debug?(message: string, fields?: LogFields): void;
  /** Adds fields to every later line (the instance, once the core knows it). */
  bind?(fields: LogFields): void;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The file a desk logs to in its data directory. */
export const DESK_LOG_FILE = 'paydesk.log';

/**
 * The fields pino blanks wherever they stand at the top or one level down (a request's headers, an
 * error's body): credentials, card data and secrets by name, whatever they hold.
 */
const SECRET_FIELDS = ['password', 'token', 'merchantToken', 'merchant_token', 'merchant_jwt', 'authorization', 'cookie', 'cvv', 'cvc', 'cardCvv', 'card_cvv', 'cardNumber', 'card_number', 'cardNum', 'cardholder_number', 'pan', 'privateKey', 'private_key', 'secret', 'totp'];
export const REDACT_PATHS = [...SECRET_FIELDS, ...SECRET_FIELDS.map((field) => `*.${field}`), 'headers["set-cookie"]', '*.headers["set-cookie"]', '*.headers["x-paydesk-token"]'];

/** Free text made safe: card numbers masked 6/4, bearer tokens, database passwords and session tokens in URLs blanked. */
export function maskText(text: string): string {
  return maskPansIn(text)
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`)
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi, `$1${REDACTED}@`)
    .replace(/([?&](?:token|password|secret)=)[^\s&#"]+/gi, `$1${REDACTED}`);
}

const errorFields = (error: unknown): LogFields | undefined =>
  error instanceof Error ? { error: { type: error.name, message: maskText(error.message), ...(error.stack ? { stack: maskText(error.stack) } : {}) } } : error === undefined ? undefined : { error: { message: maskText(String(error)) } };

export interface JsonLoggerOptions {
  /** What the lines are of: "paydesk-server", "paydesk". */
  name: string;
  level?: LogLevel;
  /** Where the lines go; default standard error. */
  destination?: DestinationStream;
}

export interface JsonLogger extends Logger {
  /** Writes the lines to this file too, from now on (a desk's, once its data directory exists). */
  alsoTo(file: string): void;
  /** Writes what is buffered (before the process exits). */
  flush(): void;
}

export function jsonLogger(options: JsonLoggerOptions): JsonLogger {
  const level = options.level ?? 'info';
  const streams = pino.multistream([{ level, stream: options.destination ?? pino.destination({ fd: 2, sync: true }) }]);
  const files: ReturnType<typeof pino.destination>[] = [];
  const logger = pino(
    {
      name: options.name,
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // The request's id and its person, on every line logged while it is served.
      mixin: () => {
        const context = currentLogContext();
        return context ? { reqId: context.reqId, ...(context.person() ? { person: context.person() } : {}) } : {};
      },
    },
    streams,
  );
  const line = (at: Level, message: string, fields?: LogFields) => (fields ? logger[at](fields, maskText(message)) : logger[at](maskText(message)));
  return {
    info: (message, fields) => line('info', message, fields),
    warn: (message, fields) => line('warn', message, fields),
    debug: (message, fields) => line('debug', message, fields),
    error: (message, error, fields) => {
      const merged = { ...errorFields(error), ...fields };
      line('error', message, Object.keys(merged).length > 0 ? merged : undefined);
    },
    bind: (fields) => logger.setBindings(fields),
    alsoTo: (file) => {
      const stream = pino.destination({ dest: file, sync: true, append: true });
      files.push(stream);
      streams.add({ level, stream });
    },
    flush: () => {
      for (const file of files) file.flushSync();
    },
  };
}

/** The level from $PAYDESK_LOG_LEVEL (a desk's), else info. */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const wanted = env.PAYDESK_LOG_LEVEL?.toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(wanted ?? '') ? (wanted as LogLevel) : 'info';
}
