// Seeded randomness for the reliability and security suites, printed so a failure can be
// replayed: PAYDESK_SEED=<n> reruns the same plan, the same fault choices and the same kill
// points (timing on a busy machine still varies). PAYDESK_LONG=1 selects the long mode.

export const LONG = process.env.PAYDESK_LONG === '1';

export function suiteSeed(): number {
  const given = process.env.PAYDESK_SEED;
  if (given !== undefined && given.trim() !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`PAYDESK_SEED must be an integer 0..4294967295, got "${given}"`);
    return n;
  }
  return Math.floor(Math.random() * 0xffffffff);
}

/** Prints the seed once per suite; the returned text goes into assertion messages too. */
export function announceSeed(suite: string, seed: number): string {
  const text = `${suite}: seed ${seed} (replay with PAYDESK_SEED=${seed}${LONG ? ' PAYDESK_LONG=1' : ''})`;
  console.log(text);
  return text;
}

/** mulberry32: small, fast, good enough to pick kill points and fault modes. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Fisher-Yates, in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    return items;
  }

  /** A derived generator, so adding draws in one place does not shift every other choice. */
  fork(salt: number): Rng {
    return new Rng((Math.imul(this.state ^ salt, 0x9e3779b1) >>> 0) ^ salt);
  }
}
