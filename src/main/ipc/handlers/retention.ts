import type { retentionContract } from '../../../shared/contract';
import type { NotificationRetention } from '../../services/notification-retention';
import type { Handlers } from '../dispatcher';

export function retentionHandlers({ retention }: { retention: NotificationRetention }): Pick<Handlers, keyof typeof retentionContract.invoke> {
  return {
    'settings:get-notification-retention': () => retention.views(),
    'settings:update-notification-retention': (input) => retention.update(input),
  };
}
