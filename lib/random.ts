// A small seeded PRNG (xoshiro128**, seeded by splitmix32) for reproducible test data, benchmarks
// and the CLI. Not for secrets.

export class Rng {
  readonly seed: number;
  private s: Uint32Array;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.s = new Uint32Array(4);
    let z = this.seed;
    for (let i = 0; i < 4; i++) {
      // splitmix32
      z = (z + 0x9e3779b9) >>> 0;
      let t = z;
      t = Math.imul(t ^ (t >>> 16), 0x85ebca6b) >>> 0;
      t = Math.imul(t ^ (t >>> 13), 0xc2b2ae35) >>> 0;
      this.s[i] = (t ^ (t >>> 16)) >>> 0;
    }
  }

  /** A fresh seed from the clock and Math.random (print it to reproduce a run). */
  static freshSeed(): number {
    return (Date.now() ^ Math.floor(Math.random() * 0x100000000)) >>> 0;
  }

  u32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform integer in [0, n) for n ≤ 2^32. */
  int(n: number): number {
    return Math.floor((this.u32() / 0x100000000) * n);
  }

  /** Uniform bigint of `bits` random bits. */
  bits(bits: number): bigint {
    let v = 0n;
    for (let b = 0; b < bits; b += 32) v = (v << 32n) | BigInt(this.u32());
    const extra = (32 - (bits % 32)) % 32;
    return v >> BigInt(extra);
  }

  /** Uniform bigint in [0, m) (rejection sampling). */
  below(m: bigint): bigint {
    const bits = m.toString(2).length;
    for (;;) {
      const v = this.bits(bits);
      if (v < m) return v;
    }
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
