// Test data built on the bigint model (test/model), never on lib/generate.ts, so that a bug in
// the product's generator cannot hide a bug in the MSM. Points carry their discrete logs, which
// gives a third, cheap reference: Σ k_i·P_i = (Σ k_i·d_i mod r)·G.

import type { AffinePoint, ByteFormat, Curve } from '../../lib';
import { encodeScalars, writeLE } from '../../lib/encoding';
import { Rng } from '../../lib/random';
import { AFF_INF, aff, affNeg, jacAdd, jacMul, toAff, toAffAll, toJac, type Aff, type Field, type Jac } from '../model/ec';

export const fieldOf = (c: Curve): Field => ({ p: c.p, b: c.b });
export const gen = (c: Curve): Aff => aff(c.generator.x, c.generator.y);
export const toModel = (P: AffinePoint): Aff => (P.x === 0n && P.y === 0n ? AFF_INF : aff(P.x, P.y));
export const fromModel = (P: Aff): AffinePoint => (P.inf ? { x: 0n, y: 0n } : { x: P.x, y: P.y });

/** A PRNG for one test file; its seed comes from MSM_TEST_SEED or is fresh, and is printed. */
export function seededRng(label: string): Rng {
  const env = process.env.MSM_TEST_SEED;
  const seed = env !== undefined ? Number(env) >>> 0 : Rng.freshSeed();
  process.stdout.write(`[seed] ${label}: ${seed} (rerun with MSM_TEST_SEED=${seed})\n`);
  return new Rng(seed);
}

export interface Dataset {
  points: AffinePoint[];
  /** discrete logs: points[i] = dlogs[i]·G (0 for infinity) */
  dlogs: bigint[];
}

/** (s + i·t)·G for i < n, by repeated Jacobian addition and one batched normalisation. */
export function progression(c: Curve, n: number, s: bigint, t: bigint): Dataset {
  const F = fieldOf(c);
  const G = toJac(gen(c));
  const T = jacMul(F, t, G);
  const jac: Jac[] = [];
  let P = jacMul(F, s, G);
  for (let i = 0; i < n; i++) {
    jac.push(P);
    P = jacAdd(F, P, T);
  }
  return { points: toAffAll(F, jac).map(fromModel), dlogs: jac.map((_, i) => (s + BigInt(i) * t) % c.r) };
}

/**
 * n points with the awkward cases mixed in: every 7th slot the point at infinity, every 11th a
 * duplicate of an earlier point, every 13th the negation of an earlier point.
 */
export function awkwardPoints(c: Curve, n: number, rng: Rng): Dataset {
  const d = progression(c, n, 1n + rng.below(c.r - 1n), 1n + rng.below(c.r - 1n));
  const F = fieldOf(c);
  for (let i = 1; i < n; i++) {
    const j = rng.int(i);
    if (i % 7 === 3) {
      d.points[i] = { x: 0n, y: 0n };
      d.dlogs[i] = 0n;
    } else if (i % 11 === 5) {
      d.points[i] = d.points[j];
      d.dlogs[i] = d.dlogs[j];
    } else if (i % 13 === 6) {
      d.points[i] = fromModel(affNeg(F, toModel(d.points[j])));
      d.dlogs[i] = (c.r - d.dlogs[j]) % c.r;
    }
  }
  return d;
}

/**
 * Scalars of every kind: 0, 1, r−1, single bits (bit positions cycling through all of
 * 0…scalarBits−1 across the set), small (< 2^64), random.
 */
export function mixedScalars(c: Curve, n: number, rng: Rng): bigint[] {
  const out: bigint[] = [];
  let bit = rng.int(c.scalarBits);
  for (let i = 0; i < n; i++) {
    switch (i % 6) {
      case 0:
        out.push(rng.below(c.r));
        break;
      case 1:
        out.push([0n, 1n, c.r - 1n][rng.int(3)]);
        break;
      case 2:
        out.push(1n << BigInt(bit));
        bit = (bit + 1) % c.scalarBits;
        break;
      case 3:
        out.push(rng.bits(64));
        break;
      default:
        out.push(rng.below(c.r));
    }
  }
  return out;
}

/** Σ k_i·d_i·G on the model. */
export function expectedFromDlogs(c: Curve, dlogs: readonly bigint[], scalars: readonly bigint[]): AffinePoint {
  let e = 0n;
  for (let i = 0; i < scalars.length; i++) e += scalars[i] * dlogs[i];
  return fromModel(toAff(fieldOf(c), jacMul(fieldOf(c), e % c.r, toJac(gen(c)))));
}

/** Distributions of packed scalars (test/gpu: at 2^20 bigint scalars are far too slow). */
export type PackedDistribution = 'random' | 'identical' | 'distinct32' | 'small' | 'mostly-zero' | 'r-1' | 'zero' | 'mixed';

/**
 * n canonical scalars of a distribution, packed little-endian (32 bytes each): uniform below r
 * ('random'; the one value of 'identical' and the 32 of 'distinct32' likewise), below 2^64
 * ('small'), one in 16 uniform and the others 0 ('mostly-zero'), all r − 1, all 0, or a mix of
 * r − 1, 0, 1 and uniform ('mixed').
 */
export function packedScalars(c: Curve, n: number, dist: PackedDistribution, rng: Rng): Uint8Array {
  const bits = c.r.toString(2).length;
  const top = Math.floor((bits - 1) / 8);
  const rBytes = encodeScalars(c, [0n]);
  writeLE(new DataView(rBytes.buffer), 0, c.r, 32);
  // a uniform value below r at buf[off …]: `bits` random bits, rejected while ≥ r (bytes compared from the top)
  const random = (buf: Uint8Array, off: number): void => {
    const view = new DataView(buf.buffer, buf.byteOffset);
    for (;;) {
      for (let w = 0; w < 8; w++) view.setUint32(off + 4 * w, rng.u32(), true);
      buf[off + top] &= (1 << (((bits - 1) % 8) + 1)) - 1;
      buf.fill(0, off + top + 1, off + 32);
      let j = 31;
      while (j >= 0 && buf[off + j] === rBytes[j]) j--;
      if (j >= 0 && buf[off + j] < rBytes[j]) return;
    }
  };
  const rm1 = encodeScalars(c, [c.r - 1n]);
  const one = new Uint8Array(32);
  random(one, 0);
  const pool = new Uint8Array(32 * 32);
  for (let k = 0; k < 32; k++) random(pool, 32 * k);
  const out = new Uint8Array(32 * n);
  const view = new DataView(out.buffer);
  for (let i = 0; i < n; i++) {
    const off = 32 * i;
    switch (dist) {
      case 'random':
        random(out, off);
        break;
      case 'identical':
        out.set(one, off);
        break;
      case 'distinct32': {
        const k = rng.int(32);
        out.set(pool.subarray(32 * k, 32 * k + 32), off);
        break;
      }
      case 'small':
        view.setUint32(off, rng.u32(), true);
        view.setUint32(off + 4, rng.u32(), true);
        break;
      case 'mostly-zero':
        if (rng.int(16) === 0) random(out, off);
        break;
      case 'r-1':
        out.set(rm1, off);
        break;
      case 'zero':
        break;
      case 'mixed': {
        const k = rng.int(4);
        if (k === 0) out.set(rm1, off);
        else if (k === 2) out[off] = 1;
        else if (k === 3) random(out, off);
        break;
      }
    }
  }
  return out;
}

/** Scalar distributions every backend and group is run over: [label, draw one scalar]. */
export function scalarDistributions(c: Curve, rng: Rng): [string, () => bigint][] {
  return [
    ['all identical', () => rng.below(c.r)],
    ['all r − 1', () => c.r - 1n],
    ['all zero', () => 0n],
    ['all one', () => 1n],
    ['small (< 2^16)', () => rng.bits(16)],
  ];
}

/**
 * Copies of n packed canonical scalars with values ≥ r where the call-time copy, which checks the
 * range as it copies (cuda/common/bytes.hpp), splits its work: pieces of 8192 scalars, one range
 * per thread, one share per device (halves for two equal GPUs); with the index each must be
 * rejected with, the lowest of those written.
 */
export function unreducedAtSplits(c: Curve, packed: Uint8Array): { bytes: Uint8Array; index: number }[] {
  const n = packed.length / 32,
    h = Math.floor(n / 2),
    piece = 8192;
  const cases: number[][] = [[0], [piece - 1], [piece], [h - 1], [h], [n - 1], [n - 1, 3], [h + 1, h - 2], [2 * piece + 1, n - 1, piece + 5]];
  return cases
    .filter((at) => at.every((i) => i >= 0 && i < n))
    .map((at) => {
      const bytes = packed.slice();
      const view = new DataView(bytes.buffer);
      at.forEach((i, j) => writeLE(view, 32 * i, j % 2 ? (1n << 256n) - 1n : c.r + BigInt(j), 32));
      return { bytes, index: Math.min(...at) };
    });
}

/**
 * Packed scalars (ks, at least 8 of them) with one value ≥ r (r, r + 1, 2^256 − 1) written at
 * `index`, in both formats: each must be ERR_SCALAR_RANGE with that index.
 */
export function unreducedScalars(c: Curve, ks: readonly bigint[]): { bytes: Uint8Array; scalarFormat: ByteFormat; index: number }[] {
  const out: { bytes: Uint8Array; scalarFormat: ByteFormat; index: number }[] = [];
  for (const [value, index] of [
    [c.r, 3],
    [c.r + 1n, 0],
    [(1n << 256n) - 1n, 7],
  ] as [bigint, number][]) {
    for (const scalarFormat of ['canonical', 'montgomery'] as const) {
      const bytes = encodeScalars(c, ks, scalarFormat);
      writeLE(new DataView(bytes.buffer), 32 * index, value, 32);
      out.push({ bytes, scalarFormat, index });
    }
  }
  return out;
}
