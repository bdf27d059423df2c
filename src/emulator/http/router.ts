// A small method + path table. A path that exists with another verb answers 405, an unknown
// path 404; both as JSON, like every other answer of the emulator's API.
import type { Handler, Reply, Request } from './types';

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

export type Fallback = (req: Request, kind: 'not_found' | 'method_not_allowed', allow: string[]) => Reply;

export class Router {
  private readonly routes: Route[] = [];

  /** `path` may hold ":name" segments, matched as one URL segment each. */
  add(method: string, path: string, handler: Handler): this {
    const names: string[] = [];
    const source = path
      .split('/')
      .map((seg) => {
        if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(seg.slice(1));
        return '([^/]+)';
      })
      .join('/');
    this.routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, handler });
    return this;
  }

  async dispatch(req: Request, fallback: Fallback): Promise<Reply> {
    const allow: string[] = [];
    for (const r of this.routes) {
      const m = r.pattern.exec(req.path);
      if (!m) continue;
      if (r.method !== req.method) {
        allow.push(r.method);
        continue;
      }
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => {
        params[n] = safeDecode(m[i + 1] ?? '');
      });
      return r.handler(req, params);
    }
    return allow.length > 0 ? fallback(req, 'method_not_allowed', allow) : fallback(req, 'not_found', []);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
