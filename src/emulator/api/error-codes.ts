// The 5-digit error_code of every error the emulator answers (spec 2.3 leaves the table to the
// implementation). First digit: 1 authentication, 2 request protocol, 3 field validation and
// business rules, 4 merchant_jwt and card tokens, 5 server, 6 rate limit. docs/emulator.md
// prints this table.
import type { ReasonCode } from '../../shared/spec/codes';

export const ERROR_CODES = {
  missing_token: ['10001', 'merchant-token header missing'],
  wrong_token: ['10002', 'merchant-token not recognised'],
  merchant_mismatch: ['10003', "body merchant_id is not the merchant-token's merchant"],
  content_type: ['20001', 'Content-Type is not application/json'],
  malformed_json: ['20002', 'body is not well-formed JSON (or repeats a key)'],
  not_object: ['20003', 'body is not a JSON object'],
  missing_idempotency_key: ['20004', 'Idempotency-Key header missing on a create call'],
  invalid_idempotency_key: ['20005', 'Idempotency-Key longer than 255 characters or not printable ASCII'],
  idempotency_conflict: ['20006', 'Idempotency-Key already used with a different body'],
  body_too_large: ['20007', 'body larger than 1 MiB (HTTP 413)'],
  not_found: ['20008', 'unknown path (HTTP 404)'],
  method_not_allowed: ['20009', 'wrong HTTP verb for the path (HTTP 405)'],
  bad_http_request: ['20010', 'not a readable HTTP request (HTTP 400)'],
  request_timeout: ['20011', 'headers not received within 10 s, or the whole request within 30 s (HTTP 408)'],
  headers_too_large: ['20012', 'headers larger than 16 KiB (HTTP 431)'],
  duplicate_request_id: ['30100', 'request_id already used by another pay-in of the merchant'],
  unknown_payin: ['30101', 'no pay-in with this payin_id / request_id'],
  unknown_payout: ['30102', 'no payout with this payout_id'],
  method_not_enabled: ['30103', 'payment method disabled for the site (admin setting)'],
  merchant_inactive: ['30104', 'merchant deactivated (admin setting)'],
  jwt_malformed: ['40001', 'merchant_jwt is not a compact JWS with a JSON payload'],
  jwt_alg: ['40002', 'merchant_jwt alg is not EdDSA'],
  jwt_kid: ['40003', 'kid missing or not registered for this merchant'],
  jwt_signature: ['40004', 'signature does not verify'],
  jwt_iat: ['40005', 'iat missing or more than 120 s from server time, or exp past'],
  jwt_jti: ['40006', 'jti already used'],
  jwt_op: ['40007', 'op does not fit the endpoint'],
  jwt_sub: ['40008', 'sub is not the merchant the kid belongs to'],
  jwt_claims: ['40009', 'claims missing or not allowed for the op'],
  jwt_card: ['40010', 'card data inside the JWT is invalid (Luhn, name, expiry)'],
  token_unknown: ['40011', 'token unknown, of another merchant, or revoked'],
  token_card_expired: ['40012', 'the vaulted card has expired'],
  internal: ['50001', 'unexpected emulator error'],
  injected_system_error: ['50002', 'system error injected through the admin API'],
  rate_limited: ['60001', 'get-status polled faster than the rate limit (HTTP 429)'],
} as const satisfies Record<string, readonly [string, string]>;

export type ErrorKey = keyof typeof ERROR_CODES;

/** Field validation: one error_code per reason code, 301xx. */
export const VALIDATION_ERROR_CODES: Partial<Record<ReasonCode, string>> = {
  INVALID_REQUEST: '30001',
  MISSING_PAYMENT_METHOD: '30002',
  INVALID_PAYMENT_METHOD: '30003',
  INVALID_SITE: '30004',
  MISSING_AMOUNT: '30005',
  MISSING_PARAMS: '30006',
  INVALID_AMOUNT: '30007',
  UNSUPPORTED_CURRENCY: '30008',
  UNSUPPORTED_COUNTRY: '30009',
  INVALID_MERCHANT_JWT: '30010',
  INVALID_CARD_NUMBER: '30011',
  INVALID_EXPIRY: '30012',
  INVALID_CVV: '30013',
  INVALID_CARDHOLDER_NAME: '30014',
  INVALID_PARAMS: '30015',
};

export function validationErrorCode(reason: string): string {
  return VALIDATION_ERROR_CODES[reason as ReasonCode] ?? '30015';
}
