// Test-data generation for the CLI and the benchmarks (variable-time bigint arithmetic; never
// for secrets). Points are P_i = (s + i·t)·G for seeds s, t, built by affine additions with one
// batched inversion per doubling of the prefix, so 2^20 points take seconds, not hours. Because
// the discrete logs are known, the expected MSM is one scalar multiplication:
// Σ k_i·P_i = (Σ k_i·(s + i·t) mod r)·G.

import type { Curve } from './curves';
import { modInverse, type AffinePoint } from './encoding';
import type { Rng } from './random';

const O: AffinePoint = { x: 0n, y: 0n };
const isO = (P: AffinePoint) => P.x === 0n && P.y === 0n;
const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;

/**
 * Q_j = A_j + B_j for every j with one field inversion in all (Montgomery's trick).
 * Handles infinity, doubling and P + (−P).
 */
export function batchAdd(curve: Curve, A: readonly AffinePoint[], B: readonly AffinePoint[]): AffinePoint[] {
  const p = curve.p;
  const n = A.length;
  const out: AffinePoint[] = new Array(n);
  const num: bigint[] = new Array(n); // λ numerator, or -1n when the result is known already
  const den: bigint[] = new Array(n);
  for (let j = 0; j < n; j++) {
    const P = A[j];
    const Q = B[j];
    if (isO(P) || isO(Q)) {
      out[j] = isO(P) ? Q : P;
      num[j] = -1n;
    } else if (P.x !== Q.x) {
      num[j] = mod(Q.y - P.y, p);
      den[j] = mod(Q.x - P.x, p);
    } else if (P.y === Q.y && P.y !== 0n) {
      num[j] = (3n * P.x * P.x) % p; // tangent (a = 0)
      den[j] = (2n * P.y) % p;
    } else {
      out[j] = O; // P + (−P)
      num[j] = -1n;
    }
  }
  // prefix products of the denominators, one inversion, then walk back
  const prefix: bigint[] = new Array(n);
  let acc = 1n;
  for (let j = 0; j < n; j++) {
    prefix[j] = acc;
    if (num[j] !== -1n) acc = (acc * den[j]) % p;
  }
  let inv = modInverse(acc, p);
  for (let j = n - 1; j >= 0; j--) {
    if (num[j] === -1n) continue;
    const dinv = (inv * prefix[j]) % p;
    inv = (inv * den[j]) % p;
    const P = A[j];
    const Q = B[j];
    const l = (num[j] * dinv) % p;
    const x = mod(l * l - P.x - Q.x, p);
    out[j] = { x, y: mod(l * (P.x - x) - P.y, p) };
  }
  return out;
}

/** k·P by double-and-add in affine coordinates (one inversion per step: for a few points only). */
export function scalarMul(curve: Curve, k: bigint, P: AffinePoint): AffinePoint {
  k = mod(k, curve.r);
  let R = O;
  for (let i = k.toString(2).length - 1; i >= 0; i--) {
    R = batchAdd(curve, [R], [R])[0];
    if ((k >> BigInt(i)) & 1n) R = batchAdd(curve, [R], [P])[0];
  }
  return R;
}

const CHUNK = 1 << 14; // pairs per batched inversion: a chance to yield every few tens of ms

/**
 * [S, S+T, S+2T, …] (n points): the prefix doubles per round, each round batched additions.
 * A generator yielding the number of points done after each chunk, so that callers may yield to
 * the event loop (arithmeticProgressionAsync) or not (arithmeticProgression).
 */
function* progressionSteps(curve: Curve, S: AffinePoint, T: AffinePoint, n: number, out: AffinePoint[]): Generator<number> {
  if (n > 0) out.push(S);
  let D = T; // D = out.length·T at the start of each round
  while (out.length < n) {
    const len = out.length;
    const take = Math.min(len, n - len);
    for (let j = 0; j < take; j += CHUNK) {
      const m = Math.min(CHUNK, take - j);
      out.push(...batchAdd(curve, out.slice(j, j + m), new Array(m).fill(D)));
      yield out.length;
    }
    D = batchAdd(curve, [D], [D])[0];
  }
}

export function arithmeticProgression(curve: Curve, S: AffinePoint, T: AffinePoint, n: number): AffinePoint[] {
  const out: AffinePoint[] = [];
  for (const _ of progressionSteps(curve, S, T, n, out));
  return out;
}

/** As arithmeticProgression, yielding to the event loop between chunks; reports progress. */
export async function arithmeticProgressionAsync(
  curve: Curve,
  S: AffinePoint,
  T: AffinePoint,
  n: number,
  onProgress?: (done: number, total: number) => void,
): Promise<AffinePoint[]> {
  const out: AffinePoint[] = [];
  for (const done of progressionSteps(curve, S, T, n, out)) {
    onProgress?.(done, n);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}

export interface GeneratedPoints {
  points: AffinePoint[];
  /** P_i = (s + i·t)·G */
  s: bigint;
  t: bigint;
}

/** n points P_i = (s + i·t)·G with s, t random (or given). */
export function generatePoints(curve: Curve, n: number, rng: Rng, seeds?: { s: bigint; t: bigint }): GeneratedPoints {
  const s = seeds?.s ?? 1n + rng.below(curve.r - 1n);
  const t = seeds?.t ?? 1n + rng.below(curve.r - 1n);
  const G = curve.generator;
  return { points: arithmeticProgression(curve, scalarMul(curve, s, G), scalarMul(curve, t, G), n), s, t };
}

/** generatePoints, yielding to the event loop as it goes (for progress displays). */
export async function generatePointsAsync(curve: Curve, n: number, rng: Rng, onProgress?: (done: number, total: number) => void): Promise<GeneratedPoints> {
  const s = 1n + rng.below(curve.r - 1n);
  const t = 1n + rng.below(curve.r - 1n);
  const G = curve.generator;
  return { points: await arithmeticProgressionAsync(curve, scalarMul(curve, s, G), scalarMul(curve, t, G), n, onProgress), s, t };
}

/** The expected Σ k_i·P_i for points from generatePoints: (Σ k_i·(s + i·t))·G. */
export function expectedMsm(curve: Curve, gen: { s: bigint; t: bigint }, scalars: readonly bigint[]): AffinePoint {
  let sumK = 0n;
  let sumIK = 0n;
  for (let i = 0; i < scalars.length; i++) {
    sumK += scalars[i];
    sumIK += BigInt(i) * scalars[i];
  }
  return scalarMul(curve, mod(gen.s * sumK + gen.t * sumIK, curve.r), curve.generator);
}

export const DISTRIBUTIONS = ['random', 'identical', 'distinct32', 'small', 'mostly-zero'] as const;
export type Distribution = (typeof DISTRIBUTIONS)[number];

/** n scalars in [0, r) drawn from one of the benchmark distributions. */
export function generateScalars(curve: Curve, n: number, rng: Rng, dist: Distribution = 'random'): bigint[] {
  const r = curve.r;
  const out: bigint[] = new Array(n);
  switch (dist) {
    case 'random':
      for (let i = 0; i < n; i++) out[i] = rng.below(r);
      break;
    case 'identical':
      out.fill(rng.below(r));
      break;
    case 'distinct32': {
      const values = Array.from({ length: 32 }, () => rng.below(r));
      for (let i = 0; i < n; i++) out[i] = values[rng.int(32)];
      break;
    }
    case 'small': // ≤ 64 bits
      for (let i = 0; i < n; i++) out[i] = rng.bits(64);
      break;
    case 'mostly-zero': // one in 16 non-zero
      for (let i = 0; i < n; i++) out[i] = rng.int(16) === 0 ? rng.below(r) : 0n;
      break;
    default:
      throw new RangeError(`unknown distribution '${dist as string}'`);
  }
  return out;
}
