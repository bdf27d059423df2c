// The beneficiary's destination as the review and the batch preview show it: enough to recognise,
// never enough to reuse. Card: first 6 / last 4; IBAN: country and last 4; wallet: shortened;
// account number: last 4.
import { maskPan } from '../../../shared/redact';

export interface MaskedLine {
  label: string;
  value: string;
}

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

export function maskedDestination(method: string, details: Record<string, string | undefined>): MaskedLine[] {
  const d = (key: string) => details[key] ?? '';
  switch (method) {
    case 'credit_card':
      return [
        { label: 'Card', value: maskPan(d('cardNum')) },
        { label: 'Cardholder', value: d('cardHolder') },
        { label: 'Expiry', value: `${d('cardExpireMonth')}/${d('cardExpireYear')}` },
      ];
    case 'open_banking':
      return [
        { label: 'IBAN', value: maskIban(d('iban')) },
        { label: 'BIC', value: d('bic') },
        { label: 'Account holder', value: d('accountHolder') },
      ];
    case 'crypto':
      return [
        { label: 'Wallet', value: shortenWallet(d('walletAddress')) },
        { label: 'Network', value: d('network') },
      ];
    case 'fps':
      return [
        { label: 'Sort code', value: formatSortCode(d('sortCode')) },
        { label: 'Account number', value: maskAccountNumber(d('accountNumber')) },
        { label: 'Account holder', value: d('accountHolder') },
      ];
    default:
      return [];
  }
}

/** One short line for tables, beside a method column: "DE•• … 3000", "ethereum 0x5290…9EE7", "40-12-76 ••••5678" (the same form main gives batch items). */
export function destinationSummary(method: string, details: Record<string, string | undefined>): string {
  const d = (key: string) => (details[key] ?? '').replace(/\s/g, '');
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
