// The CPU backend against three references that share no code with it: the discrete-log form
// (Σ k_i·d_i)·G on the bigint model, the model's own Pippenger over the same points, and
// @noble/curves (BN254, BLS12-381). Points mix in infinity, duplicates and negations; scalars mix
// 0, 1, r−1, single bits (all positions across the set), small and random values.

import { CURVES, CURVE_NAMES, msm, type AffinePoint } from '../lib';
import { msmPippenger } from './model/msm';
import { awkwardPoints, expectedFromDlogs, fieldOf, fromModel, mixedScalars, scalarDistributions, seededRng, toModel, type Dataset } from './support/data';
import { nobleMsm, NOBLE_CURVES } from './support/noble';

const rng = seededRng('cpu-reference.test');
const randomSize = 34 + rng.int(3000);
const SIZES = [0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 4097, randomSize];

const hasNoble = (name: string) => (NOBLE_CURVES as string[]).includes(name);

describe.each(CURVE_NAMES)('%s, backend cpu', (name) => {
  const c = CURVES[name];
  const F = fieldOf(c);
  const data = awkwardPoints(c, Math.max(...SIZES), rng);
  const slice = (n: number): Dataset => ({ points: data.points.slice(0, n), dlogs: data.dlogs.slice(0, n) });

  function check(d: Dataset, k: bigint[], got: AffinePoint, withModel = true): void {
    expect(got).toEqual(expectedFromDlogs(c, d.dlogs, k));
    if (withModel) expect(got).toEqual(fromModel(msmPippenger(F, d.points.map(toModel), k, c.scalarBits)));
    if (hasNoble(name)) expect(got).toEqual(nobleMsm(name, d.points, k));
  }

  test.each(SIZES)('n = %i, mixed scalars and awkward points', async (n) => {
    const d = slice(n);
    const k = mixedScalars(c, n, rng);
    check(d, k, await msm(name, d.points, k, { backend: 'cpu' }));
  });

  test('every single-bit scalar 2^j, j < scalarBits', async () => {
    const n = c.scalarBits;
    const d = slice(n);
    const k = Array.from({ length: n }, (_, j) => 1n << BigInt(j));
    check(d, k, await msm(name, d.points, k, { backend: 'cpu' }));
  });

  test.each(scalarDistributions(c, rng))('n = 300, scalars %s', async (_label, draw) => {
    const d = slice(300);
    const k = Array.from({ length: 300 }, draw);
    check(d, k, await msm(name, d.points, k, { backend: 'cpu' }));
  });

  test('the same point n times, and P with −P (the result is infinity)', async () => {
    const P = data.points[1];
    const negP = { x: P.x, y: (c.p - P.y) % c.p };
    const k = rng.below(c.r);
    expect(await msm(name, [P, negP], [k, k], { backend: 'cpu' })).toEqual({ x: 0n, y: 0n });
    const same = Array.from({ length: 64 }, () => P);
    const ks = mixedScalars(c, 64, rng);
    check({ points: same, dlogs: same.map(() => data.dlogs[1]) }, ks, await msm(name, same, ks, { backend: 'cpu' }));
  });
});
