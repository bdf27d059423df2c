import { describe, expect, it } from 'vitest';
import { classifyAnswer, parseRetryAfter } from '../../../src/main/gateway/classify';
import { networkFailure } from '../../../src/main/gateway/http';
import { numberText } from '../../../src/shared/json';
import { describePayinStatus, describeReason } from '../../../src/shared/spec/codes';
import { PayinCreateResponseSchema, PayinStatusResponseSchema } from '../../../src/shared/spec/schemas';

const NOW = Date.UTC(2030, 0, 1, 0, 0, 0);
const answer = (status: number, text: string, retryAfter: string | null = null) => ({ status, text, retryAfter });

describe('classifyAnswer', () => {
  it('accepts a 200 with unknown codes, extra fields and missing fields, keeping them all', () => {
    const r = classifyAnswer(answer(200, '{"status":"pending_review","status_code":777,"reason_code":"BRAND_NEW","shiny":{"a":1}}'), PayinStatusResponseSchema, NOW);
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.body).toMatchObject({ status: 'pending_review', status_code: 777, reason_code: 'BRAND_NEW', shiny: { a: 1 } });
    expect(describePayinStatus(r.body.status_code)).toMatchObject({ known: false, code: 777 });
    expect(describeReason(r.body.reason_code)).toMatchObject({ known: false, code: 'BRAND_NEW' });
  });

  it('accepts an empty object and wrong-typed fields without failing', () => {
    expect(classifyAnswer(answer(200, '{}'), PayinCreateResponseSchema, NOW).kind).toBe('ok');
    const r = classifyAnswer(answer(200, '{"payin_id":42,"status_code":"P-9"}'), PayinCreateResponseSchema, NOW);
    expect(r).toMatchObject({ kind: 'ok', body: { status_code: 'P-9' } });
  });

  it('parses amounts exactly, never through a binary float', () => {
    const r = classifyAnswer(answer(200, '{"amount":12345678901234.1234567891,"small":0.1}'), PayinStatusResponseSchema, NOW);
    expect(r.kind === 'ok' && numberText(r.body.amount)).toBe('12345678901234.1234567891');
    expect(r.kind === 'ok' && r.raw).toContain('12345678901234.1234567891');
  });

  it('a 2xx that is not a JSON object is an unexpected response, not a success', () => {
    for (const text of ['<html>', '', '[1,2]', '"ok"', '{"a":1,"a":2}']) {
      expect(classifyAnswer(answer(200, text), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'unexpected_response', status: 200 });
    }
  });

  it('4xx is rejected with the 2.3 body; 400, 401 and 413 alike; an HTML body gives an empty error', () => {
    expect(classifyAnswer(answer(400, '{"status":"error","status_code":510,"reason_code":"MISSING_PARAMS","details":{"email":"missing"}}'), PayinCreateResponseSchema, NOW)).toMatchObject({
      kind: 'rejected',
      status: 400,
      body: { status_code: 510, reason_code: 'MISSING_PARAMS', details: { email: 'missing' } },
    });
    expect(classifyAnswer(answer(401, '{"status_code":502}'), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'rejected', status: 401 });
    expect(classifyAnswer(answer(413, '<html>too big</html>'), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'rejected', status: 413, body: {} });
  });

  it('429 is rate limited with Retry-After; 5xx is a server error; 3xx is unexpected', () => {
    expect(classifyAnswer(answer(429, '{"reason_code":"TRANSIENT_ERROR"}', '2'), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 2, body: { reason_code: 'TRANSIENT_ERROR' } });
    expect(classifyAnswer(answer(429, ''), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: null });
    expect(classifyAnswer(answer(500, '{"status_code":501,"reason_code":"SYSTEM_ERROR"}'), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'server_error', status: 500 });
    expect(classifyAnswer(answer(503, 'Service Unavailable'), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'server_error', status: 503, body: {} });
    expect(classifyAnswer(answer(302, ''), PayinCreateResponseSchema, NOW)).toMatchObject({ kind: 'unexpected_response', status: 302 });
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates, and ignores nonsense', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 17 ', NOW)).toBe(17);
    expect(parseRetryAfter(new Date(NOW + 4_500).toUTCString(), NOW)).toBe(4);
    expect(parseRetryAfter(new Date(NOW - 60_000).toUTCString(), NOW)).toBe(0);
    for (const bad of [null, undefined, '', '-1', '1.5', 'soon', '12345678901']) expect(parseRetryAfter(bad, NOW)).toBeNull();
  });
});

describe('networkFailure', () => {
  it('describes a failure by its code only, never by the underlying message', () => {
    const secret = 'mt_SECRET_TOKEN';
    const refused = networkFailure(Object.assign(new TypeError(`fetch failed ${secret}`), { cause: Object.assign(new Error(`connect ECONNREFUSED ${secret}`), { code: 'ECONNREFUSED' }) }));
    expect(refused).toEqual({ kind: 'network_error', message: 'connection refused (ECONNREFUSED)', connectFailed: true });
    const reset = networkFailure(new TypeError('fetch failed', { cause: Object.assign(new Error(secret), { code: 'UND_ERR_SOCKET' }) }));
    expect(reset).toEqual({ kind: 'network_error', message: 'connection closed by the server (UND_ERR_SOCKET)', connectFailed: false });
    expect(networkFailure(new Error(secret)).message).toBe('network error');
    expect(networkFailure({ code: `weird ${secret}` }).message).toBe('network error');
    expect(networkFailure(null).message).toBe('network error');
  });
});
