import type { noticesContract } from '../../../shared/contract';
import type { Notices } from '../../services/notices/notices';
import type { Handlers } from '../dispatcher';

export function noticesHandlers({ notices }: { notices: Notices }): Pick<Handlers, keyof typeof noticesContract.invoke> {
  return {
    'notices:list': (input) => notices.list(input),
    'notices:mark-read': (input) => notices.markRead(input),
    'notices:get-choices': () => notices.choices(),
    'notices:set-choices': (input) => notices.setChoices(input),
    'notices:channels': () => notices.channelStatus(),
    'notices:get-thresholds': () => notices.thresholds(),
    'notices:set-thresholds': (input) => notices.setThresholds(input),
  };
}
