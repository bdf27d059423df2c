// One GatewayClient and one AttemptRunner per profile, built on demand from the profile's address
// and its merchant-token (read from the keychain), and rebuilt when either changes. Services ask
// this for "the gateway of profile X" and never see the token.
import { AttemptRunner } from '../gateway/attempt-runner';
import { GatewayClient } from '../gateway/client';
import { DEFAULT_TIMEOUT_MS } from '../gateway/http';
import { randomIds, realSleep, systemClock } from '../gateway/runtime';
import { LedgerAttemptStore } from '../ledger/ledger-attempt-store';
import type { AttemptsRepository } from '../ledger/repositories/attempts';
import type { Profile } from '../ledger/repositories/profiles';
import type { CredentialService } from './credential-service';
import { tokenFingerprint } from './credential-service';

export interface GatewaySession {
  client: GatewayClient;
  runner: AttemptRunner;
  /** How long one try waits for its answer (part of the retry policy a person is shown). */
  tryTimeoutMs: number;
}

export interface GatewaySessionsDeps {
  credentials: CredentialService;
  attempts: AttemptsRepository;
  /** Overrides for tests (short backoff, fake clock). */
  runner?: Partial<Omit<ConstructorParameters<typeof AttemptRunner>[0], 'transport' | 'store'>>;
  timeoutMs?: number;
  /** Tests: the fetch that reaches their https test gateway (GatewayHttpConfig.fetch). */
  fetch?: typeof globalThis.fetch;
}

export class GatewaySessions {
  private readonly sessions = new Map<string, { signature: string; session: GatewaySession }>();

  constructor(private readonly deps: GatewaySessionsDeps) {}

  async for(profile: Profile): Promise<GatewaySession> {
    const token = await this.deps.credentials.merchantToken(profile);
    const signature = `${profile.baseUrl}|${tokenFingerprint(token)}`;
    const cached = this.sessions.get(profile.id);
    if (cached?.signature === signature) return cached.session;
    const tryTimeoutMs = this.deps.timeoutMs || DEFAULT_TIMEOUT_MS;
    const client = new GatewayClient({ baseUrl: profile.baseUrl, merchantToken: token, timeoutMs: tryTimeoutMs, ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}) });
    const runner = new AttemptRunner({
      transport: client,
      store: new LedgerAttemptStore(this.deps.attempts, profile.id),
      clock: systemClock,
      sleep: realSleep,
      ids: randomIds,
      ...this.deps.runner,
    });
    const session = { client, runner, tryTimeoutMs };
    this.sessions.set(profile.id, { signature, session });
    return session;
  }
}
