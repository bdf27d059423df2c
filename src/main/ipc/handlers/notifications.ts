import type { notificationsContract } from '../../../shared/contract';
import type { NotificationInspector } from '../../services/ledger-views/notification-inspector';
import type { Handlers } from '../dispatcher';

export function notificationsHandlers({ inspector }: { inspector: NotificationInspector }): Pick<Handlers, keyof typeof notificationsContract.invoke> {
  return {
    'notifications:list': (input) => inspector.list(input),
    'notifications:count': (filters) => inspector.count(filters),
    'notifications:get': ({ id }) => inspector.view(id),
    'notifications:replay': ({ id }) => inspector.replay(id),
  };
}
