// The payout batches: the latest view of each, kept live by 'batches:batch-changed' (progress).
import { createStore } from 'zustand/vanilla';
import type { BatchView } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';
import { errorMessage } from '../../../shared/error-message';

export interface BatchesState {
  batches: Record<number, BatchView>;
  /** Batch ids, newest first, as batches:list gave them (plus ones started here). */
  batchOrder: number[];
  batchesError: string | null;
  loadBatches(): Promise<void>;
  putBatch(view: BatchView): void;
}

export function createBatchesStore(api: ApiClient) {
  const store = createStore<BatchesState>()((set) => ({
    batches: {},
    batchOrder: [],
    batchesError: null,
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
