// The benchmark's peers compute the same MSM as the known discrete logs say (so a timing is
// never taken of a wrong answer), and the bench CLI runs end to end on a tiny size.

import fs = require('fs');
import os = require('os');
import path = require('path');
import { CURVES } from '../lib';
import { expectedMsm, generatePoints, generateScalars } from '../lib/generate';
import { ffjavascriptPeer, noblePeer } from '../bench/peers';
import { main } from '../bench/cli';
import { seededRng } from './support/data';

const rng = seededRng('bench.test');

test.each(['bn254', 'bls12-381'] as const)('%s: ffjavascript and noble agree with the discrete logs', async (name) => {
  const c = CURVES[name];
  const gen = generatePoints(c, 300, rng);
  const ks = generateScalars(c, 300, rng);
  ks[7] = 0n;
  ks[8] = c.r - 1n;
  const want = expectedMsm(c, gen, ks);
  const ff = ffjavascriptPeer();
  try {
    expect(await (await ff.prepare(name, gen.points)).run(ks)).toEqual(want);
    // all-zero scalars: infinity in our convention
    expect(await (await ff.prepare(name, gen.points.slice(0, 3))).run([0n, 0n, 0n])).toEqual({ x: 0n, y: 0n });
  } finally {
    await ff.close();
  }
  expect(await (await noblePeer().prepare(name, gen.points)).run(ks)).toEqual(want);
});

test('the bench CLI measures, checks and writes JSON', async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'msm-bench-')), 'r.json');
  const write = process.stdout.write;
  let printed = '';
  process.stdout.write = ((s: string) => ((printed += s), true)) as typeof process.stdout.write;
  let code: number;
  try {
    code = await main(['--sizes', '100,2^7', '--runs', '2', '--peers', 'ffjavascript,noble', '--seed', String(rng.u32()), '--out', out, '--quiet']);
  } finally {
    process.stdout.write = write;
  }
  expect(code).toBe(0);
  const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
  expect(doc.machine.cores).toBeGreaterThan(0);
  expect(doc.machine.node).toBe(process.version);
  const impls = new Set(doc.results.map((r: { impl: string }) => r.impl));
  expect(impls).toEqual(new Set(['msm-cuda/cpu', 'ffjavascript', 'noble', ...(doc.machine.gpu ? ['msm-cuda/cuda'] : [])]));
  expect(doc.results).toHaveLength(2 * 2 * impls.size); // 2 curves × 2 sizes
  for (const r of doc.results) {
    expect(r.correct).toBe(true);
    expect(r.runsMs).toHaveLength(2);
    expect(r.medianMs).toBeGreaterThan(0);
  }
  expect(printed).toMatch(/speedup cpu vs ffjs/);
});
