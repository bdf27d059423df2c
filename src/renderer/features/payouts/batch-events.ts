// A batch's history in words (BatchEventView from main), apart from React so a unit test can read
// it. Who: "a person" (actor user, the desk's user, also in the audit log) or Paydesk itself; on a
// team server's shared ledger, which instance: the one that restarted, or the one that took over.
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

type Instance = NonNullable<BatchEventView['instance']>;

/** An instance as a person can tell it apart: the start of its id, and its host. */
export function instanceLabel(instance: Instance): string {
  return `${instance.id.slice(0, 8)}${instance.host ? ` (${instance.host})` : ''}`;
}

/**
 * Which instance of a team server did what, when the ledger is shared (main records it there only):
 * the one that recorded the event, the one that ran the batch before, and whether those differ (a
 * takeover: the first found the second dead) or not (the instance found its own batch at its start).
 */
function instances(event: BatchEventView): { by: Instance; before: Instance | null; takeover: boolean } | null {
  if (event.instance === null) return null;
  const before = event.runnerBefore;
  return { by: event.instance, before, takeover: before !== null && before.id !== event.instance.id };
}

function resumedTitle(event: BatchEventView): string {
  if (event.actor === 'user') return 'Resumed by a person';
  const who = instances(event);
  if (who === null) return 'Resumed automatically when Paydesk started again';
  if (who.takeover && who.before) return `Taken over by instance ${instanceLabel(who.by)} at ${formatTime(event.at)}: instance ${instanceLabel(who.before)} had stopped`;
  if (who.before) return `Resumed automatically when instance ${instanceLabel(who.by)} started again`;
  return `Resumed automatically by instance ${instanceLabel(who.by)}`;
}

function unexpectedStop(event: BatchEventView): BatchEventText {
  const inFlight = itemsText(event.items, 'in flight (sent, answer not recorded)');
  const stopped = `It stopped after ${formatTime(event.stoppedAt)}, the batch's last recorded activity`;
  const who = instances(event);
  if (who?.takeover && who.before) {
    return {
      title: `Interrupted: instance ${instanceLabel(who.before)} stopped without closing (killed, crashed or cut off from the ledger)`,
      detail: `${stopped}; instance ${instanceLabel(who.by)} found it at ${formatTime(event.at)} and took the batch over. ${inFlight}`,
      warning: true,
    };
  }
  if (who?.before) {
    return { title: `Interrupted: instance ${instanceLabel(who.before)} stopped without closing (killed, crashed or power lost)`, detail: `${stopped}, and was found when it started again. ${inFlight}`, warning: true };
  }
  return { title: 'Interrupted: Paydesk stopped without closing (killed, crashed or power lost)', detail: `${stopped}, and was found at the next start. ${inFlight}`, warning: true };
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
        title: resumedTitle(event),
        detail: event.items === null ? note : joined(settlesFirst(event.items.inFlight + event.items.unknown), `${payouts(event.items.pending)} still to send.`, note),
        warning: false,
      };
    case 'interrupted':
      return event.cause === 'closed'
        ? { title: event.instance ? `Interrupted: instance ${instanceLabel(event.instance)} was closed while the batch was running` : 'Interrupted: Paydesk was closed while the batch was running', detail: itemsText(event.items, 'in flight'), warning: true }
        : unexpectedStop(event);
    case 'cancelled':
      return { title: `Cancelled ${byWhom}`, detail: note, warning: false };
    case 'finished':
      return { title: 'Finished: every payout was sent and answered', detail: event.items && event.items.unknown > 0 ? `${payouts(event.items.unknown)} with an unknown outcome, to settle under their own keys.` : null, warning: false };
  }
}
