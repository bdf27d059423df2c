// On a team server, the person whose request is being served, for the code that needs to know it
// without being told through every call: the audit log (its actor), the active profile (each
// person's own), settings (each person's own theme) and the authorisation of background effects.
// Set by the server around each contract call (AsyncLocalStorage); empty on a desk.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Person } from '../../../shared/contract';

export interface RequestPerson extends Person {
  sessionId: string;
  activeProfileId: string | null;
}

const storage = new AsyncLocalStorage<RequestPerson>();

export function runAs<T>(person: RequestPerson, fn: () => T): T {
  return storage.run(person, fn);
}

/** The person being served, or undefined (a desk, or work Paydesk does by itself). */
export function currentPerson(): RequestPerson | undefined {
  return storage.getStore();
}
