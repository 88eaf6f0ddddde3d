// The user CLI (lib/cli.ts, run by bin/msm-cuda.js), in process.

import { PassThrough } from 'stream';
import { main } from '../lib/cli';
import { seededRng } from './support/data';
import { NOBLE_CURVES } from './support/noble';

const rng = seededRng('cli.test');

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough() as unknown as NodeJS.WriteStream;
  let o = '';
  let e = '';
  out.on('data', (d) => (o += d));
  (err as unknown as PassThrough).on('data', (d) => (e += d));
  const code = await main(argv, { out, err });
  return { code, out: o, err: e };
}

test('info --json describes the backends', async () => {
  const r = await cli('info', '--json');
  expect(r.code).toBe(0);
  const i = JSON.parse(r.out);
  expect(i.native.loaded).toBe(true);
  expect(i.backends).toContain('cpu');
  if (!i.cuda.available) expect(typeof i.cuda.reason).toBe('string');
});

test('info (text) names the CUDA status', async () => {
  const r = await cli('info');
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/backends: .*cpu/);
  expect(r.out).toMatch(/cuda: /);
});

test.each(['bn254', 'bls12-381', 'bls12-377', 'bls24-315'])('run --curve %s verifies on every path', async (curve) => {
  const seed = String(rng.u32());
  const r = await cli('run', '--curve', curve, '--log-size', '9', '--seed', seed, '--json', '--quiet', '--runs', '2');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const rep = JSON.parse(r.out);
  expect(rep).toMatchObject({ curve, n: 512, seed: Number(seed), ok: true });
  const paths = rep.verified.map((c: { path: string }) => c.path);
  expect(paths[0]).toBe('known discrete logs');
  expect(paths[1]).toMatch(/backend/);
  if ((NOBLE_CURVES as string[]).includes(curve)) expect(paths).toContain('@noble/curves');
  else expect(paths).not.toContain('@noble/curves');
  expect(rep.runsMs).toHaveLength(2);
  expect(rep.pointsPerSecond).toBeGreaterThan(0);
  // the same seed gives the same result
  const again = JSON.parse((await cli('run', '--curve', curve, '--log-size', '9', '--seed', seed, '--json', '--quiet', '--no-verify')).out);
  expect(again.result).toEqual(rep.result);
});

test('run shows its stages on stderr and a summary on stdout', async () => {
  const r = await cli('run', '--size', '300', '--distribution', 'mostly-zero', '--backend', 'cpu');
  expect(r.code).toBe(0);
  expect(r.err).toMatch(/generating 300 points/);
  expect(r.err).toMatch(/MSM on cpu/);
  expect(r.out).toMatch(/points\/s/);
  expect(r.out).toMatch(/verified: ✔ known discrete logs; ✔ cpu backend/);
});

test.each([
  [['run', '--curve', 'ed25519'], /--curve must be one of/],
  [['run', '--log-size', '99'], /--log-size must be an integer/],
  [['run', '--size', '8', '--log-size', '3'], /not both/],
  [['run', '--distribution', 'weird'], /--distribution/],
  [['frobnicate'], /unknown command/],
  [['run', '--bogus'], /Unknown option/],
])('bad usage %j exits 1 with a message', async (argv, msg) => {
  const r = await cli(...argv);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(msg);
});

test('run --backend cuda where CUDA is unavailable exits 1 and says why', async () => {
  const i = JSON.parse((await cli('info', '--json')).out);
  if (i.cuda.available) return; // a GPU machine: nothing to check here
  const r = await cli('run', '--size', '64', '--backend', 'cuda', '--quiet');
  expect(r.code).toBe(1);
  expect(r.err).toContain(i.cuda.reason);
  expect(r.err).toMatch(/ERR_CUDA_UNAVAILABLE/);
});
