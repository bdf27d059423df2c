// The verification state over every combination of the facts it reads (status held: none, pending,
// final or unknown; claim state; last notified status; last status read; mismatch flag), and the
// renderer's words for it: the badge and the panel's sentence can never disagree, because both
// name the one state.
import { describe, expect, it } from 'vitest';
import { verificationState, type VerificationFacts } from '../../../src/main/ledger/verification-state';
import { verificationLooks, verificationSentence } from '../../../src/renderer/features/transactions/verification';
import type { ClaimState } from '../../../src/main/ledger/repositories/transaction-record';
import { statusFacts } from '../../../src/main/ledger/status';

// No status, a pending code, two final ones and one the catalogue does not know.
const statuses = [null, '100', '200', '302', '777'];
const claims: (ClaimState | null)[] = [null, 'unverified', 'verified', 'contradicted'];

function* combinations(): Generator<VerificationFacts> {
  for (const statusCode of statuses)
    for (const claimState of claims) {
      const held = statusCode === null ? { final: false, known: true } : statusFacts('payin', statusCode);
      for (const lastNotifiedStatus of statuses)
        for (const lastVerifiedStatus of statuses)
          for (const mismatch of [false, true]) yield { statusCode, final: held.final, statusKnown: held.known, claimState, lastNotifiedStatus, lastVerifiedStatus, mismatch };
    }
}

const all = [...combinations()];

describe('the verification state', () => {
  it('is mismatch exactly when a contradiction is recorded or the latest claim was contradicted', () => {
    for (const f of all) expect(verificationState(f) === 'mismatch', JSON.stringify(f)).toBe(f.mismatch || f.claimState === 'contradicted');
  });

  it('is claimed exactly when, without a contradiction, the latest notification is a claim no gateway answer confirmed', () => {
    for (const f of all) {
      const contradicted = f.mismatch || f.claimState === 'contradicted';
      expect(verificationState(f) === 'claimed', JSON.stringify(f)).toBe(!contradicted && f.claimState === 'unverified' && f.lastNotifiedStatus !== null);
    }
  });

  it('is pending exactly when, without a contradiction or an open claim, there is no final result yet (a pending code or none)', () => {
    for (const f of all) {
      const open = f.mismatch || f.claimState === 'contradicted' || (f.claimState === 'unverified' && f.lastNotifiedStatus !== null);
      expect(verificationState(f) === 'pending', JSON.stringify(f)).toBe(!open && (f.statusCode === null || (f.statusKnown && !f.final)));
    }
  });

  it('is verified exactly when a final or unknown status is held, nothing is open, and the last status read says that status', () => {
    for (const f of all) {
      const open = f.mismatch || f.claimState === 'contradicted' || (f.claimState === 'unverified' && f.lastNotifiedStatus !== null);
      const settled = f.statusCode !== null && (f.final || !f.statusKnown);
      expect(verificationState(f) === 'verified', JSON.stringify(f)).toBe(!open && settled && f.lastVerifiedStatus === f.statusCode);
    }
  });

  it('is one of the five states for every combination, each of them reached', () => {
    const seen = new Set(all.map(verificationState));
    expect([...seen].sort()).toEqual(['claimed', 'mismatch', 'pending', 'unverified', 'verified']);
  });

  it('reads the same in the badge and the sentence: "agrees" or "confirms" only when verified, "mismatch" only when contradicted', () => {
    for (const f of all) {
      const verification = verificationState(f);
      const view = { ...f, verification, lastNotifiedAt: null, lastVerifiedAt: null };
      const sentence = verificationSentence(view);
      const badge = verificationLooks[verification].label;
      expect(/agrees|confirms status/.test(sentence), `${badge}: ${sentence}`).toBe(verification === 'verified');
      expect(/mismatch/.test(sentence), `${badge}: ${sentence}`).toBe(verification === 'mismatch');
      expect(badge === 'mismatch').toBe(verification === 'mismatch');
      expect(verificationLooks[verification].color === 'red').toBe(verification === 'mismatch');
    }
  });

  it('settles the two cases users met', () => {
    // A notification claiming 200 on a final 302 that a read had verified: the applier records the
    // contradiction (mismatch) and keeps the earlier claim, which had been verified.
    expect(verificationState({ statusCode: '302', final: true, statusKnown: true, claimState: 'verified', lastNotifiedStatus: '302', lastVerifiedStatus: '302', mismatch: true })).toBe('mismatch');
    // An unknown code the gateway's read confirms: verified (the panel said "agrees", the badge "not verified").
    expect(verificationState({ statusCode: '777', final: false, statusKnown: false, claimState: 'verified', lastNotifiedStatus: '777', lastVerifiedStatus: '777', mismatch: false })).toBe('verified');
  });
});
