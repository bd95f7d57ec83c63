/**
 * Seeded pseudo-random numbers for the simulator. mulberry32 (Tommy Ettinger's 32-bit generator):
 * tiny, well known, and identical on every platform, so the sample data is reproducible bit for bit.
 */

/** A seeded random source with the few distributions the simulator needs. */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** Integer uniform in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number;
  /** Standard normal (Box-Muller, one value per call). */
  normal(mean?: number, sd?: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** Binomial(n, p) by n Bernoulli draws (n is small here). */
  binomial(n: number, p: number): number;
  /** Fisher-Yates shuffle of a copy. */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent stream derived from this stream's seed and a label, without consuming draws
   * (so adding draws in one part of the simulation does not shift every other part). */
  fork(label: string): Prng;
}

/** mulberry32 step function over a 32-bit state: tiny, seeded, identical on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a 32-bit hash of a string (used to derive fork seeds from labels). */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Create a seeded random source. */
export function createPrng(seed: number): Prng {
  const raw = mulberry32(seed);
  const prng: Prng = {
    next: raw,
    uniform: (lo, hi) => lo + (hi - lo) * raw(),
    int: (lo, hi) => lo + Math.floor(raw() * (hi - lo + 1)),
    normal: (mean = 0, sd = 1) => {
      // 1 - u keeps the logarithm's argument in (0, 1].
      const u = 1 - raw();
      const v = raw();
      return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    chance: (p) => raw() < p,
    binomial: (n, p) => {
      let k = 0;
      for (let i = 0; i < n; i++) if (raw() < p) k++;
      return k;
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(raw() * (i + 1));
        const tmp = out[i];
        out[i] = out[j];
        out[j] = tmp;
      }
      return out;
    },
    fork: (label) => createPrng(deriveSeed(seed, label)),
  };
  return prng;
}

/** Derive a child seed from a base seed and a label, independent of any draw order. */
export function deriveSeed(seed: number, label: string): number {
  return (fnv1a(`${seed}:${label}`) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0;
}
