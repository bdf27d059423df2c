// Knobs that make settlement reports and bank statements as imperfect as real ones. Each is
// armed for the next N settlements (`next`) or for the settlements of given pay-ins
// (`payin_ids`), and is kept with the state: a knob armed today for tonight's settlement
// survives a restart. What each did is logged by the settlement that applied it.
import { isJsonObject, numberText } from '../../../shared/json';
import { parseDecimal } from '../../../shared/money';
import { isPayinMethod, type PayinMethod } from '../../../shared/spec/methods';
import type { MetaRepo } from '../../store/meta';

export const SETTLEMENT_FAULTS = ['omit_payin', 'alter_amount', 'unknown_payin', 'settle_twice', 'credit_differs', 'orphan_bank_line'] as const;
export type SettlementFaultKind = (typeof SETTLEMENT_FAULTS)[number];

/** Knobs that act on one pay-in of a settlement, in the order they pick theirs. */
export const PAYIN_FAULTS = ['omit_payin', 'alter_amount', 'settle_twice'] as const satisfies readonly SettlementFaultKind[];
export type PayinFaultKind = (typeof PAYIN_FAULTS)[number];

export interface FaultTarget {
  /** Acts on this many settlements to come, one each. */
  next: number;
  /** Acts on the settlement of each of these pay-ins (for a pay-in knob: on that pay-in). */
  payin_ids: string[];
}

export interface ArmedSettlementFaults {
  omit_payin: FaultTarget;
  /** The line's amount is the pay-in's plus `delta` (signed decimal text). */
  alter_amount: FaultTarget & { delta: string };
  /** A line for a pay-in nobody created, of this amount and method. */
  unknown_payin: FaultTarget & { amount: string; method: PayinMethod };
  settle_twice: FaultTarget;
  /** The bank credits the settlement's net plus `delta` (signed decimal text). */
  credit_differs: FaultTarget & { delta: string };
  /** A credit beside the settlement's that belongs to no settlement, of this amount. */
  orphan_bank_line: FaultTarget & { amount: string };
}

const idle = (): FaultTarget => ({ next: 0, payin_ids: [] });

export const noSettlementFaults = (): ArmedSettlementFaults => ({
  omit_payin: idle(),
  alter_amount: { ...idle(), delta: '1.00' },
  unknown_payin: { ...idle(), amount: '10.00', method: 'credit_card' },
  settle_twice: idle(),
  credit_differs: { ...idle(), delta: '-1.50' },
  orphan_bank_line: { ...idle(), amount: '50.00' },
});

const decimalText = (v: unknown): string | undefined => (typeof v === 'string' ? v : numberText(v));

/** Checks of each parameter a knob may take; an error message, or the value to keep. */
const PARAMS: Record<string, (v: unknown) => string | number | string[] | { error: string }> = {
  next: (v) => {
    const n = Number(decimalText(v));
    return Number.isInteger(n) && n >= 0 && n <= 1000 ? n : { error: 'next must be an integer 0-1000' };
  },
  payin_ids: (v) =>
    Array.isArray(v) && v.length <= 1000 && v.every((id) => typeof id === 'string' && id.trim() !== '' && id.length <= 255)
      ? (v as string[])
      : { error: 'payin_ids must be a list of payin_id strings' },
  delta: (v) => {
    const d = parseDecimal(decimalText(v) ?? '');
    return d !== undefined && !d.isZero() && d.decimalPlaces() <= 10 && d.abs().lt(1e15) ? d.toFixed() : { error: 'delta must be a non-zero decimal' };
  },
  amount: (v) => {
    const d = parseDecimal(decimalText(v) ?? '');
    return d !== undefined && d.gt(0) && d.decimalPlaces() <= 10 && d.lt(1e15) ? d.toFixed() : { error: 'amount must be a decimal greater than 0' };
  },
  method: (v) => (isPayinMethod(v) ? v : { error: 'method must be a pay-in method' }),
};

/** Applies a partial body (`{omit_payin: {next: 1}, …}`): each given field replaces the knob's. */
export function patchSettlementFaults(current: ArmedSettlementFaults, body: Record<string, unknown>): ArmedSettlementFaults | string {
  const next = structuredClone(current);
  for (const [kind, patch] of Object.entries(body)) {
    if (!(SETTLEMENT_FAULTS as readonly string[]).includes(kind)) return `unknown settlement fault ${kind} (use ${SETTLEMENT_FAULTS.join(', ')})`;
    if (!isJsonObject(patch)) return `${kind} must be an object`;
    const knob = next[kind as SettlementFaultKind] as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(patch)) {
      const check = field in knob ? PARAMS[field] : undefined;
      if (check === undefined) return `${kind} has no field ${field} (use ${Object.keys(knob).join(', ')})`;
      const checked = check(value);
      if (typeof checked === 'object' && !Array.isArray(checked)) return `${kind}.${checked.error}`;
      knob[field] = checked;
    }
  }
  return next;
}

const KEY = 'settlement_faults';

/**
 * The knobs armed now. Read from the state each time rather than cached: a settlement consumes
 * knobs inside its transaction, and a rolled-back settlement must leave them armed.
 */
export class SettlementFaultState {
  constructor(private readonly meta: MetaRepo) {}

  get armed(): ArmedSettlementFaults {
    return { ...noSettlementFaults(), ...this.meta.get<ArmedSettlementFaults>(KEY) };
  }

  set(next: ArmedSettlementFaults): void {
    this.meta.set(KEY, next);
  }

  reset(): void {
    this.set(noSettlementFaults());
  }
}
