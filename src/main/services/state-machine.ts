// A state machine as data: each state with the states it may move to (none: it is final). Typed by
// the state's own union, so a state added to it fails the typecheck until its table says where it
// goes. The services ask a table before they change a state; the repository then only writes the
// move it is given, as a compare-and-set on the states it moves from (the guard against a change
// another transaction or process made meanwhile).

import type { StateMove } from '../ledger/support';

export type Transitions<S extends string> = { readonly [K in S]: readonly S[] };

/** A move the table allows, from any of `from` to `to`: what a repository's compare-and-set writes. */
export type Move<S extends string> = StateMove<S>;

/** A move the table does not allow: a mistake in the code that asked for it, never a person's. */
export class RefusedMove extends Error {}

export function canMove<S extends string>(table: Transitions<S>, from: S, to: S): boolean {
  return table[from].includes(to);
}

export function isFinal<S extends string>(table: Transitions<S>, state: S): boolean {
  return table[state].length === 0;
}

/** The states nothing moves out of, in the table's order. */
export function finalStates<S extends string>(table: Transitions<S>): S[] {
  return (Object.keys(table) as S[]).filter((state) => isFinal(table, state));
}

/** The move from `from` (one state or several) to `to`; throws RefusedMove when the table does not allow each of them. */
export function move<S extends string>(what: string, table: Transitions<S>, from: S | readonly S[], to: S): Move<S> {
  const sources: readonly S[] = typeof from === 'string' ? [from] : from;
  for (const source of sources) {
    if (!canMove(table, source, to)) throw new RefusedMove(`${what}: ${source} → ${to} is not a move of its state machine`);
  }
  return { from: sources, to };
}
