// Retention of notifications nobody can apply now (malformed ones and orphans), per profile:
// their raw bodies and headers are kept up to a count, a size and an age; beyond, malformed rows
// are deleted whole and orphans keep their row (a claim that may still be applied) without body
// and headers. Set in Settings; every change is audited; main applies it periodically and when
// such notifications pile up (docs/security.md, threat 1).
import { z } from 'zod';
import { noInput } from './app';

const whole = (min: number, max: number, unit: string) => {
  // Written when an error is shown: the first toLocaleString sets up ICU (~17 ms), which every start paid.
  const range = { error: () => `From ${min.toLocaleString('en')} to ${max.toLocaleString('en')} ${unit}.` };
  return z.number().int('A whole number.').min(min, range).max(max, range);
};

export const retentionPolicySchema = z.object({
  /** Raw bodies kept per profile, newest first (orphans before malformed ones). */
  maxCount: whole(10, 1_000_000, 'notifications'),
  /** Bytes of raw bodies and headers kept per profile, in MiB. */
  maxMiB: whole(1, 102_400, 'MiB'),
  /** Older raw bodies are dropped whatever the count and size. */
  maxAgeDays: whole(1, 3_650, 'days'),
});
export type RetentionPolicy = z.infer<typeof retentionPolicySchema>;

export const retentionViewSchema = z.object({
  profileId: z.string(),
  policy: retentionPolicySchema,
  /** True while the profile follows the defaults (it was never set). */
  isDefault: z.boolean(),
  /** When the policy was last changed (null: never). */
  changedAt: z.string().nullable(),
  /** Malformed and orphan notifications whose raw body and headers are kept now. */
  kept: z.object({ count: z.number().int(), bytes: z.number().int() }),
  /** What the rule has dropped so far. */
  dropped: z.object({
    malformedDeleted: z.number().int(),
    orphanBodiesPruned: z.number().int(),
    bytes: z.number().int(),
    lastAt: z.string().nullable(),
  }),
});
export type RetentionView = z.infer<typeof retentionViewSchema>;

export const retentionUpdateSchema = retentionPolicySchema.extend({ profileId: z.string().min(1).max(200) }).strict();
export type RetentionUpdate = z.infer<typeof retentionUpdateSchema>;

export const retentionContract = {
  invoke: {
    /** One view per profile. */
    'settings:get-notification-retention': { input: noInput, output: z.array(retentionViewSchema) },
    /** Audited; applied at once. */
    'settings:update-notification-retention': { input: retentionUpdateSchema, output: retentionViewSchema },
  },
  push: {},
} as const;
