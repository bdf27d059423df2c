// The notification listener's address (PRODUCT.md capability 4): where it listens now, and a
// change of host or port, which main applies at once by restarting the listener and keeps in the
// ledger's settings for the next start. Each profile's notification URL follows (profiles push).
import { z } from 'zod';
import { noInput } from './app';

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

/** An IP address literal or "localhost": the listener binds to an address, it does not resolve names. */
export function isListenerHost(value: string): boolean {
  return value === 'localhost' || IPV4.test(value) || (value.includes(':') && IPV6.test(value));
}

/** Loopback hosts cannot be reached from another machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

export const listenerStateSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  /** http://host:port — the base of every local notification URL. */
  origin: z.string(),
  loopback: z.boolean(),
});
export type ListenerState = z.infer<typeof listenerStateSchema>;

export const listenerUpdateSchema = z
  .object({
    host: z
      .string()
      .trim()
      .min(1, 'Required: 127.0.0.1 keeps the listener on this machine.')
      .max(64)
      .refine(isListenerHost, 'Must be an IP address of this machine (127.0.0.1 for loopback, 0.0.0.0 for every interface) or localhost.')
      .optional(),
    port: z.number().int('A whole number.').min(0, 'From 0 (any free port) to 65535.').max(65535, 'From 0 (any free port) to 65535.').optional(),
  })
  .strict();
export type ListenerUpdate = z.infer<typeof listenerUpdateSchema>;

export const listenerContract = {
  invoke: {
    'settings:get-listener': { input: noInput, output: listenerStateSchema },
    /** Restarts the listener on the new address; on failure the old address keeps listening. */
    'settings:update-listener': { input: listenerUpdateSchema, output: listenerStateSchema },
  },
  push: {
    'settings:listener-changed': listenerStateSchema,
  },
} as const;
