// The notification events of spec section 6 as one table: every branch on an event reads it, an
// event added without its entry does not typecheck, and an unknown event is nobody's (never a
// pay-in by default).
import { describe, expect, test } from 'vitest';
import { STATUS_CATEGORIES, CODE_CATEGORIES } from '../../../src/shared/spec/codes';
import {
  EVENT_SPECS,
  NOTIFICATION_EVENTS,
  eventLabel,
  eventSpec,
  eventStatusKnown,
  eventsAbout,
  isNotificationEvent,
  statusSubjectOf,
  subjectOf,
  type EventSpec,
  type NotificationEvent,
} from '../../../src/shared/spec/events';
import { PayinNotificationSchema, PayoutNotificationSchema, TokenizationNotificationSchema } from '../../../src/shared/spec/schemas';

// Section 6 of the spec, written out here independently of the table.
const SPEC_EVENTS = ['v2_payin_notification', 'v2_tokenization_notification', 'v2_payout_notification'];

describe('notification events as data', () => {
  test('the table holds exactly the events of section 6, each with its own entry', () => {
    expect([...NOTIFICATION_EVENTS]).toEqual(SPEC_EVENTS);
    expect(Object.keys(EVENT_SPECS).sort()).toEqual([...SPEC_EVENTS].sort());
  });

  test('an event added to the list without its entry fails the typecheck', () => {
    type WithRefunds = NotificationEvent | 'v2_refund_notification';
    // @ts-expect-error the table has no entry for the new event, so it is not a Record over the longer list
    const table: Record<WithRefunds, EventSpec> = EVENT_SPECS;
    expect(Object.hasOwn(table, 'v2_refund_notification')).toBe(false);
  });

  test('each event names its subject, the references it carries, what its status is and where it is delivered', () => {
    // subject, whose status, gateway id, merchant reference, delivered to (spec 6 and PRODUCT.md), label
    const expected: Record<NotificationEvent, string[]> = {
      v2_payin_notification: ['payin', 'transaction', 'payin_id', 'request_id', 'notification_link', 'pay-in'],
      v2_tokenization_notification: ['payin', 'vaulting', 'payin_id', 'request_id', 'tokenization_notification_url', 'tokenization'],
      v2_payout_notification: ['payout', 'transaction', 'payout_id', 'merchantReference', 'notificationUrl', 'payout'],
    };
    for (const event of NOTIFICATION_EVENTS) {
      const { subject, statusOf, references, deliveredTo, label } = EVENT_SPECS[event];
      expect([subject, statusOf, references.gatewayId, references.merchantReference, deliveredTo, label], event).toEqual(expected[event]);
    }
  });

  test('each event\'s body schema reads it tolerantly: unknown codes and extra fields kept', () => {
    const schemas = { v2_payin_notification: PayinNotificationSchema, v2_tokenization_notification: TokenizationNotificationSchema, v2_payout_notification: PayoutNotificationSchema };
    for (const event of NOTIFICATION_EVENTS) {
      const parsed = schemas[event].parse({ event, status_code: 'Z999', brand_new: 1 }) as Record<string, unknown>;
      expect(parsed).toMatchObject({ event, status_code: 'Z999', brand_new: 1 });
    }
  });

  test('subjectOf: the transaction an event is about; null for an unknown or missing event, never a pay-in by default', () => {
    expect(subjectOf('v2_payin_notification')).toBe('payin');
    expect(subjectOf('v2_tokenization_notification')).toBe('payin');
    expect(subjectOf('v2_payout_notification')).toBe('payout');
    for (const unknown of ['v2_refund_notification', 'V2_PAYOUT_NOTIFICATION', '', 'toString', '__proto__', null, undefined]) {
      expect(subjectOf(unknown), String(unknown)).toBeNull();
      expect(eventSpec(unknown)).toBeUndefined();
      expect(isNotificationEvent(unknown)).toBe(false);
    }
  });

  test('a tokenization notification carries the vaulting result, not the pay-in status', () => {
    expect(statusSubjectOf('v2_payin_notification')).toBe('payin');
    expect(statusSubjectOf('v2_payout_notification')).toBe('payout');
    expect(statusSubjectOf('v2_tokenization_notification')).toBeNull();
    expect(statusSubjectOf('v2_refund_notification')).toBeNull();
    expect(statusSubjectOf(null)).toBeNull();
  });

  test('eventsAbout lists every event of a subject: a pay-in hears of its result and of its tokenization', () => {
    expect(eventsAbout('payin')).toEqual(['v2_payin_notification', 'v2_tokenization_notification']);
    expect(eventsAbout('payout')).toEqual(['v2_payout_notification']);
  });

  test('a status code is read in its event subject’s table; an unknown event’s code is not known', () => {
    expect(eventStatusKnown('v2_payin_notification', '200')).toBe(true);
    expect(eventStatusKnown('v2_payin_notification', 'P200')).toBe(false);
    expect(eventStatusKnown('v2_payout_notification', 'P200')).toBe(true);
    expect(eventStatusKnown('v2_payout_notification', '200')).toBe(false);
    expect(eventStatusKnown('v2_tokenization_notification', '317')).toBe(true);
    expect(eventStatusKnown('v2_refund_notification', '200')).toBe(false);
    expect(eventStatusKnown('v2_payin_notification', null)).toBe(false);
  });

  test('labels: the entry’s, or an unknown event as sent', () => {
    expect(NOTIFICATION_EVENTS.map(eventLabel)).toEqual(['pay-in', 'tokenization', 'payout']);
    expect(eventLabel('v2_refund_notification')).toBe('v2_refund_notification');
  });
});

describe('status categories', () => {
  test('one list: the catalogue’s categories plus unknown', () => {
    expect([...STATUS_CATEGORIES]).toEqual([...CODE_CATEGORIES, 'unknown']);
  });
});
