// An independent test gateway, written from the spec (payment-api-v2.md) and PRODUCT.md's table of
// choices, not from Paydesk's emulator: pay-in and payout creates with idempotency, status reads by
// payin_id / request_id and by payout_id. It behaves like a remote gateway that Paydesk does not
// control: it sends no notifications (it could not reach a loopback listener), it adds fields the
// spec does not name, its ids are not UUIDs, and on demand it loses answers (creates the payout,
// then drops the connection or never answers), answers late, or refuses with 503 / 429 and a
// Retry-After in seconds or as an HTTP date. Payouts are read by payout_id only unless told
// otherwise (payoutReadBy). Over https when given a certificate, so a "live" profile can use it.
// Every request is recorded with its Idempotency-Key and exact body.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export type CreateFault =
  /** Creates the transaction, then cuts the connection (drop) or never answers (stall): the answer is lost. */
  | { type: 'lose_answer'; how: 'drop' | 'stall' }
  /** Refuses without acting, with Retry-After in seconds or as an HTTP date. */
  | { type: 'busy'; status: 503 | 429; retryAfter: 'seconds' | 'date'; seconds: number }
  /** Creates the transaction and answers after `ms`: a send that stays in flight that long. */
  | { type: 'slow_answer'; ms: number };

export interface RecordedCall {
  path: string;
  idempotencyKey: string | null;
  body: string;
  /** request_id / merchantReference of a create, payin_id / request_id / payout_id of a read. */
  reference: string | null;
  at: number;
}

interface Stored {
  kind: 'payin' | 'payout';
  id: string;
  reference: string;
  body: Record<string, unknown>;
  /** Status reads so far: the status moves with them. */
  reads: number;
  createdAt: string;
}

export interface SpecGatewayOptions {
  tls?: { key: string; cert: string };
  /** Reads of a payout before it is final (P100, then P101, then final). Default 2. */
  payoutFinalAfterReads?: number;
  /** Reads of a pay-in before it is final (100, then final). Default 1. */
  payinFinalAfterReads?: number;
  /**
   * The key payouts are read by. 'payout_id' (the default), as the spec shows: a read without it is
   * refused as the spec's validation refuses a missing field (HTTP 400 MISSING_PARAMS, details
   * naming payout_id), whatever else it names. 'payout_id_or_reference': a merchantReference reads
   * the payout too (a gateway with the lookup Paydesk settles lost payouts by; an unknown one is a
   * 400 naming merchantReference).
   */
  payoutReadBy?: 'payout_id' | 'payout_id_or_reference';
}

export interface SpecGateway {
  baseUrl: string;
  merchant: { merchant_id: string; merchant_site_id: string; merchant_token: string };
  calls: RecordedCall[];
  /** Faults for the next create calls, in order. */
  createFaults: CreateFault[];
  /** Faults for the next status reads, in order (busy only). */
  readFaults: Extract<CreateFault, { type: 'busy' }>[];
  /** Distinct Idempotency-Keys the gateway received for this request_id / merchantReference. */
  keysFor(reference: string): string[];
  /** Transactions created for this request_id / merchantReference (at most one, if idempotency holds). */
  created(reference: string): number;
  close(): Promise<void>;
}

let sequence = 0;
const tag = (email: unknown) => (typeof email === 'string' ? /\+s([A-Z]?\d{3})@/.exec(email)?.[1] : undefined);

export async function startSpecGateway(options: SpecGatewayOptions = {}): Promise<SpecGateway> {
  const merchant = { merchant_id: 'spec-merchant-7', merchant_site_id: 'spec-site-7', merchant_token: `spec-token-${process.pid}-${++sequence}` };
  const byKey = new Map<string, { body: string; status: number; answer: string }>();
  const byId = new Map<string, Stored>();
  const byReference = new Map<string, Stored>();
  const sockets = new Set<Socket>();
  const state: SpecGateway = {
    baseUrl: '',
    merchant,
    calls: [],
    createFaults: [],
    readFaults: [],
    keysFor: (reference) => [...new Set(state.calls.filter((c) => c.idempotencyKey !== null && c.reference === reference).map((c) => c.idempotencyKey as string))],
    created: (reference) => (byReference.has(reference) ? 1 : 0),
    close: async () => undefined,
  };
  const payoutFinal = options.payoutFinalAfterReads ?? 2;
  const payinFinal = options.payinFinalAfterReads ?? 1;

  const statusOf = (t: Stored): string | number => {
    const wanted = tag(t.kind === 'payout' ? (t.body.customer as Record<string, unknown> | undefined)?.email : t.body.email);
    if (t.kind === 'payin') return t.reads >= payinFinal ? Number(wanted ?? 200) : 100;
    return t.reads >= payoutFinal ? (wanted ?? 'P200') : t.reads > 0 ? 'P101' : 'P100';
  };
  const view = (t: Stored) =>
    t.kind === 'payin'
      ? { status: 'success', status_code: statusOf(t), request_id: t.reference, payin_id: t.id, amount: t.body.amount, currency: t.body.currency, payment_method: t.body.payment_method, created_at: t.createdAt, updated_at: new Date().toISOString(), acquirer_trace: { hop: 3 } }
      : { status: 'success', status_code: statusOf(t), payout_id: t.id, merchantReference: t.reference, amount: t.body.amount, currency: t.body.currency, method: t.body.method, created_at: t.createdAt, updated_at: new Date().toISOString(), settlement_batch: 'SB/7' };

  const create = (kind: 'payin' | 'payout', body: Record<string, unknown>): { status: number; answer: object } => {
    const reference = String(kind === 'payin' ? body.request_id : body.merchantReference);
    if (byReference.has(reference)) return { status: 400, answer: { status: 'error', status_code: kind === 'payin' ? 512 : 'C402', reason_code: 'INVALID_PARAMS', message: 'reference already used' } };
    const id = kind === 'payin' ? `PI.${Date.now().toString(36)}.${++sequence}` : `PO-${new Date().getUTCFullYear()}-${String(++sequence).padStart(6, '0')}`;
    const stored: Stored = { kind, id, reference, body, reads: 0, createdAt: new Date().toISOString() };
    byId.set(id, stored);
    byReference.set(reference, stored);
    const first = kind === 'payin'
      ? { status: 'success', status_code: 100, request_id: reference, payin_id: id, redirect_url: `https://pay.example/r/${id}`, created_at: stored.createdAt, risk: { score: 12 } }
      : { status: 'success', status_code: 'P100', payout_id: id, merchantReference: reference, created_at: stored.createdAt, fee: { amount: '0.10' } };
    return { status: 200, answer: first };
  };

  const read = (body: Record<string, unknown>, field: 'payin' | 'payout'): { status: number; answer: object } => {
    const byPayoutReference = field === 'payout' && options.payoutReadBy === 'payout_id_or_reference' && body.payout_id === undefined;
    if (field === 'payout' && !byPayoutReference && (body.payout_id === undefined || body.payout_id === null || body.payout_id === '')) {
      return { status: 400, answer: { status: 'error', status_code: 'C402', reason_code: 'MISSING_PARAMS', message: 'payout_id is required', details: { payout_id: 'required' } } };
    }
    const wanted = field === 'payin' ? (body.payin_id ?? body.request_id) : byPayoutReference ? body.merchantReference : body.payout_id;
    const found = typeof wanted === 'string' ? (field === 'payin' ? (byId.get(wanted) ?? byReference.get(wanted)) : byPayoutReference ? byReference.get(wanted) : byId.get(wanted)) : undefined;
    if (!found || found.kind !== field) {
      const name = field === 'payin' ? (body.payin_id !== undefined ? 'payin_id' : 'request_id') : byPayoutReference ? 'merchantReference' : 'payout_id';
      return { status: 400, answer: { status: 'error', reason_code: 'INVALID_PARAMS', message: 'no such transaction', details: { [name]: 'not found' } } };
    }
    found.reads++;
    return { status: 200, answer: view(found) };
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
      const path = (req.url ?? '').replace(/^\/api\/v2/, '');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // answered below
      }
      const reference = [body.request_id, body.merchantReference, body.payin_id, body.payout_id].find((v) => typeof v === 'string') as string | undefined;
      state.calls.push({ path, idempotencyKey: key, body: text, reference: reference ?? null, at: Date.now() });
      const answer = (status: number, payload: object, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(payload));
      };
      if (req.headers['merchant-token'] !== merchant.merchant_token || (body.merchant_id !== undefined && body.merchant_id !== merchant.merchant_id)) {
        return answer(401, { status: 'error', reason_code: 'INVALID_REQUEST', message: 'unauthorized' });
      }
      const isCreate = path === '/payment/create' || path === '/payouts/create';
      const isRead = path === '/payment/get-status' || path === '/payouts/get-status';
      if (!isCreate && !isRead) return answer(404, { status: 'error', message: 'no such endpoint' });
      const fault = isCreate ? state.createFaults.shift() : state.readFaults.shift();
      if (fault?.type === 'busy') {
        // An HTTP date has whole seconds: rounded up, so that it is at least `seconds` away (rounded
        // down it could be a few milliseconds away, and already past when the client reads it).
        const retryAfter = fault.retryAfter === 'seconds' ? String(fault.seconds) : new Date(Math.ceil((Date.now() + fault.seconds * 1000) / 1000) * 1000).toUTCString();
        return answer(fault.status, { status: 'error', reason_code: fault.status === 429 ? 'TRANSIENT_ERROR' : 'GATEWAY_UNAVAILABLE', message: 'try later' }, { 'retry-after': retryAfter });
      }
      if (isRead) {
        const result = read(body, path === '/payment/get-status' ? 'payin' : 'payout');
        return answer(result.status, result.answer);
      }
      if (key === null) return answer(400, { status: 'error', reason_code: 'MISSING_PARAMS', details: { 'Idempotency-Key': 'required' } });
      const seen = byKey.get(key);
      let status: number;
      let reply: string;
      if (seen) {
        if (seen.body !== text) return answer(400, { status: 'error', reason_code: 'INVALID_REQUEST', message: 'Idempotency-Key reused with another body' });
        ({ status, answer: reply } = seen);
      } else {
        const result = create(path === '/payment/create' ? 'payin' : 'payout', body);
        status = result.status;
        reply = JSON.stringify(result.answer);
        byKey.set(key, { body: text, status, answer: reply });
      }
      if (fault?.type === 'lose_answer') {
        if (fault.how === 'drop') req.socket.destroy();
        return; // stall: never answered; the client times out
      }
      const send = () => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(reply);
      };
      if (fault?.type === 'slow_answer') setTimeout(send, fault.ms);
      else send();
    });
  };

  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : http.createServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/api/v2`;
  state.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
