// G2 MSM (BN254, BLS12-381; option group: 'g2') through the public API on the CPU backend, against
// references that share no code with it: the discrete-log form (Σ kᵢ·dᵢ)·G2 and noble's own
// Pippenger, both by @noble/curves; the bigint model of test/model/fp2.ts (textbook affine
// formulas) for small inputs and points outside G2; and ffjavascript (snarkjs's engine) for the
// LEM layout of zkey section 7 and its own G2 multiExpAffine. Every edge case of G1
// (cpu-reference, formats, errors, context tests): empty input, n = 1, zero scalars, r − 1, ≥ r,
// infinity, duplicates, P and −P, all-same scalars, bad points and lengths, all point formats.

import { normalizeZ, pippenger } from '@noble/curves/abstract/curve.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { buildBls12381, buildBn128, type WasmCurve } from 'ffjavascript';
import { AUTO_CUDA_MIN_POINTS, CURVES, info, msm, MsmContext, type G2AffinePoint } from '../lib';
import { encodePoints, encodeScalars, writeLE } from '../lib/encoding';
import { add2, INF2, mul2, twistPoint, TWISTS, type Aff2 } from './model/fp2';
import { mixedScalars, scalarDistributions, seededRng, unreducedScalars } from './support/data';
import { rejects } from './support/expect';

const rng = seededRng('g2-msm.test');
const G2_CURVES = ['bn254', 'bls12-381'] as const;
type G2Curve = (typeof G2_CURVES)[number];
const NOBLE = { bn254: bn254.G2.Point, 'bls12-381': bls12_381.G2.Point } as const;
type NoblePoint = InstanceType<(typeof NOBLE)['bn254']>;
const CPU = { backend: 'cpu', group: 'g2' } as const;

const O2 = (): G2AffinePoint => ({ x: [0n, 0n], y: [0n, 0n] });
const isO2 = (P: G2AffinePoint) => [...P.x, ...P.y].every((v) => v === 0n);
const fromNoble = (P: NoblePoint): G2AffinePoint => {
  if (P.is0()) return O2();
  const a = P.toAffine();
  return { x: [a.x.c0, a.x.c1], y: [a.y.c0, a.y.c1] };
};
const toNoble = (c: G2Curve, P: G2AffinePoint): NoblePoint =>
  isO2(P) ? NOBLE[c].ZERO : NOBLE[c].fromAffine({ x: { c0: P.x[0], c1: P.x[1] }, y: { c0: P.y[0], c1: P.y[1] } });
const toModel = (P: G2AffinePoint): Aff2 => (isO2(P) ? INF2 : { x: P.x, y: P.y, inf: false });
const fromModel = (P: Aff2): G2AffinePoint => (P.inf ? O2() : { x: [P.x[0], P.x[1]], y: [P.y[0], P.y[1]] });
const neg = (c: G2Curve, P: G2AffinePoint): G2AffinePoint => fromNoble(toNoble(c, P).negate());

interface G2Data {
  points: G2AffinePoint[];
  dlogs: bigint[]; // points[i] = dlogs[i]·G2
}

/**
 * n points (s + i·t)·G2 with the awkward cases mixed in as G1's awkwardPoints does: every 7th the
 * point at infinity, every 11th a duplicate of an earlier point, every 13th a negation of one.
 */
function awkwardG2(c: G2Curve, n: number): G2Data {
  const { r } = CURVES[c];
  const s = 1n + rng.below(r - 1n);
  const t = 1n + rng.below(r - 1n);
  const T = NOBLE[c].BASE.multiply(t);
  const proj: NoblePoint[] = [];
  for (let i = 0, P = NOBLE[c].BASE.multiply(s); i < n; i++, P = P.add(T)) proj.push(P);
  const d: G2Data = { points: normalizeZ(NOBLE[c], proj).map(fromNoble), dlogs: proj.map((_, i) => (s + BigInt(i) * t) % r) };
  for (let i = 1; i < n; i++) {
    const j = rng.int(i);
    if (i % 7 === 3) [d.points[i], d.dlogs[i]] = [O2(), 0n];
    else if (i % 11 === 5) [d.points[i], d.dlogs[i]] = [d.points[j], d.dlogs[j]];
    else if (i % 13 === 6) [d.points[i], d.dlogs[i]] = [neg(c, d.points[j]), (r - d.dlogs[j]) % r];
  }
  return d;
}

/** (Σ kᵢ·dᵢ mod r)·G2 by noble. */
function fromDlogs(c: G2Curve, dlogs: readonly bigint[], ks: readonly bigint[]): G2AffinePoint {
  const { r } = CURVES[c];
  let e = 0n;
  for (let i = 0; i < ks.length; i++) e += ks[i] * dlogs[i];
  e %= r;
  return e === 0n ? O2() : fromNoble(NOBLE[c].BASE.multiply(e));
}

/** Noble's Pippenger over the same points. */
function noblePippenger(c: G2Curve, points: readonly G2AffinePoint[], ks: readonly bigint[]): G2AffinePoint {
  if (points.length === 0) return O2();
  return fromNoble(pippenger(NOBLE[c], points.map((P) => toNoble(c, P)), [...ks]));
}

/** Σ kᵢ·Pᵢ on the bigint model (textbook affine double-and-add; slow: small n only). */
function modelMsm(c: G2Curve, points: readonly G2AffinePoint[], ks: readonly bigint[]): G2AffinePoint {
  let acc = INF2;
  points.forEach((P, i) => (acc = add2(TWISTS[c], acc, mul2(TWISTS[c], ks[i], toModel(P)))));
  return fromModel(acc);
}

/** `bytes` copied into a larger buffer at an odd offset, returned as a view. */
function atOffset(bytes: Uint8Array, offset: number): Uint8Array {
  const big = new Uint8Array(bytes.byteLength + offset + 5);
  big.set(bytes, offset);
  return big.subarray(offset, offset + bytes.byteLength);
}

describe.each(G2_CURVES)('%s G2, backend cpu', (name) => {
  const c = CURVES[name];
  const { p, r } = c;
  const fb = c.fieldBytes;
  const randomSize = 34 + rng.int(700);
  const SIZES = [0, 1, 2, 3, 31, 33, 300, randomSize];
  const data = awkwardG2(name, 2300);
  const slice = (n: number): G2Data => ({ points: data.points.slice(0, n), dlogs: data.dlogs.slice(0, n) });

  test.each(SIZES)('n = %i, mixed scalars and awkward points, against the dlogs and noble', async (n) => {
    const d = slice(n);
    const k = mixedScalars(c, n, rng);
    const got = await msm(name, d.points, k, CPU);
    expect(got).toEqual(fromDlogs(name, d.dlogs, k));
    if (n <= 300) expect(got).toEqual(noblePippenger(name, d.points, k));
  });

  test('n = 4 (a point at infinity among them) against the bigint model', async () => {
    const d = slice(4); // point 3 is O
    const k = [rng.below(r), r - 1n, 1n, rng.below(r)];
    expect(isO2(d.points[3])).toBe(true);
    expect(await msm(name, d.points, k, CPU)).toEqual(modelMsm(name, d.points, k));
  });

  test('n = 1: 0, 1, 2, r − 1 times a point; and the point at infinity alone', async () => {
    const P = data.points[1];
    expect(await msm(name, [P], [1n], CPU)).toEqual(P);
    expect(await msm(name, [P], [0n], CPU)).toEqual(O2());
    expect(await msm(name, [P], [2n], CPU)).toEqual(fromNoble(toNoble(name, P).double()));
    expect(await msm(name, [P], [r - 1n], CPU)).toEqual(neg(name, P));
    expect(await msm(name, [O2()], [rng.below(r)], CPU)).toEqual(O2());
  });

  test('every single-bit scalar 2^j, j < scalarBits', async () => {
    const d = slice(c.scalarBits);
    const k = Array.from({ length: c.scalarBits }, (_, j) => 1n << BigInt(j));
    expect(await msm(name, d.points, k, CPU)).toEqual(fromDlogs(name, d.dlogs, k));
  });

  test.each(scalarDistributions(c, rng))('n = 300, scalars %s', async (label, draw) => {
    const d = slice(300);
    const k = Array.from({ length: 300 }, draw);
    const got = await msm(name, d.points, k, CPU);
    expect(got).toEqual(fromDlogs(name, d.dlogs, k));
    if (label === 'all zero') expect(got).toEqual(O2());
  });

  test('the same point n times, and P with −P (the result is infinity)', async () => {
    const P = data.points[1];
    const k = rng.below(r);
    expect(await msm(name, [P, neg(name, P)], [k, k], CPU)).toEqual(O2());
    const same = Array.from({ length: 64 }, () => P);
    const ks = mixedScalars(c, 64, rng);
    expect(await msm(name, same, ks, CPU)).toEqual(fromDlogs(name, same.map(() => data.dlogs[1]), ks));
  });

  test('batch-affine buckets (c ≥ 11, n ≥ 2·2^(c−1) per task: the Fp2 inversion) and results that do not depend on c or threads', async () => {
    const k = mixedScalars(c, data.points.length, rng);
    const want = fromDlogs(name, data.dlogs, k);
    for (const o of [{ windowBits: 11, threads: 1 }, { windowBits: 11, threads: 2 }, { windowBits: 2 }, { windowBits: 16, threads: 1 }, {}]) {
      expect([o, await msm(name, data.points, k, { ...CPU, ...o })]).toEqual([o, want]);
    }
  });

  test('objects, canonical bytes and LEM bytes agree (with every scalar format, views and Buffers); the caller’s buffers are not modified', async () => {
    const d = slice(77);
    const k = mixedScalars(c, 77, rng);
    const want = fromDlogs(name, d.dlogs, k);
    for (const pointFormat of ['canonical', 'montgomery', 'lem'] as const) {
      const P = encodePoints(c, d.points, pointFormat === 'lem' ? 'montgomery' : pointFormat, 'g2');
      expect(P.byteLength).toBe(77 * 4 * fb);
      for (const scalarFormat of ['canonical', 'montgomery'] as const) {
        const S = encodeScalars(c, k, scalarFormat);
        const [P0, S0] = [P.slice(), S.slice()];
        const o = { ...CPU, pointFormat, scalarFormat };
        expect(await msm(name, P, S, o)).toEqual(want);
        expect(await msm(name, atOffset(P, 3), atOffset(S, 7), o)).toEqual(want);
        expect(await msm(name, Buffer.from(P), Buffer.from(S), o)).toEqual(want);
        expect([P, S]).toEqual([P0, S0]);
      }
      expect(await msm(name, P, k, { ...CPU, pointFormat })).toEqual(want);
    }
  });

  test('the packed layout: x.c0‖x.c1‖y.c0‖y.c1, little-endian, infinity all zeros', () => {
    const P = data.points[1];
    const bytes = encodePoints(c, [P, O2()], 'canonical', 'g2');
    const le = (v: bigint) => {
      const b = new Uint8Array(fb);
      writeLE(new DataView(b.buffer), 0, v, fb);
      return [...b];
    };
    expect([...bytes.subarray(0, 4 * fb)]).toEqual([...le(P.x[0]), ...le(P.x[1]), ...le(P.y[0]), ...le(P.y[1])]);
    expect(bytes.subarray(4 * fb).every((b) => b === 0)).toBe(true);
  });

  test('MsmContext: several MSMs, a batch, agreement with msm(); empty contexts; close', async () => {
    const d = slice(1500);
    const sets = Array.from({ length: 3 }, () => mixedScalars(c, 1500, rng));
    const wants = sets.map((k) => fromDlogs(name, d.dlogs, k));
    const ctx = await MsmContext.create(name, d.points, CPU);
    try {
      expect([ctx.curve, ctx.group, ctx.size, ctx.backend, ctx.tau]).toEqual([name, 'g2', 1500, 'cpu', 0]);
      expect(ctx.windowBits).toBeGreaterThan(0);
      expect(ctx.memory.host).toBeGreaterThanOrEqual(1500 * 4 * fb);
      for (let j = 0; j < sets.length; j++) expect(await ctx.msm(sets[j])).toEqual(wants[j]);
      expect(await ctx.msmBatch(sets)).toEqual(wants);
      expect(await ctx.msmBatch([encodeScalars(c, sets[0], 'montgomery')], { scalarFormat: 'montgomery' })).toEqual([wants[0]]);
      expect(await ctx.msmBatch([])).toEqual([]);
      expect(await msm(name, d.points, sets[1], CPU)).toEqual(await ctx.msm(sets[1]));
    } finally {
      ctx.close();
    }
    await rejects(ctx.msm(sets[0]), 'ERR_CONTEXT_CLOSED', undefined, /G2 MsmContext is closed/);
    // over LEM bytes, with explicit c and threads
    const lem = await MsmContext.create(name, encodePoints(c, d.points, 'montgomery', 'g2'), { ...CPU, pointFormat: 'lem', windowBits: 9, threads: 2 });
    try {
      expect(lem.windowBits).toBe(9);
      expect(await lem.msm(encodeScalars(c, sets[2]))).toEqual(wants[2]);
    } finally {
      lem.close();
    }
    // no points: nothing to compute, results of the group's shape
    const empty = await MsmContext.create(name, [], CPU);
    expect([empty.size, empty.group, empty.backend]).toEqual([0, 'g2', null]);
    expect(await empty.msm([])).toEqual(O2());
    expect(await empty.msmBatch([[], new Uint8Array(0)])).toEqual([O2(), O2()]);
    empty.close();
    expect(await msm(name, [], [], CPU)).toEqual(O2());
    expect(await msm(name, new Uint8Array(0), new Uint8Array(0), { group: 'g2' })).toEqual(O2());
  });

  test("backend 'auto' runs G2 as G1: on CUDA from AUTO_CUDA_MIN_POINTS points where it is available, else on the CPU", async () => {
    const n = AUTO_CUDA_MIN_POINTS;
    const ctx = await MsmContext.create(name, slice(n).points, { group: 'g2' });
    try {
      expect(ctx.backend).toBe(info().cuda.available ? 'cuda' : 'cpu');
      const k = mixedScalars(c, n, rng);
      expect(await ctx.msm(k)).toEqual(fromDlogs(name, slice(n).dlogs, k));
    } finally {
      ctx.close();
    }
  });

  describe('bad input', () => {
    const d = slice(8);
    const ks = d.points.map(() => rng.below(r));
    const off = (P: G2AffinePoint): G2AffinePoint => ({ x: P.x, y: [P.y[0], (P.y[1] + 1n) % p] });

    test('a point off the twist: ERR_POINT_NOT_ON_CURVE with its index, in every format; validate none accepts it', async () => {
      const bad = [...d.points];
      bad[5] = off(d.points[5]);
      expect(() => toNoble(name, bad[5]).assertValidity()).toThrow();
      await rejects(msm(name, bad, ks, CPU), 'ERR_POINT_NOT_ON_CURVE', 5);
      await rejects(msm(name, bad, ks, { ...CPU, validate: 'subgroup' }), 'ERR_POINT_NOT_ON_CURVE', 5);
      for (const format of ['canonical', 'montgomery'] as const) {
        await rejects(MsmContext.create(name, encodePoints(c, bad, format, 'g2'), { ...CPU, pointFormat: format }), 'ERR_POINT_NOT_ON_CURVE', 5);
      }
      // a G1 point of the curve is not on the twist (its coordinates as c0, c1 = 0)
      const g1 = { x: [c.generator.x, 0n], y: [c.generator.y, 0n] } as G2AffinePoint;
      await rejects(msm(name, [d.points[0], g1], ks.slice(0, 2), CPU), 'ERR_POINT_NOT_ON_CURVE', 1);
      await expect(msm(name, bad, ks, { ...CPU, validate: 'none' })).resolves.toBeDefined();
    });

    test("a point on the twist outside G2: 'subgroup' rejects it with its index; 'curve' accepts it and computes with it", async () => {
      const Q = fromModel(twistPoint(TWISTS[name], [rng.below(p), rng.below(p)]));
      expect(toNoble(name, Q).isTorsionFree()).toBe(false);
      const pts = [...d.points];
      pts[6] = Q;
      await rejects(msm(name, pts, ks, { ...CPU, validate: 'subgroup' }), 'ERR_POINT_NOT_IN_SUBGROUP', 6);
      await rejects(msm(name, encodePoints(c, pts, 'montgomery', 'g2'), ks, { ...CPU, validate: 'subgroup', pointFormat: 'lem' }), 'ERR_POINT_NOT_IN_SUBGROUP', 6);
      // the lowest failing index wins, whatever the failure
      const both = [...pts];
      both[7] = off(d.points[7]);
      both[2] = Q;
      await rejects(msm(name, both, ks, { ...CPU, validate: 'subgroup' }), 'ERR_POINT_NOT_IN_SUBGROUP', 2);
      const two = [d.points[1], Q];
      const k2 = [rng.below(r), rng.below(r)];
      expect(await msm(name, two, k2, CPU)).toEqual(modelMsm(name, two, k2));
      // points in G2 pass the subgroup check
      await expect(msm(name, d.points, ks, { ...CPU, validate: 'subgroup' })).resolves.toEqual(fromDlogs(name, d.dlogs, ks));
    });

    test('a coordinate outside [0, p): ERR_POINT_ENCODING with its index, objects and packed, even with validate none', async () => {
      for (let j = 0; j < 4; j++) {
        for (const v of [p, -1n]) {
          const bad = [...d.points];
          const q = { x: [...bad[3].x], y: [...bad[3].y] } as G2AffinePoint;
          (j < 2 ? q.x : q.y)[j % 2] = v;
          bad[3] = q;
          await rejects(msm(name, bad, ks, CPU), 'ERR_POINT_ENCODING', 3);
        }
        for (const format of ['canonical', 'montgomery'] as const) {
          const bytes = encodePoints(c, d.points, format, 'g2');
          writeLE(new DataView(bytes.buffer), 4 * fb * 6 + j * fb, p, fb);
          await rejects(msm(name, bytes, ks, { ...CPU, pointFormat: format }), 'ERR_POINT_ENCODING', 6);
          await rejects(msm(name, bytes, ks, { ...CPU, pointFormat: format, validate: 'none' }), 'ERR_POINT_ENCODING', 6);
        }
      }
    });

    test('scalars ≥ r: ERR_SCALAR_RANGE with the index, bigint and packed; r − 1 is fine', async () => {
      await rejects(msm(name, d.points, [...ks.slice(0, 4), r, ...ks.slice(5)], CPU), 'ERR_SCALAR_RANGE', 4);
      await rejects(msm(name, d.points, [...ks.slice(0, 2), -1n, ...ks.slice(3)], CPU), 'ERR_SCALAR_RANGE', 2);
      const ctx = await MsmContext.create(name, d.points, CPU);
      try {
        for (const { bytes, scalarFormat, index } of unreducedScalars(c, ks)) await rejects(ctx.msm(bytes, { scalarFormat }), 'ERR_SCALAR_RANGE', index);
        const s = encodeScalars(c, ks);
        writeLE(new DataView(s.buffer), 0, r - 1n, 32);
        await expect(ctx.msm(s)).resolves.toEqual(fromDlogs(name, d.dlogs, [r - 1n, ...ks.slice(1)]));
      } finally {
        ctx.close();
      }
    });

    test('wrong lengths and shapes', async () => {
      // packed: a multiple of 4·F bytes (2·F, one G1 point's length, is not)
      await rejects(msm(name, new Uint8Array(2 * fb), [1n], CPU), 'ERR_INVALID_ARGUMENT', undefined, new RegExp(`multiple of ${4 * fb} bytes`));
      await rejects(MsmContext.create(name, new Uint8Array(4 * fb * 3 + 8), CPU), 'ERR_INVALID_ARGUMENT');
      await rejects(msm(name, d.points, ks.slice(1), CPU), 'ERR_LENGTH_MISMATCH');
      await rejects(msm(name, encodePoints(c, d.points, 'canonical', 'g2'), new Uint8Array(32 * 7), CPU), 'ERR_LENGTH_MISMATCH');
      // not a G2 point: a G1 point, tuples of the wrong length or type, null
      const shapes: unknown[] = [{ x: 1n, y: 2n }, { x: [1n], y: [1n, 2n] }, { x: [1n, 2n, 3n], y: [1n, 2n] }, { x: [1n, 2], y: [1n, 2n] }, { x: [1n, 2n] }, null, 5n];
      for (const bad of shapes) {
        const pts: unknown[] = [...d.points];
        pts[4] = bad;
        await rejects(msm(name, pts as G2AffinePoint[], ks, CPU), 'ERR_INVALID_ARGUMENT', 4, /points\[4\] must be an object \{x: \[c0, c1\], y: \[c0, c1\]\}/);
      }
      // and G2 points to a G1 call
      await rejects(msm(name, d.points as never, ks, { backend: 'cpu' }), 'ERR_INVALID_ARGUMENT', 0, /points\[0\] must be an object \{x, y\}/);
      await rejects(msm(name, {} as never, ks, CPU), 'ERR_INVALID_ARGUMENT', undefined, /array of \{x: \[c0, c1\], y: \[c0, c1\]\}/);
    });
  });
});

// snarkjs keeps G2 bases in zkey section 7 as ffjavascript writes them (G2.toRprLEM) and calls
// G2.multiExpAffine over them: our 'lem' bytes must be those bytes, and our result its result.
describe.each([
  ['bn254', buildBn128],
  ['bls12-381', buildBls12381],
] as [G2Curve, (single: boolean) => Promise<WasmCurve>][])('%s G2 against ffjavascript', (name, build) => {
  const c = CURVES[name];
  let ff: WasmCurve;
  beforeAll(async () => {
    ff = await build(true); // single-threaded: no workers
  });
  afterAll(async () => ff?.terminate());

  test("'lem' bytes are ffjavascript's G2.toRprLEM, and the MSM its G2.multiExpAffine", async () => {
    const d = awkwardG2(name, 40);
    const theirs = new Uint8Array(40 * 4 * c.fieldBytes);
    d.points.forEach((P, i) => ff.G2.toRprLEM(theirs, i * 4 * c.fieldBytes, ff.G2.fromObject([P.x, P.y])));
    expect(encodePoints(c, d.points, 'montgomery', 'g2')).toEqual(theirs);
    const k = mixedScalars(c, 40, rng);
    const S = encodeScalars(c, k);
    const res = await ff.G2.multiExpAffine(theirs, S);
    const [x, y] = ff.G2.toObject(ff.G2.toAffine(res));
    const want: G2AffinePoint = ff.G2.isZero(res) ? O2() : { x: [x[0], x[1]], y: [y[0], y[1]] };
    expect(await msm(name, theirs, S, { ...CPU, pointFormat: 'lem' })).toEqual(want);
    expect(want).toEqual(fromDlogs(name, d.dlogs, k));
  });
});
