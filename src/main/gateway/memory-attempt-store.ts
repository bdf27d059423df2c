// The AttemptStore contract in memory: the reference the SQLite implementation must match
// (tests run the runner against it), and a fallback before the ledger table exists.
import { AttemptStateError, type AttemptMeta, type AttemptRecord, type AttemptState, type AttemptStore, type StoredResponse } from './attempt-store';

export class MemoryAttemptStore implements AttemptStore {
  private readonly rows = new Map<string, AttemptRecord>();

  async prepare(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): Promise<void> {
    this.insert(key, requestHash, sanitizedBody, meta, 'prepared');
  }

  async prepareSending(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): Promise<void> {
    this.insert(key, requestHash, sanitizedBody, meta, 'sending');
  }

  async markSending(key: string): Promise<boolean> {
    const row = this.rows.get(key);
    if (!row || (row.state !== 'prepared' && row.state !== 'unknown')) return false;
    row.state = 'sending';
    return true;
  }

  async markSucceeded(key: string, response: StoredResponse): Promise<void> {
    this.move(key, ['sending', 'unknown'], 'succeeded', { response, unknownReason: null });
  }

  async markRejected(key: string, response: StoredResponse): Promise<void> {
    this.move(key, ['sending'], 'rejected', { response, unknownReason: null });
  }

  async markUnknown(key: string, reason: string): Promise<void> {
    this.move(key, ['sending'], 'unknown', { unknownReason: reason });
  }

  /** Tries are not counted here (AttemptRecord has none): the same move as markUnknown. */
  async markUnsent(key: string, reason: string): Promise<void> {
    this.move(key, ['sending'], 'unknown', { unknownReason: reason });
  }

  async get(key: string): Promise<AttemptRecord | undefined> {
    const row = this.rows.get(key);
    return row ? { ...row } : undefined;
  }

  async listByState(state: AttemptState): Promise<AttemptRecord[]> {
    return [...this.rows.values()].filter((r) => r.state === state).map((r) => ({ ...r }));
  }

  private insert(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta, state: 'prepared' | 'sending'): void {
    const existing = this.rows.get(key);
    if (existing) throw new AttemptStateError(key, existing.state, state);
    this.rows.set(key, { ...meta, key, requestHash, sanitizedBody, state, response: null, unknownReason: null });
  }

  private move(key: string, from: AttemptState[], to: AttemptState, patch: Partial<AttemptRecord>): void {
    const row = this.rows.get(key);
    if (!row || !from.includes(row.state)) throw new AttemptStateError(key, row?.state ?? 'missing', to);
    Object.assign(row, patch, { state: to });
  }
}
