// The state machines of batches, batch items and approvals, as tables: every move each allows, a
// sample of the moves it refuses, and that final states are final. The tables are typed by the
// contract's states (a state added there fails the typecheck until its table says where it goes);
// these check the same at run time against the contract's lists.
import { describe, expect, it } from 'vitest';
import { approvalStateSchema, batchItemStateSchema, batchStateSchema } from '../../../src/shared/contract';
import { APPROVAL_MOVES, DECIDED, approvalMove } from '../../../src/main/services/approvals/approval-states';
import { BATCH_MOVES, ITEM_MOVES, OPEN_ITEMS, batchMove, itemMove } from '../../../src/main/services/payouts-batch/batch-states';
import { RefusedMove, canMove, finalStates, isFinal, move, type Transitions } from '../../../src/main/services/state-machine';

/** Every pair (from, to) the table allows. */
const allowed = <S extends string>(table: Transitions<S>) => (Object.keys(table) as S[]).flatMap((from) => table[from].map((to) => [from, to] as const));

function checksTable<S extends string>(name: string, table: Transitions<S>, states: readonly S[], moves: readonly (readonly [S, S])[], refused: readonly (readonly [S, S])[], finals: readonly S[]) {
  describe(name, () => {
    it('has an entry for every state of the contract, and moves only to states of the contract', () => {
      expect(Object.keys(table).sort()).toEqual([...states].sort());
      for (const [, to] of allowed(table)) expect(states).toContain(to);
    });

    it('allows exactly these moves', () => {
      expect(allowed(table).map(([from, to]) => `${from}→${to}`).sort()).toEqual(moves.map(([from, to]) => `${from}→${to}`).sort());
      for (const [from, to] of moves) expect(move(name, table, from, to)).toEqual({ from: [from], to });
    });

    it('refuses moves it does not list, naming them', () => {
      for (const [from, to] of refused) {
        expect(canMove(table, from, to), `${from}→${to}`).toBe(false);
        expect(() => move(name, table, from, to)).toThrow(RefusedMove);
        expect(() => move(name, table, from, to)).toThrow(`${name}: ${from} → ${to} is not a move of its state machine`);
      }
    });

    it('keeps final states final: nothing moves out of them', () => {
      expect(finalStates(table).sort()).toEqual([...finals].sort());
      for (const final of finals) {
        expect(isFinal(table, final)).toBe(true);
        for (const to of states) expect(canMove(table, final, to), `${final}→${to}`).toBe(false);
      }
    });
  });
}

checksTable(
  'batch',
  BATCH_MOVES,
  batchStateSchema.options,
  [['draft', 'running'], ['running', 'paused'], ['running', 'done'], ['running', 'cancelled'], ['paused', 'running'], ['paused', 'cancelled']],
  [['draft', 'paused'], ['draft', 'done'], ['draft', 'cancelled'], ['running', 'draft'], ['paused', 'done'], ['paused', 'draft'], ['running', 'running']],
  ['done', 'cancelled'],
);

checksTable(
  'batch item',
  ITEM_MOVES,
  batchItemStateSchema.options,
  [
    ['pending', 'sending'], ['pending', 'refused'], ['pending', 'cancelled'],
    ['sending', 'sent'], ['sending', 'refused'], ['sending', 'unknown'],
    ['unknown', 'sent'], ['unknown', 'refused'], ['unknown', 'unknown'],
  ],
  // Never back to pending, never cancelled once it may have left, never sent without a key.
  [['sending', 'pending'], ['unknown', 'pending'], ['sending', 'cancelled'], ['unknown', 'cancelled'], ['pending', 'sent'], ['pending', 'unknown'], ['unknown', 'sending']],
  ['sent', 'refused', 'cancelled'],
);

checksTable(
  'approval',
  APPROVAL_MOVES,
  approvalStateSchema.options,
  [['awaiting', 'approved'], ['awaiting', 'rejected'], ['awaiting', 'withdrawn'], ['awaiting', 'expired'], ['awaiting', 'voided']],
  [['approved', 'rejected'], ['rejected', 'approved'], ['expired', 'approved'], ['withdrawn', 'awaiting'], ['voided', 'approved'], ['approved', 'awaiting']],
  ['approved', 'rejected', 'withdrawn', 'expired', 'voided'],
);

describe('the moves the services ask for', () => {
  it('check every state they move from: one the table refuses fails the whole move', () => {
    expect(itemMove(OPEN_ITEMS, 'sent')).toEqual({ from: ['sending', 'unknown'], to: 'sent' });
    expect(() => itemMove(['pending', ...OPEN_ITEMS], 'sent')).toThrow('batch item: pending → sent is not a move of its state machine');
    expect(() => batchMove('done', 'running')).toThrow(RefusedMove);
    expect(() => approvalMove('approved', 'withdrawn')).toThrow(RefusedMove);
  });

  it('list as decided exactly the approvals’ final states', () => {
    expect([...DECIDED].sort()).toEqual(['approved', 'expired', 'rejected', 'voided', 'withdrawn']);
  });
});
