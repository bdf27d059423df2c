// The one typed contract between main and renderer (STYLE.md habit 1).
// Every invoke channel names its input and output schema; every push names its payload.
// Main validates inputs with these schemas (the renderer is untrusted); the preload, the
// web-mode bridge and the renderer's api client are all derived from the keys below.
import { z } from 'zod';
import type { InvokeChannel, PushChannel } from './channels';

export { invokeChannels, pushChannels, type InvokeChannel, type PushChannel } from './channels';

export const themeSchema = z.enum(['light', 'dark', 'auto']);

export const settingsSchema = z.object({
  theme: themeSchema,
});
export type Settings = z.infer<typeof settingsSchema>;

export const settingsPatchSchema = z
  .object({
    theme: themeSchema.optional(),
  })
  .strict();

export const keychainStatusSchema = z.object({
  available: z.boolean(),
  backend: z.string(),
  message: z.string(),
});
export type KeychainStatus = z.infer<typeof keychainStatusSchema>;

export const environmentKindSchema = z.enum(['local', 'sandbox', 'live']);
export type EnvironmentKind = z.infer<typeof environmentKindSchema>;

export const appInfoSchema = z.object({
  version: z.string(),
  mode: z.enum(['electron', 'web']),
  dataDir: z.string(),
  ledger: z.object({ file: z.string(), schemaVersion: z.number().int() }),
  keychain: keychainStatusSchema,
  environment: z.object({ kind: environmentKindSchema, label: z.string() }),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

const noInput = z.undefined();

export const invokeContract = {
  'app:get-info': { input: noInput, output: appInfoSchema },
  'settings:get': { input: noInput, output: settingsSchema },
  'settings:update': { input: settingsPatchSchema, output: settingsSchema },
} as const satisfies Record<InvokeChannel, { input: z.ZodType; output: z.ZodType }>;

export const pushContract = {
  'settings:settings-changed': settingsSchema,
} as const satisfies Record<PushChannel, z.ZodType>;

export type InvokeInput<C extends InvokeChannel> = z.input<(typeof invokeContract)[C]['input']>;
export type InvokeOutput<C extends InvokeChannel> = z.output<(typeof invokeContract)[C]['output']>;
export type PushPayload<P extends PushChannel> = z.output<(typeof pushContract)[P]>;


export function isInvokeChannel(value: string): value is InvokeChannel {
  return Object.hasOwn(invokeContract, value);
}

export function isPushChannel(value: string): value is PushChannel {
  return Object.hasOwn(pushContract, value);
}

/** Everything crosses the boundary as an envelope, so errors keep their structure on IPC and HTTP alike. */
export type ContractErrorCode = 'invalid_input' | 'unknown_channel' | 'unavailable' | 'conflict' | 'not_found' | 'internal';

export interface ContractErrorBody {
  code: ContractErrorCode;
  message: string;
  /** Field path → what is wrong with it and how to fix it. */
  fields?: Record<string, string>;
}

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ContractErrorBody };

/**
 * What the preload exposes and the web bridge implements: exactly one method per contract entry,
 * nothing that takes a channel name (a compromised renderer must not reach arbitrary channels).
 */
export interface PaydeskBridge {
  invoke: { [C in InvokeChannel]: (input: InvokeInput<C>) => Promise<Envelope<InvokeOutput<C>>> };
  on: { [P in PushChannel]: (listener: (payload: PushPayload<P>) => void) => () => void };
}
