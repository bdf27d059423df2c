// The card's fields as every form labels them: the payout form's destination and the card data a
// resume asks for again. Keyed by the rule table's card fields, so a card field added there fails
// the typecheck until it has a label.
import type { PayinCardField } from '../../shared/spec/form-fields';

export const CARD_LABELS: Readonly<Record<PayinCardField, string>> = {
  cardNum: 'Card number',
  cardHolder: 'Cardholder name',
  cardExpireMonth: 'Expiry month (MM)',
  cardExpireYear: 'Expiry year (YYYY)',
  cardCvv: 'CVV',
};
