// The one typed contract between main and renderer (STYLE.md habit 1), assembled from one file
// per domain. Every invoke channel names its input and output schema; every push names its
// payload. Main validates inputs with these schemas (the renderer is untrusted); the preload, the
// web-mode bridge and the renderer's api client are all derived from the keys below.
// Channels read `<domain>:<verb-noun>`; pushes `<domain>:<thing>-changed`.
import type { z } from 'zod';
import { appContract } from './app';
import { profilesContract } from './profiles';
import { paymentsContract } from './payments';
import { ledgerContract } from './ledger';
import { notificationsContract } from './notifications';
import { reconciliationContract } from './reconciliation';
import { listenerContract } from './listener';
import { limitsContract } from './limits';
import { batchesContract } from './batches';
import { viewsContract } from './views';
import { retentionContract } from './retention';
import { teamContract } from './team';
import { approvalsContract } from './approvals';
import { statementsContract } from './statements';
import { noticesContract } from './notices';

export * from './app';
export * from './profiles';
export * from './payments';
export * from './ledger';
export * from './notifications';
export * from './reconciliation';
export * from './listener';
export * from './amount-rules';
export * from './limits';
export * from './batches';
export * from './views';
export * from './reviews';
export * from './retention';
export * from './team';
export * from './roles';
export * from './approvals';
export * from './statements';
export * from './notices';

type InvokeEntry = { input: z.ZodType; output: z.ZodType };

export const invokeContract = {
  ...appContract.invoke,
  ...profilesContract.invoke,
  ...paymentsContract.invoke,
  ...ledgerContract.invoke,
  ...notificationsContract.invoke,
  ...reconciliationContract.invoke,
  ...listenerContract.invoke,
  ...limitsContract.invoke,
  ...batchesContract.invoke,
  ...viewsContract.invoke,
  ...retentionContract.invoke,
  ...teamContract.invoke,
  ...approvalsContract.invoke,
  ...statementsContract.invoke,
  ...noticesContract.invoke,
} as const satisfies Record<string, InvokeEntry>;

export const pushContract = {
  ...appContract.push,
  ...profilesContract.push,
  ...paymentsContract.push,
  ...ledgerContract.push,
  ...notificationsContract.push,
  ...reconciliationContract.push,
  ...listenerContract.push,
  ...limitsContract.push,
  ...batchesContract.push,
  ...viewsContract.push,
  ...retentionContract.push,
  ...teamContract.push,
  ...approvalsContract.push,
  ...statementsContract.push,
  ...noticesContract.push,
} as const satisfies Record<string, z.ZodType>;

export type InvokeChannel = keyof typeof invokeContract;
export type PushChannel = keyof typeof pushContract;
export type InvokeInput<C extends InvokeChannel> = z.input<(typeof invokeContract)[C]['input']>;
export type InvokeOutput<C extends InvokeChannel> = z.output<(typeof invokeContract)[C]['output']>;
export type PushPayload<P extends PushChannel> = z.output<(typeof pushContract)[P]>;

export const invokeChannels = Object.keys(invokeContract) as InvokeChannel[];
export const pushChannels = Object.keys(pushContract) as PushChannel[];

export function isInvokeChannel(value: string): value is InvokeChannel {
  return Object.hasOwn(invokeContract, value);
}

export function isPushChannel(value: string): value is PushChannel {
  return Object.hasOwn(pushContract, value);
}

/** Everything crosses the boundary as an envelope, so errors keep their structure on IPC and HTTP alike. */
/** unauthorized: no one is signed in (or the session ended); forbidden: the person's role may not do this. */
export type ContractErrorCode = 'invalid_input' | 'unknown_channel' | 'unavailable' | 'conflict' | 'not_found' | 'unauthorized' | 'forbidden' | 'internal';

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
