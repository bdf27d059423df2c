// PostgreSQL numbers its parameters ($1, $2…); the ledger's statements use `?` and `@name`, as
// SQLite does. One pass turns one into the other, skipping quoted strings, quoted identifiers and
// comments, and remembers the result per statement text.
import type { SqlParams, SqlValue } from './types';

interface Numbered {
  text: string;
  /** For each $n, the index of a positional value or the name of a named one. */
  slots: (number | string)[];
}

const cache = new Map<string, Numbered>();

export function numbered(sql: string, params: SqlParams | undefined): { text: string; values: SqlValue[] } {
  let compiled = cache.get(sql);
  if (!compiled) {
    compiled = compile(sql);
    cache.set(sql, compiled);
  }
  if (compiled.slots.length === 0) return { text: compiled.text, values: [] };
  const values = compiled.slots.map((slot) => valueOf(params, slot, sql));
  return { text: compiled.text, values };
}

function valueOf(params: SqlParams | undefined, slot: number | string, sql: string): SqlValue {
  if (typeof slot === 'number') {
    if (!Array.isArray(params) || slot >= params.length) throw new Error(`Missing value for parameter ${slot + 1} of: ${sql}`);
    return (params as readonly SqlValue[])[slot] ?? null;
  }
  if (params === undefined || Array.isArray(params) || !(slot in params)) throw new Error(`Missing named parameter @${slot} of: ${sql}`);
  return (params as Readonly<Record<string, SqlValue>>)[slot] ?? null;
}

function compile(sql: string): Numbered {
  const slots: (number | string)[] = [];
  const named = new Map<string, number>();
  let positional = 0;
  let text = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closing(sql, i, c);
      text += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      text += sql.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      slots.push(positional++);
      text += `$${slots.length}`;
      i += 1;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))!;
      const name = match[0];
      let index = named.get(name);
      if (index === undefined) {
        slots.push(name);
        index = slots.length;
        named.set(name, index);
      }
      text += `$${index}`;
      i += 1 + name.length;
    } else {
      text += c;
      i += 1;
    }
  }
  return { text, slots };
}

/** The index just past the quote that closes the one at `start` (a doubled quote is part of it). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i += 1;
  }
  return sql.length;
}
