// The listener's path → profile lookup, cached: a ledger read per request costs more than the
// notification's own insert. Rotating or deleting a path takes effect on clear(), or after the TTL.
import type { ProfilesRepository } from '../ledger/repositories/profiles';

/** Path → profile id, each answer reused for `ttlMs` (unknown paths are cached too, against floods). */
export class ProfileCache {
  private readonly entries = new Map<string, { profileId: string | undefined; until: number }>();

  constructor(
    private readonly profiles: ProfilesRepository,
    private readonly ttlMs: number,
  ) {}

  async idFor(secret: string): Promise<string | undefined> {
    const now = Date.now();
    const cached = this.entries.get(secret);
    if (cached && cached.until > now) return cached.profileId;
    if (this.entries.size > 10_000) this.entries.clear(); // bounded: random paths cannot grow it forever
    const profileId = (await this.profiles.byListenerPath(secret))?.id;
    this.entries.set(secret, { profileId, until: now + this.ttlMs });
    return profileId;
  }

  clear(): void {
    this.entries.clear();
  }
}
