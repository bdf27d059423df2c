// Reconciliation of the money itself (docs/statements.md): settlement reports and bank statements
// are imported, their lines matched to the ledger's pay-ins and payouts and to each other, and what
// does not agree is listed in break queues. A file reaches main in chunks over this contract (the
// same calls in Electron, web mode and on a team server, where the browser uploads to the server):
// upload-begin declares its size (refused at once over the limit), upload-chunk sends its bytes in
// order, inspect proposes how to read it, import reads it as one transaction.
import { z } from 'zod';
import { FILE_ENCODINGS } from '../file-encoding';
import { DATE_FORMATS, DECIMAL_SEPARATORS, DELIMITERS, STATEMENT_FORMATS, STATEMENT_KINDS } from '../statement-layout';
import { csvFileSchema, transactionSubjectSchema } from './ledger';

const MiB = 1024 * 1024;

/** What a file may weigh: a CSV is read as a stream; camt.053 and MT940 are parsed whole by their parsers. */
export const STATEMENT_LIMITS = {
  csvBytes: 200 * MiB,
  structuredBytes: 32 * MiB,
  /** Bytes per upload-chunk call (its base64 fits the 1 MiB body of a web call). */
  chunkBytes: 512 * 1024,
} as const;

const day = z
  .string()
  .trim()
  .refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), 'Must be a date, YYYY-MM-DD (UTC).');

export const statementKindSchema = z.enum(STATEMENT_KINDS);
export const statementFormatSchema = z.enum(STATEMENT_FORMATS);
const uploadId = z.string().uuid('Must be the id upload-begin gave.');
const sourceName = z.string().trim().min(1, 'Name the source the file comes from.').max(100);
const note = z.string().trim().max(500);

export const csvLayoutSchema = z
  .object({
    columns: z.record(z.string().max(40), z.string().max(200)),
    delimiter: z.enum(DELIMITERS),
    encoding: z.enum(FILE_ENCODINGS.map((e) => e.value) as [string, ...string[]]),
    decimal: z.enum(DECIMAL_SEPARATORS),
    dateFormat: z.enum(DATE_FORMATS),
    currency: z.string().trim().regex(/^[A-Z]{3}$/, 'Must be a currency code (EUR).').optional(),
  })
  .strict();
export type CsvLayoutInput = z.infer<typeof csvLayoutSchema>;

export const inspectionSchema = z.object({
  uploadId: z.string(),
  kind: statementKindSchema,
  format: statementFormatSchema,
  fileName: z.string(),
  size: z.number().int(),
  /** The source the layout is remembered for (picked, or recognised by its columns); null when none is known. */
  source: z.string().nullable(),
  /** The layout proposed (CSV): the source's remembered one when it has one, else from the headers. */
  layout: csvLayoutSchema.nullable(),
  /** The source's layout was remembered (a CSV from a known source). */
  remembered: z.boolean(),
  bom: z.boolean(),
  headers: z.array(z.string()),
  /** The first rows as the file has them (CSV), or the first entries read (camt.053, MT940). */
  preview: z.array(z.array(z.string())),
  /** Sources already known for this kind of file, for the person to pick. */
  sources: z.array(z.string()),
});
export type Inspection = z.infer<typeof inspectionSchema>;

export const importSummarySchema = z.object({
  id: z.number().int(),
  profileId: z.string(),
  kind: statementKindSchema,
  format: statementFormatSchema,
  source: z.string(),
  fileName: z.string(),
  fileSize: z.number().int(),
  state: z.enum(['running', 'imported', 'refused']),
  /** Lines the file holds (its data rows, entries or transactions). */
  lines: z.number().int(),
  added: z.number().int(),
  /** Lines that were already in the ledger from an earlier import (the same file, or one overlapping it). */
  alreadyThere: z.number().int(),
  errorLine: z.number().int().nullable(),
  errorReason: z.string().nullable(),
  createdBy: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ImportSummary = z.infer<typeof importSummarySchema>;

/** What matching did after an import (or when asked again). */
export const matchRunSchema = z.object({
  linesMatched: z.number().int(),
  bankLinesMatched: z.number().int(),
  proposals: z.number().int(),
});

export const breakQueueSchema = z.enum([
  'unsettled',
  'not_successful',
  'amount_differs',
  'unknown_to_ledger',
  'settled_twice',
  'no_bank_credit',
  'credit_without_settlement',
  'credit_differs',
]);
export type BreakQueue = z.infer<typeof breakQueueSchema>;

/** What every queue, count, view and export looks at. */
const scope = {
  profileId: z.string().min(1).optional(),
  /** First UTC day included: a line by its day, a pay-in by its creation, a settlement and a bank line by their dates. */
  from: day.optional(),
  to: day.optional(),
  /** "Succeeded but not settled" after this many days (default 3). */
  unsettledAfterDays: z.number().int().min(0).max(365).optional(),
};
export const statementScopeSchema = z.object(scope).strict();
export type StatementScope = z.infer<typeof statementScopeSchema>;

export const breakRowSchema = z.object({
  key: z.string(),
  queue: breakQueueSchema,
  profileId: z.string(),
  /** The pay-in or payout the row opens (null: none in the ledger). */
  subject: transactionSubjectSchema.nullable(),
  rowId: z.number().int().nullable(),
  settlementId: z.string().nullable(),
  lineId: z.number().int().nullable(),
  bankLineId: z.number().int().nullable(),
  /** request_id or merchantReference. */
  reference: z.string().nullable(),
  /** payin_id or payout_id. */
  gatewayId: z.string().nullable(),
  method: z.string().nullable(),
  /** What the report or the bank says (a settlement's net for the settlement queues). */
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  /** What the ledger says (a settlement's bank credit for the settlement queues). */
  otherAmount: z.string().nullable(),
  otherCurrency: z.string().nullable(),
  status: z.string().nullable(),
  /** How many times (settled twice). */
  times: z.number().int().nullable(),
  /** The day the row is dated by. */
  date: z.string().nullable(),
  detail: z.string(),
});
export type BreakRow = z.infer<typeof breakRowSchema>;

export const settlementViewSchema = z.object({
  profileId: z.string(),
  settlementId: z.string(),
  currency: z.string(),
  valueDate: z.string().nullable(),
  lines: z.number().int(),
  gross: z.string(),
  fees: z.string(),
  net: z.string(),
  /** The bank credits matched to it, summed; null when none. */
  credited: z.string().nullable(),
  credits: z.number().int(),
  /** credited − net; null without a credit. */
  difference: z.string().nullable(),
});
export type SettlementView = z.infer<typeof settlementViewSchema>;

export const settlementLineViewSchema = z.object({
  id: z.number().int(),
  line: z.number().int(),
  importId: z.number().int(),
  type: z.enum(['payin', 'payout', 'payout_reversal', 'topup']),
  settlementId: z.string().nullable(),
  payinId: z.string().nullable(),
  requestId: z.string().nullable(),
  payoutId: z.string().nullable(),
  merchantReference: z.string().nullable(),
  method: z.string().nullable(),
  currency: z.string(),
  amount: z.string(),
  fee: z.string(),
  net: z.string(),
  direction: z.enum(['credit', 'debit']),
  time: z.string().nullable(),
  bookingDate: z.string().nullable(),
  subject: transactionSubjectSchema.nullable(),
  rowId: z.number().int().nullable(),
  matchedBy: z.string().nullable(),
  decidedBy: z.string().nullable(),
  note: z.string().nullable(),
});
export type SettlementLineView = z.infer<typeof settlementLineViewSchema>;

export const bankLineViewSchema = z.object({
  id: z.number().int(),
  line: z.number().int(),
  account: z.string().nullable(),
  currency: z.string(),
  amount: z.string(),
  direction: z.enum(['credit', 'debit']),
  bookingDate: z.string(),
  valueDate: z.string().nullable(),
  entryRef: z.string().nullable(),
  endToEndId: z.string().nullable(),
  remittance: z.string().nullable(),
  counterparty: z.string().nullable(),
  settlementId: z.string().nullable(),
  matchedBy: z.string().nullable(),
  decidedBy: z.string().nullable(),
  note: z.string().nullable(),
});
export type BankLineView = z.infer<typeof bankLineViewSchema>;

export const proposalViewSchema = z.object({
  id: z.number().int(),
  profileId: z.string(),
  bankLine: bankLineViewSchema,
  settlement: settlementViewSchema,
  /** Why it is proposed, in words. */
  reason: z.string(),
  createdAt: z.string(),
});
export type ProposalView = z.infer<typeof proposalViewSchema>;

export const dailyRowSchema = z.object({
  day: z.string(),
  currency: z.string(),
  method: z.string(),
  ledgerCount: z.number().int(),
  /** What the ledger says succeeded that day (pay-ins), exactly. */
  ledgerAmount: z.string(),
  settledCount: z.number().int(),
  settledAmount: z.string(),
  fees: z.string(),
  /** fees / settled, in percent, to two decimals; null when nothing was settled. */
  feeRate: z.string().nullable(),
  /** ledger − settled. */
  difference: z.string(),
});
export type DailyRow = z.infer<typeof dailyRowSchema>;

const page = { cursor: z.string().max(200).nullable().optional(), limit: z.number().int().min(1).max(500).optional() };

export const statementsContract = {
  invoke: {
    'statements:upload-begin': {
      input: z.object({ profileId: z.string().min(1).optional(), kind: statementKindSchema, fileName: z.string().trim().min(1).max(255), size: z.number().int().min(1, 'The file is empty: there is nothing in it to import') }).strict(),
      output: z.object({ uploadId: z.string(), chunkBytes: z.number().int(), limitBytes: z.number().int() }),
    },
    'statements:upload-chunk': {
      input: z
        .object({ uploadId, seq: z.number().int().min(0), data: z.string().max(Math.ceil(STATEMENT_LIMITS.chunkBytes / 3) * 4).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'Must be base64.') })
        .strict(),
      output: z.object({ received: z.number().int(), complete: z.boolean() }),
    },
    'statements:discard-upload': { input: z.object({ uploadId }).strict(), output: z.object({ discarded: z.boolean() }) },
    'statements:inspect': {
      input: z.object({ uploadId, source: sourceName.optional(), encoding: csvLayoutSchema.shape.encoding.optional(), delimiter: csvLayoutSchema.shape.delimiter.optional() }).strict(),
      output: inspectionSchema,
    },
    'statements:import': {
      input: z.object({ uploadId, source: sourceName, layout: csvLayoutSchema.optional(), remember: z.boolean().optional() }).strict(),
      output: z.discriminatedUnion('outcome', [
        z.object({ outcome: z.literal('imported'), import: importSummarySchema, matching: matchRunSchema }),
        z.object({ outcome: z.literal('refused'), import: importSummarySchema, line: z.number().int().nullable(), reason: z.string() }),
      ]),
    },
    'statements:imports': {
      input: z.object({ profileId: z.string().min(1).optional(), limit: z.number().int().min(1).max(200).optional() }).strict(),
      output: z.object({ items: z.array(importSummarySchema) }),
    },
    'statements:layouts': {
      input: z.object({ kind: statementKindSchema }).strict(),
      output: z.object({ items: z.array(z.object({ source: z.string(), format: statementFormatSchema, layout: csvLayoutSchema.nullable(), updatedAt: z.string(), updatedBy: z.string().nullable() })) }),
    },
    'statements:summary': {
      input: statementScopeSchema,
      output: z.object({ counts: z.array(z.object({ queue: breakQueueSchema, count: z.number().int() })), proposals: z.number().int(), settlements: z.number().int() }),
    },
    'statements:breaks': {
      input: z.object({ queue: breakQueueSchema, ...scope, ...page }).strict(),
      output: z.object({ queue: breakQueueSchema, items: z.array(breakRowSchema), nextCursor: z.string().nullable(), total: z.number().int() }),
    },
    'statements:settlements': {
      input: z.object({ ...scope, ...page }).strict(),
      output: z.object({ items: z.array(settlementViewSchema), nextCursor: z.string().nullable() }),
    },
    'statements:settlement': {
      input: z.object({ profileId: z.string().min(1).optional(), settlementId: z.string().min(1).max(200) }).strict(),
      output: z.object({ settlement: settlementViewSchema, lines: z.array(settlementLineViewSchema), moreLines: z.boolean(), bankLines: z.array(bankLineViewSchema) }),
    },
    'statements:daily': { input: statementScopeSchema, output: z.object({ rows: z.array(dailyRowSchema) }) },
    'statements:proposals': { input: statementScopeSchema, output: z.object({ items: z.array(proposalViewSchema) }) },
    'statements:decide-proposal': {
      input: z.object({ proposalId: z.number().int().positive(), accept: z.boolean(), note: note.optional() }).strict(),
      output: z.object({ accepted: z.boolean() }),
    },
    'statements:match-line': {
      input: z.object({ lineId: z.number().int().positive(), subject: transactionSubjectSchema, rowId: z.number().int().positive(), note: note.min(1, 'Say why.') }).strict(),
      output: settlementLineViewSchema,
    },
    'statements:unmatch-line': {
      input: z.object({ lineId: z.number().int().positive(), note: note.min(1, 'Say why.') }).strict(),
      output: settlementLineViewSchema,
    },
    'statements:match-bank-line': {
      input: z.object({ bankLineId: z.number().int().positive(), settlementId: z.string().min(1).max(200), note: note.min(1, 'Say why.') }).strict(),
      output: bankLineViewSchema,
    },
    'statements:unmatch-bank-line': {
      input: z.object({ bankLineId: z.number().int().positive(), note: note.min(1, 'Say why.') }).strict(),
      output: bankLineViewSchema,
    },
    'statements:rematch': { input: z.object({ profileId: z.string().min(1).optional() }).strict(), output: matchRunSchema },
    'statements:export-csv': { input: z.object({ queue: breakQueueSchema, ...scope }).strict(), output: csvFileSchema },
  },
  push: {
    /** An import finished (imported or refused). */
    'statements:imports-changed': z.object({ profileId: z.string(), importId: z.number().int() }),
    /** Matches changed: after an import, a person's match or unmatch, a decided proposal, a rematch. */
    'statements:matches-changed': z.object({ profileId: z.string() }),
  },
} as const;
