// The payout batches: the latest view of each, kept live by 'batches:batch-changed' (progress).
import { createStore } from 'zustand/vanilla';
import type { BatchView } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';
import { errorMessage } from '../../../shared/error-message';
import type { CsvFile, Mapping, ParsedCsv, PreviewRow } from './csv';

/** A checked file, kept while the person follows a row's link to an earlier payout, and taken back when the batch tab opens again. */
export interface UploadDraft {
  step: { name: 'preview'; rows: PreviewRow[] };
  file: CsvFile;
  csv: ParsedCsv;
  mapping: Mapping;
  /** Lines of possible duplicates the person confirmed. */
  confirmed: ReadonlySet<number>;
}

export interface BatchesState {
  batches: Record<number, BatchView>;
  /** Batch ids, newest first, as batches:list gave them (plus ones started here). */
  batchOrder: number[];
  batchesError: string | null;
  loadBatches(): Promise<void>;
  putBatch(view: BatchView): void;
  upload: UploadDraft | null;
  keepUpload(draft: UploadDraft): void;
  /** The kept draft, once: opening the batch tab again otherwise starts afresh. */
  takeUpload(): UploadDraft | null;
}

export function createBatchesStore(api: ApiClient) {
  const store = createStore<BatchesState>()((set, get) => ({
    batches: {},
    batchOrder: [],
    batchesError: null,
    upload: null,
    keepUpload(upload) {
      set({ upload });
    },
    takeUpload() {
      const { upload } = get();
      if (upload) set({ upload: null });
      return upload;
    },
    async loadBatches() {
      try {
        const page = await api.invoke('batches:list', { limit: 20 });
        set((state) => ({
          batches: { ...state.batches, ...Object.fromEntries(page.items.map((b) => [b.id, newer(state.batches[b.id], b)])) },
          batchOrder: page.items.map((b) => b.id),
          batchesError: null,
        }));
      } catch (error) {
        set({ batchesError: errorMessage(error) });
      }
    },
    putBatch(view) {
      if (view.state === 'draft') return;
      set((state) => ({
        batches: { ...state.batches, [view.id]: newer(state.batches[view.id], view) },
        batchOrder: state.batchOrder.includes(view.id) ? state.batchOrder : [view.id, ...state.batchOrder],
      }));
    },
  }));
  api.on('batches:batch-changed', (view) => store.getState().putBatch(view));
  return store;
}

/** Pushes and answers can cross: keep the later view of a batch. */
function newer(current: BatchView | undefined, next: BatchView): BatchView {
  return current !== undefined && current.updatedAt > next.updatedAt ? current : next;
}

export type BatchesStore = ReturnType<typeof createBatchesStore>;
