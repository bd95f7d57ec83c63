/**
 * A seeded pseudo-random stream for the bootstrap: xoshiro128** (Blackman and Vigna, public domain),
 * its state filled by splitmix64 from a 64-bit FNV-1a hash of the seed and a stream name. Each
 * statistic of each (arm, concept, scope) draws from its own named stream, so an interval does not
 * move when another concept is added to the comparison, and the same seed gives the same numbers.
 */

const TWO_32 = 4294967296;
const INV_TWO_32 = 1 / TWO_32;
const MASK_64 = (1n << 64n) - 1n;

/** 64-bit FNV-1a of a text's UTF-16 code units. */
function fnv1a64(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & MASK_64;
  }
  return h;
}

/** splitmix64's outputs from a 64-bit state: the recommended way to fill a xoshiro state. */
function splitmix64(state: bigint, count: number): bigint[] {
  const out: bigint[] = [];
  let s = state;
  for (let i = 0; i < count; i++) {
    s = (s + 0x9e3779b97f4a7c15n) & MASK_64;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK_64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK_64;
    out.push(z ^ (z >> 31n));
  }
  return out;
}

/** A xoshiro128** generator: 32-bit outputs and unbiased integers below n. */
export class SeededRandom {
  private readonly s = new Uint32Array(4);

  /** The four state words (read and advanced by {@link countDraws}). */
  get state(): Uint32Array {
    return this.s;
  }

  /** A stream from four 32-bit state words (not all zero); {@link randomStream} makes one from a seed. */
  constructor(state: readonly [number, number, number, number]) {
    this.s.set(state);
    if (state.every((w) => w >>> 0 === 0)) throw new Error("invalid state: all four words are 0");
  }

  /** The next 32-bit output, as an unsigned integer. */
  nextUint32(): number {
    const s = this.s;
    const r = Math.imul(s[1], 5);
    const result = Math.imul((r << 7) | (r >>> 25), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 11) | (s[3] >>> 21);
    return result;
  }

  /** An integer in [0, n), every value equally likely (Lemire's multiply-and-reject; n < 2^21). */
  below(n: number): number {
    // x * n < 2^53 is exact; its high and low 32 bits without the (slow) float remainder.
    let m = this.nextUint32() * n;
    let high = Math.floor(m * INV_TWO_32);
    let low = m - high * TWO_32;
    if (low < n) {
      const threshold = (TWO_32 - n) % n;
      while (low < threshold) {
        m = this.nextUint32() * n;
        high = Math.floor(m * INV_TWO_32);
        low = m - high * TWO_32;
      }
    }
    return high;
  }
}

/**
 * Counts of `draws` integers drawn below n into `counts` (zeroed first): the same draws, in the same
 * order, as `draws` calls of {@link SeededRandom.below}, with the state in locals for the loop (the
 * bootstrap's inner loop: about 2x faster than a call per draw).
 */
export function countDraws(random: SeededRandom, n: number, draws: number, counts: Uint32Array): void {
  counts.fill(0);
  const s = random.state;
  let s0 = s[0];
  let s1 = s[1];
  let s2 = s[2];
  let s3 = s[3];
  const threshold = (TWO_32 - n) % n;
  for (let i = 0; i < draws; i++) {
    let high: number;
    for (;;) {
      const r = Math.imul(s1, 5);
      const x = Math.imul((r << 7) | (r >>> 25), 9) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      const m = x * n;
      high = Math.floor(m * INV_TWO_32);
      // Lemire: low < threshold only when low < n; the reject test below() makes in two steps.
      if (m - high * TWO_32 >= threshold) break;
    }
    counts[high]++;
  }
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
}

/**
 * The stream named `name` of a seed: same seed and name, same numbers.
 * @example randomStream(7, "iqm/baseline/entropy/all").below(3) // 0, 1 or 2, the same on every run
 */
export function randomStream(seed: number, name: string): SeededRandom {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`invalid seed: ${seed} (a non-negative integer)`);
  const [a, b] = splitmix64(fnv1a64(`${seed}\u0000${name}`), 2);
  const word = (x: bigint, shift: bigint) => Number((x >> shift) & 0xffffffffn);
  return new SeededRandom([word(a, 0n), word(a, 32n), word(b, 0n), word(b, 32n)]);
}
