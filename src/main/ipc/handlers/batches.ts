import type { batchesContract } from '../../../shared/contract';
import type { BatchService } from '../../services/payouts-batch/batch-service';
import type { Handlers } from '../dispatcher';

export function batchesHandlers({ batches }: { batches: BatchService }): Pick<Handlers, keyof typeof batchesContract.invoke> {
  return {
    'batches:create': (input) => batches.create(input),
    'batches:check': (input) => batches.check(input),
    'batches:add-items': (input) => batches.addItems(input),
    'batches:add-left-out': (input) => batches.addLeftOut(input),
    'batches:left-out': (input) => batches.leftOut(input),
    'batches:review': ({ id }) => batches.review(id),
    'batches:start': ({ id, ...proof }) => batches.start(id, proof),
    'batches:discard': ({ id }) => batches.discard(id),
    'batches:pause': ({ id }) => batches.pause(id),
    'batches:resume': ({ id, ...proof }) => batches.resume(id, proof),
    'batches:cancel': ({ id }) => batches.cancel(id),
    'batches:list': (input) => batches.list(input),
    'batches:get': ({ id }) => batches.get(id),
    'batches:items': (input) => batches.items(input),
  };
}
