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
import { InvalidCursorError } from '../invalid-cursor';
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
    fields[path] ??= shortened(issue.message);
  }
  return fields;
}

/** A problem stays readable whatever the input: zod lists every unrecognized key, and a hostile object can have thousands. */
const MAX_PROBLEM_CHARS = 300;
/** The message names the first fields; `fields` holds them all. */
const MAX_FIELDS_IN_MESSAGE = 20;

function shortened(problem: string): string {
  return problem.length > MAX_PROBLEM_CHARS ? `${problem.slice(0, MAX_PROBLEM_CHARS)}…` : problem;
}

function describeFields(fields: Record<string, string>): string {
  const entries = Object.entries(fields);
  const named = entries.slice(0, MAX_FIELDS_IN_MESSAGE).map(([field, problem]) => `${field}: ${problem}`);
  if (entries.length > MAX_FIELDS_IN_MESSAGE) named.push(`and ${entries.length - MAX_FIELDS_IN_MESSAGE} more fields`);
  return named.join('; ');
}

/** A refused input in a person's words: each field and its problem (the screen shows each at its field too). */
const invalidInput = (fields: Record<string, string>) => `Not accepted: ${describeFields(fields)}.`;

export function createDispatcher(handlers: Handlers, onInternalError: (channel: string, error: unknown) => void): Dispatch {
  return async (channel, input) => {
    if (!isInvokeChannel(channel)) {
      return failure({ code: 'unknown_channel', message: `Unknown channel "${channel}".` });
    }
    const parsed = parseInput(channel, input);
    if (parsed === null) {
      const fields = { '(input)': 'is not a value this call accepts (a field holds an object where text or a number belongs)' };
      return failure({ code: 'invalid_input', message: invalidInput(fields), fields });
    }
    if (!parsed.success) {
      const fields = zodIssuesToFields(parsed.error.issues);
      return failure({ code: 'invalid_input', message: invalidInput(fields), fields });
    }
    try {
      const handler = handlers[channel] as (input: unknown) => unknown;
      return { ok: true, value: await handler(parsed.data) };
    } catch (error) {
      if (error instanceof ServiceError) {
        return failure(error.toBody());
      }
      // Every list's cursor is checked where it is read: a bad one is the caller's mistake, whichever list.
      if (error instanceof InvalidCursorError) {
        const fields = { cursor: 'is not a position of this list; start again from its first page' };
        return failure({ code: 'invalid_input', message: invalidInput(fields), fields });
      }
      onInternalError(channel, error);
      // The channel goes to the log; the message is shown on a screen, where a channel's name means nothing.
      return failure({ code: 'internal', message: 'This failed unexpectedly in Paydesk; the main-process log says why.' });
    }
  };
}

/**
 * safeParse, or null when zod itself throws. It can: its length checks also run on a value that
 * failed the string check, and compare that value's `length` as a number; a JSON body such as
 * {"search":{"length":{"valueOf":1,"toString":1}}} then throws a TypeError instead of an issue.
 */
function parseInput<C extends InvokeChannel>(channel: C, input: unknown) {
  try {
    return invokeContract[channel].input.safeParse(input);
  } catch {
    return null;
  }
}

function failure(error: ContractErrorBody): Envelope<never> {
  return { ok: false, error };
}
