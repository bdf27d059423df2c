// Reads a request body under a size limit. Past the limit the rest is read and thrown away (up to
// a hard cap) so the sender gets a clean 413 instead of a connection reset mid-upload.
import type { IncomingMessage } from 'node:http';

export interface BodyRead {
  body: Buffer;
  /** Bytes seen (at least body.length; more when truncated). */
  size: number;
  truncated: boolean;
  /** Past the hard cap: the connection should be closed rather than drained further. */
  abusive: boolean;
}

/** Resolves null when the request ended early (client gone, or Node's request timeout fired). */
export function readBody(req: IncomingMessage, limit: number, hardCap: number): Promise<BodyRead | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let size = 0;
    let settled = false;
    const finish = (result: BodyRead | null) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > hardCap) {
      finish({ body: Buffer.alloc(0), size: declared, truncated: true, abusive: true });
      return;
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (kept < limit) {
        const room = limit - kept;
        const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      }
      if (size > hardCap) {
        req.pause();
        finish({ body: Buffer.concat(chunks), size, truncated: true, abusive: true });
      }
    });
    req.on('end', () => finish({ body: Buffer.concat(chunks), size, truncated: size > limit, abusive: false }));
    req.on('close', () => finish(null));
    req.on('error', () => finish(null));
  });
}
