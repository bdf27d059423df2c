// One place in main knows a pay-in from a payout: the table of transaction kinds
// (src/main/transaction-kinds.ts). No other file picks between the two with a ternary on the kind,
// and the table agrees with the spec's own tables (the events' reference fields, the endpoints).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_SPECS, NOTIFICATION_EVENTS } from '../../../src/shared/spec/events';
import { TRANSACTION_SUBJECTS } from '../../../src/shared/spec/codes';
import { ENDPOINTS, attemptReference } from '../../../src/main/gateway/endpoints';
import { attemptKindOf } from '../../../src/main/ledger/ledger-attempt-store';
import { KIND_OF_ATTEMPT, TRANSACTION_KINDS } from '../../../src/main/transaction-kinds';
import { MAIN_SOURCES as main, sourceFiles as sources } from '../../helpers/source-files';

/** `kind === 'payin' ? a : b`, and the same written the other way round. */
const TERNARY_ON_KIND = /=== 'pay(in|out)' \?|'pay(in|out)' === \w+(\.\w+)* \?/;

describe('the table of transaction kinds', () => {
  it('is the only place in main that picks between a pay-in and a payout with a ternary', () => {
    const found = sources(main).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ file: path.relative(main, file), line: i + 1, text: line.trim() }))
        .filter(({ text }) => TERNARY_ON_KIND.test(text)),
    );
    expect(found).toEqual([]);
  });

  it('has an entry for every kind the catalogue knows, named as the spec names its references', () => {
    expect(Object.keys(TRANSACTION_KINDS).sort()).toEqual([...TRANSACTION_SUBJECTS].sort());
    for (const event of NOTIFICATION_EVENTS) {
      const { subject, references } = EVENT_SPECS[event];
      expect({ gatewayId: TRANSACTION_KINDS[subject].gatewayIdField, merchantReference: TRANSACTION_KINDS[subject].referenceField }, event).toEqual(references);
    }
  });

  it('gives every create endpoint the kind of its attempt, and reads the attempt’s reference from the field of that kind', () => {
    for (const [endpoint, attemptKind] of Object.entries(attemptKindOf) as [keyof typeof attemptKindOf, keyof typeof KIND_OF_ATTEMPT][]) {
      const kind = KIND_OF_ATTEMPT[attemptKind];
      expect(ENDPOINTS[endpoint].family, endpoint).toBe(kind);
      const body = { request_id: 'req-1', merchantReference: 'mref-1' } as never;
      expect(attemptReference(endpoint, body), endpoint).toBe(kind === 'payin' ? 'req-1' : 'mref-1');
    }
  });
});
