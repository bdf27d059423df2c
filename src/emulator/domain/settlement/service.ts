// Settles successful pay-ins: per currency, once per period, after the period has closed (or at
// once, when the admin API asks). A pay-in is settled once: each run takes the successful pay-ins
// no settlement has taken yet, groups them by window and currency, and stores each settlement
// with its lines, its bank credit and its knobs' effects in one transaction.
import type { Clock, Ids, Logger } from '../../runtime';
import { iso, referenceToken } from '../../runtime';
import type { BankRepo } from '../../store/bank';
import type { MetaRepo } from '../../store/meta';
import type { LoggedFault, SettlementFilter, SettlementRepo } from '../../store/settlements';
import { demoIban, newAccountNumber } from './bank-account';
import { draftSettlement, type SettleablePayin, type SettlementDraft, type SettlementRecord } from './draft';
import type { SettlementFaultState } from './faults';
import type { FeeTable } from './fee-table';
import { periodStartOf, windowOf, type Window } from './periods';

/** How far before the last cut-off a run still looks, in case the system clock stepped back. */
const CLOCK_STEP_MARGIN_MS = 10 * 60_000;
const SETTLED_THROUGH = 'settled_through';

/** `closed`: the periods that have ended (the scheduler); `now`: also the open one, cut now (the admin API). */
export type RunMode = 'closed' | 'now';

export interface SettlementServiceDeps {
  repo: SettlementRepo;
  bank: BankRepo;
  meta: MetaRepo;
  fees: FeeTable;
  faults: SettlementFaultState;
  atomic: <T>(work: () => T) => T;
  clock: Clock;
  ids: Ids;
  log: Logger;
  periodMs: number;
}

export interface SettlementView extends Omit<SettlementRecord, 'line_count'> {
  lines: number;
  bank_credit: { entry_ref: string; amount: string; booking_date: string } | null;
  faults: Record<string, unknown>[];
}

export const faultView = (f: LoggedFault): Record<string, unknown> => ({ fault: f.fault, settlement_id: f.settlement_id, payin_id: f.payin_id, ...f.detail, at: f.at });

export class SettlementService {
  constructor(private readonly d: SettlementServiceDeps) {}

  get periodMs(): number {
    return this.d.periodMs;
  }

  /** Makes the settlements due now; returns them in the order made. */
  run(mode: RunMode): SettlementRecord[] {
    const now = this.d.clock.now();
    const cutoff = mode === 'now' ? now : periodStartOf(now, this.d.periodMs);
    const previous = this.d.meta.get<string>(SETTLED_THROUGH);
    const since = previous === undefined ? undefined : Date.parse(previous);
    if (since !== undefined && cutoff <= since) return [];
    const payins = this.d.repo.settleable(since === undefined ? '' : iso(since - CLOCK_STEP_MARGIN_MS), iso(cutoff));
    const made: SettlementRecord[] = [];
    for (const group of this.groups(payins, since, cutoff)) {
      const settlement = this.d.atomic(() => this.store(draftSettlement({
        ...group,
        settledAt: now,
        armed: this.d.faults.armed,
        rateOf: (method) => this.d.fees.rateOf(method),
        uuid: () => this.d.ids.uuid(),
        token: () => referenceToken(this.d.ids),
      })));
      if (settlement) made.push(settlement);
    }
    this.d.meta.set(SETTLED_THROUGH, iso(cutoff));
    return made;
  }

  list(filter: SettlementFilter): SettlementView[] {
    return this.d.repo.list(filter).map((s) => this.view(s));
  }

  byId(settlementId: string): SettlementView | undefined {
    const s = this.d.repo.byId(settlementId);
    return s ? this.view(s) : undefined;
  }

  /** Every knob's effect so far, in the order applied. */
  appliedFaults(): Record<string, unknown>[] {
    return this.d.repo.faults().map(faultView);
  }

  private view(s: SettlementRecord): SettlementView {
    const { line_count, ...rest } = s;
    const credit = this.d.bank.creditOf(s.settlement_id);
    return {
      ...rest,
      lines: line_count,
      bank_credit: credit ? { entry_ref: credit.entry_ref, amount: credit.amount, booking_date: credit.booking_date } : null,
      faults: this.d.repo.faults(s.settlement_id).map(faultView),
    };
  }

  /** Pay-ins by window and currency, windows in time order and currencies alphabetically within one. */
  private groups(payins: readonly SettleablePayin[], since: number | undefined, cutoff: number): { currency: string; window: Window; payins: SettleablePayin[] }[] {
    const groups = new Map<string, { currency: string; window: Window; payins: SettleablePayin[] }>();
    for (const p of payins) {
      const window = windowOf(Date.parse(p.updated_at), this.d.periodMs, since, cutoff);
      const key = `${String(window.start).padStart(16, '0')} ${p.currency}`;
      const group = groups.get(key) ?? { currency: p.currency, window, payins: [] };
      group.payins.push(p);
      groups.set(key, group);
    }
    return [...groups.keys()].sort().map((k) => groups.get(k) as { currency: string; window: Window; payins: SettleablePayin[] });
  }

  private store(draft: SettlementDraft): SettlementRecord | undefined {
    const { settlement } = draft;
    if (settlement) this.d.repo.insert(settlement, draft.lines);
    for (const p of draft.processed) this.d.repo.markProcessed(p.payin_id, settlement?.settlement_id ?? null, p.outcome);
    if (settlement && this.d.bank.account(settlement.currency) === undefined) {
      this.d.bank.openAccount({ currency: settlement.currency, iban: demoIban(newAccountNumber(this.d.ids)), created_at: settlement.settled_at });
    }
    for (const entry of draft.bankEntries) this.d.bank.book(entry);
    const at = iso(this.d.clock.now());
    for (const f of draft.faults) this.d.repo.logFault(f, at);
    this.d.faults.set(draft.armed);
    if (settlement) this.d.log.info('settled', { settlement_id: settlement.settlement_id, currency: settlement.currency, lines: settlement.line_count, net: settlement.net });
    return settlement;
  }
}
