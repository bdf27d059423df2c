// What a review shows: a payout body (a form completed by main, or an attempt's stored request)
// in the words the person checks, its destination masked, and the facts every review carries
// (profile, whether the gateway can reach the notification URL, whether the review is required).
import type { ReviewedPayout } from '../../../shared/contract';
import { isJsonObject, numberText } from '../../../shared/json';
import { notificationReach } from '../../../shared/notification-reach';
import { maskedDestination } from '../../../shared/payout-destination';
import type { Profile } from '../../ledger/repositories/profiles';

const text = (value: unknown): string => (typeof value === 'string' ? value : (numberText(value) ?? ''));

/** A payout body as the review shows it; card numbers come out as first 6 / last 4 at most. */
export function reviewedPayout(body: Record<string, unknown>): ReviewedPayout {
  const customer = isJsonObject(body.customer) ? body.customer : {};
  const details = isJsonObject(body.paymentDetails) ? body.paymentDetails : {};
  const method = text(body.method);
  return {
    method,
    amount: text(body.amount),
    currency: text(body.currency),
    country: text(body.country),
    merchantReference: text(body.merchantReference),
    beneficiary: `${text(customer.firstName)} ${text(customer.lastName)}`.trim(),
    email: text(customer.email),
    destination: maskedDestination(method, details),
  };
}

/** The facts of every review besides the thing reviewed. */
export function reviewTicket(profile: Profile, notificationUrl: string) {
  return {
    required: profile.environment === 'live',
    profile: { id: profile.id, name: profile.name, environment: profile.environment },
    notifications: notificationReach(profile.environment, notificationUrl),
  };
}
