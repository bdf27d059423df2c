// Small persisted settings: the merchant's credentials and the admin-controlled switches.
import type { EmulatorDb } from './database';

export class MetaRepo {
  constructor(private readonly db: EmulatorDb) {}

  get<T>(key: string): T | undefined {
    const row = this.db.statement('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  set(key: string, value: unknown): void {
    this.db.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }
}
