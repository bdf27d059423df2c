// One transaction (pay-in or payout) with its timeline, kept fresh: any push about it (its row
// changed, a notification for it arrived) reloads it, so the detail never needs a manual refresh.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ContradictingClaim, InvokeOutput, PayinView, PayoutView, TimelineEntry, TransactionSubject } from '../../../shared/contract';
import { ContractError, type ApiClient } from '../../api/client';
import { useApi } from '../../stores/context';
import { errorMessage } from '../../../shared/error-message';

/** When a payout's gateway said it cannot read payouts by merchantReference, and what it answered. */
export type ReferenceReadRefusal = InvokeOutput<'payouts:timeline'>['referenceReadRefused'];

export type LoadedTransaction =
  | { subject: 'payin'; view: PayinView; entries: TimelineEntry[]; contradictions: ContradictingClaim[] }
  | { subject: 'payout'; view: PayoutView; entries: TimelineEntry[]; contradictions: ContradictingClaim[]; referenceReadRefused: ReferenceReadRefusal };

export type TransactionState =
  | { status: 'loading' }
  | { status: 'not_found'; message: string }
  | { status: 'error'; message: string }
  | { status: 'ready'; data: LoadedTransaction };

async function fetchTransaction(api: ApiClient, subject: TransactionSubject, id: number): Promise<LoadedTransaction> {
  if (subject === 'payin') {
    const { payin, entries, contradictions } = await api.invoke('payins:timeline', { id });
    return { subject, view: payin, entries, contradictions };
  }
  const { payout, entries, contradictions, referenceReadRefused } = await api.invoke('payouts:timeline', { id });
  return { subject, view: payout, entries, contradictions, referenceReadRefused };
}

export function useTransaction(subject: TransactionSubject, id: number): { state: TransactionState; reload: () => void } {
  const api = useApi();
  const [state, setState] = useState<TransactionState>({ status: 'loading' });
  const reloadRef = useRef<() => void>(() => {});

  useEffect(() => {
    let alive = true;
    // A push can arrive while a load runs: remember it and load once more afterwards, rather
    // than running overlapping loads whose answers could land out of order.
    let running = false;
    let again = false;
    const load = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      do {
        again = false;
        try {
          const data = await fetchTransaction(api, subject, id);
          if (alive) setState({ status: 'ready', data });
        } catch (error) {
          if (!alive) break;
          const message = errorMessage(error);
          setState(error instanceof ContractError && error.code === 'not_found' ? { status: 'not_found', message } : { status: 'error', message });
        }
      } while (again && alive);
      running = false;
    };
    reloadRef.current = () => void load();
    setState({ status: 'loading' });
    void load();
    const offRow =
      subject === 'payin'
        ? api.on('payins:payin-changed', (row) => {
            if (row.id === id) void load();
          })
        : api.on('payouts:payout-changed', (row) => {
            if (row.id === id) void load();
          });
    const offNotification = api.on('notifications:notification-changed', (n) => {
      if ((subject === 'payin' ? n.payinRowId : n.payoutRowId) === id) void load();
    });
    return () => {
      alive = false;
      offRow();
      offNotification();
    };
  }, [api, subject, id]);

  return { state, reload: useCallback(() => reloadRef.current(), []) };
}
