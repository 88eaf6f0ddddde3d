// lib/generate.ts (the CLI's and benchmarks' data) and lib/random.ts against the bigint model.

import { CURVES, CURVE_NAMES } from '../lib';
import { arithmeticProgression, batchAdd, DISTRIBUTIONS, expectedMsm, generatePoints, generatePointsAsync, generateScalars, scalarMul } from '../lib/generate';
import { Rng } from '../lib/random';
import { affAdd, affMul, affNeg, jacMul, onCurve, toAff, toJac } from './model/ec';
import { fieldOf, fromModel, gen, progression, seededRng, toModel } from './support/data';
import { msmNaive } from './model/msm';

const rng = seededRng('generate.test');

describe.each(CURVE_NAMES)('%s', (name) => {
  const c = CURVES[name];
  const F = fieldOf(c);

  test('scalarMul equals the model', () => {
    for (const k of [0n, 1n, 2n, 3n, c.r - 1n, c.r, rng.below(c.r)]) {
      expect(scalarMul(c, k, c.generator)).toEqual(fromModel(toAff(F, jacMul(F, k % c.r, toJac(gen(c))))));
    }
  });

  test('batchAdd covers generic, doubling, P + (−P), infinity', () => {
    const G = gen(c);
    const P = affMul(F, 1n + rng.below(c.r - 1n), G);
    const Q = affMul(F, 1n + rng.below(c.r - 1n), G);
    const A = [P, P, P, toModel({ x: 0n, y: 0n }), P].map(fromModel);
    const B = [Q, P, affNeg(F, P), Q, toModel({ x: 0n, y: 0n })].map(fromModel);
    const want = A.map((a, i) => fromModel(affAdd(F, toModel(a), toModel(B[i]))));
    expect(batchAdd(c, A, B)).toEqual(want);
  });

  test('generatePoints gives (s + i·t)·G, as the model does', () => {
    for (const n of [0, 1, 2, 3, 17, 64, 100]) {
      const g = generatePoints(c, n, rng);
      expect(g.points).toEqual(progression(c, n, g.s, g.t).points);
    }
    // t = 1, s = 1: the sequence passes through multiples of G only
    expect(arithmeticProgression(c, c.generator, c.generator, 5)).toEqual(progression(c, 5, 1n, 1n).points);
  });

  test('expectedMsm equals the model MSM over the generated points', () => {
    const g = generatePoints(c, 20, rng);
    const k = generateScalars(c, 20, rng);
    expect(g.points.every((P) => onCurve(F, toModel(P)))).toBe(true);
    expect(expectedMsm(c, g, k)).toEqual(fromModel(msmNaive(F, g.points.map(toModel), k)));
  });

  test.each(DISTRIBUTIONS)('scalar distribution %s stays in [0, r)', (dist) => {
    const k = generateScalars(c, 4096, rng, dist);
    expect(k).toHaveLength(4096);
    expect(k.every((v) => v >= 0n && v < c.r)).toBe(true);
    const distinct = new Set(k).size;
    if (dist === 'identical') expect(distinct).toBe(1);
    if (dist === 'distinct32') expect(distinct).toBeLessThanOrEqual(32);
    if (dist === 'small') expect(k.every((v) => v < 1n << 64n)).toBe(true);
    if (dist === 'mostly-zero') expect(k.filter((v) => v === 0n).length).toBeGreaterThan(3000);
    if (dist === 'random') expect(distinct).toBe(4096);
  });
});

test('Rng is deterministic per seed and covers its range', () => {
  const a = new Rng(42);
  const b = new Rng(42);
  const xs = Array.from({ length: 1000 }, () => a.u32());
  expect(xs).toEqual(Array.from({ length: 1000 }, () => b.u32()));
  expect(new Set(xs).size).toBeGreaterThan(990);
  const m = 1000003n;
  const ys = Array.from({ length: 2000 }, () => a.below(m));
  expect(ys.every((y) => y >= 0n && y < m)).toBe(true);
  expect(ys.some((y) => y > m / 2n) && ys.some((y) => y < m / 2n)).toBe(true);
  expect(a.bits(64) < 1n << 64n).toBe(true);
});

test('generatePointsAsync equals generatePoints for the same seed, and reports progress', async () => {
  const c = CURVES.bn254;
  const seen: number[] = [];
  const a = await generatePointsAsync(c, 40000, new Rng(7), (done) => seen.push(done));
  const b = generatePoints(c, 40000, new Rng(7));
  expect(a.s).toBe(b.s);
  expect(a.points).toEqual(b.points);
  expect(seen[seen.length - 1]).toBe(40000);
  expect(seen.length).toBeGreaterThan(3);
});
