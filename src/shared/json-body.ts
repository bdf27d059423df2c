// Bodies received over HTTP (the emulator's V2 API requests, the listener's notifications):
// `parseJson` (json.ts) decides, this only gets there sooner, so both ends refuse the same bodies
// (a key repeated with another value included). parseJson's parser builds every string a character
// at a time and every object a key at a time (which V8 turns into slow dictionary objects past a
// dozen keys); on a create that was about a tenth of the emulator's work. Here the engine's
// JSON.parse reads the text, and one scan of the text adds what JSON.parse loses: the source text
// of numbers that are not safe integers (amounts) and repeated keys. Whatever that cannot settle —
// text JSON.parse refuses, a repeated key, a key that is an array index — goes to parseJson
// itself, so values, the duplicate-key rule and every error message stay parseJson's. A property
// test holds the two equal.
import { LosslessNumber, parseJson } from './json';

/** parseJson(text): the same value, or the same SyntaxError. */
export function parseBody(text: string): unknown {
  let value: unknown;
  try {
    value = settle(text, JSON.parse(text));
  } catch {
    value = undefined;
  }
  // Malformed, or a case left to parseJson (never `undefined` when settled: JSON has no such value).
  return value === undefined ? parseJson(text) : value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const MINUS = 0x2d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** Characters of a JSON number after its first: digits, ".", "e", "E", "+", "-". */
const inNumber = (c: number): boolean => isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;

/** Where the numbers of well-formed JSON text are, in document order, and how many members its objects have. */
interface Layout {
  /** Start and end offsets of each number token, flattened. */
  numbers: number[];
  members: number;
}

/** Undefined when a key is an array index: objects then list it first, not in document order. */
function layout(text: string): Layout | undefined {
  const numbers: number[] = [];
  let members = 0;
  let stringStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      stringStart = i;
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === QUOTE) break;
        if (s === BACKSLASH) i++;
      }
    } else if (c === COLON) {
      // Outside strings, well-formed JSON has a colon after each key and nowhere else.
      members++;
      if (isDigit(text.charCodeAt(stringStart + 1))) return undefined;
    } else if (c === MINUS || isDigit(c)) {
      const start = i;
      while (i + 1 < text.length && inNumber(text.charCodeAt(i + 1))) i++;
      numbers.push(start, i + 1);
    }
  }
  return { numbers, members };
}

/** As parseJson: safe integers are numbers, every other number keeps its source text. */
function exactNumber(token: string, parsed: number): number | LosslessNumber {
  return /^-?\d+$/.test(token) && Number.isSafeInteger(parsed) ? parsed : new LosslessNumber(token);
}

/**
 * JSON.parse's value with parseJson's numbers, or undefined when a key was repeated (fewer keys
 * than members). Objects are visited in key order, which is document order here (see layout).
 */
function settle(text: string, parsed: unknown): unknown {
  const where = layout(text);
  if (where === undefined) return undefined;
  const walk = new Walk(text, where.numbers);
  const value = walk.visit(parsed);
  return walk.keys === where.members && walk.numbersSeen * 2 === where.numbers.length ? value : undefined;
}

class Walk {
  keys = 0;
  numbersSeen = 0;

  constructor(
    private readonly text: string,
    private readonly numbers: readonly number[],
  ) {}

  visit(value: unknown): unknown {
    if (typeof value === 'number') return this.exact(value);
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.visit(value[i]);
      return value;
    }
    const object = value as Record<string, unknown>;
    const names = Object.keys(object);
    this.keys += names.length;
    for (const name of names) {
      const member = object[name];
      if (typeof member === 'number') {
        const exact = this.exact(member);
        if (exact === member) continue;
        // An own "__proto__" key is only set as one by defineProperty: parseJson's business.
        if (name === '__proto__') throw new Error('left to parseJson');
        object[name] = exact;
      } else if (typeof member === 'object' && member !== null) this.visit(member);
    }
    return object;
  }

  /** The next number token, read as parseJson reads it. */
  private exact(parsed: number): number | LosslessNumber {
    const start = this.numbers[this.numbersSeen * 2];
    const end = this.numbers[this.numbersSeen * 2 + 1];
    this.numbersSeen++;
    if (start === undefined || end === undefined) throw new Error('number tokens out of step');
    return exactNumber(this.text.slice(start, end), parsed);
  }
}
