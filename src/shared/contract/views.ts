// Saved filter views of the transaction lists: a name and the list's filters, per subject (pay-ins
// or payouts), kept by main in the ledger so they follow the data directory. Also the CSV export
// of a list view (pay-ins or payouts), which streams the same filters through main with a row cap.
import { z } from 'zod';
import { csvFileSchema, transactionListInputSchema, transactionSubjectSchema } from './ledger';

/** What a view remembers: the list's filters and order (never a cursor: a view is a query, not a position). */
export const savedViewFiltersSchema = transactionListInputSchema.omit({ cursor: true, limit: true, profileId: true });
export type SavedViewFilters = z.infer<typeof savedViewFiltersSchema>;

export const MAX_SAVED_VIEWS = 50;

const viewName = z.string().trim().min(1, 'Give the view a name.').max(60, 'At most 60 characters.');

export const savedViewSchema = z.object({
  name: z.string(),
  filters: savedViewFiltersSchema,
  savedAt: z.string(),
});
export type SavedView = z.infer<typeof savedViewSchema>;

const viewsOutput = z.object({ views: z.array(savedViewSchema) });

export const viewsContract = {
  invoke: {
    'views:list': { input: z.object({ subject: transactionSubjectSchema }).strict(), output: viewsOutput },
    /** Saves (or replaces, by name) a view; answers every view of the subject, by name. */
    'views:save': { input: z.object({ subject: transactionSubjectSchema, name: viewName, filters: savedViewFiltersSchema }).strict(), output: viewsOutput },
    'views:delete': { input: z.object({ subject: transactionSubjectSchema, name: viewName }).strict(), output: viewsOutput },
    /** The filtered pay-ins list as CSV: every page (up to a row cap), formula-safe, card numbers masked. */
    'payins:export-csv': { input: savedViewFiltersSchema, output: csvFileSchema },
    /** The filtered payouts list as CSV, the same way. */
    'payouts:export-csv': { input: savedViewFiltersSchema, output: csvFileSchema },
  },
  push: {},
} as const;
