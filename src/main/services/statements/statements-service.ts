// Statements as the contract offers them (docs/statements.md): uploads, the mapping step's
// inspection, imports, layouts remembered per source, matching and the decisions of a person, the
// break queues, settlements and the per-day comparison. The handlers hand every call here.
import type { BreakQueue, CsvLayoutInput, Inspection, PushChannel, PushPayload, StatementScope } from '../../../shared/contract';
import { decodeBytes } from '../../../shared/file-encoding';
import {
  FIELDS_OF,
  guessDateFormat,
  guessDecimal,
  proposeColumns,
  type CsvLayout,
  type Delimiter,
  type StatementKind,
} from '../../../shared/statement-layout';
import type { IdSource } from '../../gateway/runtime';
import type { Repositories } from '../../ledger/repositories/index';
import type { ImportRecord, LayoutRecord, UploadRecord } from '../../ledger/repositories/statement-files';
import { decodeCursor, encodeCursor, pageSize } from '../../ledger/repositories/page';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import type { ProfileService } from '../profile-service';
import { StatementBreaks } from './breaks';
import { camt053Lines } from './camt053';
import { delimiterOf, headRecords } from './csv-reader';
import { StatementFileError } from './file-kind';
import { StatementImporter } from './importer';
import { StatementMatcher } from './matcher';
import { mt940Lines } from './mt940';
import { StatementUploads } from './uploads';
import { bankLineView, dailyRows, lineView, proposalReason, settlementView } from './views';

export interface StatementsDeps {
  repos: Repositories;
  profiles: Pick<ProfileService, 'resolve'>;
  now: Clock;
  ids: IdSource;
  /** The person served (a team server), for the lines they decide and the imports they make. */
  person: () => string | undefined;
  publish: <P extends PushChannel>(channel: P, payload: PushPayload<P>) => void;
  /** The ledger is PostgreSQL, which other instances may share (their imports run meanwhile). */
  sharedLedger?: boolean;
}

/** Rows the mapping step shows. */
const PREVIEW_ROWS = 10;
/** Lines of a settlement the detail shows. */
const SETTLEMENT_LINES_SHOWN = 500;

const importView = (i: ImportRecord) => ({
  id: i.id,
  profileId: i.profileId,
  kind: i.kind,
  format: i.format,
  source: i.source,
  fileName: i.fileName,
  fileSize: i.fileSize,
  state: i.state,
  lines: i.lines,
  added: i.added,
  alreadyThere: i.already,
  errorLine: i.errorLine,
  errorReason: i.errorReason,
  createdBy: i.createdBy,
  startedAt: i.startedAt,
  finishedAt: i.finishedAt,
});

const layoutOf = (record: LayoutRecord | undefined): CsvLayout | null => (record?.layout ? (JSON.parse(record.layout) as CsvLayout) : null);

export class StatementsService {
  readonly uploads: StatementUploads;
  private readonly importer: StatementImporter;
  private readonly matcher: StatementMatcher;
  private readonly breaks: StatementBreaks;

  constructor(private readonly d: StatementsDeps) {
    this.uploads = new StatementUploads(d);
    this.importer = new StatementImporter({ ...d, uploads: this.uploads });
    this.matcher = new StatementMatcher(d);
    this.breaks = new StatementBreaks(d);
  }

  /** At start-up: imports a crash interrupted are recorded as refused (nothing of them was committed); old uploads dropped. */
  async recover(): Promise<void> {
    await this.importer.recover(this.d.sharedLedger ?? false);
    await this.uploads.sweep();
  }

  async beginUpload(input: { profileId?: string | undefined; kind: StatementKind; fileName: string; size: number }) {
    const profile = await this.d.profiles.resolve(input.profileId);
    return this.uploads.begin({ ...input, profileId: profile.id });
  }

  uploadChunk(input: { uploadId: string; seq: number; data: string }) {
    return this.uploads.chunk(input);
  }

  async discardUpload(uploadId: string) {
    return { discarded: await this.uploads.discard(uploadId) };
  }

  /**
   * How to read an uploaded file: its format, encoding and, for CSV, its delimiter, headers, first
   * rows and a layout — the source's remembered one when it has one (or when a remembered layout's
   * columns are all in this header), else one proposed from the headers and the first rows.
   */
  async inspect(input: { uploadId: string; source?: string | undefined; encoding?: string | undefined; delimiter?: Delimiter | undefined }): Promise<Inspection> {
    const upload = await this.uploads.complete(input.uploadId);
    const detected = await this.importer.formatOf(upload);
    const layouts = await this.d.repos.statementFiles.layouts(upload.kind);
    const base = { uploadId: upload.id, kind: upload.kind, format: detected.format, fileName: upload.fileName, size: upload.declaredSize, bom: detected.bom, sources: layouts.map((l) => l.source) };
    if (detected.format !== 'csv') {
      const text = decodeBytes(await this.wholeFile(upload), input.encoding ?? detected.encoding);
      const entries = this.readStructured(detected.format, text);
      return {
        ...base,
        source: input.source ?? null,
        layout: null,
        remembered: false,
        headers: ['Booking date', 'Credit / debit', 'Amount', 'Currency', 'Reference', 'Remittance'],
        preview: entries.slice(0, PREVIEW_ROWS).map((e) => [e.bookingDate, e.direction, e.amount, e.currency, e.endToEndId ?? e.entryRef ?? '', e.remittance ?? '']),
      };
    }
    const named = input.source === undefined ? undefined : layouts.find((l) => l.source === input.source);
    // A byte order mark says the encoding for sure; a remembered one is the source's habit, and the
    // head alone cannot tell Windows-1252 from ASCII.
    const encoding = input.encoding ?? (detected.bom ? detected.encoding : (layoutOf(named)?.encoding ?? detected.encoding));
    const head = decodeBytes(await this.uploads.head(upload), encoding);
    const delimiter = input.delimiter ?? layoutOf(named)?.delimiter ?? delimiterOf(head);
    const records = this.headRows(head, delimiter);
    const headers = records[0] ?? [];
    const preview = records.slice(1, PREVIEW_ROWS + 1);
    // A source picked, or the first remembered one whose columns this header has.
    const fits = (l: LayoutRecord) => {
      const layout = layoutOf(l);
      return layout !== null && Object.values(layout.columns).every((name) => !name || headers.includes(name));
    };
    const remembered = named && fits(named) ? named : input.source === undefined ? layouts.find(fits) : undefined;
    const rememberedLayout = layoutOf(remembered);
    if (rememberedLayout) {
      return { ...base, source: remembered!.source, layout: { ...rememberedLayout, columns: rememberedLayout.columns as Record<string, string>, encoding, delimiter }, remembered: true, headers, preview };
    }
    const columns = proposeColumns(upload.kind, headers) as Record<string, string>;
    const sample = (field: string) => preview.map((row) => row[headers.indexOf(columns[field] ?? '\u0000')] ?? '').filter((v) => v !== '');
    const dates = upload.kind === 'settlement' ? sample('booking_date') : [...sample('booking_date'), ...sample('value_date')];
    return {
      ...base,
      source: input.source ?? null,
      layout: { columns, encoding, delimiter, decimal: guessDecimal([...sample('amount'), ...sample('fee'), ...sample('net')]), dateFormat: guessDateFormat(dates) },
      remembered: false,
      headers,
      preview,
    };
  }

  /** Imports an uploaded file (one transaction), then matches the profile's lines; the layout is remembered for its source when asked. */
  async import(input: { uploadId: string; source: string; layout?: CsvLayoutInput | undefined; remember?: boolean | undefined }) {
    const upload = await this.uploads.complete(input.uploadId);
    const layout = input.layout as CsvLayout | undefined;
    if (layout) this.checkLayout(upload.kind, layout);
    const result = await this.importer.run(upload, input.source, layout);
    this.d.publish('statements:imports-changed', { profileId: upload.profileId, importId: result.import.id });
    if (result.outcome === 'refused') return { outcome: 'refused' as const, import: importView(result.import), line: result.line, reason: result.reason };
    if (input.remember !== false) {
      await this.d.repos.statementFiles.saveLayout({
        kind: upload.kind,
        source: input.source,
        format: result.import.format,
        layout: result.import.format === 'csv' && layout ? JSON.stringify(layout) : null,
        updatedBy: this.d.person() ?? null,
        updatedAt: isoTime(this.d.now()),
      });
    }
    const run = await this.matcher.run(upload.profileId);
    const matching = { ...run, linesMatched: run.linesMatched + result.matched };
    this.d.publish('statements:matches-changed', { profileId: upload.profileId });
    return { outcome: 'imported' as const, import: importView(result.import), matching };
  }

  async imports(input: { profileId?: string | undefined; limit?: number | undefined }) {
    return { items: (await this.d.repos.statementFiles.imports(input.profileId, input.limit ?? 50)).map(importView) };
  }

  async layouts(kind: StatementKind) {
    return {
      items: (await this.d.repos.statementFiles.layouts(kind)).map((l) => ({ source: l.source, format: l.format, layout: layoutOf(l) as CsvLayoutInput | null, updatedAt: l.updatedAt, updatedBy: l.updatedBy })),
    };
  }

  async rematch(profileId: string | undefined) {
    const profile = await this.d.profiles.resolve(profileId);
    const run = await this.matcher.run(profile.id);
    this.d.publish('statements:matches-changed', { profileId: profile.id });
    return run;
  }

  async summary(scope: StatementScope) {
    return {
      counts: await this.breaks.counts(scope),
      proposals: await this.d.repos.bankLines.countOpenProposals(scope),
      settlements: await this.d.repos.settlementLines.countSettlements(scope),
    };
  }

  breaksPage(input: StatementScope & { queue: BreakQueue; cursor?: string | null | undefined; limit?: number | undefined }) {
    const { queue, cursor, limit, ...scope } = input;
    return this.breaks.page(queue, scope, cursor, limit);
  }

  exportCsv(input: StatementScope & { queue: BreakQueue }) {
    const { queue, ...scope } = input;
    return this.breaks.exportCsv(queue, scope);
  }

  async settlements(input: StatementScope & { cursor?: string | null | undefined; limit?: number | undefined }) {
    const size = pageSize(input.limit);
    const after = input.cursor ? decodeCursor(input.cursor, ['string', 'number'] as const) : null;
    const rows = await this.d.repos.settlementLines.settlements(input, after && { valueDate: after[0], id: after[1] }, size + 1);
    const items = rows.slice(0, size);
    const last = items[items.length - 1];
    return { items: items.map(settlementView), nextCursor: rows.length > size && last ? encodeCursor([last.valueDate ?? '', last.id]) : null };
  }

  async settlement(input: { profileId?: string | undefined; settlementId: string }) {
    const profile = await this.d.profiles.resolve(input.profileId);
    const settlement = await this.d.repos.settlementLines.settlement(profile.id, input.settlementId);
    if (!settlement) throw new ServiceError('not_found', `No settlement ${input.settlementId} has been imported for ${profile.name}.`);
    const lines = await this.d.repos.settlementLines.ofSettlement(profile.id, settlement.settlementId, SETTLEMENT_LINES_SHOWN + 1);
    return {
      settlement: settlementView(settlement),
      lines: lines.slice(0, SETTLEMENT_LINES_SHOWN).map(lineView),
      moreLines: lines.length > SETTLEMENT_LINES_SHOWN,
      bankLines: (await this.d.repos.bankLines.ofSettlement(profile.id, settlement.settlementId)).map(bankLineView),
    };
  }

  async daily(scope: StatementScope) {
    const ledger = await this.d.repos.totals.groups('payin', scope);
    const settled = await this.d.repos.settlementLines.settledByDay(scope);
    return { rows: dailyRows(ledger, settled) };
  }

  async proposals(scope: StatementScope) {
    const open = await this.d.repos.bankLines.openProposals(scope, 500);
    const items = [];
    for (const p of open) {
      const settlement = await this.d.repos.settlementLines.settlement(p.profileId, p.settlementId);
      const bank = await this.d.repos.bankLines.byId(p.bankLineId);
      if (!settlement || !bank) continue;
      items.push({ id: p.id, profileId: p.profileId, bankLine: bankLineView(bank), settlement: settlementView(settlement), reason: proposalReason(bank, settlement), createdAt: p.createdAt });
    }
    return { items };
  }

  async decideProposal(input: { proposalId: number; accept: boolean; note?: string | undefined }) {
    const decided = await this.matcher.decideProposal(input);
    this.d.publish('statements:matches-changed', { profileId: decided.profileId });
    return { accepted: decided.accepted };
  }

  async matchLine(input: { lineId: number; subject: 'payin' | 'payout'; rowId: number; note: string }) {
    const line = await this.matcher.matchLine(input);
    this.d.publish('statements:matches-changed', { profileId: line.profileId });
    return lineView(line);
  }

  async unmatchLine(input: { lineId: number; note: string }) {
    const line = await this.matcher.unmatchLine(input);
    this.d.publish('statements:matches-changed', { profileId: line.profileId });
    return lineView(line);
  }

  async matchBankLine(input: { bankLineId: number; settlementId: string; note: string }) {
    const line = await this.matcher.matchBankLine(input);
    this.d.publish('statements:matches-changed', { profileId: line.profileId });
    return bankLineView(line);
  }

  async unmatchBankLine(input: { bankLineId: number; note: string }) {
    const line = await this.matcher.unmatchBankLine(input);
    this.d.publish('statements:matches-changed', { profileId: line.profileId });
    return bankLineView(line);
  }

  /** The report lines that settle a pay-in or payout, for its evidence pack. */
  async linesFor(subject: 'payin' | 'payout', rowId: number) {
    return (await this.d.repos.settlementLines.forRow(subject, rowId)).map(lineView);
  }

  private checkLayout(kind: StatementKind, layout: CsvLayout): void {
    const fields = new Set(Object.keys(FIELDS_OF[kind]));
    const unknown = Object.keys(layout.columns).filter((f) => !fields.has(f));
    if (unknown.length > 0) throw new ServiceError('invalid_input', `A ${kind === 'settlement' ? 'settlement report' : 'bank statement'} has no field ${unknown.join(', ')}.`, Object.fromEntries(unknown.map((f) => [`layout.columns.${f}`, 'not a field'])));
  }

  private headRows(head: string, delimiter: Delimiter): string[][] {
    try {
      return headRecords(head, delimiter, PREVIEW_ROWS + 1);
    } catch (error) {
      if (error instanceof StatementFileError) throw new ServiceError('invalid_input', `This CSV cannot be read: ${error.message}.`, { file: error.reason });
      throw error;
    }
  }

  private readStructured(format: 'camt053' | 'mt940', text: string) {
    try {
      return format === 'camt053' ? camt053Lines(text) : mt940Lines(text);
    } catch (error) {
      if (error instanceof StatementFileError) throw new ServiceError('invalid_input', `This file cannot be read: ${error.message}.`, { file: error.reason });
      throw error;
    }
  }

  private async wholeFile(upload: UploadRecord): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.uploads.bytes(upload)) parts.push(chunk);
    return Buffer.concat(parts);
  }
}
