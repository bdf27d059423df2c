// The manual payout form, generated from the shared payout field rules (the table the emulator
// validates with): which inputs a method shows, in the table's order, grouped for reading. Only
// the fields main fills in from the profile are left out, and the method itself (chosen above).
import { PAYOUT_FIELD_RULES, type FieldRule } from '../../../shared/spec/field-rules';
import { amountScale, METHOD_LABELS, type PayoutMethod } from '../../../shared/spec/methods';

/** merchant_id, site_id, notificationUrl and mode come from the profile; method is picked above the form. */
const FILLED_BY_MAIN = new Set(['merchant_id', 'site_id', 'mode', 'notificationUrl', 'method', 'paymentDetails.method']);

export type FieldGroup = 'payment' | 'beneficiary' | 'destination';

export interface PayoutField {
  /** The spec's field path, as the validator and main name it ("customer.email", "paymentDetails.iban"). */
  path: string;
  label: string;
  /** The rule in words, from the table. */
  description: string;
  required: boolean;
  group: FieldGroup;
  /** Typed in capitals (ISO codes). */
  upperCase?: boolean;
}

const LABELS: Record<string, string> = {
  amount: 'Amount',
  currency: 'Currency',
  merchantReference: 'Merchant reference',
  country: 'Country',
  'customer.firstName': 'First name',
  'customer.lastName': 'Last name',
  'customer.email': 'E-mail',
  'customer.phone': 'Phone',
  'paymentDetails.cardNum': 'Card number',
  'paymentDetails.cardHolder': 'Cardholder name',
  'paymentDetails.cardExpireMonth': 'Expiry month (MM)',
  'paymentDetails.cardExpireYear': 'Expiry year (YYYY)',
  'paymentDetails.iban': 'IBAN',
  'paymentDetails.bic': 'BIC',
  'paymentDetails.accountHolder': 'Account holder',
  'paymentDetails.walletAddress': 'Wallet address',
  'paymentDetails.network': 'Network',
  'paymentDetails.sortCode': 'Sort code',
  'paymentDetails.accountNumber': 'Account number',
};

/** Main gives a payout without one a fresh merchantReference, so the form may leave it empty. */
export const OPTIONAL_IN_FORM = new Set(['merchantReference']);

const groupOf = (path: string): FieldGroup => (path.startsWith('customer.') ? 'beneficiary' : path.startsWith('paymentDetails.') ? 'destination' : 'payment');

const applies = (rule: FieldRule, method: PayoutMethod) => (typeof rule.required === 'object' ? rule.required.methods.includes(method) : rule.required !== 'forbidden');

/** The table's rule in words, unless it only repeats the label; the amount's scale for this method. */
function describe(rule: FieldRule, method: PayoutMethod, label: string): string {
  if (OPTIONAL_IN_FORM.has(rule.field)) return 'Optional: leave empty for a fresh one.';
  if (rule.check === 'amount') return `Greater than 0, at most ${amountScale(method)} decimals for ${METHOD_LABELS[method]}.`;
  return rule.rule.replace(/\.$/, '').toLowerCase() === label.toLowerCase() ? '' : rule.rule;
}

export function payoutFields(method: PayoutMethod): PayoutField[] {
  return PAYOUT_FIELD_RULES.filter((rule) => rule.type !== 'object' && !FILLED_BY_MAIN.has(rule.field) && applies(rule, method)).map((rule) => ({
    path: rule.field,
    label: LABELS[rule.field] ?? rule.field,
    description: describe(rule, method, LABELS[rule.field] ?? rule.field),
    required: rule.required !== 'optional' && !OPTIONAL_IN_FORM.has(rule.field),
    group: groupOf(rule.field),
    upperCase: rule.check === 'currency' || rule.check === 'country',
  }));
}

/** Every field path a payout of any method can have (the CSV mapping's targets). */
export function allPayoutFieldPaths(): string[] {
  return PAYOUT_FIELD_RULES.filter((rule) => rule.type !== 'object' && !FILLED_BY_MAIN.has(rule.field)).map((rule) => rule.field);
}

export function fieldLabel(path: string): string {
  return LABELS[path] ?? path;
}

/** "required", "required for Open banking" or null (optional, or filled in by Paydesk), from the table. */
export function requirementOf(path: string): string | null {
  if (OPTIONAL_IN_FORM.has(path)) return null;
  const rule = PAYOUT_FIELD_RULES.find((r) => r.field === path);
  if (!rule) return null;
  if (rule.required === 'always') return 'required';
  if (typeof rule.required === 'object') return `required for ${rule.required.methods.map((m) => METHOD_LABELS[m as PayoutMethod] ?? m).join(', ')}`;
  return null;
}
