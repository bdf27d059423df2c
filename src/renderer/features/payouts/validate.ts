// The payout form checked in the renderer with the shared validator — the same rules main and the
// emulator apply — so each problem shows at its field while the user types, before anything is
// sent. Main checks again (the renderer is untrusted) and names the same fields.
import type { BatchRowForm } from '../../../shared/contract';
import type { LosslessNumber } from '../../../shared/json';
import { typedAmount } from '../../../shared/money';
import { unreadableFields } from '../../../shared/readable-text';
import { validatePayoutCreate } from '../../../shared/spec/field-rules';
import { PAYOUT_PROFILE_FIELDS } from '../../../shared/spec/form-fields';
import type { PayoutMethod } from '../../../shared/spec/methods';
import { payoutFields } from './form-fields';

/** Field path → text, as typed. */
export type FormValues = Record<string, string>;

/** Stand-ins for what main fills in from the profile; their own issues are never shown. */
const FROM_PROFILE: Record<(typeof PAYOUT_PROFILE_FIELDS)[number], string> = { merchant_id: 'profile', site_id: 'profile', notificationUrl: 'https://profile.invalid/n', mode: 'direct' };
const PROFILE_FIELDS = new Set<string>(PAYOUT_PROFILE_FIELDS);

const present = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

/** What the user typed as the contract's payout form: only the chosen method's fields, blanks left out (as main does). */
export function toPayoutForm(method: PayoutMethod, values: FormValues): BatchRowForm {
  const form: BatchRowForm = { method, customer: {}, paymentDetails: {} };
  for (const { path } of payoutFields(method)) {
    const value = present(values[path]);
    if (value === undefined) continue;
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (tail === undefined) (form as Record<string, unknown>)[head] = value;
    else ((form as Record<string, Record<string, string>>)[head] as Record<string, string>)[tail] = value;
  }
  return form;
}

/** Every problem of a payout form, by field path; {} when main would accept it. */
export function payoutProblems(form: BatchRowForm, now: Date = new Date()): Record<string, string> {
  // A name lost or garbled on its way in (a file read in the wrong encoding) is named first: main refuses it too.
  const problems: Record<string, string> = unreadableFields(form);
  let amount: LosslessNumber | undefined;
  if (form.amount !== undefined) {
    const typed = typedAmount(form.amount);
    if (typed.ok) amount = typed.value;
    else problems.amount = typed.message;
  }
  const body = {
    ...FROM_PROFILE,
    ...form,
    amount,
    // Main gives a payout without a reference a fresh one.
    merchantReference: form.merchantReference ?? 'assigned-by-paydesk',
    paymentDetails: { ...form.paymentDetails, method: form.method },
  };
  for (const [field, message] of Object.entries(validatePayoutCreate(body, { now }).details)) {
    if (!PROFILE_FIELDS.has(field)) problems[field] ??= message;
  }
  return problems;
}
