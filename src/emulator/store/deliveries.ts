// Notification deliveries and every attempt made, kept for the admin API and for restarts.
import type { EmulatorDb } from './database';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  id: number;
  event: string;
  url: string;
  /** Exact JSON text sent. */
  body: string;
  subject_id: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface AttemptRecord {
  delivery_id: number;
  attempt: number;
  duplicate: boolean;
  started_at: string;
  http_status: number | null;
  error: string | null;
}

export class DeliveryRepo {
  constructor(private readonly db: EmulatorDb) {}

  insert(d: Pick<DeliveryRecord, 'event' | 'url' | 'body' | 'subject_id' | 'created_at' | 'next_attempt_at'>): number {
    const r = this.db
      .statement(`INSERT INTO deliveries (event, url, body, subject_id, state, created_at, next_attempt_at) VALUES (@event, @url, @body, @subject_id, 'pending', @created_at, @next_attempt_at)`)
      .run(d);
    return Number(r.lastInsertRowid);
  }

  byId(id: number): DeliveryRecord | undefined {
    return this.db.statement('SELECT * FROM deliveries WHERE id = ?').get(id) as DeliveryRecord | undefined;
  }

  pending(): DeliveryRecord[] {
    return this.db.statement("SELECT * FROM deliveries WHERE state = 'pending' ORDER BY id").all() as DeliveryRecord[];
  }

  list(filter: { subject_id?: string; event?: string }, limit: number): DeliveryRecord[] {
    return this.db
      .statement('SELECT * FROM deliveries WHERE (@subject_id IS NULL OR subject_id = @subject_id) AND (@event IS NULL OR event = @event) ORDER BY id DESC LIMIT @limit')
      .all({ subject_id: filter.subject_id ?? null, event: filter.event ?? null, limit }) as DeliveryRecord[];
  }

  attempts(deliveryId: number): AttemptRecord[] {
    const rows = this.db.statement('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY rowid').all(deliveryId) as (Omit<AttemptRecord, 'duplicate'> & { duplicate: number })[];
    return rows.map((r) => ({ ...r, duplicate: r.duplicate === 1 }));
  }

  recordAttempt(a: AttemptRecord, update: { state: DeliveryState; next_attempt_at: string | null; delivered_at: string | null; countsAsAttempt: boolean }): void {
    this.db.transaction(() => {
      this.db
        .statement('INSERT INTO delivery_attempts (delivery_id, attempt, duplicate, started_at, http_status, error) VALUES (?, ?, ?, ?, ?, ?)')
        .run(a.delivery_id, a.attempt, a.duplicate ? 1 : 0, a.started_at, a.http_status, a.error);
      this.db
        .statement(
          `UPDATE deliveries SET state = ?, attempts = attempts + ?, next_attempt_at = ?, last_status = ?, last_error = ?,
             delivered_at = COALESCE(delivered_at, ?) WHERE id = ?`,
        )
        .run(update.state, update.countsAsAttempt ? 1 : 0, update.next_attempt_at, a.http_status, a.error, update.delivered_at, a.delivery_id);
    });
  }
}
