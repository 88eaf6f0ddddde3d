// Several GPUs for one context (issue 13): the bases split across the devices, every MSM run on
// all of them and the partial sums added on the host. Results must be bit-identical to one GPU
// and to the CPU backend, for every curve, sizes below and above the device count, batches,
// calls at once and the uploads started at call time; one device running out of memory rejects
// with ERR_CUDA_OOM naming it, and the process and other contexts go on. Needs two or more CUDA
// devices; skipped, with the reason, otherwise.

import { CURVES, CURVE_NAMES, info, MsmContext, MsmError, msm, type CurveName } from '../../lib';
import { seededRng, unreducedAtSplits } from '../support/data';
import { testingAddon } from '../support/testing';

const inf = info();
const count = inf.cuda.available ? inf.cuda.devices.length : 0;
const why = !inf.cuda.available ? `CUDA unavailable: ${inf.cuda.reason}` : `${count} CUDA device(s); this needs 2 or more`;
if (count < 2) process.stdout.write(`[skip] test/gpu/multi: ${why}\n`);
else process.stdout.write(`[gpu] ${inf.cuda.devices.map((d) => `${d.index}: ${d.name}`).join(', ')}\n`);
const d = count >= 2 ? describe : describe.skip;

const rng = seededRng('gpu/multi');

function le(k: bigint): Uint8Array {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++, k >>= 8n) b[i] = Number(k & 0xffn);
  return b;
}
function points(curve: CurveName, n: number): Uint8Array {
  const r = CURVES[curve].r;
  return testingAddon().generatePoints(curve, n, le(1n + rng.below(r - 1n)), le(1n + rng.below(r - 1n)));
}
function scalars(curve: CurveName, n: number): Uint8Array {
  const r = CURVES[curve].r;
  const out = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++) out.set(le(rng.below(r)), 32 * i);
  return out;
}

d('several GPUs: one context split across devices', () => {
  test.each(CURVE_NAMES.map((c) => [c]))('%s: all devices = one device = CPU, for n below and above the device count', async (curve) => {
    for (const n of [1, count - 1, count, count + 1, 1000, (1 << 16) + 7]) {
      if (n < 1) continue;
      const P = points(curve, n);
      const S = scalars(curve, n);
      const all = await msm(curve, P, S, { backend: 'cuda', devices: 'all' });
      const one = await msm(curve, P, S, { backend: 'cuda' });
      const cpu = await msm(curve, P, S, { backend: 'cpu' });
      expect({ n, all }).toEqual({ n, all: cpu });
      expect({ n, one }).toEqual({ n, one: cpu });
    }
  }, 600_000);

  test('2^20 BLS12-381 and BN254: contexts on [0, 1], [1, 0] and all; msm, batches, calls at once', async () => {
    for (const curve of ['bn254', 'bls12-381'] as const) {
      const n = 1 << 20;
      const P = points(curve, n);
      const sets = [scalars(curve, n), scalars(curve, n), scalars(curve, n)];
      const cpu = await MsmContext.create(curve, P, { backend: 'cpu' });
      const want = await cpu.msmBatch(sets);
      cpu.close();
      for (const devices of [[0, 1], [1, 0], 'all'] as const) {
        const ctx = await MsmContext.create(curve, P, { backend: 'cuda', devices });
        expect(ctx.memory.device).toBeGreaterThan(0);
        for (let i = 0; i < sets.length; i++) expect(await ctx.msm(sets[i])).toEqual(want[i]);
        expect(await ctx.msmBatch(sets)).toEqual(want);
        expect(await Promise.all([ctx.msm(sets[2]), ctx.msmBatch([sets[1], sets[0]]), ctx.msm(sets[0])])).toEqual([want[2], [want[1], want[0]], want[0]]);
        ctx.close();
      }
    }
  }, 600_000);

  test('a scalar ≥ r in any device\'s share, found while copying: the lowest index of the whole set', async () => {
    const curve: CurveName = 'bn254';
    const n = (1 << 20) + 3;
    const P = points(curve, n);
    const good = scalars(curve, n);
    const want = await msm(curve, P, good, { backend: 'cpu' });
    const ctx = await MsmContext.create(curve, P, { backend: 'cuda', devices: 'all' });
    try {
      for (const { bytes, index } of unreducedAtSplits(CURVES[curve], good)) {
        await expect(ctx.msm(bytes)).rejects.toMatchObject({ code: 'ERR_SCALAR_RANGE', index });
      }
      expect(await ctx.msm(good)).toEqual(want);
    } finally {
      ctx.close();
    }
  }, 300_000);

  test('option errors: unknown device in the list, duplicates, both device and devices', async () => {
    const P = points('bn254', 16);
    const S = scalars('bn254', 16);
    const bad = async (o: object) => {
      const e = await msm('bn254', P, S, { backend: 'cuda', ...o }).catch((x) => x);
      expect(e).toBeInstanceOf(MsmError);
      return e as MsmError;
    };
    expect((await bad({ devices: [0, count] })).message).toMatch(/'devices'.*\[0, /);
    expect((await bad({ devices: [0, 0] })).code).toBe('ERR_INVALID_OPTION');
    expect((await bad({ devices: [0], device: 1 })).code).toBe('ERR_INVALID_OPTION');
  });

  test('one device out of memory: ERR_CUDA_OOM naming it; the process and other contexts go on', async () => {
    const curve = 'bls12-381';
    const n = 1 << 20;
    const P = points(curve, n);
    const S = scalars(curve, n);
    const other = await MsmContext.create(curve, P, { backend: 'cuda', device: 0 });
    const want = await other.msm(S);
    const t = testingAddon();
    const hog = t.occupyDevice(1, 16 << 20)!;
    try {
      const e = await MsmContext.create(curve, P, { backend: 'cuda', devices: [0, 1] }).catch((x) => x);
      expect(e).toBeInstanceOf(MsmError);
      expect([e.code, e.message]).toEqual(['ERR_CUDA_OOM', expect.stringMatching(/CUDA device 1/)]);
    } finally {
      t.releaseDevice(hog);
    }
    expect(await other.msm(S)).toEqual(want);
    const split = await MsmContext.create(curve, P, { backend: 'cuda', devices: 'all' });
    expect(await split.msm(S)).toEqual(want);
    split.close();
    other.close();
  }, 300_000);
});
