// Sentinel secrets for the "nothing leaks" tests and the scanner that looks for
// them: a fresh Luhn-valid card number (so no fixture elsewhere contains it), a CVV, a
// merchant-token and an Ed25519 private key. A card number may appear only as first 6 / last 4;
// the scanner looks for the whole number (plain, spaced, dashed), for any card-number-shaped run
// (digits, '*', spaces, dashes) that shows more of it than 6 + 4 digits, for the CVV in any field
// context, for the token and for the key's secret material (PEM body lines and the JWK "d").
import { createPrivateKey, generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sql } from '../../../src/main/ledger/engine/types';
import { ledgerTables, rowsOf } from './ledger-tables';

/** Appends the Luhn check digit to a string of digits. */
export function luhnComplete(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

export interface Sentinels {
  pan: string;
  /** What may appear: first 6 / last 4. */
  maskedPan: string;
  cvv: string;
  merchantToken: string;
  privateKeyPem: string;
  /** The JWK "d" (the 32-byte seed) of the private key, base64url. */
  privateKeyD: string;
}

export function makeSentinels(): Sentinels {
  // Visa range, random middle: no other fixture carries this number.
  let middle = '';
  for (let i = 0; i < 14; i++) middle += String(randomInt(0, 10));
  const pan = luhnComplete(`4${middle}`);
  const { privateKey } = generateKeyPairSync('ed25519');
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const jwk = createPrivateKey(privateKeyPem).export({ format: 'jwk' }) as { d: string };
  return {
    pan,
    maskedPan: `${pan.slice(0, 6)}******${pan.slice(-4)}`,
    cvv: String(randomInt(1000, 10_000)),
    merchantToken: `mt_SENTINEL_${randomBytes(18).toString('base64url')}`,
    privateKeyPem,
    privateKeyD: jwk.d,
  };
}

interface Needle {
  what: string;
  find: (text: string) => boolean;
}

function needles(s: Sentinels): Needle[] {
  const grouped = (sep: string) => s.pan.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
  const keyLines = s.privateKeyPem
    .split('\n')
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));
  const plain = (what: string, value: string): Needle => ({ what, find: (text) => text.includes(value) });
  // The CVV only counts in a field context: cardCvv=1234, "cvv":"1234", cvc: 1234 …
  const cvvInContext = new RegExp(`(cvv|cvc|cvn|csc)[^0-9]{0,24}${s.cvv}(?![0-9])`, 'i');
  return [
    plain('full card number', s.pan),
    plain('card number with spaces', grouped(' ')),
    plain('card number with dashes', grouped('-')),
    { what: 'card number with more than first 6 / last 4 visible', find: (text) => revealsMoreThanMask(text, s.pan) },
    { what: 'CVV in a field context', find: (text) => cvvInContext.test(text) },
    plain('merchant-token', s.merchantToken),
    plain('private key (JWK d)', s.privateKeyD),
    ...keyLines.map((line, i) => plain(`private key (PEM line ${i + 1})`, line)),
  ];
}

/**
 * A card-number-shaped run (digits, '*', single spaces or dashes) as long as the PAN whose visible
 * digits all match it and number more than the 6 + 4 the mask keeps: "4111112222**1111" leaks.
 */
function revealsMoreThanMask(text: string, pan: string): boolean {
  for (const match of text.matchAll(/[0-9*](?:[ -]?[0-9*]){11,22}/g)) {
    const run = match[0].replace(/[ -]/g, '');
    for (let start = 0; start + pan.length <= run.length; start++) {
      const window = run.slice(start, start + pan.length);
      let visible = 0;
      let agrees = true;
      for (let i = 0; i < pan.length && agrees; i++) {
        if (window[i] === '*') continue;
        if (window[i] !== pan[i]) agrees = false;
        else visible++;
      }
      if (agrees && visible > 10) return true;
    }
  }
  return false;
}

/** Every sentinel found in `text`, named by where it was found. */
export function leaksIn(where: string, text: string, s: Sentinels): string[] {
  return needles(s)
    .filter((n) => n.find(text))
    .map((n) => `${where}: ${n.what}`);
}

/** Reads bytes as Latin-1 so every byte maps to one character (SQLite pages, WAL frames, logs). */
export function leaksInBytes(where: string, bytes: Buffer, s: Sentinels): string[] {
  const found = leaksIn(where, bytes.toString('latin1'), s);
  // UTF-16 text (a Chromium store, say) would hide ASCII behind NUL bytes.
  const utf16 = bytes.toString('utf16le');
  for (const leak of leaksIn(`${where} (utf-16)`, utf16, s)) if (!found.includes(leak.replace(' (utf-16)', ''))) found.push(leak);
  return found;
}

/** Every file under `dir`, recursively, with its size. */
export function filesUnder(dir: string): { file: string; size: number }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return { file, size: readFileSync(file).length };
    });
}

/** Scans every file under `dir` byte by byte (an SQLite ledger with its -wal and -shm, free pages included; logs; anything else). */
export function leaksInDir(dir: string, s: Sentinels): string[] {
  return filesUnder(dir).flatMap(({ file }) => leaksInBytes(path.relative(dir, file), readFileSync(file), s));
}

/** Scans every value of every table of the ledger, through its engine (SQLite or PostgreSQL): hits name their table.column. */
export async function leaksInLedger(sql: Sql, s: Sentinels): Promise<string[]> {
  const found = new Set<string>();
  for (const table of await ledgerTables(sql)) {
    for (const row of await rowsOf(sql, table)) {
      for (const [column, value] of Object.entries(row)) {
        if (value === null || typeof value === 'boolean') continue;
        const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
        for (const leak of leaksIn(`ledger ${table}.${column}`, text, s)) found.add(leak);
      }
    }
  }
  return [...found];
}
