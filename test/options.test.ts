// Every option's bad values through every backend ('cpu', 'cuda', 'auto') and every entry point
// (msm, MsmContext.create, a context's call options) reject with the same code, ERR_INVALID_OPTION
// naming the option (ERR_INVALID_ARGUMENT for options that are not an object), whether or not
// CUDA is usable here: the limits are the addon's static table (info().limits), checked before
// CUDA's availability. Then the addon's own re-check, called directly, rejects out-of-range
// values with ERR_INVALID_OPTION too. The option group: its values, the groups each backend runs
// (both run G1 and G2) and each curve has (G2: BN254 and BLS12-381).

import { bn254 } from '@noble/curves/bn254.js';
import fs = require('fs');
import path = require('path');
import { AUTO_CUDA_MIN_POINTS, CURVES, CURVE_NAMES, info, msm, MsmContext, MsmError, type BackendLimits, type G2AffinePoint, type MsmErrorCode } from '../lib';
import { encodePoints } from '../lib/encoding';
import { generatePoints } from '../lib/generate';
import { loadNative, type NativeContextOptions } from '../lib/native';
import { seededRng } from './support/data';

const rng = seededRng('options.test');
const c = CURVES.bn254;
// Fewer points than AUTO_CUDA_MIN_POINTS: 'auto' runs them on the CPU (on any machine) unless the
// accumulation mode needs CUDA.
const pts = generatePoints(c, 4, rng).points;
const ks = [1n, 2n, 3n, 4n];
const inf = info();
const limits = inf.limits!;
const BACKENDS = ['cpu', 'cuda', 'auto'] as const;
type Backend = (typeof BACKENDS)[number];
type Case = [Record<string, unknown>, RegExp];

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      if (v instanceof MsmContext) v.close();
      throw new Error('expected a rejection, but it resolved');
    },
    (e: unknown) => e,
  );
}

async function rejects(p: Promise<unknown>, code: MsmErrorCode, message?: RegExp): Promise<void> {
  const e = await rejection(p);
  expect(e).toBeInstanceOf(MsmError);
  expect({ code: (e as MsmError).code, message: (e as MsmError).message }).toEqual({ code, message: message ? expect.stringMatching(message) : expect.any(String) });
}

test('info().limits: both backends, reported whether or not CUDA is usable', () => {
  expect(inf.native.loaded).toBe(true);
  expect(Object.keys(limits).sort()).toEqual(['cpu', 'cuda']);
  for (const l of Object.values(limits) as BackendLimits[]) {
    expect(l.windowBits[0]).toBeGreaterThanOrEqual(1);
    expect(l.windowBits[1]).toBeGreaterThanOrEqual(l.windowBits[0]);
    expect(l.threads[0]).toBe(0);
    expect(l.maxPoints).toBeGreaterThan(AUTO_CUDA_MIN_POINTS);
    expect(l.accumulation).toContain('xyzz');
    if (l.tau) expect(l.tau[1]).toBeLessThan(l.windowBits[1]);
  }
  expect(limits.cpu.tau).toBeNull();
  expect(limits.cpu.accumulation).toEqual(['xyzz']);
  expect(limits.cpu.groups).toEqual(['g1', 'g2']);
  expect(limits.cuda.groups).toEqual(['g1', 'g2']);
  // the groups of each curve: the addon's, as CURVES says
  expect(inf.groups).toEqual(Object.fromEntries(CURVE_NAMES.map((n) => [n, [...CURVES[n].groups]])));
  expect(inf.groups).toMatchObject({ bn254: ['g1', 'g2'], 'bls12-381': ['g1', 'g2'], 'bls12-377': ['g1'], 'bls24-315': ['g1'] });
  expect([...limits.cuda.accumulation].sort()).toEqual(['constant-time', 'homogeneous', 'xyzz']);
  // a copy: callers cannot change what validation reads
  const mine = info().limits!;
  mine.cpu.windowBits[1] = 99;
  expect(info().limits!.cpu.windowBits[1]).toBe(limits.cpu.windowBits[1]);
});

test("the README's table of limits is info().limits", () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8').split('\n');
  const range = (r: [number, number] | null) => (r ? `[${r[0]}, ${r[1]}]` : '`null` (no τ)');
  for (const b of ['cpu', 'cuda'] as const) {
    const row = readme.find((line) => line.startsWith(`| \`${b}\` | [`));
    expect(row).toBeDefined();
    const [windowBits, tau, threads, maxPoints, modes, groups] = row!.split('|').slice(2, 8).map((x) => x.trim());
    const l = limits[b];
    const quoted = (v: string[]) => v.map((m) => `\`'${m}'\``).join(', ');
    expect({ windowBits, tau, threads, modes, groups }).toEqual({
      windowBits: range(l.windowBits),
      tau: range(l.tau),
      threads: range(l.threads),
      modes: quoted(l.accumulation),
      groups: quoted(l.groups),
    });
    expect(2 ** Number(/^2\^(\d+) − 1$/.exec(maxPoints)?.[1]) - 1).toBe(l.maxPoints);
  }
});

// Bad whatever the backend: the shape (type, enum), unknown names, and what excludes each other.
const SHAPE: Case[] = [
  [{ device: -1 }, /'device'.*non-negative integer/],
  [{ device: 1.5 }, /'device'/],
  [{ device: '0' }, /'device'/],
  [{ device: null }, /'device'/],
  [{ windowBits: 0 }, /'windowBits'.*positive integer/],
  [{ windowBits: -3 }, /'windowBits'/],
  [{ windowBits: 2.5 }, /'windowBits'/],
  [{ windowBits: '8' }, /'windowBits'/],
  [{ windowBits: NaN }, /'windowBits'/],
  [{ windowBits: Infinity }, /'windowBits'/],
  [{ windowBits: 2 ** 31 }, /'windowBits'.*below 2\^31/],
  [{ tau: -1 }, /'tau'/],
  [{ tau: 0.5 }, /'tau'/],
  [{ tau: '6' }, /'tau'/],
  [{ threads: -2 }, /'threads'/],
  [{ threads: 1.5 }, /'threads'/],
  [{ threads: 4n }, /'threads'.*4n/],
  [{ constantTime: 1 }, /'constantTime'.*boolean/],
  [{ constantTime: 'true' }, /'constantTime'/],
  [{ accumulation: 'jacobian' }, /'accumulation'.*'xyzz', 'homogeneous'/],
  [{ accumulation: 'constant-time' }, /'accumulation'.*'xyzz', 'homogeneous'/], // the resolved name is not an option value
  [{ accumulation: 1 }, /'accumulation'/],
  [{ accumulation: 'homogeneous', constantTime: true }, /'constantTime' and 'accumulation' 'homogeneous' exclude each other/],
  [{ validate: 'full' }, /'validate'/],
  [{ validate: true }, /'validate'/],
  [{ pointFormat: 'be' }, /'pointFormat'/],
  [{ scalarFormat: 'lem' }, /'scalarFormat'/],
  [{ group: 'G2' }, /'group'.*'g1', 'g2'/],
  [{ group: 'g3' }, /'group'.*'g1', 'g2'/],
  [{ group: 2 }, /'group'/],
  [{ group: null }, /'group'/],
  [{ window: 8 }, /unknown option 'window'/],
  [{ constant_time: true }, /unknown option 'constant_time'/],
];

// Bad on one backend: out of its row of info().limits, and the accumulation modes it lacks.
function outOfLimits(backend: 'cpu' | 'cuda'): Case[] {
  const l = limits[backend];
  const on = new RegExp(`on the ${backend} backend`);
  const named = (option: string) => new RegExp(`'${option}'.*${on.source}`);
  const cases: Case[] = [
    [{ windowBits: l.windowBits[1] + 1 }, named('windowBits')],
    [{ windowBits: 2 ** 31 - 1 }, named('windowBits')],
    [{ threads: l.threads[1] + 1 }, named('threads')],
  ];
  if (l.windowBits[0] > 1) cases.push([{ windowBits: l.windowBits[0] - 1 }, named('windowBits')]);
  if (l.tau) cases.push([{ tau: l.tau[1] + 1 }, named('tau')]);
  if (!l.accumulation.includes('homogeneous')) cases.push([{ accumulation: 'homogeneous' }, new RegExp(`'accumulation' 'homogeneous'.*backend is '${backend}'`)]);
  if (!l.accumulation.includes('constant-time')) cases.push([{ constantTime: true }, new RegExp(`'constantTime'.*backend is '${backend}'`)]);
  return cases;
}

// 'auto' runs these few points on the CPU, or on CUDA where the mode needs it: the limits of the
// backend it picks apply, CUDA's even where CUDA is unavailable.
function autoOutOfLimits(): Case[] {
  const cases = outOfLimits('cpu').filter(([o]) => !('accumulation' in o) && !('constantTime' in o));
  const cudaOnly = [
    { accumulation: 'homogeneous' },
    { constantTime: true },
  ].filter((m) => !limits.cpu.accumulation.includes('constantTime' in m ? 'constant-time' : 'homogeneous'));
  for (const mode of cudaOnly) {
    for (const [o, message] of outOfLimits('cuda')) if (!('accumulation' in o) && !('constantTime' in o)) cases.push([{ ...o, ...mode }, message]);
  }
  return cases;
}

const BAD: Record<Backend, Case[]> = {
  cpu: [...SHAPE, ...outOfLimits('cpu')],
  cuda: [...SHAPE, ...outOfLimits('cuda')],
  auto: [...SHAPE, ...autoOutOfLimits()],
};

describe.each(BACKENDS)("backend '%s'", (backend) => {
  test.each(BAD[backend])('bad option %p: ERR_INVALID_OPTION naming it', async (options, message) => {
    const o = { ...options, backend } as never;
    await rejects(msm('bn254', pts, ks, o), 'ERR_INVALID_OPTION', message);
    await rejects(MsmContext.create('bn254', pts, o), 'ERR_INVALID_OPTION', message);
    // packed input takes the same path
    await rejects(msm('bn254', encodePoints(c, pts), ks, o), 'ERR_INVALID_OPTION', message);
  });

  if (backend === 'cuda') (inf.cuda.available ? test : test.skip)('a device index beyond the devices: ERR_INVALID_OPTION (needs CUDA here)', async () => {
    const o = { backend, device: inf.cuda.devices.length };
    await rejects(msm('bn254', pts, ks, o), 'ERR_INVALID_OPTION', /'device'.*CUDA device index/);
    await rejects(MsmContext.create('bn254', pts, o), 'ERR_INVALID_OPTION', /'device'/);
  });

  test('options that are not an object: ERR_INVALID_ARGUMENT', async () => {
    for (const o of ['cpu', backend, 5, true, [backend]]) {
      await rejects(msm('bn254', pts, ks, o as never), 'ERR_INVALID_ARGUMENT', /options must be an object/);
      await rejects(MsmContext.create('bn254', pts, o as never), 'ERR_INVALID_ARGUMENT', /options must be an object/);
    }
  });

  test("a context's call options", async () => {
    // Where this backend is unusable here, no context of it exists, not even one of no points
    // (issue 10: ERR_CUDA_UNAVAILABLE whatever n is); the call options are those of any context,
    // checked under the other backends.
    if (backend === 'cuda' && !inf.cuda.available) {
      await rejects(MsmContext.create('bn254', [], { backend }), 'ERR_CUDA_UNAVAILABLE');
      await rejects(MsmContext.create('bn254', pts, { backend }), 'ERR_CUDA_UNAVAILABLE');
      return;
    }
    const ctx = await MsmContext.create('bn254', pts, { backend });
    const scalars = ks;
    try {
      const bad: Case[] = [
        [{ scalarFormat: 'lem' }, /'scalarFormat'/],
        [{ scalarFormat: 1 }, /'scalarFormat'/],
        [{ windowBits: 8 }, /unknown option 'windowBits' for a context call/],
        [{ backend }, /unknown option 'backend' for a context call/],
      ];
      for (const [o, message] of bad) {
        await rejects(ctx.msm(scalars, o as never), 'ERR_INVALID_OPTION', message);
        await rejects(ctx.msmBatch([scalars], o as never), 'ERR_INVALID_OPTION', message);
      }
      for (const o of ['montgomery', 1, [{}]]) {
        await rejects(ctx.msm(scalars, o as never), 'ERR_INVALID_ARGUMENT', /options must be an object/);
        await rejects(ctx.msmBatch([scalars], o as never), 'ERR_INVALID_ARGUMENT', /options must be an object/);
      }
    } finally {
      ctx.close();
    }
  });
});

test('the option backend itself', async () => {
  for (const b of ['gpu', 'CPU', 1, null]) {
    await rejects(msm('bn254', pts, ks, { backend: b } as never), 'ERR_INVALID_OPTION', /'backend'.*'auto', 'cuda', 'cpu'/);
    await rejects(MsmContext.create('bn254', pts, { backend: b } as never), 'ERR_INVALID_OPTION', /'backend'/);
  }
});

test('the bounds of the cpu row are accepted, and τ, which the CPU lacks, is ignored there', async () => {
  const [lo, hi] = limits.cpu.windowBits;
  for (const windowBits of [lo, hi]) {
    const ctx = await MsmContext.create('bn254', pts, { backend: 'cpu', windowBits, threads: 1 });
    expect(ctx.windowBits).toBe(windowBits);
    ctx.close();
  }
  await expect(msm('bn254', pts, ks, { backend: 'cpu', tau: 1000, threads: limits.cpu.threads[0] })).resolves.toBeDefined();
});

(inf.cuda.available ? test.skip : test)('without CUDA, valid cuda options still reach the availability check', async () => {
  await rejects(msm('bn254', pts, ks, { backend: 'cuda', windowBits: limits.cuda.windowBits[1] }), 'ERR_CUDA_UNAVAILABLE');
  await rejects(MsmContext.create('bn254', pts, { constantTime: true, windowBits: limits.cuda.windowBits[0] }), 'ERR_CUDA_UNAVAILABLE');
});

describe("the addon's re-check (createContext called directly)", () => {
  const native = loadNative();
  const bytes = encodePoints(c, pts);
  const base: NativeContextOptions = { backend: 'cpu', device: 0, windowBits: 0, tau: -1, accumulation: 'xyzz', threads: 0 };
  const create = (o: Record<string, unknown>) => native.createContext('bn254', bytes, 0, 1, { ...base, ...o } as NativeContextOptions);
  const cpu = limits.cpu;
  const cuda = limits.cuda;

  test.each([
    [{ windowBits: cpu.windowBits[1] + 1 }, /'windowBits'.*cpu backend/],
    [{ windowBits: -1 }, /'windowBits'/],
    [{ windowBits: 2.5 }, /'windowBits'/],
    [{ windowBits: '8' }, /'windowBits'/],
    [{ windowBits: 2 ** 31 }, /'windowBits'/],
    [{ threads: cpu.threads[1] + 1 }, /'threads'.*cpu backend/],
    [{ threads: -1 }, /'threads'/],
    [{ threads: NaN }, /'threads'/],
    [{ device: -1 }, /'device'/],
    [{ device: 'x' }, /'device'/],
    [{ devices: [0, 1] }, /'devices' is for the cuda backend/],
    [{ backend: 'cuda', devices: [] }, /'devices'/],
    [{ backend: 'cuda', devices: [0, 'x'] }, /'devices'/],
    [{ backend: 'cuda', devices: [1, 1] }, /'devices'.*distinct/],
    [{ backend: 'cuda', devices: [-1] }, /'devices'/],
    [{ tau: 0.5 }, /'tau'/],
    [{ accumulation: 'homogeneous' }, /'accumulation'.*cpu backend.*'homogeneous'/],
    [{ accumulation: 'constant-time' }, /'accumulation'.*cpu backend.*'constant-time'/],
    [{ accumulation: 'jacobian' }, /'accumulation'.*'xyzz', 'homogeneous' or 'constant-time'/],
    [{ accumulation: 0 }, /'accumulation'/],
    [{ backend: 'gpu' }, /'backend'.*'cpu' or 'cuda'/],
    [{ backend: 'auto' }, /'backend'/],
    // the cuda row is checked before availability, as in TypeScript
    [{ backend: 'cuda', windowBits: cuda.windowBits[1] + 1 }, /'windowBits'.*cuda backend/],
    [{ backend: 'cuda', windowBits: cuda.windowBits[0] - 1 }, /'windowBits'.*cuda backend/],
    [{ backend: 'cuda', tau: cuda.tau![1] + 1 }, /'tau'.*cuda backend/],
    [{ backend: 'cuda', threads: cuda.threads[1] + 1 }, /'threads'.*cuda backend/],
    [{ group: 'g3' }, /'group'.*'g1' or 'g2'/],
    [{ group: 2 }, /'group'/],
  ] as Case[])('%p: ERR_INVALID_OPTION', async (o, message) => {
    const e = (await rejection(create(o))) as { code?: string; message?: string };
    expect({ code: e.code, message: e.message }).toEqual({ code: 'ERR_INVALID_OPTION', message: expect.stringMatching(message) });
  });

  test('in range, it computes (τ ignored on the cpu)', async () => {
    const ctx = await create({ windowBits: cpu.windowBits[1], threads: 1, tau: 99 });
    expect(ctx.windowBits).toBe(cpu.windowBits[1]);
    ctx.close();
  });

  test("group 'g2': 4·F bytes a point, of the curves that have one", async () => {
    const g2 = encodePoints(c, g2Points, 'canonical', 'g2');
    const ctx = await native.createContext('bn254', g2, 0, 2, { ...base, group: 'g2' });
    expect(ctx.size).toBe(g2Points.length);
    expect((await ctx.msm(new Uint8Array(32 * g2Points.length), 0, true)).byteLength).toBe(4 * c.fieldBytes);
    ctx.close();
    for (const curve of ['bls12-377', 'bls24-315']) {
      const e = (await rejection(native.createContext(curve, new Uint8Array(0), 0, 1, { ...base, group: 'g2' }))) as { code?: string; message?: string };
      expect({ code: e.code, message: e.message }).toEqual({ code: 'ERR_INVALID_OPTION', message: expect.stringMatching(new RegExp(`'group' 'g2' is not available for curve '${curve}'`)) });
    }
    // a G2 point's bytes are 4·F: 2·F is no multiple
    const e = (await rejection(native.createContext('bn254', new Uint8Array(2 * c.fieldBytes), 0, 1, { ...base, group: 'g2' }))) as { code?: string };
    expect(e.code).toBe('ERR_INVALID_ARGUMENT');
  });
});

// Four points of BN254's G2.
const g2Points: G2AffinePoint[] = [1n, 2n, 3n, 4n].map((k) => {
  const a = bn254.G2.Point.BASE.multiply(k).toAffine();
  return { x: [a.x.c0, a.x.c1], y: [a.y.c0, a.y.c1] };
});

describe("the option group", () => {
  const packed = () => encodePoints(c, g2Points, 'canonical', 'g2');

  test("'g2' on every backend whose limits list it; on cuda, without CUDA, ERR_CUDA_UNAVAILABLE as for G1, n = 0 included", async () => {
    for (const backend of ['cpu', 'cuda'] as const) expect(limits[backend].groups).toContain('g2');
    if (inf.cuda.available) return; // test/gpu/g2.test.ts computes G2 on the device
    const o = { backend: 'cuda', group: 'g2' } as const;
    const message = /CUDA backend unavailable/;
    await rejects(msm('bn254', g2Points, ks, o), 'ERR_CUDA_UNAVAILABLE', message);
    await rejects(msm('bn254', packed(), ks, o), 'ERR_CUDA_UNAVAILABLE', message);
    await rejects(MsmContext.create('bn254', g2Points, o), 'ERR_CUDA_UNAVAILABLE', message);
    await rejects(MsmContext.create('bn254', g2Points, { group: 'g2', constantTime: true }), 'ERR_CUDA_UNAVAILABLE', message);
    await rejects(msm('bn254', [], [], o), 'ERR_CUDA_UNAVAILABLE', message);
    await rejects(MsmContext.create('bn254', new Uint8Array(0), o), 'ERR_CUDA_UNAVAILABLE', message);
    // the cuda row's limits apply to G2 as to G1, before the availability check
    await rejects(msm('bn254', g2Points, ks, { ...o, windowBits: limits.cuda.windowBits[1] + 1 }), 'ERR_INVALID_OPTION', /'windowBits'.*cuda backend/);
  });

  test("'g2' of a curve without one: ERR_INVALID_OPTION naming the curve, n = 0 included", async () => {
    for (const name of CURVE_NAMES.filter((n) => !CURVES[n].groups.includes('g2'))) {
      const message = new RegExp(`'group' 'g2' is not available for curve '${name}' \\(g2 curves: bn254, bls12-381\\)`);
      for (const backend of BACKENDS) {
        const o = { backend, group: 'g2' } as const;
        await rejects(msm(name, [], [], o), 'ERR_INVALID_OPTION', message);
        await rejects(msm(name, g2Points, ks, o), 'ERR_INVALID_OPTION', message);
        await rejects(msm(name, new Uint8Array(8 * CURVES[name].fieldBytes), ks.slice(0, 2), o), 'ERR_INVALID_OPTION', message);
        await rejects(MsmContext.create(name, [], o), 'ERR_INVALID_OPTION', message);
      }
    }
  });

  test("'g1' is the default, and 'auto' runs 'g2' as 'g1': on CUDA from AUTO_CUDA_MIN_POINTS points where it is available, else on the CPU with the CPU's limits", async () => {
    const g1 = await MsmContext.create('bn254', pts, { group: 'g1', backend: 'cpu' });
    expect([g1.group, await g1.msm(ks)]).toEqual(['g1', await msm('bn254', pts, ks, { backend: 'cpu' })]);
    g1.close();
    const many = Array.from({ length: AUTO_CUDA_MIN_POINTS }, (_, i) => g2Points[i % 4]);
    const ctx = await MsmContext.create('bn254', many, { group: 'g2' });
    expect([ctx.group, ctx.backend]).toEqual(['g2', inf.cuda.available ? 'cuda' : 'cpu']);
    ctx.close();
    const few = await MsmContext.create('bn254', g2Points, { group: 'g2' });
    expect([few.group, few.backend]).toEqual(['g2', 'cpu']);
    few.close();
    const auto = inf.cuda.available ? 'cuda' : 'cpu';
    await rejects(msm('bn254', many, many.map(() => 1n), { group: 'g2', windowBits: limits[auto].windowBits[1] + 1 }), 'ERR_INVALID_OPTION', new RegExp(`'windowBits'.*on the ${auto} backend`));
    // on the CPU the whole cpu row applies to G2 as to G1
    await expect(msm('bn254', g2Points, ks, { backend: 'cpu', group: 'g2', windowBits: limits.cpu.windowBits[1], threads: 1 })).resolves.toBeDefined();
  });
});
