// The encoding a file was saved in: a payout batch (read in the renderer), a settlement report or a
// bank statement (read in main). Spreadsheets save CSV as UTF-8 (with or without a byte order
// mark), as UTF-16 ("Unicode text", with one) or in the system's code page, in Western Europe
// Windows-1252, where "é" is the single byte 0xE9 that UTF-8 cannot read. chardet guesses from the
// bytes; text that is valid UTF-8 is UTF-8 (plain ASCII is both, and chardet calls it Latin-1);
// the platform's TextDecoder decodes. The mapping step shows the encoding and lets the person
// change it: the file's bytes are kept, so a change decodes them again.
import chardet from 'chardet';

export interface EncodingChoice {
  /** The WHATWG label TextDecoder knows it by. */
  value: string;
  label: string;
}

/** The encodings a file can be read in, as the mapping step offers them. */
export const FILE_ENCODINGS: readonly EncodingChoice[] = [
  { value: 'utf-8', label: 'UTF-8' },
  { value: 'utf-16le', label: 'UTF-16 (little-endian)' },
  { value: 'utf-16be', label: 'UTF-16 (big-endian)' },
  { value: 'windows-1252', label: 'Windows-1252 (Western European)' },
  { value: 'windows-1250', label: 'Windows-1250 (Central European)' },
  { value: 'iso-8859-2', label: 'ISO-8859-2 (Central European)' },
  { value: 'windows-1251', label: 'Windows-1251 (Cyrillic)' },
];

/** chardet's names → the label decoded with. ISO-8859-1 is read as Windows-1252, its superset (as browsers do). */
const FROM_CHARDET: Readonly<Record<string, string>> = {
  'UTF-8': 'utf-8',
  'UTF-16LE': 'utf-16le',
  'UTF-16BE': 'utf-16be',
  'ISO-8859-1': 'windows-1252',
  'windows-1252': 'windows-1252',
  'windows-1250': 'windows-1250',
  'ISO-8859-2': 'iso-8859-2',
  'windows-1251': 'windows-1251',
};

export interface DetectedEncoding {
  encoding: string;
  /** The file starts with a byte order mark (UTF-8 or UTF-16). */
  bom: boolean;
}

const BOMS: readonly { bytes: readonly number[]; encoding: string }[] = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
];

const startsWith = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((byte, i) => bytes[i] === byte);

function validUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The file's encoding: its byte order mark, else UTF-8 when the bytes are valid UTF-8, else chardet's best guess that can be decoded. */
export function detectEncoding(bytes: Uint8Array): DetectedEncoding {
  const bom = BOMS.find((b) => startsWith(bytes, b.bytes));
  if (bom) return { encoding: bom.encoding, bom: true };
  if (validUtf8(bytes)) return { encoding: 'utf-8', bom: false };
  // Single-byte code pages only: without a BOM, chardet names UTF-16 only where it holds one.
  const guess = chardet
    .analyse(bytes)
    .map((match) => FROM_CHARDET[match.name])
    .find((encoding) => encoding !== undefined && encoding !== 'utf-8' && !encoding.startsWith('utf-16'));
  return { encoding: guess ?? 'windows-1252', bom: false };
}

/** The bytes as text in this encoding; a byte order mark of it is dropped, and a byte it cannot read becomes U+FFFD (which the checks then name). */
export function decodeBytes(bytes: Uint8Array, encoding: string): string {
  // Decoded as a stream: Node 20.18.3+ and 22.13+ read Windows-1252 as Latin-1 when decoding in one
  // call (0x80 "€" becomes U+0080; nodejs/node#60888), while its streaming decoder reads it right.
  const decoder = new TextDecoder(encoding);
  return decoder.decode(bytes, { stream: true }) + decoder.decode();
}

export function encodingLabel(encoding: string): string {
  return FILE_ENCODINGS.find((e) => e.value === encoding)?.label ?? encoding;
}
