import type { paymentsContract } from '../../../shared/contract';
import type { PaymentServices } from '../../services/payments/index';
import type { Handlers } from '../dispatcher';

export function paymentsHandlers({ payments }: { payments: PaymentServices }): Pick<Handlers, keyof typeof paymentsContract.invoke> {
  const { payins, tokens, payouts, attempts, jwt, settler } = payments;
  return {
    'payins:create': (input) => payins.create(input),
    'payins:get': (ref) => payins.get(ref),
    'payins:read-status': (input) => payins.readStatus(input),
    'tokens:tokenize': (input) => tokens.tokenize(input),
    'tokens:list': (input) => tokens.list(input),
    'tokens:charge': (input) => tokens.charge(input),
    'payouts:review': (input) => payouts.review(input),
    'payouts:create': (input) => payouts.create(input),
    'payouts:get': (ref) => payouts.get(ref),
    'payouts:read-status': (input) => payouts.readStatus(input),
    'attempts:list': ({ subject, id }) => attempts.list(subject, id),
    'attempts:review': ({ key }) => attempts.review(key),
    'attempts:resume': (input) => attempts.resume(input),
    'attempts:settle-unknown': (input) => settler.settleAll(input),
    'attempts:progress': (input) => attempts.progress(input),
    'jwt:sign': (input) => jwt.sign(input),
    'jwt:decode': (input) => jwt.decode(input),
  };
}
