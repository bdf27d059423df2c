import { breakQueueSchema, type BreakQueue } from '../../../../shared/contract';

/** What each break queue is called and holds (a queue added to the contract fails the typecheck here). */
const QUEUE_TEXT: Record<BreakQueue, { label: string; explains: string; empty: string }> = {
  unsettled: { label: 'Not settled', explains: 'Succeeded in the ledger, but on no imported report line after the days set above.', empty: 'Every success in the ledger is on a report line.' },
  not_successful: { label: 'Settled, not successful', explains: 'On a report line, but not a success in the ledger (for a payout: failed, and no reversal line).', empty: 'Every report line settles a success in the ledger.' },
  amount_differs: { label: 'Amount differs', explains: 'Matched by id, but the report and the ledger disagree on the amount or the currency.', empty: 'Every line matched by id agrees with the ledger on amount and currency.' },
  unknown_to_ledger: { label: 'Unknown to the ledger', explains: 'On a report line, but no pay-in or payout in the ledger has its ids.', empty: 'Every report line is a pay-in or payout the ledger has.' },
  settled_twice: { label: 'Settled twice', explains: 'A pay-in or payout on more than one report line.', empty: 'No pay-in or payout is on more than one report line.' },
  no_bank_credit: { label: 'No bank credit', explains: 'A settlement that pays something, with no bank credit matched to it.', empty: 'Every settlement that pays something has a bank credit.' },
  credit_without_settlement: { label: 'Credit, no settlement', explains: 'A bank credit matched to no settlement (a proposal may wait for you above).', empty: 'Every bank credit is matched to a settlement.' },
  credit_differs: { label: 'Credit differs', explains: 'A settlement whose bank credits do not come to its net.', empty: 'Every settlement’s bank credits come to its net.' },
};

/** The break queues in the contract's order, with their words. */
export const BREAK_QUEUES = breakQueueSchema.options.map((queue) => ({ queue, ...QUEUE_TEXT[queue] }));
