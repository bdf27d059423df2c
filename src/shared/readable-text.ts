// Text that was lost or garbled on its way in: a file read in the wrong encoding turns "José" into
// "Jos�" (U+FFFD, the replacement character, where a byte could not be read) or "JosÃ©" (a UTF-8
// file read as Windows-1252). Such text is never sent: a payout carries the beneficiary's name to
// a bank, and a mangled one may be refused, or worse, paid to a name that is not theirs. The
// renderer's checks (the batch preview, the payout form) and main's (every payout it records) ask
// this one place, so nothing mangled is ever sent, whichever way it came in.

export const REPLACEMENT_CHARACTER = '\uFFFD';

/** The payout fields that name a person (the beneficiary): checked for garbling as well. */
export const NAME_FIELDS = ['customer.firstName', 'customer.lastName', 'paymentDetails.accountHolder', 'paymentDetails.cardHolder'] as const;

const LOST = `holds “${REPLACEMENT_CHARACTER}” where a character could not be read: the text was read in another encoding than it was written in (for a CSV file, choose its encoding in the mapping step)`;
const CONTROL = 'holds a control character, which no name has: check the file or the form';
const GARBLED = 'looks garbled (such as “Ã©” for “é”): a UTF-8 file was read as Windows-1252 or the like; choose the file’s encoding in the mapping step';

// C0 and C1 control characters (tab included: a name never holds one).
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * A UTF-8 lead byte (0xC2-0xDF) read as Windows-1252 or Latin-1 (Â-ß), followed by a continuation
 * byte (0x80-0xBF) read the same way: what "é", "ü" or "ñ" look like when the encoding was wrong.
 * No name writes these pairs ("Ã©", "Ã¼", "Â£").
 */
const MOJIBAKE = /[\u00c2-\u00df][\u00a0-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201a\u201c-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]/;

/** Why this text cannot be sent as it is (any field), or null. */
export function unreadableTextProblem(text: string): string | null {
  return text.includes(REPLACEMENT_CHARACTER) ? LOST : null;
}

/** Why this text cannot be a person's name as written, or null. */
export function nameTextProblem(text: string): string | null {
  return unreadableTextProblem(text) ?? (CONTROL_CHARACTER.test(text) ? CONTROL : MOJIBAKE.test(text) ? GARBLED : null);
}

type TextForm = { readonly [key: string]: unknown; customer?: Readonly<Record<string, unknown>> | undefined; paymentDetails?: Readonly<Record<string, unknown>> | undefined };

/** Every text of a payout form that was lost or garbled, by field path ("customer.lastName"); {} when none. */
export function unreadableFields(form: TextForm): Record<string, string> {
  const problems: Record<string, string> = {};
  const names = new Set<string>(NAME_FIELDS);
  const visit = (path: string, value: unknown) => {
    if (typeof value !== 'string') return;
    const problem = names.has(path) ? nameTextProblem(value) : unreadableTextProblem(value);
    if (problem) problems[path] = problem;
  };
  for (const [key, value] of Object.entries(form)) {
    if ((key === 'customer' || key === 'paymentDetails') && typeof value === 'object' && value !== null) {
      for (const [inner, text] of Object.entries(value)) visit(`${key}.${inner}`, text);
    } else visit(key, value);
  }
  return problems;
}
