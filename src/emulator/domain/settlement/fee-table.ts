// The fee schedule in force: the defaults, then what the admin API set (kept with the state), then
// what the options fix at start (they win, as fixed merchant credentials do). A settlement keeps
// the fee of each line, so a later change never alters what was settled.
import type { PayinMethod } from '../../../shared/spec/methods';
import type { MetaRepo } from '../../store/meta';
import { DEFAULT_FEES, type FeeRate, type FeeSchedule } from './fees';

const KEY = 'settlement_fees';

export class FeeTable {
  private current: FeeSchedule;

  constructor(
    private readonly meta: MetaRepo,
    private readonly fixed: Partial<FeeSchedule> = {},
  ) {
    this.current = { ...DEFAULT_FEES, ...meta.get<Partial<FeeSchedule>>(KEY), ...fixed };
    if (Object.keys(fixed).length > 0) meta.set(KEY, this.current);
  }

  get schedule(): Readonly<FeeSchedule> {
    return this.current;
  }

  rateOf(method: string): FeeRate {
    return this.current[method as PayinMethod] ?? { percent: '0', fixed: '0' };
  }

  update(patch: Partial<FeeSchedule>): FeeSchedule {
    this.current = { ...this.current, ...patch };
    this.meta.set(KEY, this.current);
    return this.current;
  }

  /** Back to the start values: the defaults and the options' fees. */
  reset(): FeeSchedule {
    this.current = { ...DEFAULT_FEES, ...this.fixed };
    this.meta.set(KEY, this.current);
    return this.current;
  }
}
