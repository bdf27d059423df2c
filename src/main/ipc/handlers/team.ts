import type { teamContract } from '../../../shared/contract';
import type { TeamChannels } from '../../services/team/team-channels';
import type { Handlers } from '../dispatcher';

export function teamHandlers({ team }: { team: TeamChannels }): Pick<Handlers, keyof typeof teamContract.invoke> {
  return {
    'team:get-session': () => team.session(),
    'team:connect': (input) => team.connect(input),
    'team:disconnect': () => team.disconnect(),
    'team:list-users': () => team.listUsers(),
    'team:create-user': (input) => team.createUser(input),
    'team:update-user': (input) => team.updateUser(input),
    'team:reset-password': (input) => team.resetPassword(input),
    'team:change-password': (input) => team.changePassword(input),
    'team:list-sessions': () => team.listSessions(),
    'team:revoke-session': ({ id }) => team.revokeSession(id),
    'team:update-policy': (patch) => team.updatePolicy(patch),
    'team:start-totp': () => team.startTotp(),
    'team:confirm-totp': ({ code }) => team.confirmTotp(code),
    'team:disable-totp': ({ code }) => team.disableTotp(code),
  };
}
