// Exports must not corrupt ids. The card-number masking of CSV exports and the
// evidence pack used to rewrite digit groups of ordinary UUIDs ("cabdb3bd-d47c-4999-8779-…" became
// "…-499987*****4237…"). Property, against a real core and ledger file: random UUIDs (digit-heavy
// ones too), references (digits only and Luhn-valid too), idempotency keys and amounts survive
// every export — the pay-ins and payouts CSVs, the reconciliation CSVs (payouts included) and the evidence pack
// of a pay-in and of a payout — byte for byte, while a card number in every card field (cardNum,
// paymentDetails.cardNum, a notification's card number) comes out as first 6 / last 4 only.
import Papa from 'papaparse';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LosslessNumber, parseJson } from '../../src/shared/json';
import { cardFacts } from '../../src/main/services/payments/card-facts';
import { maskPan } from '../../src/shared/redact';
import { useHarness, type Harness } from '../integration/verification/harness';
import { checkParams } from './helpers/arbitraries';
import { luhnComplete } from './helpers/sentinels';
import { applyCreateAnswer } from '../../src/main/services/payments/apply';

let h: Harness;
let profileId: string;
useHarness((started, id) => {
  h = started;
  profileId = id;
});

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));
/** UUIDs as generated, and ones whose groups are all digits: the shape the old masker rewrote. */
const uuid = fc.oneof(
  fc.uuid(),
  fc.tuple(hex(8), hex(4), digits(4), digits(4), fc.oneof(digits(12), hex(12))).map((parts) => parts.join('-')),
  fc.constant('cabdb3bd-d47c-4999-8779-1974237d4f2a'),
);
const luhnDigits = fc.integer({ min: 13, max: 19 }).chain((n) => digits(n - 1).map(luhnComplete));
/** Merchant references as merchants write them; none starts with = + - @ (a CSV cell would get the formula guard). */
const reference = fc.oneof(
  uuid,
  luhnDigits,
  fc.tuple(fc.constantFrom('order-', 'inv_', 'R', 'ref '), luhnDigits).map(([prefix, n]) => `${prefix}${n}`),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._:/#-]{0,40}$/),
);
const idempotencyKey = fc.oneof(uuid, luhnDigits, fc.stringMatching(/^[A-Za-z0-9][\x21-\x7e]{0,60}$/).filter((k) => !/["\\]/.test(k)));
/** Fiat: up to 13 integer digits (Luhn-valid runs included), 0-2 decimals; crypto: up to 10 decimals. */
const amount = fc.oneof(
  fc.tuple(fc.oneof(luhnDigits.filter((d) => d.length <= 13 && !d.startsWith('0')), digits(1).filter((d) => d !== '0'), fc.integer({ min: 1, max: 999_999 }).map(String)), fc.constantFrom('', '.5', '.05', '.70', '.99')).map(([i, f]) => ({ method: 'blik', text: `${i}${f}` })),
  fc.tuple(fc.integer({ min: 0, max: 99_999 }), digits(10)).map(([i, f]) => ({ method: 'crypto', text: `${i}.${f}` })).filter((a) => a.text !== '0.0000000000'),
);
const pan = fc.tuple(fc.constantFrom('4', '51', '37', '6011'), fc.integer({ min: 13, max: 19 })).chain(([prefix, length]) => digits(length - prefix.length - 1).map((middle) => luhnComplete(`${prefix}${middle}`)));

/** Documents read loosely on purpose: the assertions are the type check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

const TWO_HOURS_AGO = () => new Date(Date.now() - 2 * 3_600_000);
/** Every reference, id and key used so far: a generated repeat is skipped (fc.pre), never altered. */
const used = new Set<string>();

interface Case {
  payinRef: string;
  payinId: string;
  payinKey: string;
  payoutRef: string;
  payoutId: string;
  payoutKey: string;
  unknownKey: string;
  payinAmount: { method: string; text: string };
  payoutAmount: { method: string; text: string };
  pan: string;
}

/** Ledger rows as the app writes them, two hours old so they are in the 'pending too long' and 'stuck' lists. */
async function record(c: Case) {
  const repos = h.repos(TWO_HOURS_AGO);
  const { payinRef, payoutRef, payinKey, payoutKey, unknownKey } = c;

  const payinAttempt = await repos.attempts.prepare({
    profileId,
    kind: 'payin',
    idempotencyKey: payinKey,
    reference: payinRef,
    body: { request_id: payinRef, payment_method: c.payinAmount.method, amount: new LosslessNumber(c.payinAmount.text), currency: 'EUR', cardNum: c.pan, cardCvv: '123', email: 'ana@example.com' },
  });
  await repos.attempts.markSending(payinKey);
  await repos.attempts.markSucceeded(payinKey, { httpStatus: 200, responseBody: JSON.stringify({ status: 'success', status_code: 100, request_id: payinRef, payin_id: c.payinId }) });
  const card = cardFacts({ number: c.pan, expMonth: '12', expYear: '2031' });
  const payin = await repos.payins.recordRequest({ profileId, kind: 'payin', requestId: payinRef, method: c.payinAmount.method, amount: c.payinAmount.text, currency: 'EUR', email: 'ana@example.com', attemptId: payinAttempt.id, card });
  await applyCreateAnswer(repos.payins, payin.id, { gatewayId: c.payinId, statusCode: 100 });
  const body = `{"event":"v2_payin_notification","payin_id":"${c.payinId}","request_id":${JSON.stringify(payinRef)},"status_code":101,"amount":${c.payinAmount.text},"currency":"EUR","cardNum":"${c.pan}"}`;
  const [notificationId] = (await repos.notifications.insertMany([
    {
      profileId,
      receivedAt: TWO_HOURS_AGO().toISOString(),
      sourceAddress: '127.0.0.1',
      rawHeaders: ['content-type', 'application/json', 'x-request-id', c.payinId],
      body: Buffer.from(body),
      bodySize: Buffer.byteLength(body),
      bodyTruncated: false,
      answerStatus: 200,
      event: 'v2_payin_notification',
      transactionRef: c.payinId,
      requestRef: payinRef,
      statusCode: '101',
      dedupeKey: `v2_payin_notification|${c.payinId}|101`,
      outcome: 'pending',
      detail: null,
    },
  ])) as [number];
  await repos.notifications.markOutcome(notificationId, 'applied', { payinRowId: payin.id });

  const payoutAttempt = await repos.attempts.prepare({
    profileId,
    kind: 'payout',
    idempotencyKey: payoutKey,
    reference: payoutRef,
    body: { merchantReference: payoutRef, method: 'credit_card', amount: new LosslessNumber(c.payoutAmount.text), currency: 'EUR', paymentDetails: { method: 'credit_card', cardNum: c.pan, cardHolder: 'Ana Lima' } },
  });
  await repos.attempts.markSending(payoutKey);
  await repos.attempts.markSucceeded(payoutKey, { httpStatus: 200, responseBody: JSON.stringify({ status: 'success', status_code: 'P100', payout_id: c.payoutId, merchantReference: payoutRef }) });
  const payout = await repos.payouts.recordRequest({ profileId, merchantReference: payoutRef, method: c.payoutAmount.method, amount: c.payoutAmount.text, currency: 'EUR', email: 'ana@example.com', attemptId: payoutAttempt.id });
  await applyCreateAnswer(repos.payouts, payout.id, { gatewayId: c.payoutId, statusCode: 'P100' });

  // A create whose outcome is unknown: the 'unknown attempts' list.
  await repos.attempts.prepare({ profileId, kind: 'payin', idempotencyKey: unknownKey, reference: `${payinRef}-u`, body: { request_id: `${payinRef}-u`, amount: new LosslessNumber(c.payinAmount.text) } });
  await repos.attempts.markSending(unknownKey);
  await repos.attempts.markUnknown(unknownKey, { error: 'timeout' });

  return { payin: (await repos.payins.byId(payin.id))!, payout: (await repos.payouts.byId(payout.id))!, payinRef, payoutRef, payinKey, payoutKey };
}

const parseCsv = (text: string): Record<string, string>[] => Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;

describe('exports keep ids, references, keys and amounts byte for byte, and mask card fields', () => {
  it('pay-ins and payouts CSVs, reconciliation CSVs and evidence packs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ payinRef: reference, payinId: uuid, payinKey: idempotencyKey, payoutRef: reference, payoutId: uuid, payoutKey: idempotencyKey, unknownKey: idempotencyKey, payinAmount: amount, payoutAmount: amount, pan }),
        async (c) => {
          const values = [c.payinRef, `${c.payinRef}-u`, c.payinId, c.payinKey, c.payoutRef, c.payoutId, c.payoutKey, c.unknownKey];
          fc.pre(new Set(values).size === values.length && values.every((v) => !used.has(v)));
          for (const v of values) used.add(v);
          const { payin, payout, payinRef, payoutRef, payinKey, payoutKey } = await record(c);
          const masked = maskPan(c.pan);

          const payins = await h.call('payins:export-csv', {});
          expect(payins.csv).not.toContain(c.pan);
          const payinRow = parseCsv(payins.csv).find((r) => r.payin_id === c.payinId);
          const shortMask = `${c.pan.slice(0, 6)}******${c.pan.slice(-4)}`;
          expect(payinRow, `pay-in ${c.payinId} in the CSV`).toMatchObject({ request_id: payinRef, amount: payin.amount, card: shortMask, card_expiry: '12/2031' });
          const payouts = await h.call('payouts:export-csv', {});
          expect(payouts.csv).not.toContain(c.pan);
          expect(parseCsv(payouts.csv).find((r) => r.payout_id === c.payoutId), `payout ${c.payoutId} in the CSV`).toMatchObject({ merchantReference: payoutRef, amount: payout.amount });

          for (const kind of ['pending_too_long', 'payouts_stuck', 'unknown_attempts'] as const) {
            const file = await h.call('reconciliation:export-csv', { what: 'exceptions', kind, profileId });
            expect(file.csv).not.toContain(c.pan);
            const rows = parseCsv(file.csv);
            if (kind === 'unknown_attempts') {
              expect(rows.some((r) => r.reference === `${payinRef}-u`)).toBe(true);
              continue;
            }
            expect(rows.find((r) => r.gateway_id === c.payoutId), `payout ${c.payoutId} in ${kind}`).toMatchObject({ reference: payoutRef, amount: payout.amount });
            if (kind === 'pending_too_long') expect(rows.find((r) => r.gateway_id === c.payinId)).toMatchObject({ reference: payinRef, amount: payin.amount });
          }

          const payinPack = await h.call('evidence:export', { subject: 'payin', id: payin.id });
          expect(payinPack.json).not.toContain(c.pan);
          const payinDoc = parseJson(payinPack.json) as Loose;
          expect(payinDoc.transaction).toMatchObject({ requestId: payinRef, payinId: c.payinId, amount: payin.amount, card: { maskedPan: shortMask, expMonth: '12', expYear: '2031' } });
          expect(payinDoc.attempts[0]).toMatchObject({ idempotencyKey: payinKey, request: { request_id: payinRef, cardNum: masked, cardCvv: '[redacted]' }, response: { payin_id: c.payinId } });
          expect(String(payinDoc.attempts[0].request.amount)).toBe(c.payinAmount.text);
          const notification = parseJson(payinDoc.notifications[0].body) as Record<string, unknown>;
          expect(notification).toMatchObject({ payin_id: c.payinId, request_id: payinRef, cardNum: masked });
          expect(String(notification.amount)).toBe(c.payinAmount.text);
          expect(payinDoc.notifications[0].headers).toContainEqual(['x-request-id', c.payinId]);

          const payoutPack = await h.call('evidence:export', { subject: 'payout', id: payout.id });
          expect(payoutPack.json).not.toContain(c.pan);
          const payoutDoc = parseJson(payoutPack.json) as Loose;
          expect(payoutDoc.transaction).toMatchObject({ merchantReference: payoutRef, payoutId: c.payoutId, amount: payout.amount });
          expect(payoutDoc.attempts[0]).toMatchObject({ idempotencyKey: payoutKey, request: { merchantReference: payoutRef, paymentDetails: { cardNum: masked } }, response: { payout_id: c.payoutId } });
          expect(String(payoutDoc.attempts[0].request.amount)).toBe(c.payoutAmount.text);
        },
      ),
      checkParams(30),
    );
  });
});
