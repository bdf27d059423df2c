// The gateway emulator as the app sees it: where it is, which merchant it knows us as,
// and how to register our JWT public key (onboarding, done by hand with a real provider). It is
// the embedded one, or one already running elsewhere (`npm run gateway`), which several team
// server instances on one ledger share, so the local-emulator profile names one address for all.
import type { EmulatorHandle } from '../../emulator/index';
import type { PublicJwk } from '../gateway/jwt-keys';

export interface LocalGateway {
  baseUrl: string;
  adminUrl: string;
  hostedUrl: string;
  merchant: { merchant_id: string; merchant_site_id: string; merchant_token: string };
  registerKey(kid: string, publicJwk: PublicJwk): Promise<void>;
  close(): Promise<void>;
}

type Facts = Pick<LocalGateway, 'baseUrl' | 'adminUrl' | 'hostedUrl' | 'merchant'>;

function withKeys(facts: Facts, close: () => Promise<void>): LocalGateway {
  return {
    ...facts,
    async registerKey(kid, publicJwk) {
      const response = await fetch(`${facts.adminUrl}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ merchant_id: facts.merchant.merchant_id, kid, public_jwk: publicJwk }),
      });
      if (!response.ok) throw new Error(`the emulator refused the key (HTTP ${response.status}): ${await response.text()}`);
    },
    close,
  };
}

export function localGatewayFrom(emulator: EmulatorHandle): LocalGateway {
  return withKeys(emulator, () => emulator.close());
}

/** The embedded emulator as the services hold it from the start: start() starts it; until then it is not there to ask. */
export interface EmbeddedLocalGateway extends LocalGateway {
  start(): Promise<void>;
}

export function embeddedLocalGateway(startEmulator: () => Promise<EmulatorHandle>): EmbeddedLocalGateway {
  let started: LocalGateway | undefined;
  const running = (): LocalGateway => {
    if (!started) throw new Error('the embedded gateway emulator has not started yet');
    return started;
  };
  return {
    get baseUrl() {
      return running().baseUrl;
    },
    get adminUrl() {
      return running().adminUrl;
    },
    get hostedUrl() {
      return running().hostedUrl;
    },
    get merchant() {
      return running().merchant;
    },
    registerKey: (kid, publicJwk) => running().registerKey(kid, publicJwk),
    close: async () => {
      await started?.close();
    },
    async start() {
      started = localGatewayFrom(await startEmulator());
    },
  };
}

/** An emulator already running (its admin_url): asked once where it is and who we are there; left running by close(). */
export async function externalLocalGateway(adminUrl: string): Promise<LocalGateway> {
  const url = adminUrl.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new Error(`the gateway emulator at ${url} did not answer (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const body = (await response.json().catch(() => ({}))) as Partial<Record<'base_url' | 'admin_url' | 'hosted_url' | 'merchant_id' | 'merchant_site_id' | 'merchant_token', unknown>>;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const [baseUrl, hostedUrl, merchantId, siteId, token] = [body.base_url, body.hosted_url, body.merchant_id, body.merchant_site_id, body.merchant_token].map(text);
  if (!response.ok || !baseUrl || !hostedUrl || !merchantId || !siteId || !token) throw new Error(`${url} is not a gateway emulator's admin_url (HTTP ${response.status})`);
  return withKeys({ baseUrl, adminUrl: text(body.admin_url) ?? url, hostedUrl, merchant: { merchant_id: merchantId, merchant_site_id: siteId, merchant_token: token } }, async () => {});
}
