// The merchant's demo bank: one account per settlement currency, each with a valid IBAN (ISO
// 13616 check digits), so an importer's IBAN check passes. The bank and its code are fictitious.
import { referenceToken, type Ids } from '../../runtime';

export const DEMO_BANK = { name: 'Emulator Demo Bank', bic: 'EMULDEFFXXX', bankCode: '37040044' } as const;

/** ISO 13616: the two check digits that make `country + check + bban` pass mod 97. */
function checkDigits(country: string, bban: string): string {
  const digits = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return String(98n - (BigInt(digits) % 97n)).padStart(2, '0');
}

/** A German IBAN at the demo bank for this 10-digit account number. */
export function demoIban(accountNumber: string): string {
  const bban = `${DEMO_BANK.bankCode}${accountNumber.padStart(10, '0')}`;
  return `DE${checkDigits('DE', bban)}${bban}`;
}

/** A fresh account number: ten digits from the id source. */
export const newAccountNumber = (ids: Ids): string => (BigInt(`0x${referenceToken(ids)}`) % 10_000_000_000n).toString().padStart(10, '0');
