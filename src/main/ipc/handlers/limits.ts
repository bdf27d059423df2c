import type { limitsContract } from '../../../shared/contract';
import type { LimitService } from '../../services/limits/limit-service';
import type { Handlers } from '../dispatcher';

export function limitsHandlers({ limits }: { limits: LimitService }): Pick<Handlers, keyof typeof limitsContract.invoke> {
  return {
    'limits:list': () => limits.list(),
    'limits:set': (input) => limits.set(input),
    'limits:remove': ({ environment, currency }) => limits.remove(environment, currency),
    'limits:set-duplicate-window': ({ days }) => limits.setDuplicateWindow(days),
    'limits:check': (input) => limits.checkPayout(input),
  };
}
