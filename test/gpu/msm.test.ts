// The CUDA backend end to end (runs only where a CUDA device is usable; skipped with the reason
// otherwise): GPU = CPU backend = the discrete-log model (and = @noble/curves where it has the
// curve) for every curve, over sizes that are not powers of two, every scalar distribution,
// infinity / duplicated / ±P points, r − 1, several (c, τ), repeated runs and batches.
//
// Points are P_i = d_i·G with known d_i (generated natively by testing.generatePoints), so the
// expected MSM is one scalar multiplication: Σ k_i·P_i = (Σ k_i·d_i mod r)·G.

import { CURVES, CURVE_NAMES, info, MsmContext, type AffinePoint, type CurveName } from '../../lib';
import { scalarMul } from '../../lib/generate';
import { loadNative } from '../../lib/native';
import { seededRng } from '../support/data';
import { nobleMsm, NOBLE_CURVES } from '../support/noble';

const inf = info();
const available = inf.cuda.available;
if (!available) process.stdout.write(`[skip] test/gpu: CUDA unavailable: ${inf.cuda.reason}\n`);
else process.stdout.write(`[gpu] ${inf.cuda.devices.map((d) => `${d.name} (cc ${d.computeCapability})`).join(', ')}\n`);
const d = available ? describe : describe.skip;

interface Testing {
  generatePoints(curve: string, n: number, s: Uint8Array, t: Uint8Array): Uint8Array;
  gpuFieldSelftest(curve: string, count: number, seed: number): { checked: number; mismatches: number; first: string } | undefined;
}
const testing = (): Testing => (loadNative() as unknown as { testing: Testing }).testing;

const rng = seededRng('gpu/msm');
const CURVE_LIST: CurveName[] = [...CURVE_NAMES];

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const le = (k: bigint, bytes = 32): Uint8Array => {
  const hex = k.toString(16).padStart(2 * bytes, '0');
  const b = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) b[i] = parseInt(hex.substr(2 * (bytes - 1 - i), 2), 16);
  return b;
};
const fromLe = (b: Uint8Array, off = 0, len = b.length - off): bigint => {
  let hex = '0x';
  for (let i = off + len - 1; i >= off; i--) hex += HEX[b[i]];
  return BigInt(hex);
};
const log = (msg: string): void => void process.stdout.write(`[gpu] ${msg}\n`);

interface Points {
  bytes: Uint8Array; // canonical x‖y
  dlogs: bigint[];
  fb: number;
}
function points(curve: CurveName, n: number, special = false): Points {
  const c = CURVES[curve];
  const s = 1n + rng.below(c.r - 1n),
    t = 1n + rng.below(c.r - 1n);
  const bytes = testing().generatePoints(curve, n, le(s), le(t));
  const dlogs = Array.from({ length: n }, (_, i) => (s + BigInt(i) * t) % c.r);
  const fb = bytes.length / n / 2;
  if (special) {
    // Every 5th: infinity; then a duplicate of the point before it; then the negation of one.
    for (let i = 0; i + 3 < n; i += 5) {
      bytes.fill(0, (i + 1) * 2 * fb, (i + 2) * 2 * fb);
      dlogs[i + 1] = 0n;
      bytes.copyWithin((i + 2) * 2 * fb, i * 2 * fb, (i + 1) * 2 * fb);
      dlogs[i + 2] = dlogs[i];
      const y = fromLe(bytes.subarray(i * 2 * fb + fb, (i + 1) * 2 * fb));
      bytes.set(bytes.subarray(i * 2 * fb, i * 2 * fb + fb), (i + 3) * 2 * fb);
      bytes.set(le(y === 0n ? 0n : c.p - y, fb), (i + 3) * 2 * fb + fb);
      dlogs[i + 3] = (c.r - dlogs[i]) % c.r;
    }
  }
  return { bytes, dlogs, fb };
}
const affineAt = (P: Points, i: number): AffinePoint => ({
  x: fromLe(P.bytes.subarray(i * 2 * P.fb, i * 2 * P.fb + P.fb)),
  y: fromLe(P.bytes.subarray(i * 2 * P.fb + P.fb, (i + 1) * 2 * P.fb)),
});

type Dist = 'random' | 'identical' | 'distinct32' | 'small' | 'mostly-zero' | 'r-1' | 'mixed';
// n scalars as packed little-endian bytes (the bigint path is far too slow at 2^20).
function scalars(curve: CurveName, n: number, dist: Dist): Uint8Array {
  const r = CURVES[curve].r;
  const bits = r.toString(2).length;
  const rBytes = le(r);
  const out = new Uint8Array(32 * n);
  const view = new DataView(out.buffer);
  const random = (off: number): void => {
    for (;;) {
      for (let w = 0; w < 8; w++) view.setUint32(off + 4 * w, rng.u32(), true);
      // keep `bits` bits, then reject ≥ r
      const topByte = Math.floor((bits - 1) / 8);
      out[off + topByte] &= (1 << (((bits - 1) % 8) + 1)) - 1;
      out.fill(0, off + topByte + 1, off + 32);
      // < r? compare bytes from the top
      let j = 31;
      while (j >= 0 && out[off + j] === rBytes[j]) j--;
      if (j >= 0 && out[off + j] < rBytes[j]) return;
    }
  };
  const rm1 = le(r - 1n);
  const one = new Uint8Array(32);
  const pool = new Uint8Array(32 * 32);
  random(0);
  one.set(out.subarray(0, 32));
  for (let k = 0; k < 32; k++) {
    random(0);
    pool.set(out.subarray(0, 32), 32 * k);
  }
  out.fill(0, 0, 32);
  for (let i = 0; i < n; i++) {
    const off = 32 * i;
    switch (dist) {
      case 'random':
        random(off);
        break;
      case 'identical':
        out.set(one, off);
        break;
      case 'distinct32': {
        const k = rng.int(32);
        out.set(pool.subarray(32 * k, 32 * k + 32), off);
        break;
      }
      case 'small':
        view.setUint32(off, rng.u32(), true);
        view.setUint32(off + 4, rng.u32(), true);
        break;
      case 'mostly-zero':
        if (rng.int(16) === 0) random(off);
        break;
      case 'r-1':
        out.set(rm1, off);
        break;
      case 'mixed': {
        const k = rng.int(4);
        if (k === 0) out.set(rm1, off);
        else if (k === 2) out[off] = 1;
        else if (k === 3) random(off);
        break;
      }
    }
  }
  return out;
}
const bigScalars = (ks: Uint8Array): bigint[] => Array.from({ length: ks.length / 32 }, (_, i) => fromLe(ks, 32 * i, 32));
function expected(curve: CurveName, P: Points, ks: Uint8Array): AffinePoint {
  const c = CURVES[curve];
  let e = 0n;
  for (let i = 0; i < P.dlogs.length; i++) e += fromLe(ks, 32 * i, 32) * P.dlogs[i];
  return scalarMul(c, e % c.r, c.generator);
}

async function run(curve: CurveName, P: Points, ks: Uint8Array, opts: Record<string, unknown> = {}): Promise<AffinePoint> {
  const ctx = await MsmContext.create(curve, P.bytes, { backend: 'cuda', validate: 'none', ...opts });
  try {
    return await ctx.msm(ks);
  } finally {
    ctx.close();
  }
}
async function cpu(curve: CurveName, P: Points, ks: Uint8Array): Promise<AffinePoint> {
  const ctx = await MsmContext.create(curve, P.bytes, { backend: 'cpu', validate: 'none' });
  try {
    return await ctx.msm(ks);
  } finally {
    ctx.close();
  }
}

d('CUDA field arithmetic (cuda/ff/ptx.cuh)', () => {
  test.each(CURVE_LIST)('%s: PTX mul/sqr/mul_add (lazy reduction) = host CIOS on random and edge values', (curve) => {
    const r = testing().gpuFieldSelftest(curve, 100000, rng.u32());
    expect(r).toBeDefined();
    expect(r!.first).toBe('');
    expect(r!.mismatches).toBe(0);
    expect(r!.checked).toBeGreaterThanOrEqual(400000);
  });
});

d.each(CURVE_LIST)('%s on CUDA', (curve) => {
  test('sizes 1 … 2^16+1, random scalars: = model = CPU backend (= noble)', async () => {
    for (const n of [1, 2, 3, 31, 32, 33, 1000, 1024, 4097, 65537]) {
      const P = points(curve, n);
      const ks = scalars(curve, n, 'random');
      const got = await run(curve, P, ks);
      expect({ n, got }).toEqual({ n, got: expected(curve, P, ks) });
      if (n >= 1000) expect(await cpu(curve, P, ks)).toEqual(got);
      if (n <= 33 && (NOBLE_CURVES as string[]).includes(curve)) {
        const pts = Array.from({ length: n }, (_, i) => affineAt(P, i));
        expect(nobleMsm(curve, pts, bigScalars(ks))).toEqual(got);
      }
    }
  });

  test('every scalar distribution, with infinity, duplicated and ±P points', async () => {
    for (const n of [4097, 65537]) {
      const P = points(curve, n, true);
      for (const dist of ['random', 'identical', 'distinct32', 'small', 'mostly-zero', 'r-1', 'mixed'] as Dist[]) {
        const ks = scalars(curve, n, dist);
        const got = await run(curve, P, ks);
        expect({ n, dist, got }).toEqual({ n, dist, got: expected(curve, P, ks) });
      }
    }
  });

  test('τ ∈ {0, 6, c−1} and several c, random and identical scalars', async () => {
    const n = 4097;
    const P = points(curve, n, true);
    for (const c of [7, 12, 16]) {
      for (const tau of [0, 6, c - 1]) {
        for (const dist of ['random', 'identical'] as Dist[]) {
          const ks = scalars(curve, n, dist);
          const got = await run(curve, P, ks, { windowBits: c, tau });
          expect({ c, tau, dist, got }).toEqual({ c, tau, dist, got: expected(curve, P, ks) });
        }
      }
    }
  });

  test('20 runs on one context are bit-identical; msmBatch = msm', async () => {
    const n = 65537;
    const P = points(curve, n);
    const ctx = await MsmContext.create(curve, P.bytes, { backend: 'cuda', validate: 'none' });
    try {
      const ks = scalars(curve, n, 'random');
      const first = await ctx.msm(ks);
      expect(first).toEqual(expected(curve, P, ks));
      for (let i = 0; i < 19; i++) expect(await ctx.msm(ks)).toEqual(first);
      const sets = [scalars(curve, n, 'random'), ks, scalars(curve, n, 'identical')];
      const batch = await ctx.msmBatch(sets);
      for (let k = 0; k < sets.length; k++) expect(batch[k]).toEqual(await ctx.msm(sets[k]));
    } finally {
      ctx.close();
    }
  });

  test('2^20 random: = model = CPU backend', async () => {
    const n = 1 << 20;
    const t0 = performance.now();
    const P = points(curve, n);
    const ks = scalars(curve, n, 'random');
    const got = await run(curve, P, ks);
    expect(got).toEqual(expected(curve, P, ks));
    expect(await cpu(curve, P, ks)).toEqual(got);
    log(`${curve} 2^20 done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });

  test('2^22 random and identical: = CPU backend', async () => {
    const n = 1 << 22;
    const c = CURVES[curve];
    const s = 1n + rng.below(c.r - 1n),
      t = 1n + rng.below(c.r - 1n);
    const bytes = testing().generatePoints(curve, n, le(s), le(t));
    const rand = scalars(curve, n, 'random');
    const same = scalars(curve, n, 'identical');
    const gpu = await MsmContext.create(curve, bytes, { backend: 'cuda', validate: 'none' });
    const host = await MsmContext.create(curve, bytes, { backend: 'cpu', validate: 'none' });
    try {
      for (const ks of [rand, same]) expect(await gpu.msm(ks)).toEqual(await host.msm(ks));
      log(`${curve} 2^22 done`);
    } finally {
      gpu.close();
      host.close();
    }
  });
});

// The accumulation modes: §5 constant time (constantTime: true) and §3.2 double-point homogeneous
// (accumulation: 'homogeneous'), each = model = CPU backend, so bit-identical to the default mode.
const MODES: { name: string; opts: Record<string, unknown> }[] = [
  { name: 'constant-time', opts: { constantTime: true } },
  { name: 'homogeneous', opts: { accumulation: 'homogeneous' } },
];
d.each(CURVE_LIST)('%s on CUDA: accumulation modes', (curve) => {
  test('every mode × scalar distribution, with infinity, duplicated and ±P points: = model = CPU', async () => {
    for (const n of [1, 33, 4097, 65537]) {
      const P = points(curve, n, n > 5);
      for (const dist of ['random', 'identical', 'distinct32', 'small', 'mostly-zero', 'r-1', 'mixed'] as Dist[]) {
        const ks = scalars(curve, n, dist);
        const want = expected(curve, P, ks);
        if (n === 65537) expect(await cpu(curve, P, ks)).toEqual(want);
        for (const m of MODES) expect({ n, dist, mode: m.name, got: await run(curve, P, ks, m.opts) }).toEqual({ n, dist, mode: m.name, got: want });
      }
    }
  });

  test('several c (and τ for the homogeneous mode, whose doublings are projective)', async () => {
    const n = 4097;
    const P = points(curve, n, true);
    for (const c of [4, 7, 12, 16]) {
      for (const dist of ['random', 'identical'] as Dist[]) {
        const ks = scalars(curve, n, dist);
        const want = expected(curve, P, ks);
        expect({ c, dist, got: await run(curve, P, ks, { windowBits: c, constantTime: true }) }).toEqual({ c, dist, got: want });
        for (const tau of [0, 6, c - 1].filter((t) => t < c)) {
          const got = await run(curve, P, ks, { windowBits: c, tau, accumulation: 'homogeneous' });
          expect({ c, tau, dist, got }).toEqual({ c, tau, dist, got: want });
        }
      }
    }
  });

  test('constant time needs τ = c − 1 and excludes the homogeneous mode; its context reports τ = c − 1', async () => {
    const P = points(curve, 1000);
    await expect(MsmContext.create(curve, P.bytes, { backend: 'cuda', constantTime: true, windowBits: 10, tau: 6 })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
    await expect(MsmContext.create(curve, P.bytes, { constantTime: true, accumulation: 'homogeneous' })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
    const ctx = await MsmContext.create(curve, P.bytes, { backend: 'cuda', constantTime: true });
    try {
      expect(ctx.tau).toBe(ctx.windowBits - 1);
      const sets = [scalars(curve, 1000, 'random'), scalars(curve, 1000, 'identical')];
      const batch = await ctx.msmBatch(sets);
      for (let k = 0; k < sets.length; k++) expect(batch[k]).toEqual(expected(curve, P, sets[k]));
    } finally {
      ctx.close();
    }
  });

  test('2^20 random and identical in both modes: = CPU backend', async () => {
    const n = 1 << 20;
    const P = points(curve, n);
    for (const dist of ['random', 'identical'] as Dist[]) {
      const ks = scalars(curve, n, dist);
      const want = await cpu(curve, P, ks);
      for (const m of MODES) expect({ dist, mode: m.name, got: await run(curve, P, ks, m.opts) }).toEqual({ dist, mode: m.name, got: want });
    }
    log(`${curve} 2^20 modes done`);
  });
});

d('CUDA contexts: concurrency and device memory', () => {
  test('concurrent calls on two contexts of one device are queued, each result exact', async () => {
    const curve: CurveName = 'bn254';
    const n = 4097;
    const P = points(curve, n);
    const [a, b] = await Promise.all([0, 1].map(() => MsmContext.create(curve, P.bytes, { backend: 'cuda', validate: 'none' })));
    try {
      const sets = Array.from({ length: 6 }, (_, i) => scalars(curve, n, i % 2 ? 'identical' : 'random'));
      const got = await Promise.all(sets.flatMap((ks) => [a.msm(ks), b.msm(ks)]));
      sets.forEach((ks, i) => {
        const want = expected(curve, P, ks);
        expect(got[2 * i]).toEqual(want);
        expect(got[2 * i + 1]).toEqual(want);
      });
    } finally {
      a.close();
      b.close();
    }
  });

  test('exhausting device memory rejects with ERR_CUDA_OOM, and the process goes on working', async () => {
    // BLS12-381 at 2^22 with the full 2^h·P table holds ~7 GiB per context: open contexts until
    // the device is full (bounded by its memory), then free them and compute again.
    const curve: CurveName = 'bls12-381';
    const n = 1 << 22;
    const P = points(curve, n);
    const total = inf.cuda.devices[0].totalMemory;
    const held: MsmContext[] = [];
    let oom: { code?: string; message?: string } | undefined;
    try {
      for (let i = 0; i < 64 && !oom; i++) {
        try {
          held.push(await MsmContext.create(curve, P.bytes, { backend: 'cuda', validate: 'none' }));
        } catch (e) {
          oom = e as { code?: string; message?: string };
        }
      }
      expect(oom?.code).toBe('ERR_CUDA_OOM');
      log(`ERR_CUDA_OOM after ${held.length} contexts (${(total / 2 ** 30).toFixed(0)} GiB device): ${oom?.message}`);
      expect(held.length).toBeGreaterThan(0);
      // The contexts that were created still compute, while the device is full.
      const ks = scalars(curve, n, 'random');
      const want = await cpu(curve, P, ks);
      expect(await held[held.length - 1].msm(ks)).toEqual(want);
    } finally {
      for (const ctx of held) ctx.close();
    }
    // Memory is back: a new context works.
    const small = points(curve, 1000);
    const ks = scalars(curve, 1000, 'random');
    expect(await run(curve, small, ks)).toEqual(expected(curve, small, ks));
  });
});
