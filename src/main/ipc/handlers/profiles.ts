import type { profilesContract } from '../../../shared/contract';
import type { ProfileService } from '../../services/profile-service';
import type { Handlers } from '../dispatcher';

export function profilesHandlers({ profiles }: { profiles: ProfileService }): Pick<Handlers, keyof typeof profilesContract.invoke> {
  return {
    'profiles:list': () => profiles.list(),
    'profiles:create': (input) => profiles.create(input),
    'profiles:update': ({ id, patch, confirmed }) => profiles.update(id, patch, confirmed),
    'profiles:delete': ({ id }) => profiles.delete(id),
    'profiles:activate': ({ id, confirmed }) => profiles.activate(id, confirmed),
    'profiles:archive': ({ id }) => profiles.archive(id),
    'profiles:restore': ({ id }) => profiles.restore(id),
    'credentials:set-merchant-token': ({ profileId, token }) => profiles.setMerchantToken(profileId, token),
    'credentials:clear-merchant-token': ({ profileId }) => profiles.clearMerchantToken(profileId),
    'credentials:generate-key': ({ profileId, kid }) => profiles.generateKey(profileId, kid),
    'credentials:import-key': ({ profileId, privateKey, kid }) => profiles.importKey(profileId, privateKey, kid),
    'credentials:export-public-key': ({ profileId }) => profiles.exportPublicKey(profileId),
  };
}
