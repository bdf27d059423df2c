// Adapters for payout batches and payout limits.
import { ServiceError } from '../services/errors';
import type { LimitService } from '../services/limits/limit-service';
import type { BatchService } from '../services/payouts-batch/batch-service';
import type { ProfileService } from '../services/profile-service';
import type { Handlers } from './dispatcher';

type BatchChannels =
  | 'batches:create'
  | 'batches:add-items'
  | 'batches:start'
  | 'batches:discard'
  | 'batches:pause'
  | 'batches:resume'
  | 'batches:cancel'
  | 'batches:list'
  | 'batches:get'
  | 'batches:items';
type LimitChannels = 'limits:list' | 'limits:set' | 'limits:remove' | 'limits:check';

export function batchHandlers({ batches }: { batches: BatchService }): Pick<Handlers, BatchChannels> {
  return {
    'batches:create': (input) => batches.create(input),
    'batches:add-items': (input) => batches.addItems(input),
    'batches:start': ({ id }) => batches.start(id),
    'batches:discard': ({ id }) => batches.discard(id),
    'batches:pause': ({ id }) => batches.pause(id),
    'batches:resume': ({ id }) => batches.resume(id),
    'batches:cancel': ({ id }) => batches.cancel(id),
    'batches:list': (input) => batches.list(input ?? {}),
    'batches:get': ({ id }) => batches.get(id),
    'batches:items': (input) => batches.items(input),
  };
}

export function limitHandlers({ limits, profiles }: { limits: LimitService; profiles: Pick<ProfileService, 'active' | 'require'> }): Pick<Handlers, LimitChannels> {
  return {
    'limits:list': () => limits.list(),
    'limits:set': (input) => limits.set(input),
    'limits:remove': ({ environment, currency }) => limits.remove(environment, currency),
    'limits:check': ({ profileId, currency, amount }) => {
      if (!/^\d+(\.\d+)?$/.test(amount)) throw new ServiceError('invalid_input', 'The amount must be a decimal number such as 10.50.', { amount: 'must be a decimal number such as 10.50' });
      return limits.check(profileId === undefined ? profiles.active() : profiles.require(profileId), currency, amount);
    },
  };
}
