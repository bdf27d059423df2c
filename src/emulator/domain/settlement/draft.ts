// One settlement drafted from the pay-ins of one window and currency: its report lines, its bank
// credit, and what the armed knobs did to them. Pure: the service stores the draft in one
// transaction, so a settlement, its lines, its credit and its knobs' effects are kept together.
import { amountText, compareAmounts, sumAmounts } from '../../../shared/money';
import { iso } from '../../runtime';
import { PAYIN_FAULTS, type ArmedSettlementFaults, type FaultTarget, type PayinFaultKind, type SettlementFaultKind } from './faults';
import { feeOf, type FeeRate } from './fees';
import { utcDate, type Window } from './periods';

/** Who pays the settlements, as the bank statement names the debtor. */
export const PROVIDER_NAME = 'Paydesk Gateway Emulator';
/** The sender of an orphan bank line. */
export const ORPHAN_SENDER = 'A. Customer';

export interface SettleablePayin {
  payin_id: string;
  request_id: string;
  payment_method: string;
  amount: string;
  currency: string;
  /** When it succeeded (a final status never changes, so this is its success time). */
  updated_at: string;
}

export interface SettlementLine {
  line_no: number;
  payin_id: string;
  request_id: string;
  method: string;
  amount: string;
  fee: string;
  net: string;
  time: string;
}

export interface SettlementRecord {
  settlement_id: string;
  currency: string;
  period_start: string;
  period_end: string;
  settled_at: string;
  value_date: string;
  line_count: number;
  gross: string;
  fees: string;
  net: string;
}

export interface BankEntry {
  /** The bank's own reference of the entry (camt.053 AcctSvcrRef). */
  entry_ref: string;
  currency: string;
  amount: string;
  booking_date: string;
  booked_at: string;
  settlement_id: string | null;
  end_to_end_id: string;
  remittance: string;
  counterparty: string;
}

export interface AppliedFault {
  fault: SettlementFaultKind;
  settlement_id: string | null;
  payin_id: string | null;
  detail: Record<string, string>;
}

export interface SettlementDraft {
  /** Undefined when every pay-in of the window was left out: nothing to settle. */
  settlement: SettlementRecord | undefined;
  lines: SettlementLine[];
  /** Every pay-in of the window, settled or left out: none is settled again. */
  processed: { payin_id: string; outcome: 'settled' | 'omitted' }[];
  bankEntries: BankEntry[];
  faults: AppliedFault[];
  /** The knobs left armed afterwards. */
  armed: ArmedSettlementFaults;
}

export interface DraftInput {
  currency: string;
  window: Window;
  settledAt: number;
  /** In the order of the report: by success time, then payin_id. */
  payins: readonly SettleablePayin[];
  armed: ArmedSettlementFaults;
  rateOf: (method: string) => FeeRate;
  /** A fresh payin_id (for a line of a pay-in nobody created). */
  uuid: () => string;
  /** Ten random upper-case characters, for settlement and bank references. */
  token: () => string;
}

const compact = (ms: number): string => utcDate(ms).replaceAll('-', '');
const positive = (value: string): boolean => compareAmounts(value, '0') > 0;
const plus = (a: string, b: string, currency: string): string => amountText(sumAmounts([a, b]), currency);

/** Whether a knob acts on this settlement: named by one of its pay-ins, else one of the next N if `eligible`. */
function claim(target: FaultTarget, payinIds: ReadonlySet<string>, eligible: boolean): boolean {
  const named = target.payin_ids.filter((id) => payinIds.has(id));
  if (named.length > 0) {
    target.payin_ids = target.payin_ids.filter((id) => !payinIds.has(id));
    return eligible;
  }
  if (target.next > 0 && eligible) {
    target.next--;
    return true;
  }
  return false;
}

/**
 * Which pay-in each pay-in knob acts on. A knob naming a pay-in acts on it (left out wins over
 * the others); a knob armed for the next N settlements takes the first pay-in no knob has taken
 * yet and it can act on: a pay-in is left out only if another stays, and an amount is altered
 * only if it stays above zero.
 */
function pickPayins(input: DraftInput, armed: ArmedSettlementFaults): Map<string, Set<PayinFaultKind>> {
  const picks = new Map<string, Set<PayinFaultKind>>();
  const canAlter = (p: SettleablePayin): boolean => positive(sumAmounts([p.amount, armed.alter_amount.delta]));
  const ids = new Set(input.payins.map((p) => p.payin_id));
  for (const kind of PAYIN_FAULTS) {
    const knob = armed[kind];
    for (const p of input.payins.filter((x) => knob.payin_ids.includes(x.payin_id))) {
      if (kind !== 'alter_amount' || canAlter(p)) picks.set(p.payin_id, new Set([...(picks.get(p.payin_id) ?? []), kind]));
    }
    knob.payin_ids = knob.payin_ids.filter((id) => !ids.has(id));
  }
  for (const kind of PAYIN_FAULTS) {
    const knob = armed[kind];
    if (knob.next === 0) continue;
    const omitted = [...picks.values()].filter((kinds) => kinds.has('omit_payin')).length;
    const free = input.payins.find((p) => !picks.has(p.payin_id) && (kind !== 'alter_amount' || canAlter(p)) && (kind !== 'omit_payin' || input.payins.length - omitted > 1));
    if (free === undefined) continue;
    picks.set(free.payin_id, new Set([kind]));
    knob.next--;
  }
  return picks;
}

export function draftSettlement(input: DraftInput): SettlementDraft {
  const { currency, window, settledAt } = input;
  const armed = structuredClone(input.armed);
  const picks = pickPayins(input, armed);
  const settlementId = `STL-${compact(window.start)}-${currency}-${input.token()}`;
  const faults: AppliedFault[] = [];
  const lines: SettlementLine[] = [];
  const processed: SettlementDraft['processed'] = [];
  const addLine = (l: Omit<SettlementLine, 'line_no' | 'fee' | 'net'>): void => {
    lines.push({ ...l, ...feeOf(l.amount, currency, input.rateOf(l.method)), line_no: lines.length + 1 });
  };

  for (const p of input.payins) {
    const kinds = picks.get(p.payin_id) ?? new Set<PayinFaultKind>();
    const amount = amountText(p.amount, currency);
    if (kinds.has('omit_payin')) {
      processed.push({ payin_id: p.payin_id, outcome: 'omitted' });
      faults.push({ fault: 'omit_payin', settlement_id: settlementId, payin_id: p.payin_id, detail: { request_id: p.request_id, amount } });
      continue;
    }
    const reported = kinds.has('alter_amount') ? plus(p.amount, armed.alter_amount.delta, currency) : amount;
    if (kinds.has('alter_amount')) faults.push({ fault: 'alter_amount', settlement_id: settlementId, payin_id: p.payin_id, detail: { from: amount, to: reported } });
    const line = { payin_id: p.payin_id, request_id: p.request_id, method: p.payment_method, amount: reported, time: p.updated_at };
    addLine(line);
    if (kinds.has('settle_twice')) {
      addLine(line);
      faults.push({ fault: 'settle_twice', settlement_id: settlementId, payin_id: p.payin_id, detail: { amount: reported } });
    }
    processed.push({ payin_id: p.payin_id, outcome: 'settled' });
  }

  const payinIds = new Set(input.payins.map((p) => p.payin_id));
  const last = input.payins[input.payins.length - 1] as SettleablePayin;
  const unknown = armed.unknown_payin;
  if (claim(unknown, payinIds, true)) {
    const stranger = { payin_id: input.uuid(), request_id: `ord-${input.token().toLowerCase()}`, method: unknown.method, amount: amountText(unknown.amount, currency), time: last.updated_at };
    addLine(stranger);
    faults.push({ fault: 'unknown_payin', settlement_id: settlementId, payin_id: stranger.payin_id, detail: { request_id: stranger.request_id, method: stranger.method, amount: stranger.amount } });
  }

  if (lines.length === 0) {
    // Every pay-in was left out: no settlement, and the left-out pay-ins belong to none.
    return { settlement: undefined, lines, processed, bankEntries: [], faults: faults.map((f) => ({ ...f, settlement_id: null })), armed };
  }

  const total = (field: 'amount' | 'fee' | 'net'): string => amountText(sumAmounts(lines.map((l) => l[field])), currency);
  const settlement: SettlementRecord = {
    settlement_id: settlementId,
    currency,
    period_start: iso(window.start),
    period_end: iso(window.end),
    settled_at: iso(settledAt),
    value_date: utcDate(settledAt),
    line_count: lines.length,
    gross: total('amount'),
    fees: total('fee'),
    net: total('net'),
  };

  const bankEntries: BankEntry[] = [];
  const entry = (amount: string, over: Partial<BankEntry>): BankEntry => ({
    entry_ref: `BNK-${compact(settledAt)}-${input.token()}`,
    currency,
    amount,
    booking_date: settlement.value_date,
    booked_at: settlement.settled_at,
    settlement_id: settlementId,
    end_to_end_id: settlementId,
    remittance: settlementId,
    counterparty: PROVIDER_NAME,
    ...over,
  });
  if (positive(settlement.net)) {
    const off = plus(settlement.net, armed.credit_differs.delta, currency);
    const credited = claim(armed.credit_differs, payinIds, positive(off)) ? off : settlement.net;
    if (credited !== settlement.net) {
      faults.push({ fault: 'credit_differs', settlement_id: settlementId, payin_id: null, detail: { net: settlement.net, credited, difference: amountText(armed.credit_differs.delta, currency) } });
    }
    bankEntries.push(entry(credited, {}));
  }
  if (claim(armed.orphan_bank_line, payinIds, true)) {
    const orphan = entry(amountText(armed.orphan_bank_line.amount, currency), { settlement_id: null, end_to_end_id: 'NOTPROVIDED', remittance: `INVOICE ${input.token()}`, counterparty: ORPHAN_SENDER });
    bankEntries.push(orphan);
    faults.push({ fault: 'orphan_bank_line', settlement_id: settlementId, payin_id: null, detail: { entry_ref: orphan.entry_ref, amount: orphan.amount, currency, booking_date: orphan.booking_date, remittance: orphan.remittance } });
  }
  return { settlement, lines, processed, bankEntries, faults, armed };
}
