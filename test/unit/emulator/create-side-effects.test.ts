// A create's side effects outside the database (its scenario timers, the sending of its
// notifications) start only once its writes are committed. Creates run inside the group commit's
// transaction, in a savepoint each: a create undone there, or a commit that fails, must leave no
// timer armed and no notification on its way — else the emulator would move or announce a pay-in
// that does not exist. Real services, notifier and database; only setTimeout is faked, to count
// what is pending.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { IdempotencyGate, type GateResponse } from '../../../src/emulator/domain/idempotency-gate';
import { PayinService, type NewPayin } from '../../../src/emulator/domain/payin-service';
import { PayoutService, type NewPayout } from '../../../src/emulator/domain/payout-service';
import { TimerSet } from '../../../src/emulator/domain/timers';
import { PayoutWallet } from '../../../src/emulator/domain/wallet';
import { FaultState } from '../../../src/emulator/notify/faults';
import { Notifier } from '../../../src/emulator/notify/notifier';
import { DEFAULT_DELIVERY_SCHEDULE, DEFAULT_SCENARIO_TIMING } from '../../../src/emulator/options';
import { iso, randomIds, silentLogger, systemClock } from '../../../src/emulator/runtime';
import { openDatabase } from '../../../src/emulator/store/database';
import { DeliveryRepo } from '../../../src/emulator/store/deliveries';
import { GroupCommit } from '../../../src/emulator/store/group-commit';
import { IdempotencyRepo } from '../../../src/emulator/store/idempotency';
import { MetaRepo } from '../../../src/emulator/store/meta';
import { PayinRepo } from '../../../src/emulator/store/payins';
import { PayoutRepo } from '../../../src/emulator/store/payouts';
import { TokenRepo } from '../../../src/emulator/store/tokens';
import { WalletRepo } from '../../../src/emulator/store/wallet';

function world() {
  const db = openDatabase(undefined);
  const afterCommit = (effect: () => void): void => db.afterCommit(effect);
  const deliveries = new DeliveryRepo(db);
  const notifier = new Notifier({ repo: deliveries, clock: systemClock, schedule: DEFAULT_DELIVERY_SCHEDULE, faults: new FaultState(), log: silentLogger, afterCommit });
  const timers = new TimerSet();
  const common = { notifier, clock: systemClock, ids: randomIds, timing: DEFAULT_SCENARIO_TIMING, timers, log: silentLogger, afterCommit };
  const payinRepo = new PayinRepo(db);
  const payoutRepo = new PayoutRepo(db);
  const payins = new PayinService({ ...common, payins: payinRepo, tokens: new TokenRepo(db) });
  const atomic = <T>(work: () => T): T => db.transaction(work);
  const wallet = new PayoutWallet({ repo: new WalletRepo(db), meta: new MetaRepo(db), clock: systemClock, ids: randomIds, atomic });
  const payouts = new PayoutService({ ...common, payouts: payoutRepo, wallet, atomic });
  const commits = new GroupCommit(db);
  const gate = new IdempotencyGate(new IdempotencyRepo(db), () => iso(Date.now()), commits);
  const close = async () => {
    timers.close();
    await notifier.close();
    db.close();
  };
  /** Creates a pay-in as the create endpoints do; its id. */
  const createPayin = (input: NewPayin): string => {
    const record = payins.create(input, 'http://emulator');
    if (!record) throw new Error(`request_id ${input.request_id} already used`);
    return record.payin_id;
  };
  return { db, deliveries, payins, payinRepo, createPayin, payouts, payoutRepo, gate, close };
}

/** A tokenization with a scenario: on commit it arms its scenario and sends its tokenization notification. */
const tokenization = (n: number): NewPayin => ({
  merchant_id: 'm1',
  request_id: `r${n}`,
  kind: 'tokenization',
  payment_method: 'credit_card',
  amount: '10.00',
  currency: 'EUR',
  email: 'ana+s200@example.com',
  country: 'DEU',
  urls: { notification_link: 'http://127.0.0.1:9/n', success_url: 'https://m.example/s', pending_url: 'https://m.example/p', fail_url: 'https://m.example/f', back_url: 'https://m.example/b', tokenization_notification_url: 'http://127.0.0.1:9/t' },
  card: { brand: 'visa', bin: '411111', last4: '1111', exp_month: '12', exp_year: '2099' },
  token: null,
});

/** A payout without a tag: on commit it arms its two steps (P101, then P200). */
const payout: NewPayout = { merchant_id: 'm1', merchant_reference: 'ref-1', method: 'sepa', amount: '5.00', currency: 'EUR', email: 'bo@example.com', notification_url: 'http://127.0.0.1:9/p', destination: {} };

const created = (id: string): GateResponse => ({ httpStatus: 200, text: JSON.stringify({ id }), bind: true });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }); // the group commit's setImmediate stays real
});
afterEach(() => {
  vi.useRealTimers();
});

describe('side effects of a create', () => {
  test('a committed create arms its scenario and has its notification on its way', async () => {
    const w = world();
    const outcome = await w.gate.run('m1', 'k1', 'h1', async () => () => created(w.createPayin(tokenization(1))));
    expect(outcome.kind).toBe('fresh');
    expect(w.deliveries.pending()).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(2); // the scenario's completion and the notification's first attempt
    await w.close();
  });

  test('a create undone in its savepoint arms nothing and sends nothing; the create beside it in the turn does', async () => {
    const w = world();
    const undone = w.gate.run('m1', 'k1', 'h1', async () => () => {
      w.createPayin(tokenization(1));
      throw new Error('binding failed'); // after the service has done its part
    });
    const kept = w.gate.run('m1', 'k2', 'h2', async () => () => created(w.payouts.create(payout).payout_id));
    await expect(undone).rejects.toThrow('binding failed');
    expect((await kept).kind).toBe('fresh');
    expect(w.payinRepo.count()).toBe(0);
    expect(w.deliveries.pending()).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(2); // the payout's two steps, nothing of the undone pay-in
    await w.close();
  });

  test('when the commit fails, no create of the turn arms a timer or sends a notification', async () => {
    const w = world();
    // A deferred foreign key is only checked at COMMIT: a way to make the commit itself fail.
    w.db.statement('CREATE TABLE parent (id INTEGER PRIMARY KEY)').run();
    w.db.statement('CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)').run();
    const payin = w.gate.run('m1', 'k1', 'h1', async () => () => created(w.createPayin(tokenization(1))));
    const paid = w.gate.run('m1', 'k2', 'h2', async () => () => created(w.payouts.create(payout).payout_id));
    const broken = w.gate.run('m1', 'k3', 'h3', async () => () => {
      w.db.statement('INSERT INTO child VALUES (42)').run();
      return created('broken');
    });
    for (const outcome of [payin, paid, broken]) await expect(outcome).rejects.toThrow(/FOREIGN KEY/);
    expect(w.payinRepo.count()).toBe(0);
    expect(w.payoutRepo.nonFinal()).toHaveLength(0);
    expect(w.deliveries.pending()).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    await w.close();
  });

  test('outside a transaction (a scenario or the admin completing a pay-in) the notification is sent as before', async () => {
    const w = world();
    const payinId = w.createPayin({ ...tokenization(1), kind: 'payin', email: 'ana@example.com', card: null });
    expect(vi.getTimerCount()).toBe(0); // no scenario, no tokenization notification
    expect(w.payins.complete(payinId, 200).ok).toBe(true);
    expect(w.deliveries.pending()).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(1);
    await w.close();
  });
});
