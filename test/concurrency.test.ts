// Concurrent calls give identical, correct results; heavy work stays off the event loop.

import { CURVES, msm, MsmContext, type AffinePoint } from '../lib';
import { encodeScalars } from '../lib/encoding';
import { awkwardPoints, expectedFromDlogs, mixedScalars, progression, seededRng } from './support/data';

const rng = seededRng('concurrency.test');

test('50 concurrent msm() calls give identical, correct results', async () => {
  const c = CURVES['bls12-381'];
  const d = awkwardPoints(c, 1000, rng);
  const k = mixedScalars(c, 1000, rng);
  const results = await Promise.all(Array.from({ length: 50 }, () => msm('bls12-381', d.points, k, { backend: 'cpu' })));
  const want = expectedFromDlogs(c, d.dlogs, k);
  for (const r of results) expect(r).toEqual(want);
});

test('50 concurrent calls on one context, each with its own scalars', async () => {
  const c = CURVES.bn254;
  const d = awkwardPoints(c, 800, rng);
  const sets = Array.from({ length: 50 }, (_, j) => (j % 5 === 0 ? mixedScalars(c, 800, rng) : null));
  const scalars = sets.map((s, j) => s ?? sets[j - (j % 5)]!); // 10 distinct sets, each used 5 times
  const ctx = await MsmContext.create('bn254', d.points, { backend: 'cpu' });
  try {
    const got = await Promise.all(scalars.map((k) => ctx.msm(k)));
    const want = new Map<bigint[], AffinePoint>();
    got.forEach((r, j) => {
      const k = scalars[j];
      if (!want.has(k)) want.set(k, expectedFromDlogs(c, d.dlogs, k));
      expect(r).toEqual(want.get(k));
    });
  } finally {
    ctx.close();
  }
});

test('the event loop keeps ticking during a 2^16 MSM', async () => {
  const c = CURVES.bn254;
  const n = 1 << 16;
  const d = progression(c, n, 1n + rng.below(c.r - 1n), 1n + rng.below(c.r - 1n));
  const k = Array.from({ length: n }, () => rng.below(c.r));
  const want = expectedFromDlogs(c, d.dlogs, k);
  // the context is created and the scalars packed first: what is watched is the MSM itself
  const packed = encodeScalars(c, k);
  const ctx = await MsmContext.create('bn254', d.points, { backend: 'cpu' });
  try {
    let ticks = 0;
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    const pending = ctx.msm(packed);
    const result = await pending;
    const elapsed = performance.now() - started;
    clearInterval(timer);
    maxGap = Math.max(maxGap, performance.now() - last);
    process.stdout.write(`[event loop] 2^16 MSM ${elapsed.toFixed(0)} ms, ${ticks} ticks, max gap ${maxGap.toFixed(1)} ms\n`);
    expect(result).toEqual(want);
    expect(maxGap).toBeLessThan(200);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 50));
  } finally {
    ctx.close();
  }
});
