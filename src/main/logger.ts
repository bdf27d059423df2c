// Main-process log: stderr, one line per event. Callers pass messages, never secrets or card data.
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export function consoleLogger(prefix = 'paydesk'): Logger {
  const line = (level: string, message: string) => process.stderr.write(`${new Date().toISOString()} ${prefix} ${level} ${message}\n`);
  return {
    info: (message) => line('info', message),
    warn: (message) => line('warn', message),
    error: (message, error) => line('error', error instanceof Error ? `${message}: ${error.stack ?? error.message}` : message),
  };
}
