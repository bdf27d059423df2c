// How many ledger rows and notifications carry each status and reason code (the code explorer).
import type { Sql } from '../engine/types';

export interface CodeCounts {
  payinStatus: Map<string, number>;
  payoutStatus: Map<string, number>;
  /** Pay-ins and payouts together. */
  reasons: Map<string, number>;
  /** Status codes notified per event, malformed notifications left out. */
  notified: { event: string; code: string; n: number }[];
}

export class CodeUsageRepository {
  constructor(private readonly db: Sql) {}

  async counts(): Promise<CodeCounts> {
    const counts = async (sql: string) => new Map((await this.db.all<{ code: string; n: number }>(sql)).map((r) => [r.code, r.n]));
    return {
      payinStatus: await counts('SELECT status_code AS code, count(*) AS n FROM payins WHERE status_code IS NOT NULL GROUP BY status_code'),
      payoutStatus: await counts('SELECT status_code AS code, count(*) AS n FROM payouts WHERE status_code IS NOT NULL GROUP BY status_code'),
      reasons: await counts(
        `SELECT code, CAST(sum(n) AS INTEGER) AS n FROM (
           SELECT reason_code AS code, count(*) AS n FROM payins WHERE reason_code IS NOT NULL GROUP BY reason_code
           UNION ALL SELECT reason_code AS code, count(*) AS n FROM payouts WHERE reason_code IS NOT NULL GROUP BY reason_code) AS reasons
         GROUP BY code`,
      ),
      notified: (await this.db.all("SELECT event, status_code AS code, count(*) AS n FROM notifications WHERE status_code IS NOT NULL AND outcome <> 'malformed' GROUP BY event, status_code")) as { event: string; code: string; n: number }[],
    };
  }
}
