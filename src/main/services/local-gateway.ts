// The embedded gateway emulator as the app sees it: where it is, which merchant it knows us as,
// and how to register our JWT public key (onboarding, done by hand with a real provider).
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

export function localGatewayFrom(emulator: EmulatorHandle): LocalGateway {
  return {
    baseUrl: emulator.baseUrl,
    adminUrl: emulator.adminUrl,
    hostedUrl: emulator.hostedUrl,
    merchant: emulator.merchant,
    async registerKey(kid, publicJwk) {
      const response = await fetch(`${emulator.adminUrl}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ merchant_id: emulator.merchant.merchant_id, kid, public_jwk: publicJwk }),
      });
      if (!response.ok) throw new Error(`the emulator refused the key (HTTP ${response.status}): ${await response.text()}`);
    },
    close: () => emulator.close(),
  };
}
