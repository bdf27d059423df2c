// App-wide entries: what main says about itself, and the user's settings.
import { z } from 'zod';

export const themeSchema = z.enum(['light', 'dark', 'auto']);

/** Reconciliation's "pending too long" threshold, in minutes: up to a year. */
export const pendingMinutesSchema = z.number().min(0).max(525_600);

export const settingsSchema = z.object({
  theme: themeSchema,
  /** The threshold finance last set on the reconciliation screen. */
  reconciliationPendingMinutes: pendingMinutesSchema,
});
export type Settings = z.infer<typeof settingsSchema>;

export const settingsPatchSchema = z
  .object({
    theme: themeSchema.optional(),
    reconciliationPendingMinutes: pendingMinutesSchema.optional(),
  })
  .strict();

export const keychainStatusSchema = z.object({
  /**
   * available: credentials can be stored and read. locked: the keychain answers but refuses to
   * store (and reads as empty) until it is unlocked. unavailable: no keychain answers at all.
   */
  state: z.enum(['available', 'locked', 'unavailable']),
  /** Where credentials are kept: the OS keychain (a desk) or sealed on a team server (shared/credential-custody.ts). */
  custody: z.enum(['keychain', 'server']),
  backend: z.string(),
  message: z.string(),
});
export type KeychainStatus = z.infer<typeof keychainStatusSchema>;

export const environmentKindSchema = z.enum(['local', 'sandbox', 'live']);
export type EnvironmentKind = z.infer<typeof environmentKindSchema>;

export const appInfoSchema = z.object({
  version: z.string(),
  /** server: a team server's page (docs/team.md). */
  mode: z.enum(['electron', 'web', 'server']),
  dataDir: z.string(),
  /** Where the ledger lives: the SQLite file, or the PostgreSQL URL without its password. */
  ledger: z.object({ engine: z.enum(['sqlite', 'postgres']), location: z.string(), schemaVersion: z.number().int() }),
  keychain: keychainStatusSchema,
  environment: z.object({ kind: environmentKindSchema, label: z.string() }),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const noInput = z.undefined();

export const appContract = {
  invoke: {
    'app:get-info': { input: noInput, output: appInfoSchema },
    'settings:get': { input: noInput, output: settingsSchema },
    'settings:update': { input: settingsPatchSchema, output: settingsSchema },
  },
  push: {
    'settings:settings-changed': settingsSchema,
  },
} as const;
