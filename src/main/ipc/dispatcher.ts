// Turns an untrusted (channel, input) pair into a validated handler call and an envelope.
// Used by both transports: Electron IPC and the web-mode HTTP bridge.
import type { z } from 'zod';
import {
  type ContractErrorBody,
  type Envelope,
  type InvokeChannel,
  type InvokeOutput,
  invokeContract,
  isInvokeChannel,
} from '../../shared/contract';
import { ServiceError } from '../services/errors';

type ParsedInput<C extends InvokeChannel> = z.output<(typeof invokeContract)[C]['input']>;

export type Handlers = {
  [C in InvokeChannel]: (input: ParsedInput<C>) => Promise<InvokeOutput<C>> | InvokeOutput<C>;
};

export type Dispatch = (channel: string, input: unknown) => Promise<Envelope<unknown>>;

export function zodIssuesToFields(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const path = issue.path.length > 0 ? issue.path.join('.') : '(input)';
    fields[path] ??= issue.message;
  }
  return fields;
}

function describeFields(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([field, problem]) => `${field}: ${problem}`)
    .join('; ');
}

export function createDispatcher(handlers: Handlers, onInternalError: (channel: string, error: unknown) => void): Dispatch {
  return async (channel, input) => {
    if (!isInvokeChannel(channel)) {
      return failure({ code: 'unknown_channel', message: `Unknown channel "${channel}".` });
    }
    const parsed = invokeContract[channel].input.safeParse(input);
    if (!parsed.success) {
      const fields = zodIssuesToFields(parsed.error.issues);
      return failure({ code: 'invalid_input', message: `Invalid input for ${channel}: ${describeFields(fields)}`, fields });
    }
    try {
      const handler = handlers[channel] as (input: unknown) => unknown;
      return { ok: true, value: await handler(parsed.data) };
    } catch (error) {
      if (error instanceof ServiceError) {
        return failure(error.toBody());
      }
      onInternalError(channel, error);
      return failure({ code: 'internal', message: `${channel} failed unexpectedly; see the main-process log.` });
    }
  };
}

function failure(error: ContractErrorBody): Envelope<never> {
  return { ok: false, error };
}
