// A notification whose body repeats a key with another value (`"event"` twice)
// was read by JSON.parse (the last value wins), answered 200 and queued, where the emulator refuses
// the same body: which value counts is the parser's choice, so the body is ambiguous. The intake
// now reads bodies by the emulator's rule: such a body is malformed (400); an identical repeat is
// harmless, and a body with no repeat is read exactly as before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyRequest } from '../../../src/main/listener/intake';

const LIMIT = 256 * 1024;
const classify = (text: string) => {
  const body = Buffer.from(text, 'utf8');
  return classifyRequest({ body, size: body.length, truncated: false, abusive: false }, 'application/json', LIMIT);
};

/** A notification as the emulator sends it, with extra members of any JSON value. */
const notification = fc
  .record({
    event: fc.constantFrom('v2_payin_notification', 'v2_tokenization_notification', 'v2_payout_notification'),
    payin_id: fc.uuid(),
    payout_id: fc.uuid(),
    request_id: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
    merchantReference: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
    status_code: fc.oneof(fc.constantFrom(200, 302, 100), fc.constantFrom('P200', 'C405', '200')),
  })
  .chain((base) =>
    fc.dictionary(fc.string({ maxLength: 12 }).filter((key) => !(key in base) && key !== '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((extra) => ({ ...base, ...extra })),
  );

/** The object's JSON text with the member `key` written again right after itself, with `value`. */
function withRepeat(object: Record<string, unknown>, key: string, value: unknown): string {
  const members = Object.entries(object).flatMap(([name, member]) => {
    const written = `${JSON.stringify(name)}:${JSON.stringify(member)}`;
    return name === key ? [written, `${JSON.stringify(name)}:${JSON.stringify(value)}`] : [written];
  });
  return `{${members.join(',')}}`;
}

describe('listener intake: repeated keys', () => {
  it('keeps a body that repeats a key with another value as malformed (400), naming the key', () => {
    fc.assert(
      // Scalars as the other value: the shared rule (lossless-json's deep equality) takes an empty
      // object and an empty array, or {"0":1} and [1], for the same value, here as in the emulator.
      fc.property(notification, fc.nat(), fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null)), (object, pick, other) => {
        const keys = Object.keys(object);
        const key = keys[pick % keys.length] as string;
        fc.pre(JSON.stringify(other) !== JSON.stringify(object[key as keyof typeof object]));
        const result = classify(withRepeat(object, key, other));
        expect(result).toMatchObject({ outcome: 'malformed', answerStatus: 400, event: null, dedupeKey: null });
        expect(result.detail).toBe(`body repeats a key with another value (Duplicate key "${key}")`);
      }),
      { numRuns: 300 },
    );
  });

  it('finds a repeat inside a nested object too', () => {
    const text = '{"event":"v2_tokenization_notification","payin_id":"p-1","status_code":200,"card":{"last4":"1111","last4":"4242"}}';
    expect(classify(text)).toMatchObject({ outcome: 'malformed', answerStatus: 400, detail: expect.stringContaining('Duplicate key "last4"') });
  });

  it('reads a body with an identical repeat, or none, exactly as JSON.parse reads it', () => {
    fc.assert(
      fc.property(notification, fc.nat(), fc.boolean(), (object, pick, repeat) => {
        const keys = Object.keys(object);
        const key = keys[pick % keys.length] as string;
        const text = repeat ? withRepeat(object, key, object[key as keyof typeof object]) : JSON.stringify(object);
        const parsed = JSON.parse(text) as typeof object;
        const names = parsed.event === 'v2_payout_notification' ? { tx: parsed.payout_id, req: parsed.merchantReference } : { tx: parsed.payin_id, req: parsed.request_id };
        expect(classify(text)).toEqual({
          answerStatus: 200,
          outcome: 'pending',
          detail: null,
          event: parsed.event,
          transactionRef: names.tx,
          requestRef: names.req,
          statusCode: String(parsed.status_code),
          dedupeKey: `${parsed.event}|${names.tx}|${String(parsed.status_code)}`,
        });
      }),
      { numRuns: 300 },
    );
  });

  it('reads a status code written as a decimal or an exponent as the number it is', () => {
    expect(classify('{"event":"v2_payin_notification","payin_id":"p","status_code":200.0}')).toMatchObject({ outcome: 'pending', statusCode: '200' });
    expect(classify('{"event":"v2_payin_notification","payin_id":"p","status_code":3.02e2}')).toMatchObject({ outcome: 'pending', statusCode: '302' });
  });
});
