import { isJsonObject, parseJson, stringifyJson } from '../../shared/json';
import { JSON_TYPE, type Reply, type Request } from '../http/types';

export const adminReply = (status: number, body: unknown): Reply => ({ status, body: stringifyJson(body), contentType: JSON_TYPE });
export const adminError = (status: number, message: string): Reply => adminReply(status, { status: 'error', message });

/** Admin bodies: a JSON object, or empty (treated as {}). */
export function adminBody(req: Request): { ok: true; body: Record<string, unknown> } | { ok: false; reply: Reply } {
  const text = req.body.toString('utf8');
  if (text.trim() === '') return { ok: true, body: {} };
  try {
    const v = parseJson(text);
    return isJsonObject(v) ? { ok: true, body: v } : { ok: false, reply: adminError(400, 'body must be a JSON object') };
  } catch {
    return { ok: false, reply: adminError(400, 'body is not valid JSON') };
  }
}
