import { type Settings, settingsSchema } from '../../shared/contract';
import type { Ledger } from '../ledger/connection';
import type { EventBus } from './event-bus';

const defaults: Settings = { theme: 'auto' };

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
    const parsed = settingsSchema.safeParse({ ...defaults, ...stored });
    return parsed.success ? parsed.data : defaults;
  }

  update(patch: Partial<Settings>): Settings {
    const upsert = this.db.prepare(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    );
    const at = this.now().toISOString();
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(patch)) {
        if (value !== undefined) upsert.run(key, JSON.stringify(value), at);
      }
    })();
    const settings = this.get();
    this.events.publish('settings:settings-changed', settings);
    return settings;
  }
}
