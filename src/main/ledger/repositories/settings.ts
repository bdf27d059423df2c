// The settings table: one JSON text per key (preferences, the listener's address, saved views).
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';

export class SettingsRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  /** Every key with its JSON text. */
  async all(): Promise<Map<string, string>> {
    const rows = (await this.db.all('SELECT key, value FROM settings')) as { key: string; value: string }[];
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  /** The JSON text of one key, if it was ever written. */
  async get(key: string): Promise<string | undefined> {
    return ((await this.db.get('SELECT value FROM settings WHERE key = ?', [key])) as { value: string } | undefined)?.value;
  }

  /** Writes each key's JSON text, all in one transaction. */
  async put(values: ReadonlyMap<string, string>): Promise<void> {
    const upsert = 'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at';
    const at = isoTime(this.now());
    await this.db.atomic(async () => {
      for (const [key, value] of values) await this.db.run(upsert, [key, value, at]);
    });
  }
}
