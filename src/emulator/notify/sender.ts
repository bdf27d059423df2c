// One HTTP POST of a notification. node:http with agent:false so no pooled socket outlives the
// attempt (nothing may keep the process alive after close()).
import http from 'node:http';
import https from 'node:https';

export interface SendResult {
  httpStatus: number | null;
  error: string | null;
}

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Cut the connection after half of the body (fault injection). */
  abortMidBody?: boolean;
  signal: AbortSignal;
}

export function sendNotification(o: SendOptions): Promise<SendResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: SendResult): void => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    let url: URL;
    try {
      url = new URL(o.url);
    } catch {
      done({ httpStatus: null, error: 'invalid URL' });
      return;
    }
    const lib = url.protocol === 'https:' ? https : http;
    const payload = Buffer.from(o.body, 'utf8');
    const req = lib.request(url, {
      method: 'POST',
      agent: false,
      signal: o.signal,
      timeout: o.timeoutMs,
      headers: { ...o.headers, 'content-type': 'application/json', 'content-length': String(payload.length), connection: 'close' },
    });
    req.on('response', (res) => {
      res.resume(); // the body of the merchant's answer is not used
      res.on('end', () => done({ httpStatus: res.statusCode ?? null, error: null }));
      res.on('error', () => done({ httpStatus: res.statusCode ?? null, error: null }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)));
    req.on('error', (err) => done({ httpStatus: null, error: err.message }));
    if (o.abortMidBody) {
      req.write(payload.subarray(0, Math.floor(payload.length / 2)), () => {
        req.destroy(new Error('connection cut mid-body (injected fault)'));
      });
      return;
    }
    req.end(payload);
  });
}
