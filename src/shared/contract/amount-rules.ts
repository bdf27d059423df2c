// One idea under payout limits (contract/limits.ts) and approval policies (contract/approvals.ts):
// a rule about payout amounts — "over this amount" — for one environment, or every one, and one
// currency. A limit refuses what goes over it; a policy asks for approval. Their key, its labels,
// and the amounts they hold are these.
import { z } from 'zod';

export const ruleEnvironmentSchema = z.enum(['any', 'local', 'live']);
export type RuleEnvironment = z.infer<typeof ruleEnvironmentSchema>;

/** Where a rule applies, as the screens and the audit name it. */
export const RULE_ENVIRONMENT_LABELS: Readonly<Record<RuleEnvironment, string>> = { any: 'Every environment', local: 'Local emulator', live: 'Live' };

export const ruleCurrencySchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'A 3-letter ISO 4217 code such as EUR.')
  .transform((c) => c.toUpperCase());

/** An amount a rule holds: at most 15 integer digits and 10 decimals (crypto payouts have 10); `message` says what is expected. */
export const ruleAmountSchema = (message: string) =>
  z
    .string()
    .trim()
    .regex(/^(0|[1-9]\d{0,14})(\.\d{1,10})?$/, message);

/** Which rule: its environment and currency (a removal names it so). */
export const ruleKeySchema = z.object({ environment: ruleEnvironmentSchema, currency: ruleCurrencySchema }).strict();

/** What every rule's view holds besides its amounts. */
export const ruleViewFields = { environment: ruleEnvironmentSchema, currency: z.string(), updatedAt: z.string() };
