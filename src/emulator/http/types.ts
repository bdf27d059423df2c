import type { IncomingHttpHeaders } from 'node:http';

export interface Request {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Origin the client used to reach us (for links in pages and redirect_url). */
  origin: string;
}

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type Handler = (req: Request, params: Record<string, string>) => Promise<Reply> | Reply;

export const JSON_TYPE = 'application/json; charset=utf-8';
