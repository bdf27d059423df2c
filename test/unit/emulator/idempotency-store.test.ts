// The emulator's statement cache, transactions (with their after-commit effects) and group
// commit, and the idempotency gate on a real in-memory database: a creation and the binding of its
// key are stored together or not at all, and the request fingerprint is the one earlier versions stored (bindings kept with --data
// still match).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isJsonObject, isLosslessNumber, parseJson } from '../../../src/shared/json';
import { canonicalJson, IdempotencyGate, requestHash, type GateResponse } from '../../../src/emulator/domain/idempotency-gate';
import { openDatabase, TransactionLostError } from '../../../src/emulator/store/database';
import { GroupCommit } from '../../../src/emulator/store/group-commit';
import { IdempotencyRepo } from '../../../src/emulator/store/idempotency';
import { PayinRepo, type PayinRecord } from '../../../src/emulator/store/payins';

/** The canonical form as the first release wrote it: the format persisted bindings were hashed from. */
function firstReleaseCanonical(value: unknown): string {
  if (isLosslessNumber(value)) return value.value;
  if (Array.isArray(value)) return `[${value.map(firstReleaseCanonical).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${firstReleaseCanonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const firstReleaseHash = (endpoint: string, body: unknown): string =>
  createHash('sha256').update(endpoint).update('\n').update(firstReleaseCanonical(body)).digest('hex');

const payin = (n: number): PayinRecord => ({
  payin_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  merchant_id: 'm1',
  request_id: `r${n}`,
  kind: 'payin',
  payment_method: 'blik',
  amount: '10.00',
  currency: 'PLN',
  email: 'a@b.co',
  country: 'POL',
  status_code: 100,
  reason_code: null,
  scenario: null,
  urls: { notification_link: 'https://m.example/n', success_url: 'https://m.example/s', pending_url: 'https://m.example/p', fail_url: 'https://m.example/f', back_url: 'https://m.example/b' },
  card: null,
  token: null,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:00:00.000Z',
});

function setup() {
  const db = openDatabase(undefined);
  const repo = new IdempotencyRepo(db);
  const commits = new GroupCommit(db);
  return { db, repo, commits, payins: new PayinRepo(db), gate: new IdempotencyGate(repo, () => '2030-01-01T00:00:00.000Z', commits) };
}

const created: GateResponse = { httpStatus: 200, text: '{"status":"success"}', bind: true };

describe('emulator database', () => {
  test('a statement is compiled once per SQL text', () => {
    const { db } = setup();
    expect(db.statement('SELECT 1 AS one')).toBe(db.statement('SELECT 1 AS one'));
    expect(db.statement('SELECT 1 AS one')).not.toBe(db.statement('SELECT 2 AS two'));
    db.close();
  });

  test('a transaction commits when its work returns and rolls back when it throws', () => {
    const { db, payins } = setup();
    db.transaction(() => payins.insert(payin(1)));
    expect(() =>
      db.transaction(() => {
        payins.insert(payin(2));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(payins.count()).toBe(1);
    db.close();
  });

  test('an after-commit effect runs once the outermost transaction commits, not before', () => {
    const { db, payins } = setup();
    const ran: string[] = [];
    db.transaction(() => {
      payins.insert(payin(1));
      db.afterCommit(() => ran.push(`outer sees ${payins.count()}`));
      db.transaction(() => db.afterCommit(() => ran.push('savepoint')));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['outer sees 1', 'savepoint']);
    db.afterCommit(() => ran.push('outside a transaction: at once'));
    expect(ran).toHaveLength(3);
    db.close();
  });

  test('an after-commit effect never runs when its savepoint or its transaction rolls back', () => {
    const { db, payins } = setup();
    const ran: string[] = [];
    db.transaction(() => {
      expect(() =>
        db.transaction(() => {
          db.afterCommit(() => ran.push('undone savepoint'));
          throw new Error('refused');
        }),
      ).toThrow('refused');
      db.afterCommit(() => ran.push('kept'));
    });
    expect(() =>
      db.transaction(() => {
        db.transaction(() => db.afterCommit(() => ran.push('released savepoint of an undone transaction')));
        payins.insert(payin(1));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(ran).toEqual(['kept']);
    db.close();
  });

  test('inside a transaction SQLite rolled back on its own, a nested transaction refuses to run rather than commit alone', () => {
    const { db, payins } = setup();
    let ran = false;
    expect(() =>
      db.transaction(() => {
        payins.insert(payin(1));
        db.statement('ROLLBACK').run(); // what SQLite does itself on disk full or an I/O error
        db.transaction(() => {
          ran = true;
          payins.insert(payin(2));
        });
      }),
    ).toThrow(TransactionLostError);
    expect(ran).toBe(false);
    expect(payins.count()).toBe(0);
    db.close();
  });
});

describe('group commit', () => {
  test('creations of one turn are committed together, each undone alone when it throws', async () => {
    const { db, payins, commits } = setup();
    const first = commits.run(() => payins.insert(payin(1)));
    const failing = commits.run(() => {
      payins.insert(payin(2));
      throw new Error('refused halfway');
    });
    const third = commits.run(() => {
      payins.insert(payin(3));
      return payins.count();
    });
    expect(payins.count()).toBe(0); // nothing runs before the turn ends
    await expect(first).resolves.toBe(true);
    await expect(failing).rejects.toThrow('refused halfway');
    await expect(third).resolves.toBe(2); // sees the first, not the undone second
    expect(payins.count()).toBe(2);
    expect(payins.byId(payin(2).payin_id)).toBeUndefined();
    db.close();
  });

  test('a commit that fails rejects every creation of the batch and stores none of them', async () => {
    const { db, payins, commits } = setup();
    // A deferred foreign key is only checked at COMMIT: a way to make the commit itself fail.
    db.statement('CREATE TABLE parent (id INTEGER PRIMARY KEY)').run();
    db.statement('CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)').run();
    const a = commits.run(() => payins.insert(payin(1)));
    const b = commits.run(() => db.statement('INSERT INTO child VALUES (42)').run());
    await expect(a).rejects.toThrow(/FOREIGN KEY/);
    await expect(b).rejects.toThrow(/FOREIGN KEY/);
    expect(payins.count()).toBe(0);
    db.close();
  });

  test('when SQLite rolls back the whole transaction inside one creation, the batch fails whole: the rest never runs, nothing is stored', async () => {
    const { db, payins, commits } = setup();
    const effects: string[] = [];
    const before = commits.run(() => {
      db.afterCommit(() => effects.push('before'));
      return payins.insert(payin(1));
    });
    const lost = commits.run(() => {
      payins.insert(payin(2));
      db.statement('ROLLBACK').run(); // as SQLite does itself on disk full or an I/O error
      throw new Error('disk I/O error');
    });
    let afterRan = false;
    const after = commits.run(() => {
      afterRan = true;
      return payins.insert(payin(3));
    });
    await expect(before).rejects.toThrow('disk I/O error');
    await expect(lost).rejects.toThrow('disk I/O error');
    await expect(after).rejects.toThrow('disk I/O error');
    expect(afterRan).toBe(false); // it would have run, and committed, outside any transaction
    expect(payins.count()).toBe(0);
    expect(effects).toEqual([]);
    // The next turn works as usual.
    await expect(commits.run(() => payins.insert(payin(4)))).resolves.toBe(true);
    expect(payins.count()).toBe(1);
    db.close();
  });

  test('after-commit effects run for the creations kept, not for one undone, and for none when the commit fails', async () => {
    const { db, payins, commits } = setup();
    const effects: string[] = [];
    const kept = commits.run(() => db.afterCommit(() => effects.push('kept')));
    const undone = commits.run(() => {
      db.afterCommit(() => effects.push('undone'));
      throw new Error('refused halfway');
    });
    await kept;
    await expect(undone).rejects.toThrow('refused halfway');
    expect(effects).toEqual(['kept']);

    db.statement('CREATE TABLE parent (id INTEGER PRIMARY KEY)').run();
    db.statement('CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)').run();
    const a = commits.run(() => {
      payins.insert(payin(1));
      db.afterCommit(() => effects.push('a'));
    });
    const b = commits.run(() => db.statement('INSERT INTO child VALUES (42)').run());
    await expect(a).rejects.toThrow(/FOREIGN KEY/);
    await expect(b).rejects.toThrow(/FOREIGN KEY/);
    expect(effects).toEqual(['kept']);
    db.close();
  });

  test('flush commits what is queued at once (the emulator flushes before closing)', async () => {
    const { db, payins, commits } = setup();
    const queued = commits.run(() => payins.insert(payin(1)));
    commits.flush();
    expect(payins.count()).toBe(1);
    await expect(queued).resolves.toBe(true);
    db.close();
  });
});

describe('idempotency gate', () => {
  test('a creation and the binding of its key are written in one transaction', async () => {
    const { db, repo, payins, gate } = setup();
    const outcome = await gate.run('m1', 'k1', 'h1', async () => () => {
      payins.insert(payin(1));
      return created;
    });
    expect(outcome).toEqual({ kind: 'fresh', response: created });
    expect(payins.count()).toBe(1);
    expect(repo.find('m1', 'k1')).toEqual({ request_hash: 'h1', http_status: 200, response: created.text });
    db.close();
  });

  test('when the creation fails, neither the pay-in nor the binding is kept; the key stays free', async () => {
    const { db, repo, payins, gate } = setup();
    await expect(
      gate.run('m1', 'k1', 'h1', async () => () => {
        payins.insert(payin(1));
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(payins.count()).toBe(0);
    expect(repo.find('m1', 'k1')).toBeUndefined();
    const retry = await gate.run('m1', 'k1', 'h1', async () => () => {
      payins.insert(payin(1));
      return created;
    });
    expect(retry.kind).toBe('fresh');
    db.close();
  });

  test('a refusal binds nothing; the same key then replays or conflicts by fingerprint', async () => {
    const { db, repo, gate } = setup();
    await gate.run('m1', 'k1', 'h1', async () => ({ httpStatus: 400, text: '{"status":"error"}', bind: false }));
    expect(repo.find('m1', 'k1')).toBeUndefined();
    await gate.run('m1', 'k1', 'h1', async () => () => created);
    expect(await gate.run('m1', 'k1', 'h1', async () => () => created)).toEqual({ kind: 'replay', stored: { request_hash: 'h1', http_status: 200, response: created.text } });
    expect(await gate.run('m1', 'k1', 'h2', async () => () => created)).toEqual({ kind: 'conflict' });
    db.close();
  });

  test('concurrent requests with one key create once; the others replay', async () => {
    const { db, payins, gate } = setup();
    let n = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        gate.run('m1', 'k1', 'h1', async () => () => {
          payins.insert(payin(++n));
          return created;
        }),
      ),
    );
    expect(outcomes.map((o) => o.kind)).toEqual(['fresh', ...Array(9).fill('replay')]);
    expect(payins.count()).toBe(1);
    db.close();
  });
});

describe('request fingerprint', () => {
  test('key order and white space do not matter; numbers compare by their exact text', () => {
    const a = parseJson('{"b":1,"a":{"y":10.50,"x":[1,"é\\n"]}}');
    const b = parseJson(' { "a" : { "x" : [ 1 , "é\\n" ] , "y" : 10.50 } , "b" : 1 } ');
    expect(requestHash('/payment/create', a)).toBe(requestHash('/payment/create', b));
    expect(requestHash('/payment/create', a)).not.toBe(requestHash('/payment/create', parseJson('{"b":1,"a":{"y":10.5,"x":[1,"é\\n"]}}')));
    expect(requestHash('/payment/create', a)).not.toBe(requestHash('/payouts/create', a));
  });

  test('canonical text and hash are those of the first release, for any JSON body (property)', () => {
    const text = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.constantFrom('10.50', '-0', '1e3', '12345678901234567890').map((n) => ({ n })))).map((o) =>
        JSON.stringify(o).replace(/\{"n":"([^"]*)"\}/g, '$1'),
      ),
    );
    fc.assert(
      fc.property(text, (t) => {
        const body = parseJson(t);
        expect(canonicalJson(body)).toBe(firstReleaseCanonical(body));
        expect(requestHash('/payment/create', body)).toBe(firstReleaseHash('/payment/create', body));
      }),
      { numRuns: 1000 },
    );
  });

  test('strings JSON.stringify escapes are written as it writes them', () => {
    for (const s of ['"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'a\udc00b', '😀', 'plain']) {
      expect(canonicalJson(s)).toBe(JSON.stringify(s));
      expect(canonicalJson({ [s]: s })).toBe(firstReleaseCanonical({ [s]: s }));
    }
  });
});
