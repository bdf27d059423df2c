// The card of a transaction as the screens show it, from what main recorded (first 6 / last 4 at
// most): "Visa 411111******1111 · expires 12/2028".
import type { CardView } from '../../../shared/contract';

/** card-validator's type ("visa", "american-express", "jcb") in words ("Visa", "American Express", "JCB"). */
export function brandLabel(brand: string): string {
  return brand
    .split(/[-_\s]+/)
    .filter((word) => word !== '')
    .map((word) => (word.length <= 3 ? word.toUpperCase() : `${word[0]?.toUpperCase() ?? ''}${word.slice(1)}`))
    .join(' ');
}

export function cardLabel(card: CardView): string {
  const parts = [card.brand ? brandLabel(card.brand) : null, card.maskedPan].filter((p): p is string => p !== null);
  const expiry = card.expMonth && card.expYear ? ` · expires ${card.expMonth}/${card.expYear}` : '';
  return `${parts.length > 0 ? parts.join(' ') : 'card'}${expiry}`;
}
