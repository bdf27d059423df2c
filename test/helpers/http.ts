import http from 'node:http';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface PostOptions {
  headers?: Record<string, string>;
  agent?: http.Agent;
  method?: string;
  /** Runs the moment the response head arrives, before its body is read. */
  onResponse?: (status: number) => void;
  timeoutMs?: number;
}

/** One HTTP request on loopback with a bounded wait. */
export function post(url: string, body: string | Buffer, options: PostOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: options.method ?? 'POST',
      agent: options.agent ?? false,
      timeout: options.timeoutMs ?? 10_000,
      headers: { 'content-type': 'application/json', ...options.headers },
    });
    req.on('response', (res) => {
      options.onResponse?.(res.statusCode ?? 0);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

export const payinNotification = (payinId: string, statusCode: number | string = 200, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    event: 'v2_payin_notification',
    status: 'success',
    status_code: statusCode,
    reason_code: null,
    request_id: `req-${payinId}`,
    payin_id: payinId,
    amount: 10.5,
    currency: 'EUR',
    payment_method: 'credit_card',
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:01.000Z',
    ...extra,
  });
