// Bank statement lines: staged and committed as settlement lines are (each once per profile, by the
// bank's own reference or, without one, by the hash of its fields and its occurrence), matched to
// settlements by the reference they carry, and proposed for a settlement by amount, currency and
// date when they carry none. What the credits come to per settlement is kept on the settlement.
import { amountText, sumAmounts } from '../../../shared/money';
import type { Sql } from '../engine/types';
import { exactSum, exactSumSql } from './exact-sums';
import { conditions, whereOf } from './conditions';
import { dropStagedLines, insertStaged, type Direction, type StatementFilter } from './settlement-lines';

export interface StagedBankLine {
  line: number;
  baseKey: string;
  account: string | null;
  currency: string;
  amount: string;
  direction: Direction;
  bookingDate: string;
  valueDate: string | null;
  entryRef: string | null;
  endToEndId: string | null;
  remittance: string | null;
  counterparty: string | null;
}

export interface BankLineRecord extends Omit<StagedBankLine, 'baseKey'> {
  id: number;
  profileId: string;
  importId: number;
  settlementId: string | null;
  matchedBy: string | null;
  held: boolean;
  decidedBy: string | null;
  decidedAt: string | null;
  note: string | null;
}

export interface BankLineRow {
  id: number;
  profile_id: string;
  import_id: number;
  line: number;
  account: string | null;
  currency: string;
  amount: string;
  direction: Direction;
  booking_date: string;
  value_date: string | null;
  entry_ref: string | null;
  end_to_end_id: string | null;
  remittance: string | null;
  counterparty: string | null;
  settlement_id: string | null;
  matched_by: string | null;
  held: number;
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
}

export const toBankLine = (r: BankLineRow): BankLineRecord => ({
  id: r.id,
  profileId: r.profile_id,
  importId: r.import_id,
  line: r.line,
  account: r.account,
  currency: r.currency,
  amount: r.amount,
  direction: r.direction,
  bookingDate: r.booking_date,
  valueDate: r.value_date,
  entryRef: r.entry_ref,
  endToEndId: r.end_to_end_id,
  remittance: r.remittance,
  counterparty: r.counterparty,
  settlementId: r.settlement_id,
  matchedBy: r.matched_by,
  held: r.held === 1,
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  note: r.note,
});

const STAGED_COLUMNS = ['import_id', 'line', 'base_key', 'account', 'currency', 'amount', 'direction', 'booking_date', 'value_date', 'entry_ref', 'end_to_end_id', 'remittance', 'counterparty'] as const;
const STAGED_TYPES = ['bigint', 'int', ...Array<string>(STAGED_COLUMNS.length - 2).fill('text')];

export interface ProposalRecord {
  id: number;
  profileId: string;
  bankLineId: number;
  settlementId: string;
  createdAt: string;
}

/** Days between two YYYY-MM-DD columns, in each engine's dialect. */
const daysApart = (engine: Sql['engine'], a: string, b: string): string =>
  engine === 'postgres' ? `abs(CAST(${a} AS date) - CAST(${b} AS date))` : `abs(julianday(${a}) - julianday(${b}))`;

/** Whether `text` holds `needle`, in each engine's dialect (case-sensitive, no wildcards). */
const holds = (engine: Sql['engine'], text: string, needle: string): string => (engine === 'postgres' ? `strpos(${text}, ${needle}) > 0` : `instr(${text}, ${needle}) > 0`);

/** A proposal still to decide: its bank line unmatched, its settlement without a credit. */
const OPEN_PROPOSAL = ["p.state = 'open'", 'b.settlement_id IS NULL', 's.credits = 0'];

const proposalConditions = (filter: StatementFilter) =>
  conditions([
    ['p.profile_id = ?', filter.profileId],
    ['b.booking_date >= ?', filter.from],
    ['b.booking_date <= ?', filter.to],
  ]);

export class BankLinesRepository {
  constructor(private readonly db: Sql) {}

  async stage(importId: number, lines: readonly StagedBankLine[]): Promise<void> {
    await insertStaged(
      this.db,
      'bank_staging',
      STAGED_COLUMNS,
      STAGED_TYPES,
      lines.map((l) => [importId, l.line, l.baseKey, l.account, l.currency, l.amount, l.direction, l.bookingDate, l.valueDate, l.entryRef, l.endToEndId, l.remittance, l.counterparty]),
    );
  }

  async dropStaged(importId: number): Promise<void> {
    await dropStagedLines(this.db, 'bank_staging', importId);
  }

  /** As SettlementLinesRepository.commitStaged: each line once per profile; how many were added (matching comes after). */
  async commitStaged(importId: number, profileId: string): Promise<{ added: number; matched: number }> {
    const added = await this.db.run(
      `INSERT INTO bank_lines (profile_id, import_id, line, line_key, account, currency, amount, direction, booking_date, value_date, entry_ref, end_to_end_id, remittance, counterparty)
       SELECT ?, import_id, line, base_key || '#' || CAST(row_number() OVER (PARTITION BY base_key ORDER BY line) AS TEXT), account, currency, amount, direction, booking_date,
         value_date, entry_ref, end_to_end_id, remittance, counterparty
       FROM bank_staging WHERE import_id = ?
       ON CONFLICT (profile_id, line_key) DO NOTHING`,
      [profileId, importId],
    );
    return { added, matched: 0 };
  }

  /**
   * Bank lines no person decided, matched to the settlement they name: its id as the end-to-end
   * reference, as the remittance information, or within it. Returns the lines matched.
   */
  async matchByReference(profileId: string): Promise<number> {
    let matched = 0;
    // Debits too: a debit naming a settlement is its reversal (a bank returning the credit) or, for
    // a settlement the merchant owes, its payment; each counts against the settlement's credit.
    const unmatched = 'bank_lines.profile_id = ? AND bank_lines.settlement_id IS NULL AND bank_lines.held = 0 AND s.profile_id = bank_lines.profile_id';
    for (const names of ['s.settlement_id = bank_lines.end_to_end_id', 's.settlement_id = trim(bank_lines.remittance)', holds(this.db.engine, 'bank_lines.remittance', 's.settlement_id')]) {
      matched += await this.db.run(`UPDATE bank_lines SET settlement_id = s.settlement_id, matched_by = 'reference' FROM settlements s WHERE ${unmatched} AND ${names}`, [profileId]);
    }
    return matched;
  }

  /**
   * Proposals for the credits still unmatched: a settlement of the same profile and currency whose
   * net is exactly the credit, that has no credit yet, its value date within `windowDays` of the
   * booking. A proposal refused once is not made again. Returns the proposals made.
   */
  async propose(profileId: string, windowDays: number, at: string): Promise<number> {
    return this.db.run(
      `INSERT INTO statement_proposals (profile_id, bank_line_id, settlement_id, reason, created_at)
       SELECT b.profile_id, b.id, s.settlement_id, 'amount_currency_date', ?
       FROM bank_lines b JOIN settlements s ON s.profile_id = b.profile_id AND s.currency = b.currency AND s.net = b.amount
       WHERE b.profile_id = ? AND b.settlement_id IS NULL AND b.held = 0 AND b.direction = 'credit' AND s.pays = 1 AND s.credits = 0
         AND s.value_date IS NOT NULL AND ${daysApart(this.db.engine, 'b.booking_date', 's.value_date')} <= ?
       ON CONFLICT (bank_line_id, settlement_id) DO NOTHING`,
      [at, profileId, windowDays],
    );
  }

  /**
   * Each settlement's credits again: how many bank lines are matched to it, what they come to
   * (exactly), and whether that is its net in its currency. For the whole profile: settlements are
   * few (one per period and currency).
   */
  async refreshCredits(profileId: string): Promise<void> {
    const engine = this.db.engine;
    const rows = await this.db.all<Record<string, unknown> & { settlement_id: string; currency: string; net: string; bank_currency: string | null; direction: Direction | null; n: number }>(
      `SELECT s.settlement_id, s.currency, s.net, b.currency AS bank_currency, b.direction, count(b.id) AS n, ${exactSumSql(engine, 'b.amount', 'credited')}
       FROM settlements s LEFT JOIN bank_lines b ON b.profile_id = s.profile_id AND b.settlement_id = s.settlement_id
       WHERE s.profile_id = ? GROUP BY s.settlement_id, s.currency, s.net, b.currency, b.direction`,
      [profileId],
    );
    const credits = new Map<string, { currency: string; net: string; count: number; amounts: string[]; sameCurrency: boolean }>();
    for (const r of rows) {
      const c = credits.get(r.settlement_id) ?? { currency: r.currency, net: r.net, count: 0, amounts: [], sameCurrency: true };
      if (r.n > 0) {
        c.count += r.n;
        const sum = exactSum(engine, r, 'credited');
        c.amounts.push(r.direction === 'debit' ? `-${sum}` : sum);
        if (r.bank_currency !== r.currency) c.sameCurrency = false;
      }
      credits.set(r.settlement_id, c);
    }
    for (const [settlementId, c] of credits) {
      const credited = c.count === 0 ? null : amountText(sumAmounts(c.amounts), c.currency);
      const agrees = credited !== null && c.sameCurrency && credited === c.net ? 1 : 0;
      await this.db.run('UPDATE settlements SET credited = ?, credits = ?, credit_agrees = ? WHERE profile_id = ? AND settlement_id = ?', [credited, c.count, agrees, profileId, settlementId]);
    }
  }

  async byId(id: number): Promise<BankLineRecord | undefined> {
    const row = await this.db.get<BankLineRow>('SELECT * FROM bank_lines WHERE id = ?', [id]);
    return row && toBankLine(row);
  }

  async ofSettlement(profileId: string, settlementId: string): Promise<BankLineRecord[]> {
    return (await this.db.all<BankLineRow>('SELECT * FROM bank_lines WHERE profile_id = ? AND settlement_id = ? ORDER BY import_id, line', [profileId, settlementId])).map(toBankLine);
  }

  /** A person's match (settlement given) or unmatch (null): held from then on. */
  async decide(id: number, d: { settlementId: string | null; matchedBy: 'proposal' | 'person' | null; decidedBy: string | null; decidedAt: string; note: string }): Promise<void> {
    await this.db.run('UPDATE bank_lines SET settlement_id = ?, matched_by = ?, held = 1, decided_by = ?, decided_at = ?, note = ? WHERE id = ?', [
      d.settlementId,
      d.matchedBy,
      d.decidedBy,
      d.decidedAt,
      d.note,
      id,
    ]);
  }

  async proposal(id: number): Promise<(ProposalRecord & { state: string }) | undefined> {
    const row = await this.db.get<{ id: number; profile_id: string; bank_line_id: number; settlement_id: string; created_at: string; state: string }>(
      'SELECT id, profile_id, bank_line_id, settlement_id, created_at, state FROM statement_proposals WHERE id = ?',
      [id],
    );
    return row && { id: row.id, profileId: row.profile_id, bankLineId: row.bank_line_id, settlementId: row.settlement_id, createdAt: row.created_at, state: row.state };
  }

  async decideProposal(id: number, d: { state: 'accepted' | 'rejected'; decidedBy: string | null; decidedAt: string; note: string | null }): Promise<void> {
    await this.db.run("UPDATE statement_proposals SET state = ?, decided_by = ?, decided_at = ?, note = ? WHERE id = ? AND state = 'open'", [d.state, d.decidedBy, d.decidedAt, d.note, id]);
  }

  /** Open proposals whose bank line is still unmatched and whose settlement still has no credit, oldest first. */
  async openProposals(filter: StatementFilter, limit: number): Promise<(ProposalRecord & { bank: BankLineRow })[]> {
    const c = proposalConditions(filter);
    const rows = await this.db.all<BankLineRow & { proposal_id: number; proposal_settlement: string; proposed_at: string }>(
      `SELECT b.*, p.id AS proposal_id, p.settlement_id AS proposal_settlement, p.created_at AS proposed_at
       FROM statement_proposals p JOIN bank_lines b ON b.id = p.bank_line_id JOIN settlements s ON s.profile_id = p.profile_id AND s.settlement_id = p.settlement_id
       ${whereOf(c, OPEN_PROPOSAL)} ORDER BY p.id LIMIT ?`,
      [...c.params, limit],
    );
    return rows.map((r) => ({ id: r.proposal_id, profileId: r.profile_id, bankLineId: r.id, settlementId: r.proposal_settlement, createdAt: r.proposed_at, bank: r }));
  }

  async countOpenProposals(filter: StatementFilter): Promise<number> {
    const c = proposalConditions(filter);
    const row = await this.db.get<{ n: number }>(
      `SELECT count(*) AS n FROM statement_proposals p JOIN bank_lines b ON b.id = p.bank_line_id JOIN settlements s ON s.profile_id = p.profile_id AND s.settlement_id = p.settlement_id ${whereOf(c, OPEN_PROPOSAL)}`,
      c.params,
    );
    return row?.n ?? 0;
  }
}
