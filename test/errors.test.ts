// Every error code that bad input can reach through the native addon (those raised in
// TypeScript are in validate.test.ts), with the offending index where there is one.

import { CURVES, CURVE_NAMES, info, msm, MsmContext, type CurveName, type MsmError } from '../lib';
import { encodePoints, encodeScalars, writeLE } from '../lib/encoding';
import { affMul, onCurve, pointAtOrAfter, toAff, jacMul, toJac } from './model/ec';
import { fieldOf, fromModel, progression, seededRng, unreducedAtSplits, unreducedScalars } from './support/data';
import { rejects } from './support/expect';

const rng = seededRng('errors.test');

function dataset(name: CurveName, n: number) {
  const c = CURVES[name];
  return progression(c, n, 1n + rng.below(c.r - 1n), 1n + rng.below(c.r - 1n));
}

describe.each(CURVE_NAMES)('%s', (name) => {
  const c = CURVES[name];
  const { points } = dataset(name, 8);
  const ks = points.map(() => rng.below(c.r));

  test('a point off the curve: ERR_POINT_NOT_ON_CURVE with its index, in both formats', async () => {
    const bad = [...points];
    bad[5] = { x: points[5].x, y: (points[5].y + 1n) % c.p };
    expect(onCurve(fieldOf(c), { ...bad[5], inf: false })).toBe(false);
    await rejects(msm(name, bad, ks, { backend: 'cpu' }), 'ERR_POINT_NOT_ON_CURVE', 5);
    await rejects(MsmContext.create(name, encodePoints(c, bad, 'montgomery'), { pointFormat: 'lem', backend: 'cpu' }), 'ERR_POINT_NOT_ON_CURVE', 5);
    await rejects(msm(name, bad, ks, { backend: 'cpu', validate: 'subgroup' }), 'ERR_POINT_NOT_ON_CURVE', 5);
    // validate 'none' skips the check (garbage in, garbage out, but no error)
    await expect(msm(name, bad, ks, { backend: 'cpu', validate: 'none' })).resolves.toBeDefined();
  });

  test('a packed coordinate ≥ p: ERR_POINT_ENCODING with its index, even with validate none', async () => {
    const fb = c.fieldBytes;
    for (const format of ['canonical', 'montgomery'] as const) {
      const bytes = encodePoints(c, points, format);
      writeLE(new DataView(bytes.buffer), 2 * fb * 6 + fb, c.p, fb); // y of point 6 = p
      await rejects(msm(name, bytes, ks, { backend: 'cpu', pointFormat: format }), 'ERR_POINT_ENCODING', 6);
      await rejects(msm(name, bytes, ks, { backend: 'cpu', pointFormat: format, validate: 'none' }), 'ERR_POINT_ENCODING', 6);
      const top = encodePoints(c, points, format);
      top.fill(0xff, 2 * fb * 2, 2 * fb * 2 + fb); // x of point 2 = 2^(8·fb) − 1
      await rejects(msm(name, top, ks, { backend: 'cpu', pointFormat: format }), 'ERR_POINT_ENCODING', 2);
    }
  });

  test('a packed scalar ≥ r: ERR_SCALAR_RANGE with its index, canonical and Montgomery', async () => {
    const ctx = await MsmContext.create(name, points, { backend: 'cpu' });
    try {
      for (const { bytes, scalarFormat, index } of unreducedScalars(c, ks)) await rejects(ctx.msm(bytes, { scalarFormat }), 'ERR_SCALAR_RANGE', index);
      // r − 1 is fine
      const s = encodeScalars(c, ks);
      writeLE(new DataView(s.buffer), 0, c.r - 1n, 32);
      await expect(ctx.msm(s)).resolves.toBeDefined();
    } finally {
      ctx.close();
    }
  });

  test('msm on a closed context: ERR_CONTEXT_CLOSED; close during an msm is safe', async () => {
    const ctx = await MsmContext.create(name, points, { backend: 'cpu' });
    const inflight = ctx.msm(ks);
    ctx.close();
    // the in-flight call either finishes correctly or reports the closed context, never crashes
    const r = await inflight.then(
      (v) => v,
      (e: MsmError) => e.code,
    );
    if (typeof r === 'string') expect(r).toBe('ERR_CONTEXT_CLOSED');
    await rejects(ctx.msm(ks), 'ERR_CONTEXT_CLOSED');
    await rejects(ctx.msmBatch([ks]), 'ERR_CONTEXT_CLOSED');
  });

  test('a native rejection carries the caller’s stack', async () => {
    const bad = [...points];
    bad[1] = { x: points[1].x, y: (points[1].y + 1n) % c.p };
    const e = await rejects(msm(name, bad, ks, { backend: 'cpu' }), 'ERR_POINT_NOT_ON_CURVE', 1);
    expect(e.stack).toMatch(/errors\.test\.ts/);
  });
});

describe.each(CURVE_NAMES.filter((n) => CURVES[n].h !== 1n))('%s subgroup', (name) => {
  const c = CURVES[name];
  const F = fieldOf(c);
  // a point on the curve outside G1 (the cofactor is large: almost every point is)
  const Q = pointAtOrAfter(F, 5n + rng.below(1n << 64n));
  const { points } = dataset(name, 6);
  const ks = points.map(() => rng.below(c.r));

  test('the model confirms the point is on the curve, not in G1', () => {
    expect(onCurve(F, Q)).toBe(true);
    expect(toAff(F, jacMul(F, c.r, toJac(Q))).inf).toBe(false);
    // and the cofactor clears it into G1
    expect(affMul(F, c.r, affMul(F, c.h, Q)).inf).toBe(true);
  });

  test("validate 'subgroup' rejects it with its index; 'curve' accepts it", async () => {
    const pts = [...points];
    pts[4] = fromModel(Q);
    await rejects(msm(name, pts, ks, { backend: 'cpu', validate: 'subgroup' }), 'ERR_POINT_NOT_IN_SUBGROUP', 4);
    await rejects(MsmContext.create(name, encodePoints(c, pts, 'montgomery'), { backend: 'cpu', validate: 'subgroup', pointFormat: 'montgomery' }), 'ERR_POINT_NOT_IN_SUBGROUP', 4);
    await expect(msm(name, pts, ks, { backend: 'cpu', validate: 'curve' })).resolves.toBeDefined();
    // the points of G1 pass the subgroup check
    await expect(msm(name, points, ks, { backend: 'cpu', validate: 'subgroup' })).resolves.toBeDefined();
  });

  test('a cofactor-cleared point passes the subgroup check', async () => {
    const inG1 = fromModel(affMul(F, c.h, Q));
    await expect(msm(name, [inG1], [1n], { backend: 'cpu', validate: 'subgroup' })).resolves.toEqual(inG1);
  });
});

test('bn254 (cofactor 1): every point on the curve is in G1', async () => {
  const c = CURVES.bn254;
  const Q = fromModel(pointAtOrAfter(fieldOf(c), 3n + rng.below(1n << 64n)));
  await expect(msm('bn254', [Q], [2n], { backend: 'cpu', validate: 'subgroup' })).resolves.toBeDefined();
});

test("windowBits beyond the cpu backend's limit: ERR_INVALID_OPTION naming it", async () => {
  const { points } = dataset('bn254', 2);
  const most = info().limits!.cpu.windowBits[1];
  const e = await rejects(msm('bn254', points, [1n, 2n], { backend: 'cpu', windowBits: most + 1 }), 'ERR_INVALID_OPTION');
  expect(e.message).toMatch(/'windowBits'.*cpu/);
  await expect(msm('bn254', points, [1n, 2n], { backend: 'cpu', windowBits: most })).resolves.toBeDefined();
});

test('a packed scalar ≥ r where the call-time copy splits its range check (2^17 + 3 scalars): the lowest index, msm and msmBatch', async () => {
  const n = (1 << 17) + 3;
  const ctx = await MsmContext.create('bn254', new Uint8Array(64 * n), { backend: 'cpu' }); // all at infinity
  try {
    const good = new Uint8Array(32 * n);
    for (let i = 0; i < n; i += 1 + rng.int(1000)) good[32 * i] = 1 + rng.int(255);
    for (const { bytes, index } of unreducedAtSplits(CURVES.bn254, good)) {
      await rejects(ctx.msm(bytes), 'ERR_SCALAR_RANGE', index);
      await rejects(ctx.msmBatch([good, bytes]), 'ERR_SCALAR_RANGE', index);
    }
    await expect(ctx.msm(good)).resolves.toEqual({ x: 0n, y: 0n });
  } finally {
    ctx.close();
  }
}, 60_000);

const cudaAvailable = (() => {
  try {
    return info().cuda.available;
  } catch {
    return false;
  }
})();

(cudaAvailable ? test.skip : test)("backend 'cuda' where CUDA is unavailable: ERR_CUDA_UNAVAILABLE with info()'s reason", async () => {
  const i = info();
  expect(i.native.loaded).toBe(true);
  expect(i.cuda.available).toBe(false);
  expect(typeof i.cuda.reason).toBe('string');
  const { points } = dataset('bn254', 2);
  const e = await rejects(msm('bn254', points, [1n, 2n], { backend: 'cuda' }), 'ERR_CUDA_UNAVAILABLE');
  expect(e.message).toContain(i.cuda.reason!);
  await rejects(MsmContext.create('bn254', points, { backend: 'cuda' }), 'ERR_CUDA_UNAVAILABLE');
  await rejects(MsmContext.create('bn254', points, { constantTime: true }), 'ERR_CUDA_UNAVAILABLE');
  await rejects(MsmContext.create('bn254', points, { accumulation: 'homogeneous' }), 'ERR_CUDA_UNAVAILABLE');
  // 'auto' falls back to the CPU
  await expect(msm('bn254', points, [1n, 2n], { backend: 'auto' })).resolves.toBeDefined();
});
