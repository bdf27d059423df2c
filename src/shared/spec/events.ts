// The notification events of spec section 6 as data: for each one, the transaction it is about,
// the body fields that name that transaction, what its status_code is the status of, where the
// gateway posts it and its label. Main's listener and applier, the ledger views and the renderer
// branch on this table only (it holds no schema, so the renderer's first bundle needs no zod; the
// applier reads each body with its schema in spec/schemas.ts). An event added to NOTIFICATION_EVENTS without
// its entry fails the typecheck; an event outside the list is unknown (subjectOf answers null),
// never taken for a pay-in.
import { describeStatusOf, type TransactionSubject } from './codes';

export const NOTIFICATION_EVENTS = ['v2_payin_notification', 'v2_tokenization_notification', 'v2_payout_notification'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The body fields that name a transaction: the merchant's reference and the gateway's id. */
export const REFERENCE_FIELDS = ['request_id', 'payin_id', 'merchantReference', 'payout_id'] as const;
export type ReferenceField = (typeof REFERENCE_FIELDS)[number];

export interface EventSpec {
  /** The transaction the event is about. */
  subject: TransactionSubject;
  /**
   * What its status_code is the status of: the transaction's own, or the card vaulting's (a 200
   * in a tokenization notification is a vaulted card, not a paid pay-in; the pay-in's own result
   * comes with its v2_payin_notification).
   */
  statusOf: 'transaction' | 'vaulting';
  /** The body fields naming the transaction: the gateway's id and the merchant's reference. */
  references: { gatewayId: ReferenceField; merchantReference: ReferenceField };
  /** The request field of the create call that names the URL it is posted to. */
  deliveredTo: string;
  /** Short, for lists and filters ("pay-in"). */
  label: string;
}

const PAYIN_REFERENCES = { gatewayId: 'payin_id', merchantReference: 'request_id' } as const;

export const EVENT_SPECS = {
  v2_payin_notification: {
    subject: 'payin',
    statusOf: 'transaction',
    references: PAYIN_REFERENCES,
    deliveredTo: 'notification_link',
    label: 'pay-in',
  },
  v2_tokenization_notification: {
    subject: 'payin',
    statusOf: 'vaulting',
    references: PAYIN_REFERENCES,
    deliveredTo: 'tokenization_notification_url',
    label: 'tokenization',
  },
  v2_payout_notification: {
    subject: 'payout',
    statusOf: 'transaction',
    references: { gatewayId: 'payout_id', merchantReference: 'merchantReference' },
    deliveredTo: 'notificationUrl',
    label: 'payout',
  },
} as const satisfies Record<NotificationEvent, EventSpec>;

export function isNotificationEvent(value: unknown): value is NotificationEvent {
  return typeof value === 'string' && Object.hasOwn(EVENT_SPECS, value);
}

/** The entry of a known event; undefined for null, a missing event or one outside the spec. */
export function eventSpec(event: string | null | undefined): EventSpec | undefined {
  return isNotificationEvent(event) ? EVENT_SPECS[event] : undefined;
}

/** Which transaction an event is about; null when the event is missing or unknown. */
export function subjectOf(event: string | null | undefined): TransactionSubject | null {
  return eventSpec(event)?.subject ?? null;
}

/** The events about transactions of `subject` (a pay-in's: its result and its tokenization's). */
export function eventsAbout(subject: TransactionSubject): NotificationEvent[] {
  return NOTIFICATION_EVENTS.filter((event) => EVENT_SPECS[event].subject === subject);
}

/**
 * Whose status an event's status_code is: its transaction's subject; null for a vaulting result
 * (not the pay-in's status) and for a missing or unknown event.
 */
export function statusSubjectOf(event: string | null | undefined): TransactionSubject | null {
  const spec = eventSpec(event);
  return spec?.statusOf === 'transaction' ? spec.subject : null;
}

/** The list label of an event: its entry's, or the event as sent when it is unknown. */
export function eventLabel(event: string): string {
  return eventSpec(event)?.label ?? event;
}

/**
 * Whether the catalogue knows a notification's status_code, read as its event's subject reads it
 * (a vaulting result is a pay-in code). False for an unknown event: nothing says which table to read.
 */
export function eventStatusKnown(event: string | null | undefined, code: string | null): boolean {
  const subject = subjectOf(event);
  return code !== null && subject !== null && describeStatusOf(subject, code).known;
}
