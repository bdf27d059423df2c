// What a profile must be, in one place: main's ProfileService enforces every rule (the renderer is
// untrusted), the profile form says each one beside its field before anything is sent, and both
// use the same words. A rule answers with the problem in a person's words, or null.
import type { EnvironmentKind } from './contract/app';

export const environmentLabels: Record<EnvironmentKind, string> = {
  local: 'Local emulator',
  sandbox: 'Provider sandbox',
  live: 'Live',
};

/**
 * The embedded emulator's profile name. Reserved for it: a live profile called so once read
 * "LIVE · LOCAL EMULATOR" in the header, a test gateway's name on real money.
 */
export const EMULATOR_PROFILE_NAME = environmentLabels.local;

/**
 * Two names are the same name when they differ only in case, spacing or Unicode form ("Shop EU",
 * "shop  eu", "ShopEU"): a person cannot tell such profiles apart in a header or a picker. The
 * ledger enforces the same on both engines with an index of its own (ASCII case, common spaces).
 */
export function profileNameKey(name: string): string {
  return name.normalize('NFKC').replace(/\s+/gu, '').toLowerCase();
}

export interface NamedProfile {
  id: string;
  name: string;
}

/** Whether `name` may be given to a profile of `environment`; `others` are the ledger's profiles, `selfId` the one renamed. */
export function profileNameProblem(name: string, environment: EnvironmentKind, others: readonly NamedProfile[], selfId?: string): string | null {
  const key = profileNameKey(name);
  if (key === '') return 'Required.';
  if (environment !== 'local' && key === profileNameKey(EMULATOR_PROFILE_NAME)) {
    return `“${EMULATOR_PROFILE_NAME}” is the embedded emulator's name: give this ${environment} profile a name of its own.`;
  }
  const taken = others.find((other) => other.id !== selfId && profileNameKey(other.name) === key);
  if (taken) return `A profile is already named “${taken.name}”: names must differ by more than case and spaces.`;
  return null;
}

/** The gateway address a person enters, per environment: what it looks like, with an example that passes. */
export const GATEWAY_ADDRESS: Record<Exclude<EnvironmentKind, 'local'>, { label: string; example: string; help: string; httpsOnly: boolean }> = {
  sandbox: {
    label: 'Sandbox address ({sandbox_url})',
    example: 'https://sandbox.example.com/api/',
    help: 'The whole address your provider gave you, ending in /api/, e.g. https://sandbox.example.com/api/',
    httpsOnly: false,
  },
  live: {
    label: 'Live base URL',
    example: 'https://pay.example.com/api/v2',
    help: 'https:// only (a live gateway is never reached in the clear), ending in /api/v2, e.g. https://pay.example.com/api/v2',
    httpsOnly: true,
  },
};

/** What the notification public URL must be: https on a live profile (the gateway posts payment news there). */
export const NOTIFICATION_URL_HELP: Record<EnvironmentKind, string> = {
  local: 'Where the gateway can reach this machine’s listener, e.g. behind a reverse proxy. Leave empty for the local listener.',
  sandbox: 'Where the sandbox can reach this machine’s listener, e.g. https://notify.example.com behind a reverse proxy. Leave empty for the local listener.',
  live: 'https:// only: where the live gateway reaches this machine’s listener, e.g. https://notify.example.com behind a reverse proxy. Leave empty for the local listener.',
};

function parsedUrl(text: string): URL | null {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/**
 * The gateway's base URL (ending in /api/v2) from what a person entered, or the problem with it.
 * Sandbox: the spec's {sandbox_url}, ending in /api/ (a base URL ending in /api/v2 is taken too);
 * live: the base URL itself, over https.
 */
export function gatewayBaseUrl(environment: Exclude<EnvironmentKind, 'local'>, entered: string): { baseUrl: string } | { problem: string } {
  const rule = GATEWAY_ADDRESS[environment];
  const url = parsedUrl(entered);
  if (!url) return { problem: `Enter the whole address, starting with ${rule.httpsOnly ? 'https://' : 'https:// (or http://)'}, e.g. ${rule.example}` };
  if (rule.httpsOnly && url.protocol !== 'https:') return { problem: `A live gateway is reached over https only: start with https://, e.g. ${rule.example}` };
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/api/v2')) return { baseUrl: `${url.origin}${path}` };
  if (environment === 'sandbox' && path.endsWith('/api')) return { baseUrl: `${url.origin}${path}/v2` };
  return { problem: `${environment === 'sandbox' ? 'Must end in /api/' : 'Must end in /api/v2'}, e.g. ${rule.example}` };
}

/** The notification public URL's problem on a profile of `environment`, or null. */
export function notificationUrlProblem(environment: EnvironmentKind, entered: string): string | null {
  const url = parsedUrl(entered);
  if (!url) return `Enter the whole address, starting with https://, e.g. https://notify.example.com`;
  if (environment === 'live' && url.protocol !== 'https:') return 'A live gateway posts payment news here: it must start with https://, e.g. https://notify.example.com';
  return null;
}

/** merchant_id and merchant_site_id as the integration settings give them: one word, no spaces. */
export function merchantIdProblem(field: 'merchant_id' | 'merchant_site_id', value: string): string | null {
  if (value.trim() === '') return `Required: the ${field} from your integration settings.`;
  if (/\s/u.test(value.trim())) return `A ${field} has no spaces: copy it again from your integration settings.`;
  return null;
}

/** The merchant-token travels in an HTTP header: printable ASCII only (RFC 9110 field values). */
export function isSendableMerchantToken(token: string): boolean {
  return /^[\x20-\x7E]+$/.test(token);
}

export const MERCHANT_TOKEN_CHARSET_MESSAGE = 'A merchant-token is printable ASCII (letters, digits, punctuation): it is sent as an HTTP header.';

/**
 * A merchant-token as pasted: spaces around it are dropped without a word (a copy often carries
 * them), a space or line break inside is refused. No issued token holds one: it is a token cut in
 * two or two pasted together, and would fail every call with a 401 long after it was saved.
 */
export function merchantTokenProblem(token: string): string | null {
  const trimmed = token.trim();
  if (trimmed.length < 8) return 'A merchant-token is at least 8 characters.';
  if (/\s/u.test(trimmed)) return 'A merchant-token has no spaces or line breaks inside: paste it again, whole, from your integration settings.';
  if (!isSendableMerchantToken(trimmed)) return MERCHANT_TOKEN_CHARSET_MESSAGE;
  return null;
}
