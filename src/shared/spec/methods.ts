// Payment methods of the spec (section 1 for pay-ins, 2.7 for payouts) and their amount scale.

export const PAYIN_METHODS = [
  'credit_card',
  'credit_card_ftd',
  'open_banking',
  'crypto',
  'blik',
  'googlepay',
  'applepay',
  'interac',
] as const;
export type PayinMethod = (typeof PAYIN_METHODS)[number];

export const PAYOUT_METHODS = ['credit_card', 'open_banking', 'crypto', 'fps'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

/** Methods whose body carries card data (cardNum, cardCvv, ...). */
export const CARD_PAYIN_METHODS = ['credit_card', 'credit_card_ftd'] as const satisfies readonly PayinMethod[];

/** Tokenization and token charge are "credit cards only" (spec 2.5). */
export const TOKEN_PAYIN_METHODS = CARD_PAYIN_METHODS;

/** Amount scale: crypto up to 10 decimals, every other method 2 (spec 2.1 and section 8). */
export const CRYPTO_AMOUNT_SCALE = 10;
export const FIAT_AMOUNT_SCALE = 2;

export function isPayinMethod(value: unknown): value is PayinMethod {
  return typeof value === 'string' && (PAYIN_METHODS as readonly string[]).includes(value);
}

export function isPayoutMethod(value: unknown): value is PayoutMethod {
  return typeof value === 'string' && (PAYOUT_METHODS as readonly string[]).includes(value);
}

export function isCryptoMethod(method: string): boolean {
  return method === 'crypto';
}

/** Maximum number of decimals an amount may carry for this pay-in or payout method. */
export function amountScale(method: string): number {
  return isCryptoMethod(method) ? CRYPTO_AMOUNT_SCALE : FIAT_AMOUNT_SCALE;
}

/** Human labels for forms and the code explorer. */
export const METHOD_LABELS: Readonly<Record<PayinMethod | PayoutMethod, string>> = {
  credit_card: 'Credit card',
  credit_card_ftd: 'Credit card (first-time deposit)',
  open_banking: 'Open banking',
  crypto: 'Crypto',
  blik: 'BLIK',
  googlepay: 'Google Pay',
  applepay: 'Apple Pay',
  interac: 'Interac',
  fps: 'Faster Payments (UK)',
};

/** A method's label; a method the spec does not list (an old row, a bad CSV cell) as written. */
export function methodLabel(method: string): string {
  return (METHOD_LABELS as Readonly<Record<string, string>>)[method] ?? method;
}
