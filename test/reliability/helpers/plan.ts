// What a Paydesk child process is asked to create, item by item, through the contract. Each item
// carries its own reference (request_id / merchantReference), so a restarted child knows which
// ones exist already and never starts a second attempt for one.
import type { PayinCreateForm, PayoutCreateForm, TokenizeForm } from '../../../src/shared/contract';
import type { PayinMethod, PayoutMethod } from '../../../src/shared/spec/methods';
import { payinForm, payoutForm, tokenizeForm } from '../../helpers/fixtures';
import type { Rng } from './seed';

export type PlanItem =
  | { kind: 'payin'; ref: string; form: PayinCreateForm }
  | { kind: 'tokenize'; ref: string; form: TokenizeForm }
  | { kind: 'payout'; ref: string; form: PayoutCreateForm };

export type PayinPlanItem = Extract<PlanItem, { kind: 'payin' }>;
export type TokenizePlanItem = Extract<PlanItem, { kind: 'tokenize' }>;
export type PayoutPlanItem = Extract<PlanItem, { kind: 'payout' }>;

/** A distinct amount per item, so "the ledger agrees with the gateway" compares real values. */
function amountFor(i: number, crypto: boolean): string {
  return crypto ? `0.${String(1_000_000_007 + i * 7919).padStart(10, '0').slice(-10)}` : `${10 + (i % 900)}.${String((i * 37) % 100).padStart(2, '0')}`;
}

const tagged = (local: string, tag: string | null) => `${local}${tag ? `+s${tag}` : ''}@example.com`;

// The forms are the shared samples (test/helpers/fixtures.ts); each item varies its amount, e-mail and reference.
export function payinItem(ref: string, i: number, method: PayinMethod, tag: string | null): PayinPlanItem {
  return { kind: 'payin', ref, form: payinForm(method, { email: tagged(`payer${i}`, tag), amount: amountFor(i, method === 'crypto'), requestId: ref }) };
}

export function tokenizeItem(ref: string, i: number, tag: string | null): TokenizePlanItem {
  return { kind: 'tokenize', ref, form: tokenizeForm({ email: tagged(`saver${i}`, tag), amount: amountFor(i, false), requestId: ref }) };
}

export function payoutItem(ref: string, i: number, method: PayoutMethod, tag: string | null): PayoutPlanItem {
  return { kind: 'payout', ref, form: payoutForm(method, { email: tagged(`payee${i}`, tag), amount: amountFor(i, method === 'crypto'), reference: ref }) };
}

/** What a resume after a restart must be given again for this item (card data is never stored). */
export function reentry(item: PlanItem): Record<string, string> {
  const f = item.form as Record<string, unknown>;
  if (item.kind === 'payout') {
    const details = (item.form.paymentDetails ?? {}) as Record<string, string | undefined>;
    return details.cardNum ? { cardNum: details.cardNum } : {};
  }
  if (item.kind === 'tokenize') {
    return { cardNum: String(f.cardNum), cardHolder: String(f.cardHolder), cardExpireMonth: String(f.cardExpireMonth), cardExpireYear: String(f.cardExpireYear) };
  }
  return typeof f.cardNum === 'string' ? { cardNum: f.cardNum, cardCvv: String(f.cardCvv) } : {};
}

const PAYIN_METHODS: PayinMethod[] = ['credit_card', 'open_banking', 'crypto', 'blik', 'interac', 'googlepay'];
const PAYOUT_METHODS: PayoutMethod[] = ['credit_card', 'open_banking', 'crypto', 'fps'];

/** Single creates for the crash test: pay-ins that wait for the consumer (no scenario), payouts that succeed. */
export function crashPlan(rng: Rng, seed: number, payins: number, payouts: number): PlanItem[] {
  const items: PlanItem[] = [];
  for (let i = 0; i < payins; i++) items.push(payinItem(`crash-in-${seed}-${i}`, i, rng.pick(PAYIN_METHODS), null));
  for (let i = 0; i < payouts; i++) items.push(payoutItem(`crash-out-${seed}-${i}`, i, rng.pick(PAYOUT_METHODS), null));
  // Interleaved, so a kill can land in either kind.
  return rng.shuffle(items);
}

const FINAL_PAYIN_TAGS = ['200', '200', '200', '302', '305', '500', '516'];
const FINAL_PAYOUT_TAGS = ['P200', 'P200', 'P200', 'C403', 'C405', 'C501'];

/** Transactions that all end in a final status announced by a notification. */
export function notificationPlan(rng: Rng, seed: number, payins: number, payouts: number, tokenizations: number): PlanItem[] {
  const items: PlanItem[] = [];
  for (let i = 0; i < payins; i++) items.push(payinItem(`note-in-${seed}-${i}`, i, rng.pick(PAYIN_METHODS), rng.pick(FINAL_PAYIN_TAGS)));
  for (let i = 0; i < payouts; i++) items.push(payoutItem(`note-out-${seed}-${i}`, i, rng.pick(PAYOUT_METHODS), rng.pick(FINAL_PAYOUT_TAGS)));
  for (let i = 0; i < tokenizations; i++) items.push(tokenizeItem(`note-tok-${seed}-${i}`, i, '200'));
  return rng.shuffle(items);
}
