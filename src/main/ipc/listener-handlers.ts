// Adapters for the listener address setting.
import type { ListenerSettings } from '../services/listener-settings';
import type { Handlers } from './dispatcher';

export function listenerHandlers({ listener }: { listener: ListenerSettings }): Pick<Handlers, 'settings:get-listener' | 'settings:update-listener'> {
  return {
    'settings:get-listener': () => listener.state(),
    'settings:update-listener': (input) => listener.update(input),
  };
}
