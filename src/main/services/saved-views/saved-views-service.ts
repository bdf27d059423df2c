// Saved filter views of the pay-in and payout lists, one settings row per subject (a small JSON
// list, read and rewritten in one transaction). No migration needed: views are preferences.
import { z } from 'zod';
import { MAX_SAVED_VIEWS, savedViewSchema, type SavedView, type SavedViewFilters, type TransactionSubject } from '../../../shared/contract';
import type { Ledger } from '../../ledger/connection';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';

const storedViews = z.array(savedViewSchema);
const keyOf = (subject: TransactionSubject) => `views.${subject}`;
const byName = (a: SavedView, b: SavedView) => a.name.localeCompare(b.name);

export class SavedViewsService {
  constructor(
    private readonly db: Ledger,
    private readonly now: Clock,
  ) {}

  list(subject: TransactionSubject): SavedView[] {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(keyOf(subject)) as { value: string } | undefined;
    if (!row) return [];
    // A row this version cannot read (hand-edited, or from a newer version) is shown as no views, never a crash.
    const parsed = storedViews.safeParse(safeJson(row.value));
    return parsed.success ? parsed.data.sort(byName) : [];
  }

  /** Adds a view, or replaces the one with the same name. */
  save(subject: TransactionSubject, name: string, filters: SavedViewFilters): SavedView[] {
    return this.db.transaction(() => {
      const others = this.list(subject).filter((v) => v.name !== name);
      if (others.length >= MAX_SAVED_VIEWS) {
        throw new ServiceError('conflict', `At most ${MAX_SAVED_VIEWS} saved views: delete one first.`, { name: `At most ${MAX_SAVED_VIEWS} saved views.` });
      }
      const views = [...others, { name, filters, savedAt: isoTime(this.now()) }].sort(byName);
      this.write(subject, views);
      return views;
    })();
  }

  delete(subject: TransactionSubject, name: string): SavedView[] {
    return this.db.transaction(() => {
      const views = this.list(subject);
      const kept = views.filter((v) => v.name !== name);
      if (kept.length === views.length) throw new ServiceError('not_found', `No saved view named "${name}".`, { name: 'No view with this name.' });
      this.write(subject, kept);
      return kept;
    })();
  }

  private write(subject: TransactionSubject, views: SavedView[]): void {
    this.db
      .prepare('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at')
      .run(keyOf(subject), JSON.stringify(views), isoTime(this.now()));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
