// Statement files: uploads on their way in (their chunks kept in the ledger, so every instance of a
// team server reads what another received), the record of each import, and the layouts sources'
// CSV files are read with (shared by the team).
import type { Sql } from '../engine/types';

export type StatementKind = 'settlement' | 'bank';
export type StatementFormat = 'csv' | 'camt053' | 'mt940';

export interface UploadRecord {
  id: string;
  profileId: string;
  kind: StatementKind;
  fileName: string;
  declaredSize: number;
  received: number;
  chunks: number;
  createdBy: string | null;
  createdAt: string;
}

interface UploadRow {
  id: string;
  profile_id: string;
  kind: StatementKind;
  file_name: string;
  declared_size: number;
  received: number;
  chunks: number;
  created_by: string | null;
  created_at: string;
}

const toUpload = (r: UploadRow): UploadRecord => ({
  id: r.id,
  profileId: r.profile_id,
  kind: r.kind,
  fileName: r.file_name,
  declaredSize: Number(r.declared_size),
  received: Number(r.received),
  chunks: r.chunks,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

export interface ImportRecord {
  id: number;
  profileId: string;
  kind: StatementKind;
  format: StatementFormat;
  source: string;
  fileName: string;
  fileSize: number;
  fileSha256: string;
  state: 'running' | 'imported' | 'refused';
  lines: number;
  added: number;
  already: number;
  errorLine: number | null;
  errorReason: string | null;
  createdBy: string | null;
  startedAt: string;
  finishedAt: string | null;
}

interface ImportRow {
  id: number;
  profile_id: string;
  kind: StatementKind;
  format: StatementFormat;
  source: string;
  file_name: string;
  file_size: number;
  file_sha256: string;
  state: ImportRecord['state'];
  lines: number;
  added: number;
  already: number;
  error_line: number | null;
  error_reason: string | null;
  created_by: string | null;
  started_at: string;
  finished_at: string | null;
}

const toImport = (r: ImportRow): ImportRecord => ({
  id: r.id,
  profileId: r.profile_id,
  kind: r.kind,
  format: r.format,
  source: r.source,
  fileName: r.file_name,
  fileSize: Number(r.file_size),
  fileSha256: r.file_sha256,
  state: r.state,
  lines: r.lines,
  added: r.added,
  already: r.already,
  errorLine: r.error_line,
  errorReason: r.error_reason,
  createdBy: r.created_by,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export interface LayoutRecord {
  kind: StatementKind;
  source: string;
  format: StatementFormat;
  /** JSON text of the CSV layout; null for a format that needs none. */
  layout: string | null;
  updatedBy: string | null;
  updatedAt: string;
}

export class StatementFilesRepository {
  constructor(private readonly db: Sql) {}

  async createUpload(u: Omit<UploadRecord, 'received' | 'chunks'>): Promise<void> {
    await this.db.run('INSERT INTO statement_uploads (id, profile_id, kind, file_name, declared_size, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      u.id,
      u.profileId,
      u.kind,
      u.fileName,
      u.declaredSize,
      u.createdBy,
      u.createdAt,
    ]);
  }

  async upload(id: string): Promise<UploadRecord | undefined> {
    const row = await this.db.get<UploadRow>('SELECT * FROM statement_uploads WHERE id = ?', [id]);
    return row && toUpload(row);
  }

  /** Appends the next chunk and counts it, in the caller's transaction. */
  async appendChunk(id: string, seq: number, bytes: Buffer): Promise<void> {
    await this.db.run('INSERT INTO statement_upload_chunks (upload_id, seq, bytes) VALUES (?, ?, ?)', [id, seq, bytes]);
    await this.db.run('UPDATE statement_uploads SET received = received + ?, chunks = chunks + 1 WHERE id = ?', [bytes.length, id]);
  }

  async chunk(id: string, seq: number): Promise<Buffer | undefined> {
    const row = await this.db.get<{ bytes: Buffer }>('SELECT bytes FROM statement_upload_chunks WHERE upload_id = ? AND seq = ?', [id, seq]);
    return row?.bytes;
  }

  async deleteUpload(id: string): Promise<boolean> {
    return this.db.atomic(async () => {
      await this.db.run('DELETE FROM statement_upload_chunks WHERE upload_id = ?', [id]);
      return (await this.db.run('DELETE FROM statement_uploads WHERE id = ?', [id])) > 0;
    });
  }

  /** Uploads started before `before` (left behind: never imported, never discarded). */
  async uploadsBefore(before: string): Promise<string[]> {
    return (await this.db.all<{ id: string }>('SELECT id FROM statement_uploads WHERE created_at < ? ORDER BY created_at', [before])).map((r) => r.id);
  }

  async createImport(i: Pick<ImportRecord, 'profileId' | 'kind' | 'format' | 'source' | 'fileName' | 'fileSize' | 'fileSha256' | 'createdBy' | 'startedAt'>): Promise<number> {
    const row = await this.db.get<{ id: number }>(
      `INSERT INTO statement_imports (profile_id, kind, format, source, file_name, file_size, file_sha256, state, created_by, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?) RETURNING id`,
      [i.profileId, i.kind, i.format, i.source, i.fileName, i.fileSize, i.fileSha256, i.createdBy, i.startedAt],
    );
    return row!.id;
  }

  async finishImport(id: number, f: Pick<ImportRecord, 'state' | 'fileSha256' | 'lines' | 'added' | 'already' | 'errorLine' | 'errorReason' | 'finishedAt'>): Promise<void> {
    await this.db.run('UPDATE statement_imports SET state = ?, file_sha256 = ?, lines = ?, added = ?, already = ?, error_line = ?, error_reason = ?, finished_at = ? WHERE id = ?', [
      f.state,
      f.fileSha256,
      f.lines,
      f.added,
      f.already,
      f.errorLine,
      f.errorReason,
      f.finishedAt,
      id,
    ]);
  }

  async importById(id: number): Promise<ImportRecord | undefined> {
    const row = await this.db.get<ImportRow>('SELECT * FROM statement_imports WHERE id = ?', [id]);
    return row && toImport(row);
  }

  /** The latest imports, newest first (of one profile, or all). */
  async imports(profileId: string | undefined, limit: number): Promise<ImportRecord[]> {
    const rows =
      profileId === undefined
        ? await this.db.all<ImportRow>('SELECT * FROM statement_imports ORDER BY id DESC LIMIT ?', [limit])
        : await this.db.all<ImportRow>('SELECT * FROM statement_imports WHERE profile_id = ? ORDER BY id DESC LIMIT ?', [profileId, limit]);
    return rows.map(toImport);
  }

  /** Imports still running that started before `before`, marked refused: nothing of theirs was committed (their lines commit with their end). */
  async markInterrupted(before: string, finishedAt: string): Promise<number[]> {
    const rows = await this.db.all<{ id: number }>("SELECT id FROM statement_imports WHERE state = 'running' AND started_at < ?", [before]);
    for (const { id } of rows) {
      await this.db.run("UPDATE statement_imports SET state = 'refused', error_reason = 'Paydesk stopped while it imported this file; nothing of it was imported.', finished_at = ? WHERE id = ? AND state = 'running'", [finishedAt, id]);
    }
    return rows.map((r) => r.id);
  }

  async layouts(kind: StatementKind): Promise<LayoutRecord[]> {
    const rows = await this.db.all<{ kind: StatementKind; source: string; format: StatementFormat; layout: string | null; updated_by: string | null; updated_at: string }>(
      'SELECT kind, source, format, layout, updated_by, updated_at FROM statement_layouts WHERE kind = ? ORDER BY source',
      [kind],
    );
    return rows.map((r) => ({ kind: r.kind, source: r.source, format: r.format, layout: r.layout, updatedBy: r.updated_by, updatedAt: r.updated_at }));
  }

  async saveLayout(l: LayoutRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO statement_layouts (kind, source, format, layout, updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, source) DO UPDATE SET format = excluded.format, layout = excluded.layout, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      [l.kind, l.source, l.format, l.layout, l.updatedBy, l.updatedAt],
    );
  }
}
