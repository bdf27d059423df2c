// The six endpoints of spec section 4 as data: path under {base_url}, whether it is a create
// call (Idempotency-Key, exactly-once), and the tolerant schema of its 200 answer.
import type { LosslessNumber } from '../../shared/json';
import {
  PayinCreateResponseSchema,
  PayinStatusResponseSchema,
  PayoutCreateResponseSchema,
  PayoutStatusResponseSchema,
  type PayinCreateRequest,
  type PayinCreateResponse,
  type PayinStatusResponse,
  type PayoutCreateRequest,
  type PayoutCreateResponse,
  type PayoutStatusResponse,
  type TokenChargeRequest,
  type TokenizationCreateRequest,
} from '../../shared/spec/schemas';
import { TRANSACTION_KINDS } from '../transaction-kinds';

export const ENDPOINTS = {
  payin_create: { path: 'payment/create', create: true, family: 'payin', response: PayinCreateResponseSchema },
  payin_status: { path: 'payment/get-status', create: false, family: 'payin', response: PayinStatusResponseSchema },
  tokenization_create: { path: 'payment/create/tokenization', create: true, family: 'payin', response: PayinCreateResponseSchema },
  token_charge_create: { path: 'payment/create/token', create: true, family: 'payin', response: PayinCreateResponseSchema },
  payout_create: { path: 'payouts/create', create: true, family: 'payout', response: PayoutCreateResponseSchema },
  payout_status: { path: 'payouts/get-status', create: false, family: 'payout', response: PayoutStatusResponseSchema },
} as const;

export type EndpointName = keyof typeof ENDPOINTS;

/** Endpoints 1, 3, 4 and 5: they need an Idempotency-Key and go through the AttemptRunner. */
export type CreateEndpoint = 'payin_create' | 'tokenization_create' | 'token_charge_create' | 'payout_create';

export const CREATE_ENDPOINTS: readonly CreateEndpoint[] = ['payin_create', 'tokenization_create', 'token_charge_create', 'payout_create'];

export function isCreateEndpoint(value: unknown): value is CreateEndpoint {
  return typeof value === 'string' && (CREATE_ENDPOINTS as readonly string[]).includes(value);
}

/**
 * An amount as exact decimal text ("10.50", "0.0000000001") or a LosslessNumber. Never a JS
 * number: binary floats cannot hold most decimal amounts exactly.
 */
export type DecimalAmount = string | LosslessNumber;

type WithDecimalAmount<T> = Omit<T, 'amount'> & { amount: DecimalAmount };

export type PayinCreateInput = WithDecimalAmount<PayinCreateRequest>;
export type TokenizationCreateInput = WithDecimalAmount<TokenizationCreateRequest>;
export type TokenChargeInput = WithDecimalAmount<TokenChargeRequest>;
export type PayoutCreateInput = WithDecimalAmount<PayoutCreateRequest>;

export interface CreateRequests {
  payin_create: PayinCreateInput;
  tokenization_create: TokenizationCreateInput;
  token_charge_create: TokenChargeInput;
  payout_create: PayoutCreateInput;
}

export interface Responses {
  payin_create: PayinCreateResponse;
  payin_status: PayinStatusResponse;
  tokenization_create: PayinCreateResponse;
  token_charge_create: PayinCreateResponse;
  payout_create: PayoutCreateResponse;
  payout_status: PayoutStatusResponse;
}

/** The merchant's reference of an attempt: request_id on pay-ins, merchantReference on payouts. */
export function attemptReference(endpoint: CreateEndpoint, body: CreateRequests[CreateEndpoint]): string {
  const field = TRANSACTION_KINDS[ENDPOINTS[endpoint].family].referenceField;
  return (body as unknown as Record<typeof field, string>)[field];
}
