// Who may talk to the web-mode server. Web mode is reachable by every program and every web page
// on this machine, so each request must prove it comes from the page we served:
// - Host must name our loopback address (defeats DNS rebinding),
// - Origin, when sent, must be our own origin (defeats a hostile local web page),
// - the session token must be present (header for the API, query or cookie for the page).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_HEADER = 'x-paydesk-token';
export const TOKEN_COOKIE = 'paydesk_session';

export type GuardVerdict = { allowed: true } | { allowed: false; status: 401 | 403 | 421; reason: string };

export function sameToken(candidate: string | undefined, token: string): boolean {
  if (!candidate) return false;
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

export type TokenSource = 'header' | 'query-or-cookie' | 'query';

export function checkRequest(req: IncomingMessage, url: URL, port: number, token: string, source: TokenSource): GuardVerdict {
  const hosts = allowedHosts(port);
  const host = req.headers.host;
  if (!host || !hosts.has(host)) {
    return { allowed: false, status: 421, reason: 'This server answers only to its loopback address.' };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.has(origin.replace(/^http:\/\//, ''))) {
    return { allowed: false, status: 403, reason: 'Cross-origin requests are refused.' };
  }
  const header = req.headers[TOKEN_HEADER];
  const candidates: (string | undefined)[] =
    source === 'header'
      ? [typeof header === 'string' ? header : undefined]
      : source === 'query'
        ? [url.searchParams.get('token') ?? undefined]
        : [url.searchParams.get('token') ?? undefined, cookieValue(req.headers.cookie, TOKEN_COOKIE)];
  if (!candidates.some((candidate) => sameToken(candidate, token))) {
    return { allowed: false, status: 401, reason: 'Missing or wrong session token: open the address Paydesk printed.' };
  }
  return { allowed: true };
}
