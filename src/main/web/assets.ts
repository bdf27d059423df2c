// The renderer's built files, served from memory: GET/HEAD /assets/<file> only (any other method
// is 405), each file read once. The names carry a hash of their content (Vite), so a file never
// changes under its name and the browser may keep it (immutable). A name is looked up as a plain file name in the assets
// directory — no path, no `..` — so nothing else of the disk is reachable.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** Private: the assets are behind the session cookie. */
export const IMMUTABLE = 'private, max-age=31536000, immutable';

const FILE_NAME = /^[\w.-]+$/;

/** The methods an asset answers; any other under /assets/ is 405 with this Allow header. */
export const ASSET_METHODS = 'GET, HEAD';

/**
 * serve() answers a request for one asset: true once answered, false when the path names none
 * (the caller answers 404). Another method than GET or HEAD under /assets/ is answered 405.
 * A file that vanished since it was first asked for (a rebuild of out/) is still served from memory;
 * one missing on its first request is not found.
 */
export function assetServer(rendererDir: string, headers: Record<string, string>) {
  const dir = path.join(rendererDir, 'assets');
  const files = new Map<string, Promise<Buffer | null>>();
  const load = (name: string) => {
    let file = files.get(name);
    if (!file) {
      file = readFile(path.join(dir, name)).catch(() => null);
      files.set(name, file);
      // A miss is not remembered: the file may appear with the next build.
      void file.then((found) => (found === null ? files.delete(name) : undefined));
    }
    return file;
  };
  /** Reads the files a page names (`./assets/<file>` in its HTML) ahead of the browser asking for them. */
  const warm = (html: string) => {
    for (const [, name] of html.matchAll(/["']\.?\/assets\/([\w.-]+)["']/g)) if (name && FILE_NAME.test(name)) void load(name);
  };
  const serve = async (req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> => {
    if (!pathname.startsWith('/assets/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, allow: ASSET_METHODS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ ok: false, error: { code: 'method_not_allowed', message: `Use ${ASSET_METHODS}.` } }));
      return true;
    }
    const name = pathname.slice('/assets/'.length);
    if (!FILE_NAME.test(name) || name.startsWith('.')) return false;
    const body = await load(name);
    if (body === null) return false;
    res.writeHead(200, {
      ...headers,
      'content-type': CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': IMMUTABLE,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
  return { serve, warm };
}
