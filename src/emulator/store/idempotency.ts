// Responses bound to an Idempotency-Key, replayed when the same request comes again.
import type { EmulatorDb } from './database';

export interface StoredResponse {
  request_hash: string;
  http_status: number;
  /** The exact response text, so a replay is byte-identical. */
  response: string;
}

export class IdempotencyRepo {
  constructor(private readonly db: EmulatorDb) {}

  find(merchantId: string, key: string): StoredResponse | undefined {
    return this.db
      .statement('SELECT request_hash, http_status, response FROM idempotency WHERE merchant_id = ? AND idem_key = ?')
      .get(merchantId, key) as StoredResponse | undefined;
  }

  save(merchantId: string, key: string, stored: StoredResponse, at: string): void {
    this.db
      .statement('INSERT INTO idempotency (merchant_id, idem_key, request_hash, http_status, response, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(merchantId, key, stored.request_hash, stored.http_status, stored.response, at);
  }
}
