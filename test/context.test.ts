// MsmContext on the CPU backend: many MSMs over resident bases, batches, and results that do
// not depend on the window size or the thread count.

import { CURVES, CURVE_NAMES, msm, MsmContext } from '../lib';
import { awkwardPoints, expectedFromDlogs, mixedScalars, seededRng } from './support/data';

const rng = seededRng('context.test');

describe.each(CURVE_NAMES)('%s', (name) => {
  const c = CURVES[name];
  const n = 1500;
  const d = awkwardPoints(c, n, rng);
  const sets = Array.from({ length: 4 }, () => mixedScalars(c, n, rng));
  const wants = sets.map((k) => expectedFromDlogs(c, d.dlogs, k));

  test('one context, several MSMs, then a batch', async () => {
    const ctx = await MsmContext.create(name, d.points, { backend: 'cpu' });
    try {
      expect([ctx.curve, ctx.size, ctx.backend]).toEqual([name, n, 'cpu']);
      expect(ctx.windowBits).toBeGreaterThan(0);
      expect(ctx.tau).toBe(0);
      expect(ctx.memory.host).toBeGreaterThanOrEqual(n * 2 * c.fieldBytes);
      expect(ctx.memory.device).toBe(0);
      for (let j = 0; j < sets.length; j++) expect(await ctx.msm(sets[j])).toEqual(wants[j]);
      expect(await ctx.msmBatch(sets)).toEqual(wants);
      expect(await ctx.msmBatch([])).toEqual([]);
    } finally {
      ctx.close();
    }
    expect(ctx.closed).toBe(true);
  });

  test.each([
    { windowBits: 2 },
    { windowBits: 5 },
    { windowBits: 11 },
    { windowBits: 16 },
    { threads: 1 },
    { threads: 2 },
    { threads: 7 },
    { windowBits: 9, threads: 3 },
  ])('results do not depend on %o', async (opts) => {
    const ctx = await MsmContext.create(name, d.points, { backend: 'cpu', ...opts });
    try {
      if (opts.windowBits) expect(ctx.windowBits).toBe(opts.windowBits);
      expect(await ctx.msm(sets[0])).toEqual(wants[0]);
    } finally {
      ctx.close();
    }
    expect(await msm(name, d.points.slice(0, 100), sets[1].slice(0, 100), { backend: 'cpu', ...opts })).toEqual(
      expectedFromDlogs(c, d.dlogs.slice(0, 100), sets[1].slice(0, 100)),
    );
  });
});
