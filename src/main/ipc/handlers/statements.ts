import type { statementsContract } from '../../../shared/contract';
import type { StatementsService } from '../../services/statements/statements-service';
import type { Handlers } from '../dispatcher';

export function statementsHandlers({ statements }: { statements: StatementsService }): Pick<Handlers, keyof typeof statementsContract.invoke> {
  return {
    'statements:upload-begin': (input) => statements.beginUpload(input),
    'statements:upload-chunk': (input) => statements.uploadChunk(input),
    'statements:discard-upload': ({ uploadId }) => statements.discardUpload(uploadId),
    'statements:inspect': (input) => statements.inspect(input),
    'statements:import': (input) => statements.import(input),
    'statements:imports': (input) => statements.imports(input),
    'statements:layouts': ({ kind }) => statements.layouts(kind),
    'statements:summary': (scope) => statements.summary(scope),
    'statements:breaks': (input) => statements.breaksPage(input),
    'statements:settlements': (input) => statements.settlements(input),
    'statements:settlement': (input) => statements.settlement(input),
    'statements:daily': (scope) => statements.daily(scope),
    'statements:proposals': (scope) => statements.proposals(scope),
    'statements:decide-proposal': (input) => statements.decideProposal(input),
    'statements:match-line': (input) => statements.matchLine(input),
    'statements:unmatch-line': (input) => statements.unmatchLine(input),
    'statements:match-bank-line': (input) => statements.matchBankLine(input),
    'statements:unmatch-bank-line': (input) => statements.unmatchBankLine(input),
    'statements:rematch': ({ profileId }) => statements.rematch(profileId),
    'statements:export-csv': (input) => statements.exportCsv(input),
  };
}
