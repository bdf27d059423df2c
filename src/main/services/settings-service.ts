import { type Settings, settingsSchema } from '../../shared/contract';
import type { Ledger } from '../ledger/connection';
import type { EventBus } from './event-bus';

export const DEFAULT_SETTINGS: Settings = { theme: 'auto', reconciliationPendingMinutes: 60 };

/** User preferences kept in the ledger, so they follow the data directory. */
export class SettingsService {
  constructor(
    private readonly db: Ledger,
    private readonly events: EventBus,
    private readonly now: () => Date,
  ) {}

  get(): Settings {
    const rows = this.db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
    const stored = Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
    const parsed = settingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...stored });
    return parsed.success ? parsed.data : DEFAULT_SETTINGS;
  }

  /** The listener keeps its port across runs, so notification links already given out stay valid. */
  listenerPort(): number {
    const row = this.db.prepare("SELECT value FROM settings WHERE key = 'listener.port'").get() as { value: string } | undefined;
    const port = row ? Number(JSON.parse(row.value)) : 0;
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : 0;
  }

  rememberListenerPort(port: number): void {
    this.write({ 'listener.port': port });
  }

  /** The listener's host as the user last set it (Settings); null: the default, loopback. */
  listenerHost(): string | null {
    const row = this.db.prepare("SELECT value FROM settings WHERE key = 'listener.host'").get() as { value: string } | undefined;
    const host: unknown = row ? JSON.parse(row.value) : null;
    return typeof host === 'string' && host !== '' ? host : null;
  }

  rememberListenerAddress(host: string, port: number): void {
    this.write({ 'listener.host': host, 'listener.port': port });
  }

  update(patch: Partial<Settings>): Settings {
    this.write(patch);
    const settings = this.get();
    this.events.publish('settings:settings-changed', settings);
    return settings;
  }

  private write(values: Record<string, unknown>): void {
    const upsert = this.db.prepare(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    );
    const at = this.now().toISOString();
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(values)) {
        if (value !== undefined) upsert.run(key, JSON.stringify(value), at);
      }
    })();
  }
}
