// One row per payment attempt of a create call, written BEFORE the request leaves: a crash between
// "sent" and "answered" leaves a row in state sending/unknown that recovery resolves with a status
// read or a retry that reuses the same Idempotency-Key and body. Same state machine as the
// gateway's AttemptStore (src/main/gateway/attempt-store.ts), which ledger-attempt-store.ts adapts:
//
//   prepared ──► sending ──► succeeded   (HTTP 2xx: the gateway took it; the body may still say failed)
//                  ▲   │ ──► rejected    (a 4xx: the gateway refused it, nothing was created)
//                  │   └───► unknown ──► succeeded   (a status read found it)
//                  └───────────┘          retry with the same key and body
//
// try_count counts the sends that may have left: each markSending, and a claim (record() with
// state "sending"), whose send starts in the same turn of the event loop as its commit. A claim
// that fails before its request leaves takes its try back (markUnsent); only a crash between that
// commit and the send leaves a try counted that did not leave, which no one could tell from a
// crash mid-send: both are settled the same way, under the same key.
import type { Sql } from '../engine/types';
import { notHeldBy } from './instances';
import { placeholders } from './page';
import { redactForStorage } from '../../../shared/redact';
import { canonicalJson, isoTime, sha256Hex, systemClock, toFlag, type Clock } from '../support';

export type AttemptKind = 'payin' | 'payout' | 'tokenization' | 'token_charge';
export type AttemptState = 'prepared' | 'sending' | 'succeeded' | 'rejected' | 'unknown';

export interface Attempt {
  id: number;
  profileId: string;
  kind: AttemptKind;
  idempotencyKey: string;
  /** request_id of a pay-in, merchantReference of a payout. */
  reference: string;
  requestHash: string;
  /** The request body as stored: card number masked, CVV, JWT and credentials redacted. */
  requestBody: string;
  /** requestBody is the exact request (nothing was redacted): it may be re-sent after a restart. */
  replayable: boolean;
  state: AttemptState;
  tryCount: number;
  httpStatus: number | null;
  responseBody: string | null;
  responseSource: 'create' | 'status_read' | null;
  /** Why the outcome is unknown (timeout, connection error, 5xx, interrupted…). */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  lastSentAt: string | null;
  completedAt: string | null;
  /** What the last automatic try to settle it found (start-up, the sweep), and when. */
  settleNote: string | null;
  settleTriedAt: string | null;
}

/** What a transaction's view shows of its create attempt. */
export type AttemptSummary = Pick<Attempt, 'id' | 'idempotencyKey' | 'state' | 'settleNote'>;

/** The columns of an attempt its summary is read from. */
export type AttemptSummaryColumns = Pick<AttemptRow, 'id' | 'idempotency_key' | 'state' | 'settle_note'>;

export const toAttemptSummary = (r: AttemptSummaryColumns): AttemptSummary => ({ id: r.id, idempotencyKey: r.idempotency_key, state: r.state, settleNote: r.settle_note });

/** An attempt whose body the caller already sanitized and hashed (the gateway's AttemptRunner). */
export interface RecordAttempt extends Pick<Attempt, 'profileId' | 'kind' | 'idempotencyKey' | 'reference' | 'requestHash' | 'requestBody' | 'replayable'> {
  /**
   * "sending": a claim, whose first send follows at once, so the row is written already marked as
   * sent once (one commit instead of prepare + markSending); if it fails before leaving, markUnsent
   * takes that try back. Default "prepared".
   */
  state?: 'prepared' | 'sending';
}

/** An attempt from the raw body: the repository redacts and hashes it (storedRequest). */
export interface PrepareAttempt {
  profileId: string;
  kind: AttemptKind;
  idempotencyKey: string;
  reference: string;
  /** The request body as the client will send it (parsed JSON, amounts may be LosslessNumber). */
  body: unknown;
}

export interface AttemptAnswer {
  httpStatus: number;
  responseBody: string;
  /** Default "create"; "status_read" when a get-status answer settled an unknown attempt. */
  source?: 'create' | 'status_read';
}

export class IdempotencyConflictError extends Error {
  constructor(key: string) {
    super(`Idempotency-Key ${key} is already recorded with another request`);
    this.name = 'IdempotencyConflictError';
  }
}

export class AttemptStateError extends Error {
  constructor(
    readonly key: string,
    readonly from: AttemptState | 'missing',
    readonly to: AttemptState,
  ) {
    super(`attempt ${key}: ${from} → ${to} is not allowed`);
    this.name = 'AttemptStateError';
  }
}

const allowedFrom: Record<AttemptState, readonly AttemptState[]> = {
  prepared: [],
  sending: ['prepared', 'unknown'],
  succeeded: ['sending', 'unknown'],
  rejected: ['sending'],
  unknown: ['sending'],
};

interface AttemptRow {
  id: number;
  profile_id: string;
  kind: AttemptKind;
  idempotency_key: string;
  reference: string;
  request_hash: string;
  request_body: string;
  replayable: number;
  state: AttemptState;
  try_count: number;
  http_status: number | null;
  response_body: string | null;
  response_source: 'create' | 'status_read' | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  last_sent_at: string | null;
  completed_at: string | null;
  settle_note: string | null;
  settle_tried_at: string | null;
}

const toAttempt = (r: AttemptRow): Attempt => ({
  id: r.id,
  profileId: r.profile_id,
  kind: r.kind,
  idempotencyKey: r.idempotency_key,
  reference: r.reference,
  requestHash: r.request_hash,
  requestBody: r.request_body,
  replayable: r.replayable === 1,
  state: r.state,
  tryCount: r.try_count,
  httpStatus: r.http_status,
  responseBody: r.response_body,
  responseSource: r.response_source,
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastSentAt: r.last_sent_at,
  completedAt: r.completed_at,
  settleNote: r.settle_note,
  settleTriedAt: r.settle_tried_at,
});

/**
 * The stored form of a request body and its hash. The hash covers the redacted canonical body:
 * a hash of the raw body would let anyone holding the ledger brute-force the CVV (1,000 values)
 * or the hidden PAN digits. The client keeps the exact body in memory for its retries.
 */
export function storedRequest(body: unknown): { text: string; hash: string; replayable: boolean } {
  const text = canonicalJson(redactForStorage(body));
  return { text, hash: sha256Hex(text), replayable: text === canonicalJson(body) };
}

export class AttemptsRepository {
  /**
   * @param instance the instance (this process, repositories/instances.ts) recorded as the claimer
   * of every send it starts (claimed_by), so recovery takes over only a dead instance's claims.
   */
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
    private readonly instance: string | null = null,
    /** Told of each attempt whose outcome became unknown, in its transaction (the notices it causes are written with it). */
    private readonly becameUnknown?: (attempt: Attempt, why: string) => Promise<void>,
  ) {}

  /**
   * Records the intent before sending, from the raw body. Preparing the same key with the same
   * body again returns the existing attempt (a redo of the same step); another body is refused.
   */
  async prepare(input: PrepareAttempt): Promise<Attempt> {
    const { text, hash, replayable } = storedRequest(input.body);
    return this.db.atomic(async () => {
      const existing = await this.byKey(input.idempotencyKey);
      if (existing) {
        if (existing.requestHash !== hash || existing.profileId !== input.profileId || existing.kind !== input.kind) {
          throw new IdempotencyConflictError(input.idempotencyKey);
        }
        return existing;
      }
      return this.record({ ...input, requestHash: hash, requestBody: text, replayable });
    });
  }

  /** Records a new attempt already sanitized by the caller. A key that exists is refused (IdempotencyConflictError). */
  async record(input: RecordAttempt): Promise<Attempt> {
    const at = isoTime(this.now());
    const sending = input.state === 'sending';
    // A claim names the instance sending it; a prepared attempt has no claimer yet.
    const claimer = sending ? { column: ', claimed_by', value: ', ?', params: [this.instance] } : { column: '', value: '', params: [] };
    // DO NOTHING rather than a unique violation: a refused key leaves the caller's transaction usable (PostgreSQL).
    const inserted = await this.db.get<AttemptRow>(`INSERT INTO attempts (profile_id, kind, idempotency_key, reference, request_hash, request_body, replayable, state, try_count, last_sent_at, created_at, updated_at${claimer.column})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${claimer.value}) ON CONFLICT (idempotency_key) DO NOTHING RETURNING *`, [input.profileId, input.kind, input.idempotencyKey, input.reference, input.requestHash, input.requestBody, toFlag(input.replayable), sending ? 'sending' : 'prepared', sending ? 1 : 0, sending ? at : null, at, at, ...claimer.params]);
    if (!inserted) throw new IdempotencyConflictError(input.idempotencyKey);
    return toAttempt(inserted);
  }

  /**
   * Compare-and-set prepared | unknown → sending, right before each send (first try and every
   * resume). False, with nothing changed, in any other state: another send is in flight, or the
   * attempt is final.
   */
  async markSending(key: string): Promise<boolean> {
    const at = isoTime(this.now());
    const result = (await this.db.run(`UPDATE attempts SET state = 'sending', try_count = try_count + 1, last_sent_at = ?, claimed_by = ?, updated_at = ?
       WHERE idempotency_key = ? AND state IN ('prepared', 'unknown')`, [at, this.instance, at, key]));
    return result === 1;
  }

  /**
   * A claim whose request never left (it failed between its commit and its first send): "unknown",
   * and the try counted by record() taken back, so the attempt shows no send it never made.
   * Refused for anything but a claim before its first send ("sending", one try).
   */
  async markUnsent(key: string, failure: { error: string }): Promise<Attempt> {
    return this.db.atomic(async () => {
      const current = await this.lockedByKey(key);
      if (current?.state !== 'sending') throw new AttemptStateError(key, current?.state ?? 'missing', 'unknown');
      if (current.tryCount !== 1) throw new RangeError(`attempt ${key} has ${current.tryCount} tries: not a claim before its first send`);
      await this.db.run("UPDATE attempts SET state = 'unknown', try_count = 0, last_sent_at = NULL, error = ?, updated_at = ? WHERE id = ?", [failure.error, isoTime(this.now()), current.id]);
      const unknown = await this.byIdOrThrow(current.id);
      await this.becameUnknown?.(unknown, failure.error);
      return unknown;
    });
  }

  async markSucceeded(key: string, answer: AttemptAnswer): Promise<Attempt> {
    return this.finish(key, 'succeeded', answer);
  }

  async markRejected(key: string, answer: AttemptAnswer): Promise<Attempt> {
    return this.finish(key, 'rejected', answer);
  }

  async markUnknown(key: string, failure: { error: string; httpStatus?: number | null; responseBody?: string | null }): Promise<Attempt> {
    return this.db.atomic(async () => {
      const unknown = await this.move(key, 'unknown', {
        http_status: failure.httpStatus ?? null,
        response_body: failure.responseBody ?? null,
        error: failure.error,
      });
      await this.becameUnknown?.(unknown, failure.error);
      return unknown;
    });
  }

  /** Records what an automatic try to settle the attempt found; its state is the runner's to move. */
  async noteSettle(key: string, note: string): Promise<void> {
    await this.db.run('UPDATE attempts SET settle_note = ?, settle_tried_at = ? WHERE idempotency_key = ?', [note, isoTime(this.now()), key]);
  }

  async byKey(key: string): Promise<Attempt | undefined> {
    const row = (await this.db.get('SELECT * FROM attempts WHERE idempotency_key = ?', [key])) as AttemptRow | undefined;
    return row && toAttempt(row);
  }

  async byId(id: number): Promise<Attempt | undefined> {
    const row = (await this.db.get('SELECT * FROM attempts WHERE id = ?', [id])) as AttemptRow | undefined;
    return row && toAttempt(row);
  }

  /**
   * The key and state of every attempt named, in one query however many (a list page shows them
   * for each row); without the request and response bodies, which a list never shows.
   */
  async summaries(ids: readonly number[]): Promise<Map<number, AttemptSummary>> {
    const found = new Map<number, AttemptSummary>();
    if (ids.length === 0) return found;
    const rows = await this.db.all<AttemptSummaryColumns>(`SELECT id, idempotency_key, state, settle_note FROM attempts WHERE id IN (${placeholders(ids)})`, ids);
    for (const r of rows) found.set(r.id, toAttemptSummary(r));
    return found;
  }

  /** Every attempt made for one request_id / merchantReference, oldest first. */
  async forReference(profileId: string, reference: string): Promise<Attempt[]> {
    return (
      (await this.db.all('SELECT * FROM attempts WHERE reference = ? AND profile_id = ? ORDER BY id', [reference, profileId])) as AttemptRow[]
    ).map(toAttempt);
  }

  /**
   * Sends interrupted by the death of their process: every "sending" attempt that no instance of
   * `alive` claimed becomes "unknown" (with `error`), at most `limit` of them. Returns their keys.
   * A compare-and-set per row (still "sending", still not a live instance's), so two instances
   * taking over the same dead one move each attempt once, and a live claim is never touched. On
   * PostgreSQL the rows are locked in id order first, as every taker locks them: two takers wait
   * for each other instead of deadlocking (a multi-row UPDATE locks in whatever order it scans).
   */
  async takeOverClaims(alive: readonly string[], error: string, limit = 1000): Promise<string[]> {
    const free = notHeldBy('claimed_by', alive);
    const at = isoTime(this.now());
    const lock = this.db.engine === 'postgres' ? ' FOR UPDATE' : '';
    return this.db.atomic(async () => {
      const rows = await this.db.all<AttemptRow>(
        `UPDATE attempts SET state = 'unknown', error = ?, updated_at = ?
         WHERE id IN (SELECT id FROM attempts WHERE state = 'sending' AND ${free.sql} ORDER BY id LIMIT ?${lock}) AND state = 'sending' AND ${free.sql}
         RETURNING *`,
        [error, at, ...free.params, limit, ...free.params],
      );
      for (const row of rows) await this.becameUnknown?.(toAttempt(row), error);
      return rows.map((row) => row.idempotency_key);
    });
  }

  /** Attempts in one state, oldest first; prepared / sending / unknown are indexed for recovery. */
  async byState(state: AttemptState, profileId?: string, limit = 1000): Promise<Attempt[]> {
    const rows = (
      profileId === undefined
        ? (await this.db.all('SELECT * FROM attempts WHERE state = ? ORDER BY id LIMIT ?', [state, limit]))
        : (await this.db.all('SELECT * FROM attempts WHERE state = ? AND profile_id = ? ORDER BY id LIMIT ?', [state, profileId, limit]))
    ) as AttemptRow[];
    return rows.map(toAttempt);
  }

  /**
   * Succeeded attempts whose pay-in or payout never received the answer (the process stopped
   * between recording the answer and applying it): at start-up the stored answer is applied again.
   */
  async succeededWithoutAnswer(limit = 1000): Promise<string[]> {
    const rows = (await this.db.all(`SELECT a.idempotency_key AS key FROM payins p JOIN attempts a ON a.id = p.attempt_id WHERE p.status_code IS NULL AND a.state = 'succeeded'
         UNION ALL
         SELECT a.idempotency_key AS key FROM payouts p JOIN attempts a ON a.id = p.attempt_id WHERE p.status_code IS NULL AND a.state = 'succeeded'
         LIMIT ?`, [limit])) as { key: string }[];
    return rows.map((r) => r.key);
  }

  /** Attempts whose outcome is not settled (for recovery after a restart), oldest first. */
  async unresolved(limit = 1000): Promise<Attempt[]> {
    return (
      (await this.db.all("SELECT * FROM attempts WHERE state IN ('prepared', 'sending', 'unknown') ORDER BY id LIMIT ?", [limit])) as AttemptRow[]
    ).map(toAttempt);
  }

  private finish(key: string, to: 'succeeded' | 'rejected', answer: AttemptAnswer): Promise<Attempt> {
    return this.move(key, to, {
      http_status: answer.httpStatus,
      response_body: answer.responseBody,
      response_source: answer.source ?? 'create',
      error: null,
      completed_at: isoTime(this.now()),
    });
  }

  /**
   * A compare-and-set from the states `to` is allowed from: one statement, whose row lock (PostgreSQL)
   * makes two processes moving the attempt at once move it once. Refused, changing nothing, from any other state.
   */
  private async move(key: string, to: 'succeeded' | 'rejected' | 'unknown', columns: Record<string, string | number | null>): Promise<Attempt> {
    const names = Object.keys(columns);
    const from = allowedFrom[to];
    const moved = await this.db.get<AttemptRow>(
      `UPDATE attempts SET state = ?, updated_at = ?, ${names.map((n) => `${n} = ?`).join(', ')} WHERE idempotency_key = ? AND state IN (${placeholders(from)}) RETURNING *`,
      [to, isoTime(this.now()), ...Object.values(columns), key, ...from],
    );
    if (moved) return toAttempt(moved);
    throw new AttemptStateError(key, (await this.byKey(key))?.state ?? 'missing', to);
  }

  /** The attempt, its row locked until the transaction ends (PostgreSQL): two processes never both move it. */
  private async lockedByKey(key: string): Promise<Attempt | undefined> {
    const lock = this.db.engine === 'postgres' ? ' FOR UPDATE' : '';
    const row = await this.db.get<AttemptRow>(`SELECT * FROM attempts WHERE idempotency_key = ?${lock}`, [key]);
    return row && toAttempt(row);
  }

  private async byIdOrThrow(id: number): Promise<Attempt> {
    const attempt = await this.byId(id);
    if (!attempt) throw new RangeError(`no attempt ${id}`);
    return attempt;
  }
}
