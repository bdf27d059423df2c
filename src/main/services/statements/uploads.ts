// A statement file on its way in: declared with its size (refused at once over the limit), then
// sent in chunks, in order, each written to the ledger as it comes (so no process holds the file,
// and any instance of a team server can read what another received). The first chunk says what the
// file is: a file of another kind, or a camt.053 or MT940 file over their smaller limit, is refused
// there, before the rest is sent. Uploads never imported are dropped after a day.
import { STATEMENT_LIMITS } from '../../../shared/contract/statements';
import { decodeBytes } from '../../../shared/file-encoding';
import type { StatementKind } from '../../../shared/statement-layout';
import type { IdSource } from '../../gateway/runtime';
import type { Repositories } from '../../ledger/repositories/index';
import type { UploadRecord } from '../../ledger/repositories/statement-files';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import { formatOf, headEncoding, StatementFileError } from './file-kind';

const MiB = 1024 * 1024;
/** Uploads left this long without an import are dropped. */
const UPLOAD_LIFETIME_MS = 24 * 60 * 60_000;

export interface UploadsDeps {
  repos: Pick<Repositories, 'statementFiles' | 'transaction'>;
  now: Clock;
  ids: IdSource;
  person: () => string | undefined;
}

export const limitText = (bytes: number): string => `${Math.round(bytes / MiB)} MB`;

export class StatementUploads {
  constructor(private readonly d: UploadsDeps) {}

  async begin(input: { profileId: string; kind: StatementKind; fileName: string; size: number }): Promise<{ uploadId: string; chunkBytes: number; limitBytes: number }> {
    if (input.size > STATEMENT_LIMITS.csvBytes) {
      throw new ServiceError('invalid_input', `${input.fileName} is ${limitText(input.size)}: a statement file may be at most ${limitText(STATEMENT_LIMITS.csvBytes)} (camt.053 and MT940 ${limitText(STATEMENT_LIMITS.structuredBytes)}). Split it by date and import the parts; nothing was uploaded.`, {
        size: `at most ${STATEMENT_LIMITS.csvBytes} bytes`,
      });
    }
    // Uploads left behind by earlier visits go as a new one comes (and at every start).
    await this.sweep();
    const uploadId = this.d.ids.uuid();
    await this.d.repos.statementFiles.createUpload({
      id: uploadId,
      profileId: input.profileId,
      kind: input.kind,
      fileName: input.fileName,
      declaredSize: input.size,
      createdBy: this.d.person() ?? null,
      createdAt: isoTime(this.d.now()),
    });
    return { uploadId, chunkBytes: STATEMENT_LIMITS.chunkBytes, limitBytes: STATEMENT_LIMITS.csvBytes };
  }

  /**
   * Writes chunk `seq` (base64). Chunks come in order; a chunk sent again (its answer was lost) is
   * answered without being written twice. The first one is looked at: a file of another kind, or
   * a structured one over its limit, is refused and its upload dropped.
   */
  async chunk(input: { uploadId: string; seq: number; data: string }): Promise<{ received: number; complete: boolean }> {
    const bytes = Buffer.from(input.data, 'base64');
    return this.d.repos.transaction(async () => {
      const upload = await this.get(input.uploadId);
      if (input.seq < upload.chunks) return { received: upload.received, complete: upload.received === upload.declaredSize };
      if (input.seq > upload.chunks) throw new ServiceError('conflict', `Chunk ${input.seq} came before chunk ${upload.chunks}: send the chunks in order.`, { seq: `expected ${upload.chunks}` });
      if (bytes.length === 0 || bytes.length > STATEMENT_LIMITS.chunkBytes) throw new ServiceError('invalid_input', `A chunk holds 1 to ${STATEMENT_LIMITS.chunkBytes} bytes.`, { data: 'wrong size' });
      if (upload.received + bytes.length > upload.declaredSize) {
        throw new ServiceError('invalid_input', `${upload.fileName} is longer than the ${upload.declaredSize} bytes declared for it.`, { data: 'past the declared size' });
      }
      if (input.seq === 0) this.checkHead(upload, bytes);
      await this.d.repos.statementFiles.appendChunk(upload.id, input.seq, bytes);
      const received = upload.received + bytes.length;
      return { received, complete: received === upload.declaredSize };
    });
  }

  /** Refuses, at the first chunk, a file of another kind or a structured file over its limit. */
  private checkHead(upload: UploadRecord, head: Buffer): void {
    try {
      const complete = head.length >= upload.declaredSize;
      const text = decodeBytes(head.subarray(0, 4096), headEncoding(head, complete).encoding);
      const format = formatOf(head, text);
      if (format !== 'csv' && upload.declaredSize > STATEMENT_LIMITS.structuredBytes) {
        throw new StatementFileError(null, `A ${format === 'camt053' ? 'camt.053' : 'MT940'} statement may be at most ${limitText(STATEMENT_LIMITS.structuredBytes)}; this one is ${limitText(upload.declaredSize)}. Ask the bank for one per day.`);
      }
    } catch (error) {
      if (error instanceof StatementFileError) throw new ServiceError('invalid_input', `${upload.fileName}: ${error.reason} Nothing was uploaded.`, { file: error.reason });
      throw error;
    }
  }

  async get(uploadId: string): Promise<UploadRecord> {
    const upload = await this.d.repos.statementFiles.upload(uploadId);
    if (!upload) throw new ServiceError('not_found', 'No such upload: it was imported, discarded, or left for more than a day. Choose the file again.');
    return upload;
  }

  /** The whole upload received, or a refusal naming what is missing. */
  async complete(uploadId: string): Promise<UploadRecord> {
    const upload = await this.get(uploadId);
    if (upload.received !== upload.declaredSize) {
      throw new ServiceError('conflict', `${upload.fileName} is not fully uploaded yet (${upload.received} of ${upload.declaredSize} bytes).`);
    }
    return upload;
  }

  /** The file's bytes, chunk by chunk, read from the ledger one chunk at a time. */
  async *bytes(upload: UploadRecord): AsyncGenerator<Buffer> {
    for (let seq = 0; seq < upload.chunks; seq++) {
      const chunk = await this.d.repos.statementFiles.chunk(upload.id, seq);
      if (!chunk) throw new ServiceError('conflict', `${upload.fileName} lost its chunk ${seq}: choose the file again.`);
      yield chunk;
    }
  }

  /** The first bytes of the file (its first chunk). */
  async head(upload: UploadRecord): Promise<Buffer> {
    return (await this.d.repos.statementFiles.chunk(upload.id, 0)) ?? Buffer.alloc(0);
  }

  discard(uploadId: string): Promise<boolean> {
    return this.d.repos.statementFiles.deleteUpload(uploadId);
  }

  /** Drops uploads older than a day (never imported, never discarded). */
  async sweep(): Promise<number> {
    const stale = await this.d.repos.statementFiles.uploadsBefore(isoTime(new Date(this.d.now().getTime() - UPLOAD_LIFETIME_MS)));
    for (const id of stale) await this.discard(id);
    return stale.length;
  }
}
