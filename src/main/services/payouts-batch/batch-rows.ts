// The rows of a batch as main accepts them: each one checked exactly as a manual payout is (the
// shared validator, through payoutCreateBody), given its merchantReference for good, and reduced
// to what the batch lists show (amount, currency, name, masked destination). A bad row refuses
// the whole call, naming `items.<line>.<field>`: the renderer's preview has already left out the
// rows it found bad, so a bad row here means the two disagree, and nothing half-stored is better.
import type { BatchRowForm, PayoutMatch } from '../../../shared/contract';
import { destinationSummary } from '../../../shared/payout-destination';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { payoutCreateBody } from '../payments/bodies';
import type { NewBatchItem } from '../../ledger/repositories/batches';

export const CARD_NOT_BATCHED =
  'card payouts are not made in batches: a batch is stored so it can resume after a crash, and card numbers are never stored. Use the manual payout form.';

export interface RowContext {
  profile: Profile;
  notificationUrl: string;
  newReference: () => string;
  /** A payout of the profile, or another row of the batch, already uses this reference (a ledger read). */
  referenceTaken: (reference: string) => Promise<boolean>;
  lineTaken: (line: number) => Promise<boolean>;
  /** Why a row that may repeat earlier payouts cannot be stored (not confirmed for each), or null. */
  duplicateProblem?: (row: AcceptedRow) => Promise<string | null>;
}

export interface AcceptedRow {
  line: number;
  form: BatchRowForm;
  /** The earlier payouts it may repeat (services/payments/duplicate-guard.ts). */
  duplicates?: PayoutMatch[] | undefined;
  /** Those the person confirmed it may repeat (row ids). */
  confirmedDuplicateOf?: number[] | undefined;
}

export async function acceptRows(rows: readonly AcceptedRow[], ctx: RowContext): Promise<NewBatchItem[]> {
  const problems: Record<string, string> = {};
  const accepted: NewBatchItem[] = [];
  const seenLines = new Set<number>();
  const seenReferences = new Set<string>();
  for (const row of rows) {
    const { line, form } = row;
    const at = (field: string, problem: string) => (problems[`items.${line}.${field}`] ??= problem);
    if (seenLines.has(line) || (await ctx.lineTaken(line))) {
      at('line', 'is already in this batch');
      continue;
    }
    seenLines.add(line);
    if (form.method === 'credit_card') {
      at('method', CARD_NOT_BATCHED);
      continue;
    }
    let body: Record<string, unknown>;
    try {
      body = await payoutCreateBody(form, {
        profile: ctx.profile,
        notificationUrl: ctx.notificationUrl,
        newReference: ctx.newReference,
        referenceTaken: async (reference) => seenReferences.has(reference) || (await ctx.referenceTaken(reference)),
      });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      for (const [field, problem] of Object.entries(error.fields ?? { '(row)': error.message })) at(field, problem);
      continue;
    }
    const reference = String(body.merchantReference);
    seenReferences.add(reference);
    const duplicate = await ctx.duplicateProblem?.(row);
    if (duplicate) {
      at('duplicate', duplicate);
      continue;
    }
    const customer = body.customer as Record<string, string>;
    accepted.push({
      line,
      merchantReference: reference,
      method: String(body.method),
      amount: String(body.amount),
      currency: String(body.currency),
      beneficiary: `${customer.firstName ?? ''} ${customer.lastName ?? ''}`.trim(),
      destination: destinationSummary(String(body.method), body.paymentDetails as Record<string, unknown>),
      form: JSON.stringify({ ...form, merchantReference: reference }),
      duplicateOf: row.duplicates && row.duplicates.length > 0 ? JSON.stringify(row.duplicates) : null,
    });
  }
  const count = Object.keys(problems).length;
  if (count > 0) {
    // In words, by the file's line: "line 4, merchantReference is already used by …".
    const first = Object.entries(problems).slice(0, 5).map(([field, problem]) => `${field.replace(/^items\.(\d+)\./, 'line $1, ')} ${problem}`);
    throw new ServiceError('invalid_input', `The batch rows were not stored (${count} problem${count === 1 ? '' : 's'}): ${first.join('; ')}${count > 5 ? '; …' : ''}.`, problems);
  }
  return accepted;
}
