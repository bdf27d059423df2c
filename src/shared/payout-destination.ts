// The one place a payout's destination is masked: enough to recognise, never enough to reuse.
// Card: first 6 / last 4; IBAN: country and last 4; wallet: shortened; account number: last 4.
// Four forms of the same masking: the destination's fields by their spec names (the emulator's
// admin view), the lines main's payout review shows (every path to a payout), one line for tables
// (the batch preview and main's batch items), and the audit log's words.
import { numberText } from './json';
import { maskPan } from './redact';
import { payoutDetailFields, type PayoutDetailField } from './spec/form-fields';
import type { PayoutMethod } from './spec/methods';

export interface MaskedLine {
  label: string;
  value: string;
}

/** paymentDetails as any layer holds them: form text, a stored request's values. */
export type DestinationDetails = Readonly<Record<string, unknown>>;

const DOT = '•';

export function maskIban(iban: string): string {
  const compact = iban.replace(/\s/g, '').toUpperCase();
  if (compact.length <= 6) return DOT.repeat(compact.length);
  // Grouped by four like a printed IBAN, the last four kept together: "DE•• •••• •••• •••• •• 3000".
  const hidden = `${compact.slice(0, 2)}${DOT.repeat(compact.length - 6)}`.replace(/(.{4})(?=.)/g, '$1 ');
  return `${hidden} ${compact.slice(-4)}`;
}

export function shortenWallet(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 6)}…${address.slice(-4)}`;
}

export function maskAccountNumber(account: string): string {
  return account.length <= 4 ? DOT.repeat(account.length) : `${DOT.repeat(account.length - 4)}${account.slice(-4)}`;
}

const formatSortCode = (code: string) => (/^\d{6}$/.test(code) ? code.replace(/(\d{2})(\d{2})(\d{2})/, '$1-$2-$3') : code);

/** A detail as text (a number as written; '' when absent); `compact` drops white space (IBANs, wallets, account numbers). */
function reader(details: DestinationDetails, compact = false): (key: string) => string {
  return (key) => {
    const value = details[key];
    const text = typeof value === 'string' ? value : (numberText(value) ?? '');
    return compact ? text.replace(/\s/g, '') : text;
  };
}

const asWritten = (text: string) => text;

/**
 * How each destination field of the spec is shown: masked where it could move money, as written
 * where it could not. Keyed by the rule table's fields, so a field added there fails the typecheck
 * until it is decided here.
 */
const SHOWN: Record<PayoutDetailField, (text: string) => string> = {
  cardNum: maskPan,
  cardHolder: asWritten,
  cardExpireMonth: asWritten,
  cardExpireYear: asWritten,
  iban: maskIban,
  bic: asWritten,
  accountHolder: asWritten,
  walletAddress: shortenWallet,
  network: asWritten,
  sortCode: formatSortCode,
  accountNumber: maskAccountNumber,
};

/** The destination fields `method` requires, by their spec names, each shown as SHOWN says ('' when absent). */
export function maskedDetails(method: string, details: DestinationDetails): Partial<Record<PayoutDetailField, string>> {
  const d = reader(details);
  return Object.fromEntries(payoutDetailFields(method).map((field) => [field, SHOWN[field](d(field))]));
}

/** The destination as the review lists it, line by line. */
export function maskedDestination(method: string, details: DestinationDetails): MaskedLine[] {
  const m = maskedDetails(method, details);
  const line = (label: string, value: string | undefined): MaskedLine => ({ label, value: value ?? '' });
  switch (method) {
    case 'credit_card':
      return [line('Card', m.cardNum), line('Cardholder', m.cardHolder), line('Expiry', `${m.cardExpireMonth}/${m.cardExpireYear}`)];
    case 'open_banking':
      return [line('IBAN', m.iban), line('BIC', m.bic), line('Account holder', m.accountHolder)];
    case 'crypto':
      return [line('Wallet', m.walletAddress), line('Network', m.network)];
    case 'fps':
      return [line('Sort code', m.sortCode), line('Account number', m.accountNumber), line('Account holder', m.accountHolder)];
    default:
      return [];
  }
}

/** One short line for tables, beside a method column: "DE•• … 3000", "ethereum 0x5290…9EE7", "40-12-76 ••••5678", "411111******1111". */
export function destinationSummary(method: string, details: DestinationDetails): string {
  const d = reader(details, true);
  switch (method) {
    case 'open_banking':
      return d('iban') ? `${d('iban').slice(0, 2).toUpperCase()}${DOT}${DOT} … ${d('iban').slice(-4).toUpperCase()}` : '';
    case 'crypto':
      return d('walletAddress') ? `${d('network')} ${shortenWallet(d('walletAddress'))}` : '';
    case 'fps':
      return d('accountNumber') ? `${formatSortCode(d('sortCode'))} ${maskAccountNumber(d('accountNumber')).slice(-8)}` : '';
    case 'credit_card':
      return d('cardNum') ? maskPan(d('cardNum')) : '';
    default:
      return '';
  }
}

const KIND: Record<PayoutMethod, string> = { credit_card: 'card', open_banking: 'IBAN', crypto: 'wallet', fps: 'account' };

/**
 * Where the money goes in words, for the audit log (which never holds a full number): the kind of
 * destination and its one-line summary ("card 411111******1111", "IBAN DE•• … 3000").
 */
export function describeDestination(method: string, details: DestinationDetails): string {
  const kind = (KIND as Record<string, string | undefined>)[method];
  const summary = destinationSummary(method, details);
  return kind === undefined ? 'unknown destination' : `${kind} ${summary || '?'}`;
}

/**
 * Who is paid, in one normalised text, to recognise a second payout to the same account: the IBAN
 * in capitals without spaces, the network and wallet address in lower case, the sort code and
 * account number; for a card only its first 6 and last 4 digits (the ledger's card facts: a full
 * card number is never stored or compared). Null when the destination is incomplete. The upgrade
 * that added these keys (SQLite 0019, PostgreSQL 0006) computes the same from the stored requests.
 */
export function beneficiaryKey(method: string, details: DestinationDetails, card?: { bin: string | null; last4: string | null } | null): string | null {
  const d = reader(details);
  const squeezed = (key: string) => d(key).replace(/ /g, '');
  switch (method) {
    case 'open_banking':
      return squeezed('iban') ? `iban:${squeezed('iban').toUpperCase()}` : null;
    case 'crypto':
      return squeezed('walletAddress') && d('network').trim() ? `wallet:${d('network').trim().toLowerCase()}:${squeezed('walletAddress').toLowerCase()}` : null;
    case 'fps':
      return squeezed('sortCode') && squeezed('accountNumber') ? `account:${squeezed('sortCode').replace(/-/g, '')}:${squeezed('accountNumber')}` : null;
    case 'credit_card':
      return card?.bin && card.last4 ? `card:${card.bin}…${card.last4}` : null;
    default:
      return null;
  }
}
