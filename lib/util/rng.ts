import seedrandom from 'seedrandom';

/**
 * Seeded randomness for the whole harness. Every random choice (demo world,
 * samplers, bootstrap, GNN init, retry jitter in tests) goes through an Rng made
 * from an explicit seed, so a seed in a config reproduces a result exactly.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: T[]): T[];
  /** k distinct items (k clipped to the length). */
  sample<T>(items: readonly T[], k: number): T[];
  bool(p?: number): boolean;
  /** A child generator with its own stream, derived deterministically from this one's seed and a label. */
  fork(label: string): Rng;
  readonly seed: string;
}

export function makeRng(seed: string | number): Rng {
  const s = String(seed);
  const prng = seedrandom(s);
  const rng: Rng = {
    seed: s,
    next: () => prng.quick(),
    int: (lo, hi) => lo + Math.floor(prng.quick() * (hi - lo + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error('rng.pick on an empty list');
      return items[Math.floor(prng.quick() * items.length)];
    },
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(prng.quick() * (i + 1));
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    },
    sample: (items, k) => rng.shuffle(items.slice()).slice(0, Math.max(0, Math.min(k, items.length))),
    bool: (p = 0.5) => prng.quick() < p,
    fork: (label) => makeRng(`${s}/${label}`),
  };
  return rng;
}
