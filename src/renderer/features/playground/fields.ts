// Which inputs each request shows, straight from the shared field rules (the table the gateway
// validates with, read by shared/spec/form-fields.ts), so a method's form can never drift from
// what the method requires.
import { payinFormRules, payoutFormRules } from '../../../shared/spec/form-fields';

export interface FieldSpec {
  /** The spec's field name, dotted for nested payout fields ("customer.email"). */
  path: string;
  /** The rule in words, from the shared field rules. */
  description?: string;
  /** Entered, never shown back: a PasswordInput without autocomplete. */
  secret?: boolean;
}

/** Pay-in fields of a method, without those main fills in and the method itself (chosen above the form). */
export function payinFieldSpecs(method: string, options: { withoutCard?: boolean } = {}): FieldSpec[] {
  return payinFormRules(method, options).map((rule) => ({ path: rule.field, description: rule.rule, secret: rule.field === 'cardCvv' }));
}

/** Payout fields of a method, flattened to dotted paths (customer.email, paymentDetails.iban). */
export function payoutFieldSpecs(method: string): FieldSpec[] {
  return payoutFormRules(method).map((rule) => ({ path: rule.field, description: rule.rule }));
}
