// A flood of hostile requests to a profile's notification path, as the listener-flood test measures
// it: oversized bodies, large notifications about transactions nobody knows, garbage, repeated
// keys, the wrong content type, near-limit headers and bodies past the hard cap. Bounded in count,
// concurrency and time; the answers are counted, never thrown on (a cut connection is an answer too).
import http from 'node:http';

export type FloodKind = 'oversized' | 'large_orphan' | 'garbage' | 'repeated_key' | 'not_json_type' | 'big_headers' | 'past_hard_cap';

const KINDS: readonly FloodKind[] = ['oversized', 'large_orphan', 'garbage', 'repeated_key', 'not_json_type', 'big_headers', 'oversized', 'large_orphan', 'garbage'];

export interface FloodOptions {
  count: number;
  concurrency: number;
  /** The whole flood stops sending after this long (requests in flight are abandoned). */
  deadlineMs: number;
  /** Called once per request with its index, so a test can sample something as it goes. */
  onProgress?: (sent: number) => void;
}

export interface FloodResult {
  sent: number;
  /** Answers by HTTP status; 0 = the connection was cut or timed out. */
  answers: Record<number, number>;
  elapsedMs: number;
}

function request(kind: FloodKind, index: number): { headers: Record<string, string>; body: Buffer } {
  const pad = (bytes: number) => 'x'.repeat(bytes);
  const id = `${index.toString(16).padStart(8, '0')}-dead-4bad-8bad-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;
  switch (kind) {
    case 'oversized':
      return { headers: { 'content-type': 'application/json' }, body: Buffer.from(`{"event":"${pad(300 * 1024)}"}`) };
    case 'large_orphan':
      return {
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ event: 'v2_payin_notification', payin_id: id, request_id: `flood-${index}`, status_code: 200, padding: pad(200 * 1024) })),
      };
    case 'garbage':
      return { headers: { 'content-type': 'application/json' }, body: Buffer.from(`not json ${pad(100 * 1024)}`) };
    case 'repeated_key':
      return { headers: { 'content-type': 'application/json' }, body: Buffer.from(`{"event":"v2_payin_notification","event":"v2_payout_notification","payin_id":"${id}","status_code":200,"p":"${pad(60 * 1024)}"}`) };
    case 'not_json_type':
      return { headers: { 'content-type': 'text/plain' }, body: Buffer.from(pad(50 * 1024)) };
    case 'big_headers':
      return { headers: { 'content-type': 'application/json', 'x-hostile': pad(12 * 1024) }, body: Buffer.from('{}') };
    case 'past_hard_cap':
      return { headers: { 'content-type': 'application/json' }, body: Buffer.alloc(3 * 1024 * 1024, 0x20) };
  }
}

function send(url: string, kind: FloodKind, index: number): Promise<number> {
  const { headers, body } = request(kind, index);
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'POST', agent: false, timeout: 15_000, headers: { ...headers, 'content-length': String(body.length) } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** Every 50th request is past the hard cap; the rest rotate through the other kinds. */
export function floodKind(index: number): FloodKind {
  return index % 50 === 49 ? 'past_hard_cap' : (KINDS[index % KINDS.length] as FloodKind);
}

export async function floodListener(url: string, options: FloodOptions): Promise<FloodResult> {
  const started = Date.now();
  const answers: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < options.count && Date.now() - started < options.deadlineMs) {
      const index = next++;
      options.onProgress?.(index + 1);
      const status = await send(url, floodKind(index), index);
      answers[status] = (answers[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { sent: next, answers, elapsedMs: Date.now() - started };
}
