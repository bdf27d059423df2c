// Settlements, their report lines, the pay-ins each took (or left out), and what the knobs did.
import type { AppliedFault, SettleablePayin, SettlementLine, SettlementRecord } from '../domain/settlement/draft';
import type { EmulatorDb } from './database';

export interface LoggedFault extends AppliedFault {
  at: string;
}

export interface SettlementFilter {
  /** Value dates from (inclusive), YYYY-MM-DD. */
  from?: string | undefined;
  /** Value dates to (inclusive), YYYY-MM-DD. */
  to?: string | undefined;
  currency?: string | undefined;
}

export interface ReportLine extends SettlementLine {
  settlement_id: string;
  currency: string;
  settled_at: string;
  value_date: string;
}

const SUCCESS = 200;
const SETTLEMENT = 's.settlement_id, s.currency, s.period_start, s.period_end, s.settled_at, s.value_date, s.line_count, s.gross, s.fees, s.net';
const RANGE = `(@from IS NULL OR s.value_date >= @from) AND (@to IS NULL OR s.value_date <= @to) AND (@currency IS NULL OR s.currency = @currency)`;
const params = (f: SettlementFilter): Record<string, string | null> => ({ from: f.from ?? null, to: f.to ?? null, currency: f.currency ?? null });

export class SettlementRepo {
  constructor(private readonly db: EmulatorDb) {}

  /** Successful pay-ins not settled (nor left out) yet that succeeded in [since, before), oldest first. */
  settleable(since: string, before: string): SettleablePayin[] {
    return this.db
      .statement(
        `SELECT p.payin_id, p.request_id, p.payment_method, p.amount, p.currency, p.updated_at FROM payins p
         WHERE p.status_code = ${SUCCESS} AND p.updated_at >= ? AND p.updated_at < ?
           AND NOT EXISTS (SELECT 1 FROM settled_payins s WHERE s.payin_id = p.payin_id)
         ORDER BY p.updated_at, p.payin_id`,
      )
      .all(since, before) as SettleablePayin[];
  }

  insert(settlement: SettlementRecord, lines: readonly SettlementLine[]): void {
    this.db
      .statement(
        `INSERT INTO settlements (settlement_id, currency, period_start, period_end, settled_at, value_date, line_count, gross, fees, net)
         VALUES (@settlement_id, @currency, @period_start, @period_end, @settled_at, @value_date, @line_count, @gross, @fees, @net)`,
      )
      .run(settlement);
    const line = this.db.statement(
      `INSERT INTO settlement_lines (settlement_id, line_no, payin_id, request_id, method, amount, fee, net, time)
       VALUES (@settlement_id, @line_no, @payin_id, @request_id, @method, @amount, @fee, @net, @time)`,
    );
    for (const l of lines) line.run({ ...l, settlement_id: settlement.settlement_id });
  }

  /** A pay-in is processed once: the primary key refuses a second time. */
  markProcessed(payinId: string, settlementId: string | null, outcome: 'settled' | 'omitted'): void {
    this.db.statement('INSERT INTO settled_payins (payin_id, settlement_id, outcome) VALUES (?, ?, ?)').run(payinId, settlementId, outcome);
  }

  logFault(f: AppliedFault, at: string): void {
    this.db
      .statement('INSERT INTO settlement_fault_log (fault, settlement_id, payin_id, detail, at) VALUES (?, ?, ?, ?, ?)')
      .run(f.fault, f.settlement_id, f.payin_id, JSON.stringify(f.detail), at);
  }

  faults(settlementId?: string): LoggedFault[] {
    const rows = (
      settlementId === undefined
        ? this.db.statement('SELECT * FROM settlement_fault_log ORDER BY seq').all()
        : this.db.statement('SELECT * FROM settlement_fault_log WHERE settlement_id = ? ORDER BY seq').all(settlementId)
    ) as (Omit<LoggedFault, 'detail'> & { detail: string })[];
    return rows.map((r) => ({ fault: r.fault, settlement_id: r.settlement_id, payin_id: r.payin_id, detail: JSON.parse(r.detail) as Record<string, string>, at: r.at }));
  }

  byId(settlementId: string): SettlementRecord | undefined {
    return this.db.statement(`SELECT ${SETTLEMENT} FROM settlements s WHERE s.settlement_id = ?`).get(settlementId) as SettlementRecord | undefined;
  }

  list(filter: SettlementFilter): SettlementRecord[] {
    return this.db.statement(`SELECT ${SETTLEMENT} FROM settlements s WHERE ${RANGE} ORDER BY s.seq`).all(params(filter)) as SettlementRecord[];
  }

  /** Report lines of the settlements in the filter (or of one settlement), in settlement then line order. */
  lines(filter: SettlementFilter & { settlementId?: string | undefined }): ReportLine[] {
    return this.db
      .statement(
        `SELECT l.*, s.currency, s.settled_at, s.value_date FROM settlement_lines l JOIN settlements s ON s.settlement_id = l.settlement_id
         WHERE ${RANGE} AND (@settlement IS NULL OR s.settlement_id = @settlement) ORDER BY s.seq, l.line_no`,
      )
      .all({ ...params(filter), settlement: filter.settlementId ?? null }) as ReportLine[];
  }
}
