// Payout limits: a per-payout maximum and a daily total, per currency, for one environment or for
// every one. Main enforces them before a payout's attempt is prepared (a payout over a limit is
// refused and nothing is recorded or sent); every change is audited. Daily totals count the
// payouts of the current UTC day in the payout's own environment (test payouts on the local
// emulator never use up the live allowance), except those the gateway refused or failed.
import { z } from 'zod';
import { noInput } from './app';

export const limitEnvironmentSchema = z.enum(['any', 'local', 'live']);
export type LimitEnvironment = z.infer<typeof limitEnvironmentSchema>;

/** Where a limit (or an approval policy, contract/approvals.ts) applies, as the screens and the audit name it. */
export const LIMIT_ENVIRONMENT_LABELS: Readonly<Record<LimitEnvironment, string>> = { any: 'Every environment', local: 'Local emulator', live: 'Live' };

const currency = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'A 3-letter ISO 4217 code such as EUR.')
  .transform((c) => c.toUpperCase());

/** A positive decimal with at most 15 integer digits and 10 decimals (crypto payouts have 10). */
const limitAmount = z
  .string()
  .trim()
  .regex(/^(0|[1-9]\d{0,14})(\.\d{1,10})?$/, 'A positive amount such as 1000 or 250.50 (digits, an optional dot and up to 10 decimals).')
  .refine((value) => /[1-9]/.test(value), 'Must be greater than 0.');

export const limitUsageSchema = z.object({
  environment: z.enum(['local', 'live']),
  /** Exact decimal text: what this environment's payouts in this currency add up to today (UTC). */
  usedToday: z.string(),
});

export const limitViewSchema = z.object({
  environment: limitEnvironmentSchema,
  currency: z.string(),
  /** Exact decimal text; null: no per-payout maximum. */
  perPayoutMax: z.string().nullable(),
  /** Exact decimal text; null: no daily total. */
  dailyMax: z.string().nullable(),
  updatedAt: z.string(),
  usage: z.array(limitUsageSchema),
});
export type LimitView = z.infer<typeof limitViewSchema>;

export const limitsListSchema = z.object({
  /** The UTC day the usage figures are for (YYYY-MM-DD). */
  day: z.string(),
  limits: z.array(limitViewSchema),
});
export type LimitsList = z.infer<typeof limitsListSchema>;

export const limitSetInputSchema = z
  .object({
    environment: limitEnvironmentSchema,
    currency,
    perPayoutMax: limitAmount.nullable(),
    dailyMax: limitAmount.nullable(),
  })
  .strict()
  .refine((value) => value.perPayoutMax !== null || value.dailyMax !== null, { message: 'Give a per-payout maximum, a daily total or both.', path: ['perPayoutMax'] });
export type LimitSetInput = z.input<typeof limitSetInputSchema>;

export const limitCheckSchema = z.object({
  environment: limitEnvironmentSchema,
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
    'limits:remove': { input: z.object({ environment: limitEnvironmentSchema, currency }).strict(), output: z.object({ removed: z.boolean() }) },
    /** What the limits say about one payout, for the review step; main checks again when it is sent. */
    'limits:check': {
      input: z
        .object({ profileId: z.string().min(1).optional(), currency, amount: z.string().trim().max(64).regex(/^\d+(\.\d+)?$/, 'Must be a decimal number such as 10.50.') })
        .strict(),
      output: limitCheckResultSchema,
    },
  },
  push: {
    'limits:limits-changed': limitsListSchema,
  },
} as const;
