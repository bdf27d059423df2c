// A batch's history in words (BatchEventView from main), apart from React so a unit test can read
// it. Who: "a person" (actor user, the desk's user, also in the audit log) or Paydesk itself.
import type { BatchEventView } from '../../../shared/contract';
import { formatTime } from '../transactions/format';

export interface BatchEventText {
  title: string;
  detail: string | null;
  /** An interruption or a pause Paydesk had to make: drawn as a warning. */
  warning: boolean;
}

const payouts = (n: number) => `${n} ${n === 1 ? 'payout' : 'payouts'}`;

/** The batch's items at that moment, in words; null when they were not recorded (before ledger version 10). */
function itemsText(items: BatchEventView['items'], inFlightMeaning: string): string {
  if (items === null) return 'Item counts were not recorded then (before this version of Paydesk).';
  const parts = [`${payouts(items.inFlight)} ${inFlightMeaning}`, `${payouts(items.pending)} not sent yet`];
  if (items.unknown > 0) parts.push(`${payouts(items.unknown)} with an unknown outcome`);
  return `${parts.join(', ')}.`;
}

/** A note from main as a sentence: capitalised, ending with a full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}${/[.!?]$/.test(trimmed) ? '' : '.'}`;
}

const joined = (...parts: (string | null)[]) => parts.filter((p): p is string => p !== null && p !== '').join(' ') || null;

/** What a resume does first: the items whose attempt may have left are settled under their own keys. */
function settlesFirst(open: number): string | null {
  if (open === 0) return null;
  const which = open === 1 ? 'the payout whose outcome was open is settled under its own Idempotency-Key' : `the ${open} payouts whose outcome was open are settled under their own Idempotency-Keys`;
  return `First ${which} (the gateway answers a repeated key with its first answer: nothing is paid twice).`;
}

export function describeBatchEvent(event: BatchEventView): BatchEventText {
  const byWhom = event.actor === 'user' ? 'by a person' : 'by Paydesk';
  const note = event.note === null ? null : sentence(event.note);
  switch (event.kind) {
    case 'started':
      return { title: `Started ${byWhom}`, detail: event.items === null ? null : `${payouts(event.items.pending)} to send.`, warning: false };
    case 'paused':
      return { title: `Paused ${byWhom}`, detail: joined(note, itemsText(event.items, 'in flight, followed to their answer')), warning: event.actor === 'system' };
    case 'resumed':
      return {
        title: event.actor === 'system' ? 'Resumed automatically when Paydesk started again' : 'Resumed by a person',
        detail: event.items === null ? note : joined(settlesFirst(event.items.inFlight + event.items.unknown), `${payouts(event.items.pending)} still to send.`, note),
        warning: false,
      };
    case 'interrupted':
      return event.cause === 'closed'
        ? { title: 'Interrupted: Paydesk was closed while the batch was running', detail: itemsText(event.items, 'in flight'), warning: true }
        : {
            title: 'Interrupted: Paydesk stopped without closing (killed, crashed or power lost)',
            detail: `It stopped after ${formatTime(event.stoppedAt)}, the batch's last recorded activity, and was found at the next start. ${itemsText(event.items, 'in flight (sent, answer not recorded)')}`,
            warning: true,
          };
    case 'cancelled':
      return { title: `Cancelled ${byWhom}`, detail: note, warning: false };
    case 'finished':
      return { title: 'Finished: every payout was sent and answered', detail: event.items && event.items.unknown > 0 ? `${payouts(event.items.unknown)} with an unknown outcome, to settle under their own keys.` : null, warning: false };
  }
}
