import type { PaymentServices } from '../services/payments/index';
import type { Handlers } from './dispatcher';

type PaymentChannels =
  | 'payins:create'
  | 'payins:get'
  | 'payins:read-status'
  | 'tokens:tokenize'
  | 'tokens:list'
  | 'tokens:charge'
  | 'payouts:create'
  | 'payouts:get'
  | 'payouts:read-status'
  | 'attempts:list'
  | 'attempts:resume'
  | 'jwt:sign'
  | 'jwt:decode';

export function paymentHandlers({ payins, tokens, payouts, attempts, jwt }: PaymentServices): Pick<Handlers, PaymentChannels> {
  return {
    'payins:create': (input) => payins.create(input),
    'payins:get': (ref) => payins.get(ref),
    'payins:read-status': (input) => payins.readStatus(input),
    'tokens:tokenize': (input) => tokens.tokenize(input),
    'tokens:list': (input) => tokens.list(input ?? {}),
    'tokens:charge': (input) => tokens.charge(input),
    'payouts:create': (input) => payouts.create(input),
    'payouts:get': (ref) => payouts.get(ref),
    'payouts:read-status': (input) => payouts.readStatus(input),
    'attempts:list': ({ subject, id }) => attempts.list(subject, id),
    'attempts:resume': (input) => attempts.resume(input),
    'jwt:sign': (input) => jwt.sign(input),
    'jwt:decode': (input) => jwt.decode(input),
  };
}
