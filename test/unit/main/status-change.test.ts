// The state machine of a transaction's status and its notified claim, as a pure function: what each
// source (create answer, notification, status read) does to the columns held, without a ledger.
import { describe, expect, it } from 'vitest';
import type { StatusColumns } from '../../../src/main/ledger/repositories/transaction-record';
import { isMismatch, statusChange, statusKept, type StatusUpdate } from '../../../src/main/services/status-change';

const AT = '2026-03-01T10:00:00.000Z';
const LATER = '2026-03-01T10:05:00.000Z';

const nothing: StatusColumns = {
  statusCode: null, statusCategory: null, final: false, reasonCode: null, statusChangedAt: null, lastNotifiedStatus: null, lastNotifiedAt: null,
  lastVerifiedStatus: null, lastVerifiedAt: null, verifiedAgainst: null, claimState: null, conflict: null, statusConflict: null, mismatch: false,
};

/** The columns after these updates, one after the other, each at AT. */
function after(kind: 'payin' | 'payout', ...updates: StatusUpdate[]): StatusColumns {
  return updates.reduce((held, update) => statusChange(kind, held, update, AT).next, nothing);
}

describe('a status from the gateway’s own answers', () => {
  it('moves forward from nothing, pending to final, and keeps the category and reason of the code', () => {
    const created = statusChange('payin', nothing, { statusCode: 100, source: 'create' }, AT);
    expect(created).toMatchObject({ outcome: 'advanced', claim: 'none', next: { statusCode: '100', statusCategory: 'pending', final: false, statusChangedAt: AT } });
    const paid = statusChange('payin', created.next, { statusCode: 200, reasonCode: null, source: 'status_read' }, LATER);
    expect(paid).toMatchObject({ outcome: 'advanced', next: { statusCode: '200', final: true, statusChangedAt: LATER, lastVerifiedStatus: '200', verifiedAgainst: '200', mismatch: false } });
  });

  it('never moves a final status back, and a different final status is a conflict, noted once and kept', () => {
    const paid = after('payout', { statusCode: 'P200', source: 'create' });
    expect(statusChange('payout', paid, { statusCode: 'P100', source: 'status_read' }, AT)).toMatchObject({ outcome: 'stale', next: { statusCode: 'P200' } });
    const conflict = statusChange('payout', paid, { statusCode: 'C402', source: 'create' }, AT);
    expect(conflict).toMatchObject({ outcome: 'conflict', next: { statusCode: 'P200', mismatch: true, conflict: `final status P200 contradicted by create status C402 at ${AT}` } });
    const again = statusChange('payout', conflict.next, { statusCode: 'C403', source: 'create' }, LATER).next;
    expect(again.conflict).toBe(conflict.next.conflict);
  });

  it('fills a missing reason for the same status, and a read of a final status that says another is a mismatch', () => {
    const declined = after('payin', { statusCode: 302, source: 'create' }, { statusCode: 302, reasonCode: 'RISK_BLOCKED', source: 'status_read' });
    expect(declined).toMatchObject({ reasonCode: 'RISK_BLOCKED', lastVerifiedStatus: '302', mismatch: false });
    expect(after('payin', { statusCode: 200, source: 'create' }, { statusCode: 302, source: 'status_read' })).toMatchObject({ statusCode: '200', lastVerifiedStatus: '302', mismatch: true });
  });
});

describe('a notification', () => {
  it('moves no status: it is a claim, unverified until the gateway answers', () => {
    const held = after('payin', { statusCode: 100, source: 'create' });
    const claimed = statusChange('payin', held, { statusCode: 200, source: 'notification' }, AT);
    expect(claimed).toMatchObject({ outcome: 'claimed', claim: 'none', next: { statusCode: '100', lastNotifiedStatus: '200', lastNotifiedAt: AT, claimState: 'unverified' } });
  });

  it('is stale behind a later claim already held, and a conflict against a final status held', () => {
    const claimedPaid = after('payin', { statusCode: 100, source: 'create' }, { statusCode: 200, source: 'notification' });
    expect(statusChange('payin', claimedPaid, { statusCode: 101, source: 'notification' }, AT)).toMatchObject({ outcome: 'stale', next: { lastNotifiedStatus: '200' } });
    const paid = after('payin', { statusCode: 200, source: 'create' });
    const contradicting = statusChange('payin', paid, { statusCode: 302, source: 'notification' }, AT);
    expect(contradicting).toMatchObject({ outcome: 'conflict', next: { statusCode: '200', claimState: 'contradicted', mismatch: true, statusConflict: `final status 200 contradicted by notification status 302 at ${AT}` } });
  });

  it('claiming the status held is verified at once', () => {
    expect(after('payin', { statusCode: 200, source: 'create' }, { statusCode: 200, source: 'notification' })).toMatchObject({ claimState: 'verified', mismatch: false });
  });
});

describe('the gateway’s answer to a claim', () => {
  const claimed = after('payout', { statusCode: 'P100', source: 'create' }, { statusCode: 'P200', source: 'notification' });

  it('verifies it when it says the same', () => {
    expect(statusChange('payout', claimed, { statusCode: 'P200', source: 'status_read' }, AT)).toMatchObject({ outcome: 'advanced', claim: 'verified', next: { statusCode: 'P200', claimState: 'verified' } });
  });

  it('leaves it unverified, to read again, while it still says an earlier status', () => {
    expect(statusChange('payout', claimed, { statusCode: 'P100', source: 'status_read' }, AT)).toMatchObject({ outcome: 'unchanged', claim: 'ahead', next: { claimState: 'unverified' } });
  });

  it('contradicts it with another final status: a mismatch that names both', () => {
    const read = statusChange('payout', claimed, { statusCode: 'C402', source: 'status_read' }, AT);
    expect(read).toMatchObject({ claim: 'contradicted', next: { statusCode: 'C402', claimState: 'contradicted', mismatch: true } });
    expect(read.next.statusConflict).toBe(`notified status P200 contradicted by the gateway's status read status C402 at ${AT}`);
  });
});

describe('the mismatch flag', () => {
  it('is a conflict, or a read taken while the final status was held that says another', () => {
    expect(isMismatch({ ...nothing, conflict: 'x' })).toBe(true);
    expect(isMismatch({ ...nothing, statusCode: '200', final: true, lastVerifiedStatus: '302', verifiedAgainst: '200' })).toBe(true);
    // A read taken before the status changed proves nothing either way.
    expect(isMismatch({ ...nothing, statusCode: '200', final: true, lastVerifiedStatus: '100', verifiedAgainst: '100' })).toBe(false);
  });

  it('is derived again when an answer changes no status (its gateway id may contradict the one held)', () => {
    expect(statusKept({ ...nothing, conflict: 'payin_id A contradicted by B' })).toMatchObject({ outcome: 'unchanged', claim: 'none', next: { mismatch: true } });
  });
});
