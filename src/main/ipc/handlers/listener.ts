import type { listenerContract } from '../../../shared/contract';
import type { ListenerSettings } from '../../services/listener-settings';
import type { Handlers } from '../dispatcher';

export function listenerHandlers({ listenerSettings }: { listenerSettings: ListenerSettings }): Pick<Handlers, keyof typeof listenerContract.invoke> {
  return {
    'settings:get-listener': () => listenerSettings.state(),
    'settings:update-listener': (input) => listenerSettings.update(input),
  };
}
