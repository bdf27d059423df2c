// The words of a create call's progress (attempts:progress-changed), apart from React so a unit
// test can read them. The policy is main's, as the push states it; this only puts it into words.
import type { AttemptProgressView } from '../../shared/contract';

export interface AttemptProgressText {
  /** "Try 2 of at most 5". */
  heading: string;
  /** "23 s elapsed". */
  elapsed: string;
  /** What is happening now, and what comes next. */
  now: string;
  /** The latest try's answer, once there is one. */
  lastAnswer: string | null;
  /** The retry policy in words: what Paydesk does, and what "giving up" means. */
  policy: string;
}

/** What a create call makes, in words. */
export const ATTEMPT_SUBJECT: Record<AttemptProgressView['kind'], string> = { payin: 'pay-in', payout: 'payout', tokenization: 'tokenization', token_charge: 'token charge' };

/** Whole seconds, rounded up for a wait still to come (a countdown never shows 0 s while waiting). */
const secondsUp = (ms: number) => `${Math.max(0, Math.ceil(ms / 1000))} s`;
const secondsDown = (ms: number) => `${Math.max(0, Math.floor(ms / 1000))} s`;

/**
 * `sinceReportMs`: how long ago this report arrived (the renderer's own clock), so the elapsed time
 * and a wait's countdown move between reports.
 */
export function describeAttemptProgress(progress: AttemptProgressView, sinceReportMs: number): AttemptProgressText {
  const { phase, tryNumber, policy, wait } = progress;
  const running = phase !== 'finished';
  const subject = ATTEMPT_SUBJECT[progress.kind];
  const nextTry = tryNumber + 1;
  let now: string;
  if (phase === 'sending') {
    const sent = sinceReportMs < 1_000 ? `Try ${tryNumber} sent:` : `Try ${tryNumber} sent ${secondsDown(sinceReportMs)} ago: still`;
    now = `${sent} waiting for the gateway's answer (each try waits up to ${secondsUp(policy.tryTimeoutMs)}).`;
  } else if (phase === 'waiting' && wait) {
    const why = wait.cause === 'retry_after' ? `the gateway's Retry-After asked for ${secondsUp(wait.ms)}` : `our backoff schedule: ${secondsUp(wait.ms)}`;
    now = `Retrying with the same Idempotency-Key and the same request: try ${nextTry} starts in ${secondsUp(wait.ms - sinceReportMs)} (${why}).`;
  } else {
    now = finishedText(progress, subject);
  }
  return {
    heading: `Try ${tryNumber} of at most ${policy.maxTries}`,
    elapsed: `${secondsDown(progress.elapsedMs + (running ? sinceReportMs : 0))} elapsed`,
    now,
    lastAnswer: progress.lastAnswer === null ? null : `Last answer: ${progress.lastAnswer}`,
    policy:
      `A try that times out, cannot connect, or gets HTTP 429 or 5xx is sent again with the same Idempotency-Key, so the gateway acts on it at most once: ` +
      `up to ${policy.maxTries} tries, none starting later than ${secondsDown(policy.maxTotalMs)} after the first. ` +
      `If none is answered, Paydesk gives up and the ${subject}'s outcome becomes “unknown”, not failed: settle it with a status read or a resume under the same key, never by sending it again as new.`,
  };
}

function finishedText(progress: AttemptProgressView, subject: string): string {
  const tries = `${progress.tryNumber} ${progress.tryNumber === 1 ? 'try' : 'tries'}`;
  switch (progress.outcome) {
    case 'succeeded':
      return `The gateway answered after ${tries}.`;
    case 'rejected':
      return `The gateway refused the request after ${tries}; a refusal is never resent.`;
    default:
      switch (progress.stopReason) {
        case 'max_total_time':
          return `Gave up after ${tries}: the next try would have started after the ${secondsDown(progress.policy.maxTotalMs)} limit. The ${subject}'s outcome is unknown.`;
        case 'not_retryable':
          return `The answer could not be read, so it is not sent again. The ${subject}'s outcome is unknown.`;
        default:
          return `Gave up after ${tries} without an answer. The ${subject}'s outcome is unknown.`;
      }
  }
}
