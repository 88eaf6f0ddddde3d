// G2 MSM (BN254, BLS12-381; option group: 'g2') on the CUDA backend, end to end: bit-identical to
// the CPU backend and equal to the discrete-log form (Σ kᵢ·dᵢ)·G2 (by @noble/curves), for sizes
// that are not powers of two, every scalar distribution, the edge cases of the CPU G2 tests
// (test/g2-msm.test.ts: infinity, zero scalars, r − 1, duplicates, P and −P, identical scalars,
// packed canonical and LEM/Montgomery points), msm, MsmContext.msm and msmBatch, several (c, τ),
// both other accumulation modes (constant time, homogeneous), 'auto', and a context split over
// every device where there are two or more. Also the device's Fp2 (G2's field) against the host's.
// Runs only where a CUDA device is usable; skipped with the reason otherwise.
//
// Points are P_i = (s + i·t)·G2 from the test addon's generator (generatePoints(…, 'g2')), so the
// expected MSM is one scalar multiplication of the generator.

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { AUTO_CUDA_MIN_POINTS, CURVES, info, msm, MsmContext, type G2AffinePoint, type MsmOptions } from '../../lib';
import { decodePoints, encodePoints, encodeScalars } from '../../lib/encoding';
import { mixedScalars, packedScalars, seededRng, type PackedDistribution } from '../support/data';
import { expectSelftest } from '../support/expect';
import { testingAddon } from '../support/testing';

const inf = info();
const available = inf.cuda.available;
const devices = available ? inf.cuda.devices.length : 0;
if (!available) process.stdout.write(`[skip] test/gpu/g2: CUDA unavailable: ${inf.cuda.reason}\n`);
else process.stdout.write(`[gpu] ${inf.cuda.devices.map((x) => `${x.name} (cc ${x.computeCapability})`).join(', ')}\n`);
const d = available ? describe : describe.skip;
const multi = devices >= 2 ? describe : describe.skip;
if (available && devices < 2) process.stdout.write(`[skip] test/gpu/g2: devices 'all': ${devices} CUDA device(s); this needs 2 or more\n`);

const testing = testingAddon;
const rng = seededRng('gpu/g2');
const G2_CURVES = ['bn254', 'bls12-381'] as const;
type G2Curve = (typeof G2_CURVES)[number];
const NOBLE = { bn254: bn254.G2.Point, 'bls12-381': bls12_381.G2.Point } as const;
const CUDA = { backend: 'cuda', group: 'g2', validate: 'none' } as const;
const CPU = { backend: 'cpu', group: 'g2', validate: 'none' } as const;
const BIG = 600_000; // ms, for the 2^20 cases

const O2 = (): G2AffinePoint => ({ x: [0n, 0n], y: [0n, 0n] });
const log = (msg: string): void => void process.stdout.write(`[gpu] ${msg}\n`);

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const le = (k: bigint, bytes = 32): Uint8Array => {
  const b = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++, k >>= 8n) b[i] = Number(k & 0xffn);
  return b;
};
const fromLe = (b: Uint8Array, off: number, len: number): bigint => {
  let hex = '0x';
  for (let i = off + len - 1; i >= off; i--) hex += HEX[b[i]];
  return BigInt(hex);
};

/** e·G2 (e reduced mod r) by noble, as the API writes it. */
function timesGenerator(c: G2Curve, e: bigint): G2AffinePoint {
  e %= CURVES[c].r;
  if (e === 0n) return O2();
  const a = NOBLE[c].BASE.multiply(e).toAffine();
  return { x: [a.x.c0, a.x.c1], y: [a.y.c0, a.y.c1] };
}

interface G2Points {
  bytes: Uint8Array; // canonical x.c0‖x.c1‖y.c0‖y.c1, infinity all zeros
  dlogs: bigint[]; // point i = dlogs[i]·G2
}

/**
 * n points (s + i·t)·G2; with `awkward`, in every group of five from i: i + 1 the point at
 * infinity, i + 2 a duplicate of point i, i + 3 its negation.
 */
function g2Points(c: G2Curve, n: number, awkward = false): G2Points {
  const { r, p, fieldBytes: fb } = CURVES[c];
  const s = 1n + rng.below(r - 1n),
    t = 1n + rng.below(r - 1n);
  const bytes = testing().generatePoints(c, n, le(s), le(t), 'g2');
  expect(bytes.length).toBe(n * 4 * fb);
  const dlogs = Array.from({ length: n }, (_, i) => (s + BigInt(i) * t) % r);
  if (awkward) {
    const pb = 4 * fb;
    for (let i = 0; i + 3 < n; i += 5) {
      bytes.fill(0, (i + 1) * pb, (i + 2) * pb);
      dlogs[i + 1] = 0n;
      bytes.copyWithin((i + 2) * pb, i * pb, (i + 1) * pb);
      dlogs[i + 2] = dlogs[i];
      bytes.copyWithin((i + 3) * pb, i * pb, i * pb + 2 * fb); // x
      for (let k = 2; k < 4; k++) {
        const y = fromLe(bytes, i * pb + k * fb, fb);
        bytes.set(le(y === 0n ? 0n : p - y, fb), (i + 3) * pb + k * fb);
      }
      dlogs[i + 3] = (r - dlogs[i]) % r;
    }
  }
  return { bytes, dlogs };
}

type Dist = PackedDistribution;
const DISTS: Dist[] = ['random', 'identical', 'distinct32', 'small', 'mostly-zero', 'r-1', 'zero', 'mixed'];
const scalars = (c: G2Curve, n: number, dist: Dist): Uint8Array => packedScalars(CURVES[c], n, dist, rng);

/** The discrete-log form of Σ kᵢ·Pᵢ. */
function expected(c: G2Curve, P: G2Points, ks: Uint8Array): G2AffinePoint {
  let e = 0n;
  for (let i = 0; i < P.dlogs.length; i++) if (P.dlogs[i] !== 0n) e += fromLe(ks, 32 * i, 32) * P.dlogs[i];
  return timesGenerator(c, e);
}

async function withContext<T>(c: G2Curve, points: Uint8Array, opts: MsmOptions<'g2'>, f: (ctx: MsmContext<'g2'>) => Promise<T>): Promise<T> {
  const ctx = await MsmContext.create(c, points, opts);
  try {
    return await f(ctx);
  } finally {
    ctx.close();
  }
}
const cuda = (c: G2Curve, P: G2Points, ks: Uint8Array, opts: Partial<MsmOptions<'g2'>> = {}) =>
  withContext(c, P.bytes, { ...CUDA, ...opts }, (ctx) => ctx.msm(ks));
const cpu = (c: G2Curve, P: G2Points, ks: Uint8Array) => withContext(c, P.bytes, CPU, (ctx) => ctx.msm(ks));

d("G2's field on the device (ff/fp2.hpp over ptx.cuh)", () => {
  test.each(G2_CURVES)('%s: Fp2 mul, sqr, mul_add (lazy reduction), ±, mul by F, conjugate, mul_b3, inverse = host Fp2, edge and random operands', (c) => {
    expectSelftest(testing().gpuFp2Selftest(c, 50000, rng.u32()), (196 * 196 + 50000) * 10, 'at least');
  });
});

d.each(G2_CURVES)('%s G2 on CUDA', (c) => {
  const { r } = CURVES[c];

  test('n ∈ {1, 2, 3, 100, 1000, 2^16+7}, random and mixed scalars: = CPU backend = model; msm() on objects = the context', async () => {
    for (const n of [1, 2, 3, 100, 1000, (1 << 16) + 7]) {
      const P = g2Points(c, n);
      for (const ks of [scalars(c, n, 'random'), encodeScalars(CURVES[c], mixedScalars(CURVES[c], n, rng))]) {
        const got = await cuda(c, P, ks);
        expect({ n, got }).toEqual({ n, got: await cpu(c, P, ks) });
        expect({ n, got }).toEqual({ n, got: expected(c, P, ks) });
        if (n <= 100) {
          const objects = decodePoints(CURVES[c], P.bytes, 'canonical', 'g2');
          expect({ n, got: await msm(c, objects, ks, { backend: 'cuda', group: 'g2' }) }).toEqual({ n, got });
        }
      }
    }
  }, BIG);

  test('every scalar distribution, with infinity, duplicated and ±P points: = CPU backend = model', async () => {
    for (const n of [5, 1000, (1 << 16) + 7]) {
      const P = g2Points(c, n, true);
      for (const dist of DISTS) {
        const ks = scalars(c, n, dist);
        const got = await cuda(c, P, ks);
        expect({ n, dist, got }).toEqual({ n, dist, got: expected(c, P, ks) });
        expect({ n, dist, got }).toEqual({ n, dist, got: await cpu(c, P, ks) });
        if (dist === 'zero') expect(got).toEqual(O2());
      }
    }
  }, BIG);

  test('the CPU G2 edge cases: n = 1 times 0, 1, 2, r − 1; O alone; every single-bit scalar; one point 64 times; P with −P', async () => {
    const P = g2Points(c, 300);
    const objects = decodePoints(CURVES[c], P.bytes, 'canonical', 'g2');
    const Q = objects[1];
    const q = P.dlogs[1];
    const run = (pts: G2AffinePoint[], ks: bigint[]) => msm(c, pts, ks, { backend: 'cuda', group: 'g2' });
    expect(await run([Q], [1n])).toEqual(Q);
    expect(await run([Q], [0n])).toEqual(O2());
    expect(await run([Q], [2n])).toEqual(timesGenerator(c, 2n * q));
    expect(await run([Q], [r - 1n])).toEqual(timesGenerator(c, (r - 1n) * q));
    expect(await run([O2()], [rng.below(r)])).toEqual(O2());
    const bits = CURVES[c].scalarBits;
    const single = Array.from({ length: bits }, (_, j) => 1n << BigInt(j));
    expect(await run(objects.slice(0, bits), single)).toEqual(expected(c, { bytes: P.bytes, dlogs: P.dlogs.slice(0, bits) }, encodeScalars(CURVES[c], single)));
    const k = rng.below(r);
    const negQ: G2AffinePoint = { x: Q.x, y: [Q.y[0] === 0n ? 0n : CURVES[c].p - Q.y[0], Q.y[1] === 0n ? 0n : CURVES[c].p - Q.y[1]] };
    expect(await run([Q, negQ], [k, k])).toEqual(O2());
    const same = Array.from({ length: 64 }, () => Q);
    const ks = mixedScalars(CURVES[c], 64, rng);
    expect(await run(same, ks)).toEqual(timesGenerator(c, ks.reduce((a, x) => a + x, 0n) * q));
    // identical scalars over many points, and r − 1 everywhere (= −Σ P)
    for (const dist of ['identical', 'r-1'] as Dist[]) {
      const S = scalars(c, 300, dist);
      expect({ dist, got: await msm(c, P.bytes, S, CUDA) }).toEqual({ dist, got: expected(c, P, S) });
    }
  });

  test('objects, canonical bytes and LEM (Montgomery) bytes agree, with canonical and Montgomery scalars', async () => {
    const P = g2Points(c, 77, true);
    const objects = decodePoints(CURVES[c], P.bytes, 'canonical', 'g2');
    const k = mixedScalars(CURVES[c], 77, rng);
    const want = expected(c, P, encodeScalars(CURVES[c], k));
    const lem = encodePoints(CURVES[c], objects, 'montgomery', 'g2');
    for (const scalarFormat of ['canonical', 'montgomery'] as const) {
      const S = encodeScalars(CURVES[c], k, scalarFormat);
      const o = { backend: 'cuda', group: 'g2', scalarFormat } as const;
      expect(await msm(c, objects, S, o)).toEqual(want);
      expect(await msm(c, P.bytes, S, o)).toEqual(want);
      expect(await msm(c, lem, S, { ...o, pointFormat: 'lem' })).toEqual(want);
      expect(await msm(c, lem, S, { ...o, pointFormat: 'montgomery', validate: 'subgroup' })).toEqual(want);
    }
    expect(await msm(c, lem, k, { backend: 'cuda', group: 'g2', pointFormat: 'lem' })).toEqual(want);
  });

  test('MsmContext: what it reports; repeated runs bit-identical; msmBatch = msm; empty batch', async () => {
    const n = 4097;
    const P = g2Points(c, n, true);
    await withContext(c, P.bytes, { backend: 'cuda', group: 'g2' }, async (ctx) => {
      expect([ctx.curve, ctx.group, ctx.size, ctx.backend]).toEqual([c, 'g2', n, 'cuda']);
      expect(ctx.memory.device).toBeGreaterThanOrEqual((ctx.tau + 1) * n * 4 * CURVES[c].fieldBytes);
      const ks = scalars(c, n, 'random');
      const first = await ctx.msm(ks);
      expect(first).toEqual(expected(c, P, ks));
      for (let i = 0; i < 5; i++) expect(await ctx.msm(ks)).toEqual(first);
      const sets = [scalars(c, n, 'random'), ks, scalars(c, n, 'identical'), scalars(c, n, 'zero')];
      const batch = await ctx.msmBatch(sets);
      for (let k = 0; k < sets.length; k++) expect(batch[k]).toEqual(expected(c, P, sets[k]));
      expect(await ctx.msmBatch([])).toEqual([]);
    });
  });

  test('several c and τ, random and identical scalars', async () => {
    const n = 4097;
    const P = g2Points(c, n, true);
    for (const windowBits of [4, 7, 12, 16, 18]) {
      for (const tau of new Set([0, 3, windowBits - 1].filter((t) => t < windowBits))) {
        for (const dist of ['random', 'identical'] as Dist[]) {
          const ks = scalars(c, n, dist);
          const got = await cuda(c, P, ks, { windowBits, tau });
          expect({ windowBits, tau, dist, got }).toEqual({ windowBits, tau, dist, got: expected(c, P, ks) });
        }
      }
    }
  });

  test("'auto' takes G2 to CUDA from AUTO_CUDA_MIN_POINTS points, as G1; smaller inputs stay on the CPU", async () => {
    const P = g2Points(c, AUTO_CUDA_MIN_POINTS);
    const ks = scalars(c, AUTO_CUDA_MIN_POINTS, 'random');
    await withContext(c, P.bytes, { group: 'g2' }, async (ctx) => {
      expect(ctx.backend).toBe('cuda');
      expect(await ctx.msm(ks)).toEqual(expected(c, P, ks));
    });
    const small = g2Points(c, AUTO_CUDA_MIN_POINTS - 1);
    await withContext(c, small.bytes, { group: 'g2' }, async (ctx) => expect(ctx.backend).toBe('cpu'));
    // a mode only CUDA has goes there whatever n
    await withContext(c, small.bytes, { group: 'g2', constantTime: true }, async (ctx) => expect(ctx.backend).toBe('cuda'));
  });

  test('2^20 random: = CPU backend = model', async () => {
    const t0 = performance.now();
    const P = g2Points(c, 1 << 20);
    const ks = scalars(c, 1 << 20, 'random');
    const got = await cuda(c, P, ks);
    expect(got).toEqual(await cpu(c, P, ks));
    expect(got).toEqual(expected(c, P, ks));
    log(`${c} G2 2^20 done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }, BIG);
});

// The other accumulation modes (§5 constant time, §3.2 double-point homogeneous) on G2: the
// complete formulas multiply by the twist's 3b' (ec/homogeneous.hpp, curves/*_g2.hpp mul_b3).
const MODES: { name: string; opts: Partial<MsmOptions<'g2'>> }[] = [
  { name: 'constant-time', opts: { constantTime: true } },
  { name: 'homogeneous', opts: { accumulation: 'homogeneous' } },
];
d.each(G2_CURVES)('%s G2 on CUDA: accumulation modes', (c) => {
  test('every mode × scalar distribution, with infinity, duplicated and ±P points: = model', async () => {
    for (const n of [1, 33, 4097]) {
      const P = g2Points(c, n, n > 5);
      for (const dist of DISTS) {
        const ks = scalars(c, n, dist);
        const want = expected(c, P, ks);
        for (const m of MODES) expect({ n, dist, mode: m.name, got: await cuda(c, P, ks, m.opts) }).toEqual({ n, dist, mode: m.name, got: want });
      }
    }
  }, BIG);

  test('several c (and τ for the homogeneous mode)', async () => {
    const n = 4097;
    const P = g2Points(c, n, true);
    for (const windowBits of [4, 7, 12, 16, 18]) {
      for (const dist of ['random', 'identical'] as Dist[]) {
        const ks = scalars(c, n, dist);
        const want = expected(c, P, ks);
        expect({ windowBits, dist, got: await cuda(c, P, ks, { windowBits, constantTime: true }) }).toEqual({ windowBits, dist, got: want });
        for (const tau of new Set([0, 6, windowBits - 1].filter((t) => t < windowBits))) {
          const got = await cuda(c, P, ks, { windowBits, tau, accumulation: 'homogeneous' });
          expect({ windowBits, tau, dist, got }).toEqual({ windowBits, tau, dist, got: want });
        }
      }
    }
  }, BIG);

  test('2^20 random and identical in both modes: = CPU backend', async () => {
    const n = 1 << 20;
    const P = g2Points(c, n);
    for (const dist of ['random', 'identical'] as Dist[]) {
      const ks = scalars(c, n, dist);
      const want = await cpu(c, P, ks);
      for (const m of MODES) expect({ dist, mode: m.name, got: await cuda(c, P, ks, m.opts) }).toEqual({ dist, mode: m.name, got: want });
    }
    log(`${c} G2 2^20 modes done`);
  }, BIG);
});

multi.each(G2_CURVES)("%s G2 on every device (devices: 'all')", (c) => {
  test('n below and above the device count, and 2^16+7: all devices = one device = CPU; msmBatch', async () => {
    for (const n of [1, devices - 1, devices, devices + 1, 1000, (1 << 16) + 7]) {
      if (n < 1) continue;
      const P = g2Points(c, n, n > 5);
      const ks = scalars(c, n, 'random');
      const all = await cuda(c, P, ks, { devices: 'all' });
      expect({ n, all }).toEqual({ n, all: await cpu(c, P, ks) });
      expect({ n, all }).toEqual({ n, all: await cuda(c, P, ks) });
    }
    const n = 4097;
    const P = g2Points(c, n, true);
    const sets = DISTS.map((dist) => scalars(c, n, dist));
    const got = await withContext(c, P.bytes, { ...CUDA, devices: 'all' }, (ctx) => ctx.msmBatch(sets));
    for (let k = 0; k < sets.length; k++) expect(got[k]).toEqual(expected(c, P, sets[k]));
  }, BIG);
});
