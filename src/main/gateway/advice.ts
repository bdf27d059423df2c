// What to do after an attempt, from the code catalogue's retry advice (src/shared/spec/codes.ts).
//
// Our reading of "retry" codes such as 515 ("retry in a few moments") or 501 inside an HTTP 200
// body or a notification: the gateway has answered and bound the Idempotency-Key to that answer,
// so a same-key retry would only replay it. "Retry" therefore means a NEW attempt (new
// request_id, new key) that the user decides on; it is never automatic. Automatic same-key
// retries happen only when no answer was bound: timeout, connection error, 429, HTTP 5xx.
import { describeReason, type CodeInfo } from '../../shared/spec/codes';
import { TRANSACTION_KINDS, type TransactionKind } from '../transaction-kinds';
import type { AttemptOutcome } from './attempt-runner';
import { ENDPOINTS } from './endpoints';

export type NextStep =
  /** Nothing to do: final, and the same request would end the same way. */
  | { action: 'none'; text: string; code?: CodeInfo }
  | { action: 'wait_for_notification'; text: string; code?: CodeInfo }
  /** The user may start a new attempt (new key), after afterSeconds when given. */
  | { action: 'new_attempt'; text: string; afterSeconds?: number; code?: CodeInfo }
  /** Outcome unknown: read the status or resume with the same key. Never a new key. */
  | { action: 'resolve_unknown'; text: string; code?: CodeInfo };

function fromCode(code: CodeInfo, refused: boolean): NextStep {
  const retry = code.retry;
  switch (retry.kind) {
    case 'never':
      return { action: 'none', text: retry.text, code };
    case 'after':
      return { action: 'new_attempt', afterSeconds: retry.seconds, text: retry.text, code };
    case 'shortly':
      return { action: 'new_attempt', text: 'The gateway answered; to try again, start a new attempt in a few moments.', code };
    case 'new_attempt':
      return { action: 'new_attempt', text: retry.text, code };
    case 'wait':
    case 'unknown':
      // A refused request created nothing, so waiting or reading the status cannot change it.
      if (refused) return { action: 'new_attempt', text: 'The gateway refused the request; fix it and start a new attempt.', code };
      return retry.kind === 'wait'
        ? { action: 'wait_for_notification', text: retry.text, code }
        : { action: 'resolve_unknown', text: retry.text, code };
  }
}

/** What to do with an attempt whose outcome is unknown, by the kind of transaction it creates. */
const UNKNOWN_OUTCOME = {
  payin: 'Outcome unknown: open the pay-in and read its status or resume it under the same Idempotency-Key; never start a new attempt for it.',
  payout: 'Outcome unknown: open the payout and resume it under the same Idempotency-Key (the gateway answers with its first answer; a live payout after its review); never start a new payout for it.',
} as const satisfies Record<TransactionKind, string>;

export function nextStep(outcome: AttemptOutcome): NextStep {
  const family = ENDPOINTS[outcome.endpoint].family;
  const { describeStatus } = TRANSACTION_KINDS[family];
  switch (outcome.state) {
    case 'succeeded':
      return fromCode(describeStatus(outcome.body.status_code), false);
    case 'rejected': {
      const { reason_code, status_code } = outcome.body;
      return fromCode(reason_code != null ? describeReason(reason_code) : describeStatus(status_code), true);
    }
    case 'prepared':
      return { action: 'resolve_unknown', text: 'Recorded but never sent: send it with its own key.' };
    default:
      return { action: 'resolve_unknown', text: UNKNOWN_OUTCOME[family] };
  }
}
