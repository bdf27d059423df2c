// The card a transaction row keeps (migration 0011): brand, first 6, last 4 and expiry, never more.
// A card pay-in or payout takes it from the card number it sends; a token charge, whose request
// names no card, from the vaulted token it redeems, so its page says which card paid.
import { cardBrand } from '../../../shared/spec/field-checks';
import type { CardToken } from '../../ledger/repositories/tokens';
import type { CardFacts } from '../../ledger/repositories/cards';

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** The masked facts of a card number (13-19 digits, already validated); null for anything else. */
export function cardFacts(card: { number: unknown; expMonth?: unknown; expYear?: unknown }): CardFacts | null {
  const digits = typeof card.number === 'string' ? card.number.replace(/[\s-]/g, '') : '';
  if (!/^\d{13,19}$/.test(digits)) return null;
  const brand = cardBrand(digits);
  return { brand: brand === 'unknown' ? null : brand, bin: digits.slice(0, 6), last4: digits.slice(-4), expMonth: text(card.expMonth), expYear: text(card.expYear) };
}

/** The card a vaulted token stands for, as the tokenization notification described it. */
export function tokenCardFacts(token: CardToken): CardFacts {
  return { brand: token.brand, bin: token.bin, last4: token.last4, expMonth: token.expMonth, expYear: token.expYear };
}
