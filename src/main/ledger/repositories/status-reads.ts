// Every status read and what came back, for the pay-in / payout timeline. A person's read that the
// rate limit held back is kept too (result rate_limited, no HTTP status, no response).
import type { Sql } from '../engine/types';
import { redactForStorage } from '../../../shared/redact';
import { canonicalJson, isoTime } from '../support';

export type StatusReadResult = 'ok' | 'not_found' | 'rate_limited' | 'rejected' | 'error' | 'unreachable';

export interface StatusRead {
  id: number;
  profileId: string;
  kind: 'payin' | 'payout';
  /** The payin_id, request_id or payout_id that was asked for. */
  reference: string;
  payinRowId: number | null;
  payoutRowId: number | null;
  requestBody: string;
  requestedAt: string;
  httpStatus: number | null;
  responseBody: string | null;
  respondedAt: string | null;
  result: StatusReadResult;
  statusCode: string | null;
  error: string | null;
}

export interface NewStatusRead {
  profileId: string;
  kind: 'payin' | 'payout';
  reference: string;
  payinRowId?: number | null;
  payoutRowId?: number | null;
  requestBody: unknown;
  requestedAt: Date | string;
  httpStatus?: number | null;
  responseBody?: string | null;
  respondedAt?: Date | string | null;
  result: StatusReadResult;
  statusCode?: string | number | null;
  error?: string | null;
}

interface StatusReadRow {
  id: number;
  profile_id: string;
  kind: 'payin' | 'payout';
  reference: string;
  payin_row_id: number | null;
  payout_row_id: number | null;
  request_body: string;
  requested_at: string;
  http_status: number | null;
  response_body: string | null;
  responded_at: string | null;
  result: StatusReadResult;
  status_code: string | null;
  error: string | null;
}

const toStatusRead = (r: StatusReadRow): StatusRead => ({
  id: r.id,
  profileId: r.profile_id,
  kind: r.kind,
  reference: r.reference,
  payinRowId: r.payin_row_id,
  payoutRowId: r.payout_row_id,
  requestBody: r.request_body,
  requestedAt: r.requested_at,
  httpStatus: r.http_status,
  responseBody: r.response_body,
  respondedAt: r.responded_at,
  result: r.result,
  statusCode: r.status_code,
  error: r.error,
});

export class StatusReadsRepository {
  constructor(private readonly db: Sql) {}

  async record(read: NewStatusRead): Promise<StatusRead> {
    const inserted = await this.db.get<{ id: number }>(`INSERT INTO status_reads (profile_id, kind, reference, payin_row_id, payout_row_id, request_body, requested_at,
           http_status, response_body, responded_at, result, status_code, error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, [read.profileId, read.kind, read.reference, read.payinRowId ?? null, read.payoutRowId ?? null,
        canonicalJson(redactForStorage(read.requestBody)), isoTime(read.requestedAt), read.httpStatus ?? null, read.responseBody ?? null,
        read.respondedAt ? isoTime(read.respondedAt) : null, read.result,
        read.statusCode === undefined || read.statusCode === null ? null : String(read.statusCode), read.error ?? null]);
    return (await this.byId(inserted!.id))!;
  }

  async byId(id: number): Promise<StatusRead | undefined> {
    const row = (await this.db.get('SELECT * FROM status_reads WHERE id = ?', [id])) as StatusReadRow | undefined;
    return row && toStatusRead(row);
  }

  /** Oldest first, for a timeline. */
  async forPayin(payinRowId: number): Promise<StatusRead[]> {
    return ((await this.db.all('SELECT * FROM status_reads WHERE payin_row_id = ? ORDER BY id', [payinRowId])) as StatusReadRow[]).map(toStatusRead);
  }

  async forPayout(payoutRowId: number): Promise<StatusRead[]> {
    return ((await this.db.all('SELECT * FROM status_reads WHERE payout_row_id = ? ORDER BY id', [payoutRowId])) as StatusReadRow[]).map(toStatusRead);
  }
}
