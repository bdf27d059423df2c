// What every V2 endpoint checks before its own logic, in this order: merchant-token (401),
// Content-Type (400), Idempotency-Key on create calls (400), well-formed JSON object (400),
// body merchant_id of the token's merchant (401); then idempotent replay for create calls.
import { isJsonObject } from '../../shared/json';
import type { Reply, Request } from '../http/types';
import type { GateResponse, IdempotencyGate } from '../domain/idempotency-gate';
import { requestHash } from '../domain/idempotency-gate';
import type { MerchantAccount } from '../domain/merchant';
import { parseBody } from '../../shared/json-body';
import { apiError, BAD_REQUEST_CODE, type Flavor } from './replies';

export interface EndpointResult extends Reply {
  /** True when the request created something: the Idempotency-Key is bound to this answer. */
  bind?: boolean;
}

/**
 * A creation's writes, returned by a handler once every check has passed. The pipeline commits it
 * together with the binding of the Idempotency-Key, and answers once that commit is done.
 */
export type Commit = () => EndpointResult;

interface EndpointBase {
  flavor: Flavor;
  name: string;
}

/** A read: answers at once, writes nothing that needs committing. */
export interface ReadEndpointSpec extends EndpointBase {
  create: false;
  handle(body: Record<string, unknown>, req: Request): Promise<EndpointResult> | EndpointResult;
}

/** A create: needs an Idempotency-Key; its writes (a Commit) are committed with the key's binding. */
export interface CreateEndpointSpec extends EndpointBase {
  create: true;
  handle(body: Record<string, unknown>, req: Request): Promise<EndpointResult | Commit> | EndpointResult | Commit;
}

export type EndpointSpec = ReadEndpointSpec | CreateEndpointSpec;

export interface PipelineDeps {
  merchant: MerchantAccount;
  gate: IdempotencyGate;
}

const toGate = (r: EndpointResult): GateResponse => ({ httpStatus: r.status, text: r.body, bind: r.bind === true });

const header = (req: Request, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** What an error echoes as request_id: the pay-in's request_id, or the payout's merchantReference. */
const referenceOf = (flavor: Flavor, body: Record<string, unknown>): unknown => (flavor === 'payout' ? body.merchantReference : body.request_id);

/** 502 (Unauthorized) on pay-in endpoints; C501 on payouts, where 3.2 has no "unauthorised" code. */
export function unauthorized(flavor: Flavor, error: 'missing_token' | 'wrong_token' | 'merchant_mismatch', message: string, requestId?: unknown): Reply {
  return apiError(flavor, {
    http: 401,
    status_code: flavor === 'payin' ? 502 : 'C501',
    reason_code: 'INVALID_REQUEST',
    error,
    message,
    request_id: requestId,
  });
}

export function endpoint(spec: EndpointSpec, deps: PipelineDeps): (req: Request) => Promise<Reply> {
  const { flavor } = spec;
  const bad = (error: Parameters<typeof apiError>[1]['error'], message: string, status_code = BAD_REQUEST_CODE[flavor], reason_code = 'INVALID_REQUEST', details?: Record<string, string>, request_id?: unknown): Reply =>
    apiError(flavor, { http: 400, status_code, reason_code, error, message, details, request_id });

  /** The well-formed JSON object of the body, of the token's merchant; or the refusal. */
  const readBody = (req: Request): { body: Record<string, unknown> } | { refusal: Reply } => {
    let body: unknown;
    try {
      body = parseBody(req.body.toString('utf8'));
    } catch (err) {
      return { refusal: bad('malformed_json', `body is not valid JSON: ${err instanceof Error ? err.message : 'parse error'}`) };
    }
    if (!isJsonObject(body)) return { refusal: bad('not_object', 'body must be a JSON object') };
    const claimed = body.merchant_id;
    if (typeof claimed === 'string' && claimed.trim() !== '' && claimed !== deps.merchant.id) {
      return { refusal: unauthorized(flavor, 'merchant_mismatch', 'merchant_id does not belong to this merchant-token', referenceOf(flavor, body)) };
    }
    return { body };
  };

  return async (req) => {
    const token = header(req, 'merchant-token');
    if (token === undefined || token.trim() === '') return unauthorized(flavor, 'missing_token', 'merchant-token header is required');
    if (!deps.merchant.tokenMatches(token)) return unauthorized(flavor, 'wrong_token', 'merchant-token is not valid');

    const type = header(req, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type.trim())) return bad('content_type', 'Content-Type must be application/json');

    if (!spec.create) {
      const read = readBody(req);
      return 'refusal' in read ? read.refusal : spec.handle(read.body, req);
    }

    const key = header(req, 'idempotency-key');
    if (key === undefined || key.trim() === '') {
      return bad('missing_idempotency_key', 'Idempotency-Key header is required on create calls', flavor === 'payin' ? 510 : 'C402', 'MISSING_PARAMS', { 'Idempotency-Key': 'is required' });
    }
    if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) return bad('invalid_idempotency_key', 'Idempotency-Key must be 1-255 printable ASCII characters', undefined, 'INVALID_PARAMS', { 'Idempotency-Key': 'must be 1-255 printable ASCII characters' });

    const read = readBody(req);
    if ('refusal' in read) return read.refusal;
    const { body } = read;
    const outcome = await deps.gate.run(deps.merchant.id, key, requestHash(spec.name, body), async () => {
      const step = await spec.handle(body, req);
      return typeof step === 'function' ? () => toGate(step()) : toGate(step);
    });
    if (outcome.kind === 'conflict') {
      return bad('idempotency_conflict', 'Idempotency-Key was already used with a different request body', undefined, 'INVALID_REQUEST', { 'Idempotency-Key': 'already used with a different body' }, referenceOf(flavor, body));
    }
    if (outcome.kind === 'replay') {
      return { status: outcome.stored.http_status, body: outcome.stored.response, headers: { 'idempotent-replayed': 'true' } };
    }
    return { status: outcome.response.httpStatus, body: outcome.response.text };
  };
}
