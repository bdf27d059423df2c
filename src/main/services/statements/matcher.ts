// Matching: settlement lines to pay-ins and payouts by id, bank credits to settlements by the
// reference they carry, each a set-based statement over the profile's unmatched lines. A bank
// credit that names no settlement is only proposed for one (same amount and currency, value dates
// within a window): a person accepts or refuses it. A person can match or unmatch any line by hand,
// with a note; every such decision holds from then on (matching leaves the line alone) and is
// audited with the person.
import type { Repositories } from '../../ledger/repositories/index';
import type { BankLineRecord } from '../../ledger/repositories/bank-lines';
import type { SettlementLineRecord } from '../../ledger/repositories/settlement-lines';
import { isoTime, type Clock } from '../../ledger/support';
import { TRANSACTION_KINDS } from '../../transaction-kinds';
import { ServiceError } from '../errors';

/** Days between a bank credit's booking and a settlement's value date for a proposal. */
export const PROPOSAL_WINDOW_DAYS = 3;

export interface MatchRun {
  linesMatched: number;
  bankLinesMatched: number;
  proposals: number;
}

export interface MatcherDeps {
  repos: Pick<Repositories, 'settlementLines' | 'bankLines' | 'payins' | 'payouts' | 'audit' | 'transaction'>;
  now: Clock;
  person: () => string | undefined;
}

/** The kind of transaction each type of report line settles (a top-up settles none). */
const SETTLES = { payin: 'payin', payout: 'payout', payout_reversal: 'payout' } as const;

export class StatementMatcher {
  constructor(private readonly d: MatcherDeps) {}

  /** Everything matching does for a profile, in one transaction. */
  async run(profileId: string): Promise<MatchRun> {
    const { repos } = this.d;
    return repos.transaction(async () => {
      const linesMatched = await repos.settlementLines.matchByIds(profileId);
      const bankLinesMatched = await repos.bankLines.matchByReference(profileId);
      await repos.bankLines.refreshCredits(profileId);
      const proposals = await repos.bankLines.propose(profileId, PROPOSAL_WINDOW_DAYS, isoTime(this.d.now()));
      return { linesMatched, bankLinesMatched, proposals };
    });
  }

  async matchLine(input: { lineId: number; subject: 'payin' | 'payout'; rowId: number; note: string }): Promise<SettlementLineRecord> {
    const { repos } = this.d;
    return repos.transaction(async () => {
      const line = await this.line(input.lineId);
      if (line.type === 'topup') throw new ServiceError('invalid_input', 'A top-up line is about no pay-in or payout.', { lineId: 'a top-up' });
      // A pay-in line settles a pay-in; a payout line and its reversal, a payout.
      const expected = SETTLES[line.type];
      if (input.subject !== expected) throw new ServiceError('invalid_input', `A ${line.type} line settles a ${TRANSACTION_KINDS[expected].noun}.`, { subject: `must be ${expected}` });
      const kind = TRANSACTION_KINDS[input.subject];
      const row = await kind.store(repos).byId(input.rowId);
      if (!row || row.profileId !== line.profileId) throw new ServiceError('not_found', `No ${kind.noun} ${input.rowId} of this line's profile.`, { rowId: 'not found' });
      await repos.settlementLines.decide(line.id, { subject: input.subject, rowId: row.id, day: row.createdAt.slice(0, 10), decidedBy: this.d.person() ?? null, decidedAt: isoTime(this.d.now()), note: input.note });
      await repos.audit.append({
        actor: 'user',
        action: 'statement.line_matched',
        profileId: line.profileId,
        subject: `settlement_line:${line.id}`,
        details: { line: line.line, importId: line.importId, settlementId: line.settlementId, subject: input.subject, rowId: row.id, before: line.rowId === null ? null : { subject: line.subject, rowId: line.rowId }, note: input.note },
      });
      return (await repos.settlementLines.byId(line.id))!;
    });
  }

  async unmatchLine(input: { lineId: number; note: string }): Promise<SettlementLineRecord> {
    const { repos } = this.d;
    return repos.transaction(async () => {
      const line = await this.line(input.lineId);
      await repos.settlementLines.decide(line.id, { subject: null, rowId: null, day: null, decidedBy: this.d.person() ?? null, decidedAt: isoTime(this.d.now()), note: input.note });
      await repos.audit.append({
        actor: 'user',
        action: 'statement.line_unmatched',
        profileId: line.profileId,
        subject: `settlement_line:${line.id}`,
        details: { line: line.line, importId: line.importId, settlementId: line.settlementId, before: line.rowId === null ? null : { subject: line.subject, rowId: line.rowId }, note: input.note },
      });
      return (await repos.settlementLines.byId(line.id))!;
    });
  }

  async matchBankLine(input: { bankLineId: number; settlementId: string; note: string }, how: 'person' | 'proposal' = 'person'): Promise<BankLineRecord> {
    const { repos } = this.d;
    return repos.transaction(async () => {
      const line = await this.bankLine(input.bankLineId);
      const settlement = await repos.settlementLines.settlement(line.profileId, input.settlementId);
      if (!settlement) throw new ServiceError('not_found', `No settlement ${input.settlementId} of this bank line's profile has been imported.`, { settlementId: 'not found' });
      await repos.bankLines.decide(line.id, { settlementId: settlement.settlementId, matchedBy: how, decidedBy: this.d.person() ?? null, decidedAt: isoTime(this.d.now()), note: input.note });
      await repos.bankLines.refreshCredits(line.profileId);
      await repos.audit.append({
        actor: 'user',
        action: how === 'proposal' ? 'statement.proposal_accepted' : 'statement.bank_line_matched',
        profileId: line.profileId,
        subject: `bank_line:${line.id}`,
        details: { line: line.line, importId: line.importId, amount: line.amount, currency: line.currency, settlementId: settlement.settlementId, before: line.settlementId, note: input.note },
      });
      return (await repos.bankLines.byId(line.id))!;
    });
  }

  async unmatchBankLine(input: { bankLineId: number; note: string }): Promise<BankLineRecord> {
    const { repos } = this.d;
    return repos.transaction(async () => {
      const line = await this.bankLine(input.bankLineId);
      await repos.bankLines.decide(line.id, { settlementId: null, matchedBy: null, decidedBy: this.d.person() ?? null, decidedAt: isoTime(this.d.now()), note: input.note });
      await repos.bankLines.refreshCredits(line.profileId);
      await repos.audit.append({
        actor: 'user',
        action: 'statement.bank_line_unmatched',
        profileId: line.profileId,
        subject: `bank_line:${line.id}`,
        details: { line: line.line, importId: line.importId, amount: line.amount, currency: line.currency, before: line.settlementId, note: input.note },
      });
      return (await repos.bankLines.byId(line.id))!;
    });
  }

  /** A person accepts a proposal (the bank line is matched to its settlement) or refuses it (it is not proposed again). */
  async decideProposal(input: { proposalId: number; accept: boolean; note?: string | undefined }): Promise<{ profileId: string; accepted: boolean }> {
    const { repos } = this.d;
    return repos.transaction(async () => {
      const proposal = await repos.bankLines.proposal(input.proposalId);
      if (!proposal) throw new ServiceError('not_found', `No proposal ${input.proposalId}.`);
      if (proposal.state !== 'open') throw new ServiceError('conflict', `This proposal was ${proposal.state} already.`);
      const note = input.note ?? null;
      await repos.bankLines.decideProposal(proposal.id, { state: input.accept ? 'accepted' : 'rejected', decidedBy: this.d.person() ?? null, decidedAt: isoTime(this.d.now()), note });
      if (input.accept) {
        await this.matchBankLine({ bankLineId: proposal.bankLineId, settlementId: proposal.settlementId, note: note ?? 'accepted the proposal' }, 'proposal');
      } else {
        await repos.audit.append({
          actor: 'user',
          action: 'statement.proposal_rejected',
          profileId: proposal.profileId,
          subject: `bank_line:${proposal.bankLineId}`,
          details: { proposalId: proposal.id, settlementId: proposal.settlementId, note },
        });
      }
      return { profileId: proposal.profileId, accepted: input.accept };
    });
  }

  private async line(id: number): Promise<SettlementLineRecord> {
    const line = await this.d.repos.settlementLines.byId(id);
    if (!line) throw new ServiceError('not_found', `No settlement line ${id}.`);
    return line;
  }

  private async bankLine(id: number): Promise<BankLineRecord> {
    const line = await this.d.repos.bankLines.byId(id);
    if (!line) throw new ServiceError('not_found', `No bank line ${id}.`);
    return line;
  }
}
