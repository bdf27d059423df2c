// Saved filter views of the pay-in and payout lists, one settings row per subject (a small JSON
// list, read and rewritten in one transaction). No migration needed: views are preferences.
import { z } from 'zod';
import { MAX_SAVED_VIEWS, savedViewSchema, type SavedView, type SavedViewFilters, type TransactionSubject } from '../../../shared/contract';
import type { Repositories } from '../../ledger/repositories/index';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';

const storedViews = z.array(savedViewSchema);
const keyOf = (subject: TransactionSubject) => `views.${subject}`;
const byName = (a: SavedView, b: SavedView) => a.name.localeCompare(b.name);

export class SavedViewsService {
  constructor(
    private readonly repos: Pick<Repositories, 'settings' | 'transaction'>,
    private readonly now: Clock,
  ) {}

  async list(subject: TransactionSubject): Promise<{ views: SavedView[] }> {
    return { views: await this.read(subject) };
  }

  private async read(subject: TransactionSubject): Promise<SavedView[]> {
    const stored = await this.repos.settings.get(keyOf(subject));
    if (stored === undefined) return [];
    // A row this version cannot read (hand-edited, or from a newer version) is shown as no views, never a crash.
    const parsed = storedViews.safeParse(safeJson(stored));
    return parsed.success ? parsed.data.sort(byName) : [];
  }

  /** Adds a view, or replaces the one with the same name. */
  save(subject: TransactionSubject, name: string, filters: SavedViewFilters): Promise<{ views: SavedView[] }> {
    return this.repos.transaction(async () => {
      const others = (await this.read(subject)).filter((v) => v.name !== name);
      if (others.length >= MAX_SAVED_VIEWS) {
        throw new ServiceError('conflict', `At most ${MAX_SAVED_VIEWS} saved views: delete one first.`, { name: `At most ${MAX_SAVED_VIEWS} saved views.` });
      }
      const views = [...others, { name, filters, savedAt: isoTime(this.now()) }].sort(byName);
      await this.write(subject, views);
      return { views };
    });
  }

  delete(subject: TransactionSubject, name: string): Promise<{ views: SavedView[] }> {
    return this.repos.transaction(async () => {
      const views = await this.read(subject);
      const kept = views.filter((v) => v.name !== name);
      if (kept.length === views.length) throw new ServiceError('not_found', `No saved view named "${name}".`, { name: 'No view with this name.' });
      await this.write(subject, kept);
      return { views: kept };
    });
  }

  private async write(subject: TransactionSubject, views: SavedView[]): Promise<void> {
    await this.repos.settings.put(new Map([[keyOf(subject), JSON.stringify(views)]]));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
