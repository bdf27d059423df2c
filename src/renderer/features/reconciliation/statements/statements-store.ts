// Statements as the screen shows them (docs/statements.md): what the filter looks at, the break
// counts, settlements, the per-day comparison, open proposals and recent imports, reloaded when main
// says an import finished or matches changed; and one file on its way in. The file is never held
// whole: it is read from the disk slice by slice and each slice sent to main as it is read
// (statements:upload-chunk), so a 200 MB report costs the page one chunk at a time.
import { createStore } from 'zustand/vanilla';
import type { CsvLayoutInput, DailyRow, ImportSummary, Inspection, InvokeOutput, ProposalView, SettlementView, StatementScope } from '../../../../shared/contract';
import type { StatementKind } from '../../../../shared/statement-layout';
import type { ApiClient } from '../../../api/client';
import { errorMessage } from '../../../../shared/error-message';

export interface StatementsFilter {
  /** First day included, YYYY-MM-DD (UTC); '' = no lower bound. */
  from: string;
  to: string;
  profileId: string | null;
  /** "Succeeded, not settled" after this many days. */
  unsettledAfterDays: number;
}

export const DEFAULT_UNSETTLED_DAYS = 3;

/** The last 30 days, UTC, today included. */
export function defaultStatementsFilter(now: Date = new Date()): StatementsFilter {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(now.getTime() - 29 * 86_400_000), to: day(now.getTime()), profileId: null, unsettledAfterDays: DEFAULT_UNSETTLED_DAYS };
}

export function filterProblems(filter: StatementsFilter): Partial<Record<'from' | 'to' | 'unsettledAfterDays', string>> {
  const problems: Partial<Record<'from' | 'to' | 'unsettledAfterDays', string>> = {};
  if (filter.from && filter.to && filter.from > filter.to) problems.to = 'Must be on or after the first day: swap the dates.';
  if (!Number.isInteger(filter.unsettledAfterDays) || filter.unsettledAfterDays < 0 || filter.unsettledAfterDays > 365) problems.unsettledAfterDays = 'From 0 to 365 days.';
  return problems;
}

export function scopeOf(filter: StatementsFilter): StatementScope {
  return {
    ...(filter.profileId ? { profileId: filter.profileId } : {}),
    ...(filter.from ? { from: filter.from } : {}),
    ...(filter.to ? { to: filter.to } : {}),
    unsettledAfterDays: filter.unsettledAfterDays,
  };
}

export type ImportStage = 'idle' | 'uploading' | 'mapping' | 'importing' | 'done';

export interface ImportFlow {
  stage: ImportStage;
  kind: StatementKind;
  fileName: string | null;
  size: number;
  sent: number;
  uploadId: string | null;
  inspection: Inspection | null;
  layout: CsvLayoutInput | null;
  source: string;
  remember: boolean;
  result: InvokeOutput<'statements:import'> | null;
  error: string | null;
  fieldErrors: Record<string, string>;
}

const idleFlow = (kind: StatementKind = 'settlement'): ImportFlow => ({
  stage: 'idle',
  kind,
  fileName: null,
  size: 0,
  sent: 0,
  uploadId: null,
  inspection: null,
  layout: null,
  source: '',
  remember: true,
  result: null,
  error: null,
  fieldErrors: {},
});

export interface StatementsState {
  filter: StatementsFilter;
  summary: InvokeOutput<'statements:summary'> | null;
  settlements: SettlementView[];
  settlementsMore: boolean;
  daily: DailyRow[];
  proposals: ProposalView[];
  imports: ImportSummary[];
  loading: boolean;
  error: string | null;
  /** Bumped whenever the lines changed: the open break queue reloads. */
  version: number;
  flow: ImportFlow;
  setFilter(patch: Partial<StatementsFilter>): void;
  load(): Promise<void>;
  /** The file a person picked: sent to main in chunks, then inspected. */
  upload(kind: StatementKind, file: Blob & { name: string }): Promise<void>;
  inspect(change: { source?: string; encoding?: string; delimiter?: CsvLayoutInput['delimiter'] }): Promise<void>;
  setLayout(layout: CsvLayoutInput): void;
  setSource(source: string): void;
  setRemember(remember: boolean): void;
  runImport(): Promise<void>;
  resetImport(kind?: StatementKind): Promise<void>;
}

/** Reads of the screen's figures after a push are gathered: a burst of changes costs one reload. */
const RELOAD_AFTER_PUSH_MS = 500;

function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function createStatementsStore(api: ApiClient) {
  let reloadTimer: ReturnType<typeof setTimeout> | null = null;
  const store = createStore<StatementsState>()((set, get) => {
    const flow = (patch: Partial<ImportFlow>) => set((state) => ({ flow: { ...state.flow, ...patch } }));
    const fail = (error: unknown) => flow({ error: errorMessage(error), fieldErrors: (error as { fields?: Record<string, string> }).fields ?? {} });
    return {
      filter: defaultStatementsFilter(),
      summary: null,
      settlements: [],
      settlementsMore: false,
      daily: [],
      proposals: [],
      imports: [],
      loading: false,
      error: null,
      version: 0,
      flow: idleFlow(),

      setFilter(patch) {
        set((state) => ({ filter: { ...state.filter, ...patch } }));
      },

      async load() {
        const { filter } = get();
        if (Object.keys(filterProblems(filter)).length > 0) return;
        const scope = scopeOf(filter);
        set({ loading: true, error: null });
        try {
          const [summary, settlements, daily, proposals, imports] = await Promise.all([
            api.invoke('statements:summary', scope),
            api.invoke('statements:settlements', { ...scope, limit: 200 }),
            api.invoke('statements:daily', scope),
            api.invoke('statements:proposals', scope),
            api.invoke('statements:imports', { ...(scope.profileId ? { profileId: scope.profileId } : {}), limit: 20 }),
          ]);
          set((state) => ({
            summary,
            settlements: settlements.items,
            settlementsMore: settlements.nextCursor !== null,
            daily: daily.rows,
            proposals: proposals.items,
            imports: imports.items,
            loading: false,
            version: state.version + 1,
          }));
        } catch (error) {
          set({ loading: false, error: errorMessage(error) });
        }
      },

      async upload(kind, file) {
        const previous = get().flow.uploadId;
        if (previous) void api.invoke('statements:discard-upload', { uploadId: previous }).catch(() => undefined);
        flow({ ...idleFlow(kind), stage: 'uploading', fileName: file.name, size: file.size });
        try {
          const { profileId } = get().filter;
          const { uploadId, chunkBytes } = await api.invoke('statements:upload-begin', { kind, fileName: file.name, size: file.size, ...(profileId ? { profileId } : {}) });
          flow({ uploadId });
          // One slice read from the disk and sent at a time: the page never holds the file.
          for (let seq = 0, at = 0; at < file.size; seq++, at += chunkBytes) {
            const bytes = new Uint8Array(await file.slice(at, at + chunkBytes).arrayBuffer());
            await api.invoke('statements:upload-chunk', { uploadId, seq, data: base64Of(bytes) });
            if (get().flow.uploadId !== uploadId) return;
            flow({ sent: Math.min(file.size, at + bytes.length) });
          }
          const inspection = await api.invoke('statements:inspect', { uploadId });
          flow({ stage: 'mapping', inspection, layout: inspection.layout, source: inspection.source ?? '' });
        } catch (error) {
          const uploadId = get().flow.uploadId;
          if (uploadId) void api.invoke('statements:discard-upload', { uploadId }).catch(() => undefined);
          flow({ stage: 'idle', uploadId: null });
          fail(error);
        }
      },

      async inspect(change) {
        const { uploadId, source } = get().flow;
        if (!uploadId) return;
        flow({ error: null, fieldErrors: {} });
        try {
          const chosenSource = change.source ?? source;
          const inspection = await api.invoke('statements:inspect', { uploadId, ...(chosenSource.trim() ? { source: chosenSource.trim() } : {}), ...(change.encoding ? { encoding: change.encoding } : {}), ...(change.delimiter ? { delimiter: change.delimiter } : {}) });
          flow({ inspection, layout: inspection.layout, source: change.source ?? (inspection.source ?? source) });
        } catch (error) {
          fail(error);
        }
      },

      setLayout(layout) {
        flow({ layout });
      },
      setSource(source) {
        flow({ source });
      },
      setRemember(remember) {
        flow({ remember });
      },

      async runImport() {
        const { uploadId, layout, source, remember, inspection } = get().flow;
        if (!uploadId || !inspection) return;
        flow({ stage: 'importing', error: null, fieldErrors: {} });
        try {
          const result = await api.invoke('statements:import', { uploadId, source: source.trim(), remember, ...(inspection.format === 'csv' && layout ? { layout } : {}) });
          // A refused file stays uploaded: the person may change the layout and import it again.
          flow(result.outcome === 'imported' ? { stage: 'done', result, uploadId: null } : { stage: 'mapping', result });
          await get().load();
        } catch (error) {
          flow({ stage: 'mapping' });
          fail(error);
        }
      },

      async resetImport(kind) {
        const { uploadId } = get().flow;
        set((state) => ({ flow: idleFlow(kind ?? state.flow.kind) }));
        if (uploadId) await api.invoke('statements:discard-upload', { uploadId }).catch(() => undefined);
      },
    };
  });
  const reloadSoon = () => {
    if (reloadTimer) return;
    reloadTimer = setTimeout(() => {
      reloadTimer = null;
      void store.getState().load();
    }, RELOAD_AFTER_PUSH_MS);
  };
  api.on('statements:imports-changed', reloadSoon);
  api.on('statements:matches-changed', reloadSoon);
  return store;
}

export type StatementsStore = ReturnType<typeof createStatementsStore>;
