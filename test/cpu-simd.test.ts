// The CPU backend's eight-lane AVX-512 IFMA path (cuda/ff/ifma.hpp, cuda/cpu/affine_simd.hpp):
// its field operations and batch additions against the scalar code (natively, seeded), and whole
// MSMs large enough for the batch-affine buckets (n ≥ 2·2^(c−1) per task) with the path switched
// on and off in the same process: both must equal the discrete-log reference. Skipped, with the
// reason, where the host has no IFMA or the addon has no testing export; the scalar half still
// runs there through the rest of the suite.

import { CURVES, CURVE_NAMES, msm } from '../lib';
import { loadNative } from '../lib/native';
import { awkwardPoints, expectedFromDlogs, mixedScalars, seededRng } from './support/data';

interface Testing {
  cpuSimd(on?: boolean): { available: boolean; enabled: boolean };
  cpuSimdSelftest(curve: string, count: number, seed: number): { checked: number; mismatches: number; first: string } | undefined;
}

let testing: Testing | undefined;
let reason = '';
try {
  testing = (loadNative() as unknown as { testing?: Testing }).testing;
  if (!testing) reason = 'the addon was built without cuda/addon/testing.cpp (MSM_NO_TESTING)';
  else if (!testing.cpuSimd().available) reason = 'this CPU has no AVX-512 IFMA';
} catch (e) {
  reason = `the native addon did not load: ${(e as Error).message}`;
}
if (reason) process.stdout.write(`[skip] cpu-simd.test.ts: ${reason}\n`);
const d = reason ? describe.skip : describe;
const T = (): Testing => testing as Testing;

const rng = seededRng('cpu-simd.test');

d('IFMA field code = scalar field code', () => {
  test.each(CURVE_NAMES)('%s: products, lazy bounds, reductions, batch additions', (curve) => {
    const r = T().cpuSimdSelftest(curve, 4000, rng.u32());
    expect(r).toBeDefined();
    expect(r!.first).toBe('');
    expect(r!.mismatches).toBe(0);
    expect(r!.checked).toBeGreaterThan(4000 * 8 * 5);
  });
});

d.each(CURVE_NAMES)('%s: batch-affine MSM with the IFMA path on and off', (name) => {
  const c = CURVES[name];
  const n = 5000;
  const data = awkwardPoints(c, n, rng);
  const initial = testing?.cpuSimd().enabled ?? false;
  afterAll(() => testing?.cpuSimd(initial));

  test.each([
    ['mixed scalars', { windowBits: 11, threads: 2 }, () => mixedScalars(c, n, rng)],
    ['mixed scalars', { windowBits: 12, threads: 1 }, () => mixedScalars(c, n, rng)],
    ['one scalar for all (doublings and cancellations in the buckets)', { windowBits: 11, threads: 2 }, () => {
      const k = rng.below(c.r);
      return Array.from({ length: n }, () => k);
    }],
  ])('%s, %o', async (_label, opts, draw) => {
    const k = draw();
    const want = expectedFromDlogs(c, data.dlogs, k);
    for (const on of [true, false]) {
      expect(T().cpuSimd(on).enabled).toBe(on);
      expect(await msm(name, data.points, k, { backend: 'cpu', ...opts })).toEqual(want);
    }
  });
});
