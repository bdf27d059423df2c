// A ledger's schema as a list of plain facts, read from each engine's catalogue and written in one
// vocabulary, so that two engines' schemas compare as two sets of lines:
//   table T
//   column T.c <text|integer|bytes|real|decimal|boolean> [not null] [default <value>|generated]
//   primary key T (a, b)            unique T (a, b)          (constraints)
//   index T.name [unique] (a, expression) [where predicate]   (indexes made by CREATE INDEX)
//   check T (a, b)                  (the columns a CHECK reads: its text is each engine's dialect)
//   foreign key T (a) references R (b) [on delete cascade|set null|restrict]
//   trigger T.name before|after insert|update|delete|truncate
// Expressions and predicates are lower-cased, casts and parentheses dropped, `x <> ALL (ARRAY[…])`
// read as `x not in (…)` and `x = ANY (ARRAY[…])` as `x in (…)`: what is left reads the same on both.
import type { Ledger } from '../../src/main/ledger/connection';

const TYPES: Record<string, string> = {
  text: 'text',
  'character varying': 'text',
  integer: 'integer',
  bigint: 'integer',
  smallint: 'integer',
  bytea: 'bytes',
  blob: 'bytes',
  real: 'real',
  'double precision': 'real',
  numeric: 'decimal',
  boolean: 'boolean',
};

function commonType(declared: string): string {
  const type = TYPES[declared.toLowerCase()];
  if (!type) throw new Error(`no common name for the column type ${declared}`);
  return type;
}

/** An expression or predicate as both engines print it, once normalised. */
export function normalSql(text: string): string {
  return text
    .toLowerCase()
    .replace(/::[a-z_]+(?: varying| precision)?(\[\])?/g, '')
    .replace(/collate "?[a-z_]+"?/g, '')
    .replace(/(\w+) <> all \(array\[([^\]]*)\]\)/g, '$1 not in ($2)')
    .replace(/(\w+) = any \(array\[([^\]]*)\]\)/g, '$1 in ($2)')
    .replace(/[()]/g, ' ')
    .replace(/!=/g, '<>')
    .replace(/\s*,\s*/g, ', ')
    .replace(/\s+/g, ' ')
    .trim();
}

const list = (items: readonly string[]) => `(${items.join(', ')})`;

/** The text inside the parentheses that open at `open`. */
function balanced(text: string, open: number): string {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === '(') depth++;
    if (c === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`unbalanced parentheses in ${text}`);
}

/** Splits on the commas outside parentheses and quotes. */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

/** The columns of `columns` an expression names (outside its string literals). */
function columnsIn(expression: string, columns: readonly string[]): string[] {
  const words = new Set(expression.replace(/'[^']*'/g, ' ').toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []);
  return columns.filter((column) => words.has(column)).sort();
}

export async function sqliteFacts(db: Ledger): Promise<string[]> {
  const facts: string[] = [];
  const tables = await db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  for (const { name: table, sql } of tables) {
    facts.push(`table ${table}`);
    const columns = await db.all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info('${table}')`);
    const key = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    // INTEGER PRIMARY KEY is the rowid: numbered by SQLite when none is given.
    const rowid = key.length === 1 && key[0]!.type.toUpperCase() === 'INTEGER' ? key[0]!.name : undefined;
    for (const c of columns) {
      const dflt = c.name === rowid ? 'generated' : c.dflt_value === null ? null : normalSql(c.dflt_value);
      facts.push(`column ${table}.${c.name} ${commonType(c.type)}${c.notnull || c.pk ? ' not null' : ''}${dflt === null ? '' : ` default ${dflt}`}`);
    }
    if (key.length > 0) facts.push(`primary key ${table} ${list(key.map((c) => c.name))}`);
    const names = columns.map((c) => c.name);
    // CHECKs, column or table constraints: SQLite's catalogue keeps only the CREATE TABLE text.
    const body = balanced(sql, sql.indexOf('('));
    for (const definition of topLevel(body)) {
      const column = names.find((n) => definition.toLowerCase().startsWith(`${n} `));
      for (const match of definition.matchAll(/\bCHECK\s*\(/gi)) {
        const read = columnsIn(balanced(definition, match.index + match[0].length - 1), names);
        facts.push(`check ${table} ${list(read.length > 0 ? read : column ? [column] : [])}`);
      }
    }
    for (const index of await db.all<{ name: string; unique: number; origin: string; partial: number }>(`SELECT name, "unique", origin, partial FROM pragma_index_list('${table}')`)) {
      const keyColumns = await db.all<{ name: string | null }>(`SELECT name FROM pragma_index_xinfo('${index.name}') WHERE key = 1 ORDER BY seqno`);
      if (index.origin === 'u') facts.push(`unique ${table} ${list(keyColumns.map((c) => c.name ?? '?'))}`);
      if (index.origin !== 'c') continue;
      const text = (await db.get<{ sql: string }>("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?", [index.name]))!.sql;
      const open = text.indexOf('(', text.search(/\bON\b/i));
      const keys = topLevel(balanced(text, open)).map(normalSql);
      const where = /\)\s+WHERE\s+([\s\S]*)$/i.exec(text.slice(open));
      facts.push(`index ${table}.${index.name}${index.unique ? ' unique' : ''} ${list(keys)}${where ? ` where ${normalSql(where[1]!)}` : ''}`);
    }
    const foreign = await db.all<{ id: number; table: string; from: string; to: string | null; on_delete: string }>(`SELECT id, "table", "from", "to", on_delete FROM pragma_foreign_key_list('${table}') ORDER BY id, seq`);
    for (const id of new Set(foreign.map((f) => f.id))) {
      const parts = foreign.filter((f) => f.id === id);
      const parent = parts[0]!.table;
      const parentKey = async () => (await db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${parent}') WHERE pk > 0 ORDER BY pk`)).map((c) => c.name);
      const to = parts.every((f) => f.to !== null) ? parts.map((f) => f.to!) : await parentKey();
      facts.push(`foreign key ${table} ${list(parts.map((f) => f.from))} references ${parent} ${list(to)}${onDelete(parts[0]!.on_delete)}`);
    }
  }
  for (const trigger of await db.all<{ name: string; tbl_name: string; sql: string }>("SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")) {
    const [, timing, event] = /\b(BEFORE|AFTER|INSTEAD OF)\s+(INSERT|UPDATE|DELETE)\b/i.exec(trigger.sql) ?? [];
    facts.push(`trigger ${trigger.tbl_name}.${trigger.name} ${timing?.toLowerCase()} ${event?.toLowerCase()}`);
  }
  return facts.sort();
}

function onDelete(action: string): string {
  const words = action.toLowerCase();
  return words === 'no action' || words === 'a' ? '' : ` on delete ${{ c: 'cascade', n: 'set null', r: 'restrict', d: 'set default' }[words] ?? words}`;
}

export async function postgresFacts(db: Ledger): Promise<string[]> {
  const facts: string[] = [];
  const inSchema = "table_schema = current_schema()";
  for (const { name: table } of await db.all<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE ${inSchema} AND table_type = 'BASE TABLE' ORDER BY 1`)) {
    facts.push(`table ${table}`);
    const columns = await db.all<{ name: string; type: string; nullable: string; dflt: string | null; identity: string }>(
      `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt, is_identity AS identity FROM information_schema.columns WHERE ${inSchema} AND table_name = ?`,
      [table],
    );
    for (const c of columns) {
      const dflt = c.identity === 'YES' || c.dflt?.startsWith('nextval(') ? 'generated' : c.dflt === null ? null : normalSql(c.dflt);
      facts.push(`column ${table}.${c.name} ${commonType(c.type)}${c.nullable === 'NO' ? ' not null' : ''}${dflt === null ? '' : ` default ${dflt}`}`);
    }
  }
  const columnsOf = (keys: string) => `ARRAY(SELECT a.attname::text FROM unnest(${keys}) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o)`;
  const constraints = await db.all<{ type: string; table: string; columns: string[]; parent: string | null; parent_columns: string[] | null; on_delete: string }>(
    `SELECT c.contype AS type, c.conrelid::regclass::text AS "table", ${columnsOf('c.conkey')} AS columns, c.confrelid::regclass::text AS parent,
       ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS parent_columns,
       c.confdeltype AS on_delete
     FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace WHERE s.nspname = current_schema() AND c.conrelid <> 0`,
  );
  for (const c of constraints) {
    if (c.type === 'p') facts.push(`primary key ${c.table} ${list(c.columns)}`);
    else if (c.type === 'u') facts.push(`unique ${c.table} ${list(c.columns)}`);
    else if (c.type === 'c') facts.push(`check ${c.table} ${list([...c.columns].sort())}`);
    else if (c.type === 'f') facts.push(`foreign key ${c.table} ${list(c.columns)} references ${c.parent} ${list(c.parent_columns ?? [])}${onDelete(c.on_delete)}`);
  }
  const indexes = await db.all<{ table: string; name: string; unique: boolean; keys: string[]; predicate: string | null }>(
    `SELECT i.indrelid::regclass::text AS "table", x.relname AS name, i.indisunique AS "unique",
       ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) AS k ORDER BY k) AS keys,
       pg_get_expr(i.indpred, i.indrelid, true) AS predicate
     FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_namespace s ON s.oid = x.relnamespace
     WHERE s.nspname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
  );
  for (const index of indexes) {
    facts.push(`index ${index.table}.${index.name}${index.unique ? ' unique' : ''} ${list(index.keys.map(normalSql))}${index.predicate ? ` where ${normalSql(index.predicate)}` : ''}`);
  }
  const triggers = await db.all<{ table: string; name: string; type: number }>(
    `SELECT t.tgrelid::regclass::text AS "table", t.tgname AS name, t.tgtype AS type FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid JOIN pg_namespace s ON s.oid = r.relnamespace
     WHERE s.nspname = current_schema() AND NOT t.tgisinternal`,
  );
  for (const trigger of triggers) {
    // pg_trigger.tgtype: bit 1 BEFORE, 6 INSTEAD; events 2 INSERT, 3 DELETE, 4 UPDATE, 5 TRUNCATE.
    const timing = trigger.type & 64 ? 'instead of' : trigger.type & 2 ? 'before' : 'after';
    const events = [[4, 'insert'], [8, 'delete'], [16, 'update'], [32, 'truncate']].filter(([bit]) => trigger.type & (bit as number)).map(([, word]) => word);
    facts.push(`trigger ${trigger.table}.${trigger.name} ${timing} ${events.join(' or ')}`);
  }
  return facts.sort();
}
