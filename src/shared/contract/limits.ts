// Payout limits: a per-payout maximum and a daily total, per currency, for one environment or for
// every one. Main enforces them before a payout's attempt is prepared (a payout over a limit is
// refused and nothing is recorded or sent); every change is audited. Daily totals count the
// payouts of the current UTC day in the payout's own environment (test payouts on the local
// emulator never use up the live allowance), except those the gateway refused or failed.
import { z } from 'zod';
import { noInput } from './app';
import { ruleAmountSchema, ruleCurrencySchema, ruleEnvironmentSchema, ruleKeySchema, ruleViewFields } from './amount-rules';

/** A positive decimal with at most 15 integer digits and 10 decimals (crypto payouts have 10). */
const limitAmount = ruleAmountSchema('A positive amount such as 1000 or 250.50 (digits, an optional dot and up to 10 decimals).').refine((value) => /[1-9]/.test(value), 'Must be greater than 0.');

export const limitUsageSchema = z.object({
  environment: z.enum(['local', 'live']),
  /** Exact decimal text: what this environment's payouts in this currency add up to today (UTC). */
  usedToday: z.string(),
});

export const limitViewSchema = z.object({
  ...ruleViewFields,
  /** Exact decimal text; null: no per-payout maximum. */
  perPayoutMax: z.string().nullable(),
  /** Exact decimal text; null: no daily total. */
  dailyMax: z.string().nullable(),
  usage: z.array(limitUsageSchema),
});
export type LimitView = z.infer<typeof limitViewSchema>;

export const limitsListSchema = z.object({
  /** The UTC day the usage figures are for (YYYY-MM-DD). */
  day: z.string(),
  limits: z.array(limitViewSchema),
  /** A payout to the same account, amount and currency as one of the last this-many days is a possible duplicate (services/payments/duplicate-guard.ts; 30 unless set). */
  duplicateWindowDays: z.number().int(),
});
export type LimitsList = z.infer<typeof limitsListSchema>;

export const limitSetInputSchema = z
  .object({
    environment: ruleEnvironmentSchema,
    currency: ruleCurrencySchema,
    perPayoutMax: limitAmount.nullable(),
    dailyMax: limitAmount.nullable(),
  })
  .strict()
  .refine((value) => value.perPayoutMax !== null || value.dailyMax !== null, { message: 'Give a per-payout maximum, a daily total or both.', path: ['perPayoutMax'] });
export type LimitSetInput = z.input<typeof limitSetInputSchema>;

export const limitCheckSchema = z.object({
  environment: ruleEnvironmentSchema,
  currency: z.string(),
  kind: z.enum(['per_payout', 'daily']),
  limit: z.string(),
  /** Daily: what was used today before this payout. */
  usedToday: z.string().nullable(),
  ok: z.boolean(),
  /** One sentence naming the limit, e.g. "Daily total for EUR payouts (live): 900.00 of 1000.00 used; this payout would make 1100.00." */
  message: z.string(),
});
export type LimitCheck = z.infer<typeof limitCheckSchema>;

export const limitCheckResultSchema = z.object({
  ok: z.boolean(),
  /** The environment of the profile the payout would go through. */
  environment: z.enum(['local', 'sandbox', 'live']),
  /** Every rule that applies; empty when no limit is set for this currency. */
  checks: z.array(limitCheckSchema),
});
export type LimitCheckResult = z.infer<typeof limitCheckResultSchema>;

export const limitsContract = {
  invoke: {
    'limits:list': { input: noInput, output: limitsListSchema },
    'limits:set': { input: limitSetInputSchema, output: limitViewSchema },
    /** Audited; applies to the next check. */
    'limits:set-duplicate-window': { input: z.object({ days: z.number().int('A whole number of days.').min(1, 'From 1 to 365 days.').max(365, 'From 1 to 365 days.') }).strict(), output: limitsListSchema },
    'limits:remove': { input: ruleKeySchema, output: z.object({ removed: z.boolean() }) },
    /** What the limits say about one payout, for the review step; main checks again when it is sent. */
    'limits:check': {
      input: z
        .object({ profileId: z.string().min(1).optional(), currency: ruleCurrencySchema, amount: z.string().trim().max(64).regex(/^\d+(\.\d+)?$/, 'Must be a decimal number such as 10.50.') })
        .strict(),
      output: limitCheckResultSchema,
    },
  },
  push: {
    'limits:limits-changed': limitsListSchema,
  },
} as const;
