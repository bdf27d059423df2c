// What a person fills in, read off the field-rule tables: the fields main fills in from the
// profile, the card, and for each pay-in or payout method the fields its form shows, in table
// order. The contract's form schemas, main's body builder, the payout form, the playground and the
// CSV mapping all take their field lists from here, so none of them names a field again.
import { PAYIN_CARD_FIELDS, PAYIN_FIELD_RULES, PAYOUT_FIELD_RULES, payinFieldsFor, type PayinField } from './field-rules';
import { rulesUnder } from './request-shapes';
import type { FieldRule } from './rule-engine';

type PayoutRule = (typeof PAYOUT_FIELD_RULES)[number];
export type PayoutField = PayoutRule['field'];

/** Filled in by main from the profile (merchant ids, the listener URL, mode "direct"): never in a form. */
export const PAYIN_PROFILE_FIELDS = ['merchant_id', 'merchant_site_id', 'notification_link'] as const satisfies readonly PayinField[];
export const PAYOUT_PROFILE_FIELDS = ['merchant_id', 'site_id', 'mode', 'notificationUrl'] as const satisfies readonly PayoutField[];

/** A pay-in's card field: the card and its CVV. */
export type PayinCardField = (typeof PAYIN_CARD_FIELDS)[number];
/** The card itself (what goes into a tokenize JWT); its CVV is asked for separately, on every charge. */
export const CARD_FIELDS = PAYIN_CARD_FIELDS.filter((f) => f !== 'cardCvv') as Exclude<PayinCardField, 'cardCvv'>[];

const payinProfile: readonly string[] = PAYIN_PROFILE_FIELDS;
const payinCard: readonly string[] = PAYIN_CARD_FIELDS;
const payoutProfile: readonly string[] = PAYOUT_PROFILE_FIELDS;

/** A pay-in form's own fields (2.1 without the profile's and the card's), in table order. */
export const PAYIN_FORM_FIELDS = PAYIN_FIELD_RULES.map((r) => r.field).filter((f) => !payinProfile.includes(f) && !payinCard.includes(f)) as Exclude<
  PayinField,
  (typeof PAYIN_PROFILE_FIELDS)[number] | (typeof PAYIN_CARD_FIELDS)[number]
>[];

type TopLevelPayoutField = Exclude<PayoutField, `${string}.${string}` | 'customer' | 'paymentDetails' | (typeof PAYOUT_PROFILE_FIELDS)[number]>;
/** A payout form's top-level fields (method, amount, currency, merchantReference, country). */
export const PAYOUT_FORM_FIELDS = PAYOUT_FIELD_RULES.filter((r) => !r.field.includes('.') && r.type !== 'object' && !payoutProfile.includes(r.field)).map(
  (r) => r.field,
) as TopLevelPayoutField[];

/** The beneficiary's fields (customer.*), by their key in `customer`. */
export const PAYOUT_CUSTOMER_FIELDS = rulesUnder(PAYOUT_FIELD_RULES, 'customer').map((r) => r.field);

type DetailRule = ReturnType<typeof rulesUnder<PayoutRule, 'paymentDetails'>>[number];
/** Every paymentDetails field of any method (not `method`, which main fills in from the top level). */
export const PAYOUT_DETAIL_FIELDS = rulesUnder(PAYOUT_FIELD_RULES, 'paymentDetails')
  .filter((r) => r.field !== 'method')
  .map((r) => r.field) as Exclude<DetailRule['field'], 'method'>[];
export type PayoutDetailField = (typeof PAYOUT_DETAIL_FIELDS)[number];

const requiredFor = (rule: FieldRule, method: string): boolean => typeof rule.required === 'object' && rule.required.methods.includes(method);

/** The paymentDetails fields a payout method requires, in table order, by their key in paymentDetails. */
export function payoutDetailFields(method: string): PayoutDetailField[] {
  return (rulesUnder(PAYOUT_FIELD_RULES, 'paymentDetails') as readonly FieldRule[]).filter((r) => requiredFor(r, method)).map((r) => r.field as PayoutDetailField);
}

/** The inputs of a pay-in form for `method`: the method's fields without the profile's and payment_method (chosen above the form). */
export function payinFormRules(method: string, options: { withoutCard?: boolean } = {}): FieldRule[] {
  return payinFieldsFor(method).filter((r) => !payinProfile.includes(r.field) && r.field !== 'payment_method' && !(options.withoutCard && payinCard.includes(r.field)));
}

const NOT_INPUTS = ['method', 'paymentDetails.method'] as const satisfies readonly PayoutField[];
type ObjectField = Extract<PayoutRule, { readonly type: 'object' }>['field'];
/**
 * A value a person enters in a payout form, by its dotted path ("customer.email",
 * "paymentDetails.iban"): not an object, not the profile's, not the method itself (chosen above
 * the form) and not paymentDetails.method (main copies the top level).
 */
export type PayoutInputPath = Exclude<PayoutField, ObjectField | (typeof PAYOUT_PROFILE_FIELDS)[number] | (typeof NOT_INPUTS)[number]>;
const notInputs: readonly string[] = NOT_INPUTS;
const PAYOUT_INPUTS = (PAYOUT_FIELD_RULES as readonly FieldRule[]).filter((r) => r.type !== 'object' && !payoutProfile.includes(r.field) && !notInputs.includes(r.field));

/** The inputs of a payout form for `method`, in table order: the common ones and that method's destination. */
export function payoutFormRules(method: string): FieldRule[] {
  return PAYOUT_INPUTS.filter((r) => (typeof r.required === 'object' ? requiredFor(r, method) : r.required !== 'forbidden'));
}

/** Every input path of a payout of any method, in table order (the CSV mapping's targets, after `method`). */
export function allPayoutFormPaths(): PayoutInputPath[] {
  return PAYOUT_INPUTS.map((r) => r.field as PayoutInputPath);
}
