// The contract's list filters as the repositories' filter, and the answer naming the field when a
// repository refuses one (a bad cursor, a bad date, a bad limit).
import type { TransactionListInput } from '../../../shared/contract';
import type { TransactionFilter } from '../../ledger/repositories/transactions';
import type { StatusCategory } from '../../ledger/status';
import { ServiceError } from '../errors';

/** A date alone means its start (UTC). */
const toInstant = (value: string | undefined) => (value === undefined ? undefined : /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value);

/** The contract's list filters as the repositories' filter (also used by the CSV export). */
export function toFilter(input: Omit<TransactionListInput, 'cursor' | 'limit' | 'sort'>): TransactionFilter {
  return {
    profileId: input.profileId,
    statusCodes: input.statusCodes,
    reasonCodes: input.reasonCodes,
    categories: input.categories as StatusCategory[] | undefined,
    methods: input.methods,
    currencies: input.currencies,
    createdFrom: toInstant(input.createdFrom),
    createdTo: toInstant(input.createdTo),
    mismatch: input.hasMismatch,
    final: input.final,
    search: input.search,
  };
}

/** Turns a repository's RangeError (bad cursor, bad date) into an answer naming the field. */
export async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RangeError) {
      const field = /cursor/.test(error.message) ? 'cursor' : /date/.test(error.message) ? 'createdFrom' : 'limit';
      throw new ServiceError('invalid_input', error.message, { [field]: error.message });
    }
    throw error;
  }
}
