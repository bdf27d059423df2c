// A batch's history (migration 0010, append-only): starts, pauses, resumes, cancels, the end and
// every interruption, each with the batch's item counts at that moment.
import type { BatchEventView } from '../../../shared/contract';
import type { Sql } from '../engine/types';

export type BatchEventKind = BatchEventView['kind'];
export type BatchActor = BatchEventView['actor'];

export interface NewBatchEvent {
  batchId: number;
  kind: BatchEventKind;
  at: string;
  actor: BatchActor;
  cause: 'closed' | 'unexpected' | null;
  stoppedAt: string | null;
  /** The batch's items not sent yet, in flight and unknown when it happened. */
  items: { pending: number; inFlight: number; unknown: number };
  note: string | null;
  /** The instance recording it, on a ledger instances share (else null). */
  instance: BatchEventView['instance'];
  /** For an interruption found or a resume by Paydesk there: the instance that ran the batch before. */
  runnerBefore: BatchEventView['runnerBefore'];
}

interface EventRow {
  id: number;
  kind: BatchEventKind;
  at: string;
  actor: BatchActor;
  cause: 'closed' | 'unexpected' | null;
  stopped_at: string | null;
  pending: number | null;
  in_flight: number | null;
  unknown: number | null;
  note: string | null;
  instance_id: string | null;
  instance_host: string | null;
  runner_before_id: string | null;
  runner_before_host: string | null;
}

const toEvent = (r: EventRow): BatchEventView => ({
  id: r.id,
  kind: r.kind,
  at: r.at,
  actor: r.actor,
  cause: r.cause,
  stoppedAt: r.stopped_at,
  items: r.pending === null || r.in_flight === null || r.unknown === null ? null : { pending: r.pending, inFlight: r.in_flight, unknown: r.unknown },
  note: r.note,
  instance: r.instance_id === null ? null : { id: r.instance_id, host: r.instance_host },
  runnerBefore: r.runner_before_id === null ? null : { id: r.runner_before_id, host: r.runner_before_host },
});

export class BatchEventsRepository {
  constructor(private readonly db: Sql) {}

  async append(event: NewBatchEvent): Promise<void> {
    await this.db.run(
      `INSERT INTO batch_events (batch_id, kind, at, actor, cause, stopped_at, pending, in_flight, unknown, note, instance_id, instance_host, runner_before_id, runner_before_host)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [event.batchId, event.kind, event.at, event.actor, event.cause, event.stoppedAt, event.items.pending, event.items.inFlight, event.items.unknown, event.note,
        event.instance?.id ?? null, event.instance?.host ?? null, event.runnerBefore?.id ?? null, event.runnerBefore?.host ?? null],
    );
  }

  /** The latest `limit` events, oldest first. */
  async latest(batchId: number, limit: number): Promise<BatchEventView[]> {
    const rows = (await this.db.all('SELECT * FROM batch_events WHERE batch_id = ? ORDER BY id DESC LIMIT ?', [batchId, limit])) as EventRow[];
    return rows.reverse().map(toEvent);
  }

  async count(batchId: number): Promise<number> {
    return ((await this.db.get('SELECT count(*) AS n FROM batch_events WHERE batch_id = ?', [batchId])) as { n: number }).n;
  }

  async latestKind(batchId: number): Promise<BatchEventKind | undefined> {
    return ((await this.db.get('SELECT kind FROM batch_events WHERE batch_id = ? ORDER BY id DESC LIMIT 1', [batchId])) as { kind: BatchEventKind } | undefined)?.kind;
  }

  /** The batch's last recorded change: its own row's or any of its items', whichever is later. */
  async lastActivity(batchId: number): Promise<string> {
    const row = (await this.db.get('SELECT b.updated_at AS batch_at, (SELECT max(i.updated_at) FROM batch_items i WHERE i.batch_id = b.id) AS item_at FROM batches b WHERE b.id = ?', [batchId])) as { batch_at: string; item_at: string | null };
    return row.item_at !== null && row.item_at > row.batch_at ? row.item_at : row.batch_at;
  }
}
