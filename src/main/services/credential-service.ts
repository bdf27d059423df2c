// Credentials of a profile: the merchant-token and the Ed25519 JWT signing key. Both live only in
// the secret store, keyed by profile: the OS keychain on a desk, sealed in the ledger on a team
// server (team/server-secret-store.ts); what leaves this service is "set / not set" and a fingerprint.
// The local emulator's merchant-token is the emulator's own (it plays the gateway), so Paydesk
// stores nothing for it.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { credentialStateSchema, publicKeyExportSchema } from '../../shared/contract/profiles';
import { isSendableMerchantToken, MERCHANT_TOKEN_CHARSET_MESSAGE, merchantTokenProblem } from '../../shared/profile-rules';
import {
  exportPrivatePem,
  exportPublicJwk,
  exportPublicPem,
  generateMerchantKeyPair,
  importMerchantPrivateKey,
  KeyFormatError,
  type MerchantKeyPair,
  publicKeyFingerprint,
} from '../gateway/jwt-keys';
import type { AuditLog } from '../ledger/repositories/audit-log';
import type { Profile, ProfilesRepository } from '../ledger/repositories/profiles';
import { ServiceError } from './errors';
import type { LocalGateway } from './local-gateway';
import type { SecretStore } from './secret-store';

type CredentialState = z.infer<typeof credentialStateSchema>;
export type PublicKeyExport = z.infer<typeof publicKeyExportSchema>;

const tokenAccount = (profileId: string) => `${profileId}/merchant-token`;
const keyAccount = (profileId: string) => `${profileId}/jwt-private-key`;

export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

export interface CredentialServiceDeps {
  secrets: SecretStore;
  profiles: ProfilesRepository;
  audit: AuditLog;
  local: LocalGateway;
}

export class CredentialService {
  constructor(private readonly deps: CredentialServiceDeps) {}

  async states(profile: Profile): Promise<{ merchantToken: CredentialState; privateKey: CredentialState }> {
    const token = await this.readOrNull(() => this.merchantTokenOrNull(profile));
    const key = await this.readOrNull(() => this.signingKeyOrNull(profile));
    return {
      merchantToken: { set: token !== null, fingerprint: token === null ? null : tokenFingerprint(token) },
      privateKey: { set: key !== null, fingerprint: key === null ? null : await publicKeyFingerprint(key.publicJwk) },
    };
  }

  async merchantToken(profile: Profile): Promise<string> {
    const token = await this.merchantTokenOrNull(profile);
    if (token === null) {
      throw new ServiceError('unavailable', `No merchant-token is set for profile "${profile.name}": set it in Settings → Credentials.`);
    }
    // Set by hand in the keychain or by an older Paydesk: refuse it here rather than crash the request.
    if (!isSendableMerchantToken(token)) {
      throw new ServiceError('unavailable', `The merchant-token stored for profile "${profile.name}" cannot be sent: ${MERCHANT_TOKEN_CHARSET_MESSAGE} Set it again in Settings → Credentials.`);
    }
    return token;
  }

  async setMerchantToken(profile: Profile, token: string): Promise<void> {
    if (profile.environment === 'local') {
      throw new ServiceError('invalid_input', 'The local emulator supplies its own merchant-token; nothing to set.', { token: 'Not used for the local emulator.' });
    }
    // Spaces around a pasted token are dropped; one inside is refused (shared/profile-rules.ts).
    const problem = merchantTokenProblem(token);
    if (problem) throw new ServiceError('invalid_input', `The merchant-token was not stored: ${problem}`, { token: problem });
    const stored = token.trim();
    await this.deps.secrets.set(tokenAccount(profile.id), stored);
    await this.deps.audit.append({ actor: 'user', action: 'credentials.set-merchant-token', profileId: profile.id, subject: profile.name, details: { fingerprint: tokenFingerprint(stored) } });
  }

  async clearMerchantToken(profile: Profile): Promise<void> {
    await this.deps.secrets.delete(tokenAccount(profile.id));
    await this.deps.audit.append({ actor: 'user', action: 'credentials.clear-merchant-token', profileId: profile.id, subject: profile.name });
  }

  async generateKey(profile: Profile, kid?: string): Promise<PublicKeyExport> {
    const pair = await this.keyOrInputError(() => generateMerchantKeyPair(kid));
    return this.install(profile, pair, 'credentials.generate-key');
  }

  async importKey(profile: Profile, privateKey: string, kid?: string): Promise<PublicKeyExport> {
    const pair = await this.keyOrInputError(() => importMerchantPrivateKey(privateKey, kid));
    return this.install(profile, pair, 'credentials.import-key');
  }

  async exportPublicKey(profile: Profile): Promise<PublicKeyExport> {
    const pair = await this.signingKey(profile);
    return this.describe(pair, false);
  }

  /** The signing key for merchant JWTs; never leaves main. */
  async signingKey(profile: Profile): Promise<MerchantKeyPair> {
    const pair = await this.signingKeyOrNull(profile);
    if (!pair) throw new ServiceError('unavailable', `Profile "${profile.name}" has no JWT signing key: generate or import one in Settings → Credentials.`);
    return pair;
  }

  /** Removes a deleted profile's secrets; a locked keychain leaves them for the next attempt. */
  async forget(profile: Profile): Promise<void> {
    await this.readOrNull(() => this.deps.secrets.delete(tokenAccount(profile.id)));
    await this.readOrNull(() => this.deps.secrets.delete(keyAccount(profile.id)));
  }

  private async install(profile: Profile, pair: MerchantKeyPair, action: string): Promise<PublicKeyExport> {
    await this.deps.secrets.set(keyAccount(profile.id), await exportPrivatePem(pair));
    await this.deps.profiles.update(profile.id, { kid: pair.kid });
    let registered = false;
    if (profile.environment === 'local') {
      await this.deps.local.registerKey(pair.kid, exportPublicJwk(pair));
      registered = true;
    }
    const description = await this.describe(pair, registered);
    await this.deps.audit.append({ actor: 'user', action, profileId: profile.id, subject: profile.name, details: { kid: pair.kid, fingerprint: description.fingerprint, registeredWithEmulator: registered } });
    return description;
  }

  private async describe(pair: MerchantKeyPair, registeredWithEmulator: boolean): Promise<PublicKeyExport> {
    return {
      kid: pair.kid,
      jwk: { ...exportPublicJwk(pair) },
      pem: await exportPublicPem(pair),
      fingerprint: await publicKeyFingerprint(pair.publicJwk),
      registeredWithEmulator,
    };
  }

  private async merchantTokenOrNull(profile: Profile): Promise<string | null> {
    if (profile.environment === 'local') return this.deps.local.merchant.merchant_token;
    return this.deps.secrets.get(tokenAccount(profile.id));
  }

  private async signingKeyOrNull(profile: Profile): Promise<MerchantKeyPair | null> {
    const pem = await this.deps.secrets.get(keyAccount(profile.id));
    if (pem === null) return null;
    return importMerchantPrivateKey(pem, profile.kid ?? undefined);
  }

  private async keyOrInputError(make: () => Promise<MerchantKeyPair>): Promise<MerchantKeyPair> {
    try {
      return await make();
    } catch (error) {
      if (error instanceof KeyFormatError) throw new ServiceError('invalid_input', `Key refused: ${error.message}.`, { privateKey: error.message });
      throw error;
    }
  }

  /** For read-only views: a locked keychain shows as "not set" instead of failing the whole list. */
  private async readOrNull<T>(read: () => Promise<T | null>): Promise<T | null> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'unavailable') return null;
      throw error;
    }
  }
}
