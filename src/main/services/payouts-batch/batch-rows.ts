// The rows of a batch as main accepts them: each one checked exactly as a manual payout is (the
// shared validator, through payoutCreateBody), given its merchantReference for good, and reduced
// to what the batch lists show (amount, currency, name, masked destination). A bad row refuses
// the whole call, naming `items.<line>.<field>`: the renderer's preview has already left out the
// rows it found bad, so a bad row here means the two disagree, and nothing half-stored is better.
import type { BatchRowForm } from '../../../shared/contract';
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
}

export async function acceptRows(rows: readonly { line: number; form: BatchRowForm }[], ctx: RowContext): Promise<NewBatchItem[]> {
  const problems: Record<string, string> = {};
  const accepted: NewBatchItem[] = [];
  const seenLines = new Set<number>();
  const seenReferences = new Set<string>();
  for (const { line, form } of rows) {
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
    });
  }
  const count = Object.keys(problems).length;
  if (count > 0) {
    const first = Object.entries(problems).slice(0, 5).map(([field, problem]) => `${field} ${problem}`);
    throw new ServiceError('invalid_input', `The batch rows were not stored (${count} problem${count === 1 ? '' : 's'}): ${first.join('; ')}${count > 5 ? '; …' : ''}.`, problems);
  }
  return accepted;
}
