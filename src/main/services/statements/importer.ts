// Imports an uploaded statement file as one transaction. Its lines are read as a stream (CSV,
// parsed in a worker thread beside this one: reader-thread.ts) or parsed whole (camt.053, MT940,
// within their smaller limit), staged in chunks of short transactions (the desk's other writers go
// on meanwhile), then committed in one transaction that moves them into the ledger, each line once
// (a line already there from an earlier import is counted, not added), records the import and its
// audit entry. Any error refuses the whole file: the staged lines are dropped, nothing is imported,
// and the import records the line and why.
import { createHash } from 'node:crypto';
import { decodeBytes } from '../../../shared/file-encoding';
import { missingFields, type CsvLayout, type StatementFormat } from '../../../shared/statement-layout';
import type { Repositories } from '../../ledger/repositories/index';
import type { StagedBankLine } from '../../ledger/repositories/bank-lines';
import type { StagedSettlementLine } from '../../ledger/repositories/settlement-lines';
import type { ImportRecord, UploadRecord } from '../../ledger/repositories/statement-files';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import { camt053Lines } from './camt053';
import { formatOf, headEncoding, StatementFileError } from './file-kind';
import { mt940Lines } from './mt940';
import { csvLines, type StagedLine } from './csv-lines';
import { csvBatchesInWorker } from './reader-thread';
import type { StatementUploads } from './uploads';

/** On a shared ledger, an import running this long is taken for one a dead instance left. */
const SHARED_IMPORT_TIMEOUT_MS = 6 * 60 * 60_000;

/** Lines staged per transaction: each commit waits for the disk, and lines held longer outlive the young generation (on a million lines, 20,000 at a time cost ~6 s more CPU in garbage collection and 150 MB). */
const STAGE_CHUNK = 5_000;

export interface ImporterDeps {
  repos: Pick<Repositories, 'statementFiles' | 'settlementLines' | 'bankLines' | 'audit' | 'transaction'>;
  uploads: StatementUploads;
  now: Clock;
  person: () => string | undefined;
}

/** matched: the lines matched as they went in (pay-in lines by payin_id); matching does the rest. */
export type ImportOutcome = { outcome: 'imported'; import: ImportRecord; matched: number } | { outcome: 'refused'; import: ImportRecord; line: number | null; reason: string };

/** The bytes of an upload, hashed as they pass. */
async function* hashing(bytes: AsyncIterable<Buffer>, hash: ReturnType<typeof createHash>): AsyncGenerator<Buffer> {
  for await (const chunk of bytes) {
    hash.update(chunk);
    yield chunk;
  }
}

async function wholeText(bytes: AsyncIterable<Buffer>, encoding: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of bytes) parts.push(chunk);
  return decodeBytes(Buffer.concat(parts), encoding);
}

export class StatementImporter {
  constructor(private readonly d: ImporterDeps) {}

  /** The format of an upload from its first chunk (the upload already refused a file of another kind). */
  async formatOf(upload: UploadRecord): Promise<{ format: StatementFormat; encoding: string; bom: boolean }> {
    const head = await this.d.uploads.head(upload);
    const encoding = headEncoding(head, upload.chunks <= 1);
    try {
      return { format: formatOf(head, decodeBytes(head.subarray(0, 4096), encoding.encoding)), ...encoding };
    } catch (error) {
      if (error instanceof StatementFileError) throw new ServiceError('invalid_input', `${upload.fileName}: ${error.reason}`, { file: error.reason });
      throw error;
    }
  }

  async run(upload: UploadRecord, source: string, layout: CsvLayout | undefined): Promise<ImportOutcome> {
    const { format, encoding } = await this.formatOf(upload);
    if (upload.kind === 'settlement' && format !== 'csv') {
      throw new ServiceError('invalid_input', `${upload.fileName} is ${format === 'camt053' ? 'a camt.053' : 'an MT940'} bank statement, not a settlement report: import it as a bank statement.`, { kind: 'a bank statement' });
    }
    if (format === 'csv') {
      if (!layout) throw new ServiceError('invalid_input', 'A CSV file needs its layout: which column holds which field.', { layout: 'required for CSV' });
      const missing = missingFields(upload.kind, layout);
      if (missing.length > 0) throw new ServiceError('invalid_input', `Map a column to ${missing.join(', ')}.`, Object.fromEntries(missing.map((f) => [`layout.columns.${f}`, 'needs a column'])));
    }
    const { repos } = this.d;
    const profileId = upload.profileId;
    const hash = createHash('sha256');
    const importId = await repos.statementFiles.createImport({
      profileId,
      kind: upload.kind,
      format,
      source,
      fileName: upload.fileName,
      fileSize: upload.declaredSize,
      fileSha256: '',
      createdBy: this.d.person() ?? null,
      startedAt: isoTime(this.d.now()),
    });
    const lines = upload.kind === 'settlement' ? repos.settlementLines : repos.bankLines;
    let count = 0;
    try {
      const bytes = hashing(this.d.uploads.bytes(upload), hash);
      const stage = async (batch: StagedLine[]) => {
        await repos.transaction(() => (upload.kind === 'settlement' ? repos.settlementLines.stage(importId, batch as StagedSettlementLine[]) : repos.bankLines.stage(importId, batch as StagedBankLine[])));
        count += batch.length;
      };
      if (format === 'csv') {
        let batch: StagedLine[] = [];
        for await (const lines of csvLines(csvBatchesInWorker(bytes, { encoding: layout!.encoding, delimiter: layout!.delimiter }), upload.kind, layout!)) {
          for (const line of lines) batch.push(line);
          if (batch.length >= STAGE_CHUNK) {
            await stage(batch);
            batch = [];
          }
        }
        await stage(batch);
      } else {
        const text = await wholeText(bytes, encoding);
        const entries = format === 'camt053' ? camt053Lines(text) : mt940Lines(text);
        for (let i = 0; i < entries.length; i += STAGE_CHUNK) await stage(entries.slice(i, i + STAGE_CHUNK));
      }
      if (count === 0) throw new StatementFileError(null, 'the file holds no lines to import');
      const sha = hash.digest('hex');
      const { record, matched } = await repos.transaction(async () => {
        const { added, matched } = await lines.commitStaged(importId, profileId);
        if (upload.kind === 'settlement') await repos.settlementLines.refreshSettlementsOf(importId, profileId);
        await lines.dropStaged(importId);
        await repos.statementFiles.finishImport(importId, { state: 'imported', fileSha256: sha, lines: count, added, already: count - added, errorLine: null, errorReason: null, finishedAt: isoTime(this.d.now()) });
        await repos.audit.append({
          actor: 'user',
          action: 'statement.imported',
          profileId,
          subject: `statement_import:${importId}`,
          details: { kind: upload.kind, format, source, file: upload.fileName, sha256: sha, lines: count, added, alreadyThere: count - added },
        });
        return { record: (await repos.statementFiles.importById(importId))!, matched };
      });
      await this.d.uploads.discard(upload.id);
      return { outcome: 'imported', import: record, matched };
    } catch (error) {
      const refusal = error instanceof StatementFileError ? error : error instanceof ServiceError ? new StatementFileError(null, error.message) : undefined;
      await repos.transaction(async () => {
        await lines.dropStaged(importId);
        await repos.statementFiles.finishImport(importId, {
          state: 'refused',
          fileSha256: '',
          lines: 0,
          added: 0,
          already: 0,
          errorLine: refusal?.line ?? null,
          errorReason: refusal?.reason ?? 'Paydesk failed while it imported this file (see its log); nothing was imported.',
          finishedAt: isoTime(this.d.now()),
        });
      });
      if (!refusal) throw error;
      return { outcome: 'refused', import: (await repos.statementFiles.importById(importId))!, line: refusal.line, reason: refusal.reason };
    }
  }

  /**
   * Imports a crash left running: their staged lines dropped, each recorded as refused. On a ledger
   * shared by several instances (`shared`) another instance may be importing right now: only
   * imports started more than six hours ago are taken for interrupted there.
   */
  async recover(shared: boolean): Promise<void> {
    const { repos } = this.d;
    const now = this.d.now();
    const before = shared ? new Date(now.getTime() - SHARED_IMPORT_TIMEOUT_MS) : now;
    await repos.transaction(async () => {
      for (const id of await repos.statementFiles.markInterrupted(isoTime(before), isoTime(now))) {
        await repos.settlementLines.dropStaged(id);
        await repos.bankLines.dropStaged(id);
      }
    });
  }
}
