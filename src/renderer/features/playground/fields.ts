// Which inputs each request shows, straight from the shared field rules (the table the gateway
// validates with), so a method's form can never drift from what the method requires.
import { PAYOUT_FIELD_RULES, payinFieldsFor } from '../../../shared/spec/field-rules';
import type { FieldSpec } from './FieldInputs';
import { PROFILE_PAYIN_FIELDS, PROFILE_PAYOUT_FIELDS } from './samples';

const CARD_ENTRY = ['cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear', 'cardCvv'];

/** Pay-in fields of a method, without those main fills in and the method itself (chosen above the form). */
export function payinFieldSpecs(method: string, options: { withoutCard?: boolean } = {}): FieldSpec[] {
  return payinFieldsFor(method)
    .filter((rule) => !(PROFILE_PAYIN_FIELDS as readonly string[]).includes(rule.field) && rule.field !== 'payment_method')
    .filter((rule) => !options.withoutCard || !CARD_ENTRY.includes(rule.field))
    .map((rule) => ({ path: rule.field, description: rule.rule, secret: rule.field === 'cardCvv' }));
}

/** Payout fields of a method, flattened to dotted paths (customer.email, paymentDetails.iban). */
export function payoutFieldSpecs(method: string): FieldSpec[] {
  return PAYOUT_FIELD_RULES.filter((rule) => {
    if ((PROFILE_PAYOUT_FIELDS as readonly string[]).includes(rule.field) || rule.type === 'object') return false;
    if (rule.field === 'method' || rule.field === 'paymentDetails.method') return false;
    return typeof rule.required === 'string' ? rule.required !== 'forbidden' : rule.required.methods.includes(method);
  }).map((rule) => ({ path: rule.field, description: rule.rule }));
}
