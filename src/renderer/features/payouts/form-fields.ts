// The manual payout form, generated from the shared payout field rules (the table the emulator
// validates with): which inputs a method shows (shared/spec/form-fields.ts: the table's order,
// without what main fills in from the profile and the method itself, chosen above), grouped and
// labelled for reading.
import { PAYOUT_FIELD_RULES, type FieldRule } from '../../../shared/spec/field-rules';
import { payoutFormRules, type PayoutInputPath } from '../../../shared/spec/form-fields';
import { amountScale, METHOD_LABELS, type PayoutMethod } from '../../../shared/spec/methods';
import { CARD_LABELS } from '../../components/card-labels';

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

/** Every input's label, keyed by the rule table's inputs: a field added there fails the typecheck until it has one. */
const LABELS: Readonly<Record<PayoutInputPath, string>> = {
  amount: 'Amount',
  currency: 'Currency',
  merchantReference: 'Merchant reference',
  country: 'Country',
  'customer.firstName': 'First name',
  'customer.lastName': 'Last name',
  'customer.email': 'E-mail',
  'customer.phone': 'Phone',
  'paymentDetails.cardNum': CARD_LABELS.cardNum,
  'paymentDetails.cardHolder': CARD_LABELS.cardHolder,
  'paymentDetails.cardExpireMonth': CARD_LABELS.cardExpireMonth,
  'paymentDetails.cardExpireYear': CARD_LABELS.cardExpireYear,
  'paymentDetails.iban': 'IBAN',
  'paymentDetails.bic': 'BIC',
  'paymentDetails.accountHolder': 'Account holder',
  'paymentDetails.walletAddress': 'Wallet address',
  'paymentDetails.network': 'Network',
  'paymentDetails.sortCode': 'Sort code',
  'paymentDetails.accountNumber': 'Account number',
};
const labelOf = (path: string): string => (LABELS as Readonly<Record<string, string | undefined>>)[path] ?? path;

/** Main gives a payout without one a fresh merchantReference, so the form may leave it empty. */
export const OPTIONAL_IN_FORM = new Set(['merchantReference']);

const groupOf = (path: string): FieldGroup => (path.startsWith('customer.') ? 'beneficiary' : path.startsWith('paymentDetails.') ? 'destination' : 'payment');

/** The table's rule in words, unless it only repeats the label; the amount's scale for this method. */
function describe(rule: FieldRule, method: PayoutMethod, label: string): string {
  if (OPTIONAL_IN_FORM.has(rule.field)) return 'Optional: leave empty for a fresh one.';
  if (rule.check === 'amount') return `Greater than 0, at most ${amountScale(method)} decimals for ${METHOD_LABELS[method]}.`;
  return rule.rule.replace(/\.$/, '').toLowerCase() === label.toLowerCase() ? '' : rule.rule;
}

export function payoutFields(method: PayoutMethod): PayoutField[] {
  return payoutFormRules(method).map((rule) => ({
    path: rule.field,
    label: labelOf(rule.field),
    description: describe(rule, method, labelOf(rule.field)),
    required: rule.required !== 'optional' && !OPTIONAL_IN_FORM.has(rule.field),
    group: groupOf(rule.field),
    upperCase: rule.check === 'currency' || rule.check === 'country',
  }));
}

export function fieldLabel(path: string): string {
  return labelOf(path);
}

/** "required", "required for Open banking" or null (optional, or filled in by Paydesk), from the table. */
export function requirementOf(path: string): string | null {
  if (OPTIONAL_IN_FORM.has(path)) return null;
  const rule = (PAYOUT_FIELD_RULES as readonly FieldRule[]).find((r) => r.field === path);
  if (!rule) return null;
  if (rule.required === 'always') return 'required';
  if (typeof rule.required === 'object') return `required for ${rule.required.methods.map((m) => METHOD_LABELS[m as PayoutMethod] ?? m).join(', ')}`;
  return null;
}
