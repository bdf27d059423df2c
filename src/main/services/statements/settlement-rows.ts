// A settlement report's row as a line: its type, ids, amounts and dates read through the layout,
// and its natural key (its type, its settlement or wallet, and the transaction it is about). A
// line without any id is keyed by the hash of what it says.
import { createHash } from 'node:crypto';
import { sumAmounts } from '../../../shared/money';
import type { Direction, LineType, StagedSettlementLine } from '../../ledger/repositories/settlement-lines';
import { currencyAmount, magnitude, type RowReader } from './cells';

/** Spellings of each line type (compared without case, spaces, dashes or underscores). */
const TYPE_WORDS: Record<string, LineType> = {
  payin: 'payin',
  sale: 'payin',
  payment: 'payin',
  charge: 'payin',
  capture: 'payin',
  payout: 'payout',
  withdrawal: 'payout',
  payoutreversal: 'payout_reversal',
  reversal: 'payout_reversal',
  payoutreturn: 'payout_reversal',
  topup: 'topup',
  deposit: 'topup',
  funding: 'topup',
};

/** Which way each type moves money when the row does not say. */
const DEFAULT_DIRECTION: Record<LineType, Direction> = { payin: 'credit', payout: 'debit', payout_reversal: 'credit', topup: 'credit' };

function lineType(row: RowReader): LineType {
  const word = row.text('type');
  if (word !== null) {
    const type = TYPE_WORDS[word.toLowerCase().replace(/[\s_-]/g, '')];
    if (!type) return row.fail('type', `"${word}" is not a line type this report can have (payin, payout, payout_reversal, topup)`);
    return type;
  }
  // No type column: the ids the row carries say what it is about.
  if (row.text('payout_id') !== null || row.text('merchantReference') !== null) return 'payout';
  if (row.text('topup_id') !== null) return 'topup';
  return 'payin';
}

export function settlementLineFrom(row: RowReader): StagedSettlementLine {
  const type = lineType(row);
  const currency = row.currency('currency');
  const signed = row.amount('amount') ?? row.fail('amount', 'is empty; an amount is needed');
  const { amount: size, negative } = magnitude(signed);
  const amount = currencyAmount(size, currency);
  const fee = currencyAmount(magnitude(row.amount('fee') ?? '0').amount, currency);
  const stated = row.direction('direction');
  // A negative amount is money the other way (a debit where the type credits).
  const natural = stated ?? DEFAULT_DIRECTION[type];
  const direction: Direction = negative ? (natural === 'credit' ? 'debit' : 'credit') : natural;
  const givenNet = row.amount('net');
  const net = givenNet === null ? sumAmounts([amount, direction === 'credit' ? `-${fee}` : fee]) : magnitude(givenNet).amount;
  if (net.startsWith('-')) row.fail('fee', `makes the net below zero (amount ${amount}, fee ${fee})`);

  // A provider's "Merchant Reference" is the merchant's own reference whatever the line: a payout's
  // merchantReference, but on a pay-in line its request_id (the spec's name for it there).
  const reference = row.id('merchantReference');
  const payin = type === 'payin';
  const settlementId = row.id('settlement_id');
  const walletId = row.id('wallet_id');
  const payinId = row.id('payin_id');
  const requestId = row.id('request_id') ?? (payin ? reference : null);
  const payoutId = row.id('payout_id');
  const merchantReference = payin ? null : reference;
  const topupId = row.id('topup_id');
  if (type === 'payin' && payinId === null && requestId === null) row.fail('payin_id', 'and request_id are both empty: a pay-in line needs one of them');
  if ((type === 'payout' || type === 'payout_reversal') && payoutId === null && merchantReference === null) {
    row.fail('payout_id', 'and merchantReference are both empty: a payout line needs one of them');
  }
  const method = row.text('method', 40);
  const occurredAt = row.time('time');
  const bookingDate = row.date('booking_date');
  const subjectId = payinId ?? requestId ?? payoutId ?? merchantReference ?? topupId;
  const baseKey =
    subjectId === null
      ? `hash|${createHash('sha256').update(JSON.stringify([type, settlementId, walletId, currency, amount, fee, direction, occurredAt, bookingDate])).digest('hex')}`
      : `${type}|${settlementId ?? walletId ?? ''}|${subjectId}`;
  return {
    line: row.line,
    baseKey,
    type,
    settlementId,
    walletId,
    payinId,
    requestId,
    payoutId,
    merchantReference,
    topupId,
    method,
    currency,
    amount,
    fee,
    net: currencyAmount(net, currency),
    direction,
    occurredAt,
    bookingDate,
  };
}

/**
 * The natural keys a file's lines have shown so far, each as a 30-bit hash (a million of them in a
 * few MB, where the keys themselves would take a hundred and more). A line whose key's hash is new
 * is its key's first occurrence; one whose hash was seen may repeat a key (or only share its hash),
 * and is left for the commit to count exactly.
 */
export class FirstOccurrences {
  private readonly seen = new Set<number>();

  /** 1 when the key has surely not been seen in the file before; null when it may have been. */
  of(baseKey: string): 1 | null {
    // FNV-1a over the key's UTF-16 code units, kept within a small integer.
    let hash = 0x811c9dc5;
    for (let i = 0; i < baseKey.length; i++) hash = Math.imul(hash ^ baseKey.charCodeAt(i), 0x01000193);
    hash &= 0x3fffffff;
    if (this.seen.has(hash)) return null;
    this.seen.add(hash);
    return 1;
  }
}
