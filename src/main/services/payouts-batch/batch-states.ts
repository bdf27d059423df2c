// Where a batch and its items may go. A batch is a draft until it starts; it runs, is paused and
// resumed, and ends done (every item sent) or cancelled. An item is pending until its payout's
// intent is recorded (sending, with its key), and ends sent, refused or cancelled (before it was
// sent); one whose answer never came is unknown until it is settled under its key. The schema's
// trigger (migration 0007) refuses an item's move backwards as well.
import type { BatchItemState, BatchState } from '../../../shared/contract';
import { move, type Move, type Transitions } from '../state-machine';

export const BATCH_MOVES: Transitions<BatchState> = {
  draft: ['running'],
  running: ['paused', 'done', 'cancelled'],
  paused: ['running', 'cancelled'],
  done: [],
  cancelled: [],
};

export const ITEM_MOVES: Transitions<BatchItemState> = {
  // Prepared and claimed; a row the payout path refuses; cancelled with its batch.
  pending: ['sending', 'refused', 'cancelled'],
  sending: ['sent', 'refused', 'unknown'],
  // Settled under its key; still unknown when no settle could tell (its error says why now).
  unknown: ['sent', 'refused', 'unknown'],
  sent: [],
  refused: [],
  cancelled: [],
};

/** Items whose attempt may have left: only settled under their own key, never sent anew. */
export const OPEN_ITEMS: readonly BatchItemState[] = ['sending', 'unknown'];

export const batchMove = (from: BatchState | readonly BatchState[], to: BatchState): Move<BatchState> => move('batch', BATCH_MOVES, from, to);

export const itemMove = (from: BatchItemState | readonly BatchItemState[], to: BatchItemState): Move<BatchItemState> => move('batch item', ITEM_MOVES, from, to);
