// The CPU backend's eight-lane AVX-512 IFMA path (cuda/ff/ifma.hpp, cuda/cpu/affine_simd.hpp):
// its field operations and batch additions against the scalar code (natively, seeded, through the
// test addon), and whole MSMs large enough for the batch-affine buckets (n ≥ 2·2^(c−1) per task)
// computed with the path on (this process) and off (a child process with MSM_CPU_SIMD=0): both
// must equal the discrete-log reference. Skipped, with the reason, where the host has no IFMA; the
// scalar path still runs there through the rest of the suite.

import { execFileSync } from 'child_process';
import path = require('path');
import { CURVES, CURVE_NAMES, msm, type CurveName, type MsmOptions } from '../lib';
import { awkwardPoints, expectedFromDlogs, mixedScalars, seededRng } from './support/data';
import { expectSelftest } from './support/expect';
import { testingAddon } from './support/testing';

const reason = testingAddon().cpuSimdAvailable ? '' : 'this CPU has no AVX-512 IFMA';
if (reason) process.stdout.write(`[skip] cpu-simd.test.ts: ${reason}\n`);
const d = reason ? describe.skip : describe;

const rng = seededRng('cpu-simd.test');
const root = path.resolve(__dirname, '..');

// The same MSM in a child process whose native code reads MSM_CPU_SIMD=0 (common/env.hpp), through
// the compiled package (dist/, built by npm ci's prepare step).
function msmWithoutSimd(curve: CurveName, points: { x: bigint; y: bigint }[], scalars: bigint[], opts: MsmOptions): { x: bigint; y: bigint } {
  const script = `
    const { msm } = require(${JSON.stringify(path.join(root, 'dist', 'lib', 'index.js'))});
    const { testingAddon } = require(${JSON.stringify(path.join(root, 'dist', 'test', 'support', 'testing.js'))});
    const input = JSON.parse(require('fs').readFileSync(0, 'utf8'), (k, v) => (typeof v === 'string' && /^[0-9]+$/.test(v) ? BigInt(v) : v));
    msm(input.curve, input.points, input.scalars, input.opts).then((q) =>
      process.stdout.write(JSON.stringify({ x: String(q.x), y: String(q.y), simd: testingAddon().cpuSimdEnabled })));
  `;
  const input = JSON.stringify({ curve, points, scalars, opts }, (k, v) => (typeof v === 'bigint' ? String(v) : v));
  const out = execFileSync(process.execPath, ['-e', script], { input, env: { ...process.env, MSM_CPU_SIMD: '0' }, maxBuffer: 1 << 26 });
  const q = JSON.parse(out.toString());
  if (q.simd !== false) throw new Error('MSM_CPU_SIMD=0 did not turn the IFMA path off in the child process');
  return { x: BigInt(q.x), y: BigInt(q.y) };
}

d('IFMA field code = scalar field code', () => {
  test.each(CURVE_NAMES)('%s: products, lazy bounds, reductions, batch additions', (curve) => {
    expectSelftest(testingAddon().cpuSimdSelftest(curve, 4000, rng.u32()), 4000 * 8 * 5 + 1, 'at least');
  });
});

d.each(CURVE_NAMES)('%s: batch-affine MSM with the IFMA path on and off', (name) => {
  const c = CURVES[name];
  const n = 5000;
  const data = awkwardPoints(c, n, rng);

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
    expect(await msm(name, data.points, k, { backend: 'cpu', ...opts })).toEqual(want);
    expect(msmWithoutSimd(name, data.points, k, { backend: 'cpu', ...opts })).toEqual(want);
  });
});
