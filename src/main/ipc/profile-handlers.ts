import type { CredentialService } from '../services/credential-service';
import type { ProfileService } from '../services/profile-service';
import type { Handlers } from './dispatcher';

type ProfileChannels =
  | 'profiles:list'
  | 'profiles:create'
  | 'profiles:update'
  | 'profiles:delete'
  | 'profiles:activate'
  | 'credentials:set-merchant-token'
  | 'credentials:clear-merchant-token'
  | 'credentials:generate-key'
  | 'credentials:import-key'
  | 'credentials:export-public-key';

export function profileHandlers({ profiles, credentials }: { profiles: ProfileService; credentials: CredentialService }): Pick<Handlers, ProfileChannels> {
  const afterCredentialChange = async (profileId: string) => {
    await profiles.publish();
    return profiles.view(profiles.require(profileId));
  };
  return {
    'profiles:list': () => profiles.list(),
    'profiles:create': (input) => profiles.create(input),
    'profiles:update': ({ id, patch }) => profiles.update(id, patch),
    'profiles:delete': ({ id }) => profiles.delete(id),
    'profiles:activate': ({ id }) => profiles.activate(id),
    'credentials:set-merchant-token': async ({ profileId, token }) => {
      await credentials.setMerchantToken(profiles.require(profileId), token);
      return afterCredentialChange(profileId);
    },
    'credentials:clear-merchant-token': async ({ profileId }) => {
      await credentials.clearMerchantToken(profiles.require(profileId));
      return afterCredentialChange(profileId);
    },
    'credentials:generate-key': async ({ profileId, kid }) => {
      const exported = await credentials.generateKey(profiles.require(profileId), kid);
      await profiles.publish();
      return exported;
    },
    'credentials:import-key': async ({ profileId, privateKey, kid }) => {
      const exported = await credentials.importKey(profiles.require(profileId), privateKey, kid);
      await profiles.publish();
      return exported;
    },
    'credentials:export-public-key': ({ profileId }) => credentials.exportPublicKey(profiles.require(profileId)),
  };
}
