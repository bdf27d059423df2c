// A batch's history in words: who did what, and for an interruption how the app stopped, when, and
// what it left in flight.
import { describe, expect, it } from 'vitest';
import type { BatchEventView } from '../../../src/shared/contract';
import { describeBatchEvent } from '../../../src/renderer/features/payouts/batch-events';
import { formatTime } from '../../../src/renderer/features/transactions/format';

const event = (patch: Partial<BatchEventView>): BatchEventView => ({ id: 1, kind: 'started', at: '2026-03-01T10:00:00.000Z', actor: 'user', cause: null, stoppedAt: null, items: { pending: 40, inFlight: 0, unknown: 0 }, note: null, instance: null, runnerBefore: null, ...patch });

describe('describeBatchEvent', () => {
  it('an unexpected stop: how, when (the last activity), and what was in flight', () => {
    const text = describeBatchEvent(event({ kind: 'interrupted', actor: 'system', cause: 'unexpected', at: '2026-03-01T10:05:00.000Z', stoppedAt: '2026-03-01T10:03:58.000Z', items: { pending: 31, inFlight: 8, unknown: 1 } }));
    expect(text.title).toBe('Interrupted: Paydesk stopped without closing (killed, crashed or power lost)');
    expect(text.detail).toBe(
      `It stopped after ${formatTime('2026-03-01T10:03:58.000Z')}, the batch's last recorded activity, and was found at the next start. 8 payouts in flight (sent, answer not recorded), 31 payouts not sent yet, 1 payout with an unknown outcome.`,
    );
    expect(text.warning).toBe(true);
  });

  it('a close while running, and the automatic resume that settles what was in flight first', () => {
    expect(describeBatchEvent(event({ kind: 'interrupted', actor: 'system', cause: 'closed', stoppedAt: '2026-03-01T10:00:00.000Z', items: { pending: 2, inFlight: 1, unknown: 0 } }))).toEqual({
      title: 'Interrupted: Paydesk was closed while the batch was running',
      detail: '1 payout in flight, 2 payouts not sent yet.',
      warning: true,
    });
    const resumed = describeBatchEvent(event({ kind: 'resumed', actor: 'system', items: { pending: 2, inFlight: 1, unknown: 0 } }));
    expect(resumed.title).toBe('Resumed automatically when Paydesk started again');
    expect(resumed.detail).toBe('First the payout whose outcome was open is settled under its own Idempotency-Key (the gateway answers a repeated key with its first answer: nothing is paid twice). 2 payouts still to send.');
    expect(describeBatchEvent(event({ kind: 'resumed', actor: 'system', items: { pending: 0, inFlight: 3, unknown: 1 } })).detail).toMatch(/^First the 4 payouts whose outcome was open are settled/);
  });

  it('who: a person or Paydesk; a pause Paydesk made says why', () => {
    expect(describeBatchEvent(event({ kind: 'resumed', actor: 'user', items: { pending: 5, inFlight: 0, unknown: 0 } }))).toMatchObject({ title: 'Resumed by a person', detail: '5 payouts still to send.' });
    expect(describeBatchEvent(event({ kind: 'paused', actor: 'system', note: 'Paused: no merchant-token for this profile', items: { pending: 5, inFlight: 0, unknown: 0 } }))).toEqual({
      title: 'Paused by Paydesk',
      detail: 'Paused: no merchant-token for this profile. 0 payouts in flight, followed to their answer, 5 payouts not sent yet.',
      warning: true,
    });
    expect(describeBatchEvent(event({ kind: 'cancelled', note: '12 not sent yet, never to be sent' })).detail).toBe('12 not sent yet, never to be sent.');
  });

  it('events carried over from before the history existed say their counts were not recorded', () => {
    expect(describeBatchEvent(event({ kind: 'paused', items: null })).detail).toBe('Item counts were not recorded then (before this version of Paydesk).');
    expect(describeBatchEvent(event({ kind: 'resumed', actor: 'system', items: null, note: 'at start-up' })).detail).toBe('At start-up.');
    expect(describeBatchEvent(event({ kind: 'started', items: null })).detail).toBeNull();
  });
  it('on a team server: which instance took a dead one\'s batch over and when, or which one restarted', () => {
    const b = { id: 'b7c1e2d3-0000-4000-8000-000000000002', host: 'paydesk-b' };
    const a = { id: 'a1f0c9e8-0000-4000-8000-000000000001', host: 'paydesk-a' };
    const at = '2026-03-01T10:05:00.000Z';
    const takeover = describeBatchEvent(event({ kind: 'resumed', actor: 'system', at, instance: b, runnerBefore: a, items: { pending: 2, inFlight: 1, unknown: 0 } }));
    expect(takeover.title).toBe(`Taken over by instance b7c1e2d3 (paydesk-b) at ${formatTime(at)}: instance a1f0c9e8 (paydesk-a) had stopped`);
    const stop = describeBatchEvent(event({ kind: 'interrupted', actor: 'system', cause: 'unexpected', at, stoppedAt: '2026-03-01T10:04:40.000Z', instance: b, runnerBefore: a, items: { pending: 2, inFlight: 1, unknown: 0 } }));
    expect(stop.title).toBe('Interrupted: instance a1f0c9e8 (paydesk-a) stopped without closing (killed, crashed or cut off from the ledger)');
    expect(stop.detail).toBe(`It stopped after ${formatTime('2026-03-01T10:04:40.000Z')}, the batch's last recorded activity; instance b7c1e2d3 (paydesk-b) found it at ${formatTime(at)} and took the batch over. 1 payout in flight (sent, answer not recorded), 2 payouts not sent yet.`);
    expect(`${takeover.title} ${stop.title} ${stop.detail ?? ''}`).not.toMatch(/Paydesk started again|next start/);
    expect(describeBatchEvent(event({ kind: 'resumed', actor: 'system', instance: a, runnerBefore: a })).title).toBe('Resumed automatically when instance a1f0c9e8 (paydesk-a) started again');
    expect(describeBatchEvent(event({ kind: 'interrupted', actor: 'system', cause: 'closed', stoppedAt: at, instance: a, runnerBefore: null })).title).toBe('Interrupted: instance a1f0c9e8 (paydesk-a) was closed while the batch was running');
  });
});
