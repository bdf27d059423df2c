// Typed client for the six endpoints of spec section 4. Create calls take the exact body text
// and an Idempotency-Key chosen by the AttemptRunner; status reads take typed requests.
import type { PayinStatusRequest, PayoutStatusRequest } from '../../shared/spec/schemas';
import { classifyAnswer } from './classify';
import { ENDPOINTS, type CreateEndpoint, type EndpointName, type Responses } from './endpoints';
import { GatewayHttp, type GatewayHttpConfig } from './http';
import type { CallResult } from './result';
import { systemClock, type Clock } from './runtime';
import { serializeBody } from './serialize';

/** What the AttemptRunner needs from the gateway; GatewayClient is the real one. */
export interface CreateTransport {
  sendCreate<E extends CreateEndpoint>(endpoint: E, bodyText: string, idempotencyKey: string): Promise<CallResult<Responses[E]>>;
  payinStatus(request: PayinStatusRequest): Promise<CallResult<Responses['payin_status']>>;
  payoutStatus(request: PayoutStatusRequest): Promise<CallResult<Responses['payout_status']>>;
}

export class GatewayClient implements CreateTransport {
  private readonly http: GatewayHttp;

  constructor(
    config: GatewayHttpConfig,
    private readonly clock: Clock = systemClock,
  ) {
    this.http = new GatewayHttp(config);
  }

  /** One try of a create call with exactly these bytes. Use AttemptRunner rather than this directly. */
  sendCreate<E extends CreateEndpoint>(endpoint: E, bodyText: string, idempotencyKey: string): Promise<CallResult<Responses[E]>> {
    return this.call(endpoint, bodyText, idempotencyKey);
  }

  /** POST /payment/get-status, by payin_id or request_id. */
  payinStatus(request: PayinStatusRequest): Promise<CallResult<Responses['payin_status']>> {
    return this.call('payin_status', serializeBody(request));
  }

  /** POST /payouts/get-status, by payout_id (or merchantReference, where the gateway supports it). */
  payoutStatus(request: PayoutStatusRequest): Promise<CallResult<Responses['payout_status']>> {
    return this.call('payout_status', serializeBody(request));
  }

  private async call<E extends EndpointName>(endpoint: E, bodyText: string, idempotencyKey?: string): Promise<CallResult<Responses[E]>> {
    const spec = ENDPOINTS[endpoint];
    const answer = await this.http.post(spec.path, bodyText, idempotencyKey);
    if ('kind' in answer) return answer;
    return classifyAnswer(answer, spec.response, this.clock.now()) as CallResult<Responses[E]>;
  }
}
