// Rotation of a team server's envelope key (`npm run server -- rotate-key`): every credential and
// every second-factor secret is opened with the current key and sealed under the next, in one
// transaction, audited. Afterwards only the next key opens them.
import type { Repositories } from '../../ledger/repositories/index';
import type { EnvelopeKey } from './envelope-key';
import { totpAccount } from './sealed-values';

export async function rotateEnvelopeKey(repos: Repositories, current: EnvelopeKey, next: EnvelopeKey): Promise<{ credentials: number; secondFactors: number }> {
  return repos.transaction(async () => {
    let credentials = 0;
    for (const stored of await repos.serverSecrets.all()) {
      await repos.serverSecrets.put(stored.account, next.seal(current.open(stored.sealed, stored.account), stored.account), next.id);
      credentials++;
    }
    let secondFactors = 0;
    for (const user of await repos.team.users()) {
      const account = totpAccount(user.id);
      const patch: { totpSecret?: string; totpPending?: string } = {};
      if (user.totpSecret) patch.totpSecret = next.seal(current.open(user.totpSecret, account), account);
      if (user.totpPending) patch.totpPending = next.seal(current.open(user.totpPending, account), account);
      if (Object.keys(patch).length > 0) {
        await repos.team.updateUser(user.id, patch);
        secondFactors++;
      }
    }
    await repos.audit.append({ actor: 'system', action: 'team.key-rotate', details: { from: current.id, to: next.id, credentials, secondFactors } });
    return { credentials, secondFactors };
  });
}
