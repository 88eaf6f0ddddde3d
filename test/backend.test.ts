// Backend selection (lib/backend.ts) and what the TypeScript layer hands the addon, checked
// against a recording fake of the native contract (lib/native.ts).

import type { NativeBinding, NativeContextOptions, NativeInfo } from '../lib/native';

const calls: { fn: string; args: unknown[] }[] = [];
let cudaAvailable = false;
// Not the addon's numbers: validation must read them from info().limits, not know its own.
const fakeLimits = (): NativeInfo['limits'] => ({
  cpu: { windowBits: [1, 12], tau: null, threads: [0, 8], maxPoints: 1000, accumulation: ['xyzz'], groups: ['g1', 'g2'] },
  cuda: { windowBits: [3, 10], tau: [0, 5], threads: [0, 6], maxPoints: 500, accumulation: ['xyzz', 'homogeneous', 'constant-time'], groups: ['g1', 'g2'] },
});
let limits = fakeLimits();

function fakeInfo(): NativeInfo {
  return {
    version: '0.0.0-fake',
    curves: [...CURVE_NAMES],
    groups: Object.fromEntries(CURVE_NAMES.map((n) => [n, [...CURVES[n].groups]])),
    cpu: { threads: 2 },
    cuda: {
      compiled: true,
      available: cudaAvailable,
      reason: cudaAvailable ? null : 'no CUDA device (fake)',
      runtimeVersion: 13000,
      driverVersion: cudaAvailable ? 13000 : 0,
      devices: cudaAvailable ? [{ index: 0, name: 'Fake GPU', computeCapability: '9.0', totalMemory: 80e9, multiProcessors: 132 }] : [],
    },
    limits,
  };
}

const fake: NativeBinding = {
  info: fakeInfo,
  copyBytes(bytes) {
    const copy = new Uint8Array(bytes);
    calls.push({ fn: 'copyBytes', args: [bytes, copy] });
    return copy;
  },
  async createContext(curve, points, pointFormat, validate, options, owned) {
    calls.push({ fn: 'createContext', args: [curve, points, pointFormat, validate, options, owned] });
    const fb = CURVES[curve as CurveName].fieldBytes;
    const pb = COORDINATES[options.group ?? 'g1'] * fb; // a point's bytes, and the result's
    const bytes = 'byteLength' in points ? points.byteLength : points.reduce((sum, p) => sum + p.byteLength, 0);
    return {
      size: bytes / pb,
      memory: { host: bytes, device: 0 },
      windowBits: options.windowBits || 7,
      tau: 0,
      async msm(scalars, fmt, checkRange, owned) {
        calls.push({ fn: 'msm', args: [scalars, fmt, checkRange, owned] });
        const out = new Uint8Array(pb);
        out[0] = 1;
        out[fb] = 2; // (1, 2); in G2, x = [1, 2], y = [0, 0]
        return out;
      },
      async msmBatch(sets, fmt, checkRange, owned) {
        calls.push({ fn: 'msmBatch', args: [sets, fmt, checkRange, owned] });
        return sets.map(() => new Uint8Array(pb));
      },
      close() {
        calls.push({ fn: 'close', args: [] });
      },
    };
  },
};

jest.mock('../lib/native', () => ({ loadNative: () => fake }));

import { AUTO_CUDA_MIN_POINTS, info, msm, MsmContext, MsmError, type G2AffinePoint } from '../lib';
import { chooseBackend } from '../lib/backend';
import { checkOptions } from '../lib/validate';
import { COORDINATES, encodePoints, encodeScalars } from '../lib/encoding';
import { generatePoints } from '../lib/generate';
import { Rng } from '../lib/random';
import { CURVES, CURVE_NAMES, type CurveName } from '../lib/curves';

const c = CURVES.bn254;
const pts = generatePoints(c, 3, new Rng(1)).points;

beforeEach(() => {
  calls.length = 0;
  cudaAvailable = false;
  limits = fakeLimits();
});

function thrown(f: () => unknown): MsmError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MsmError);
    return e as MsmError;
  }
  throw new Error('expected a throw');
}

describe('chooseBackend', () => {
  const big = AUTO_CUDA_MIN_POINTS;
  const auto = checkOptions({});
  test('auto: cuda only when available and n ≥ the threshold', () => {
    expect(chooseBackend(fake, big, auto)).toBe('cpu');
    cudaAvailable = true;
    expect(chooseBackend(fake, big, auto)).toBe('cuda');
    expect(chooseBackend(fake, big - 1, auto)).toBe('cpu');
  });
  test('explicit backends', () => {
    expect(chooseBackend(fake, 1, checkOptions({ backend: 'cpu' }))).toBe('cpu');
    expect(() => chooseBackend(fake, 1, checkOptions({ backend: 'cuda' }))).toThrow(/no CUDA device \(fake\)/);
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, checkOptions({ backend: 'cuda' }))).toBe('cuda');
  });
  test("accumulation 'homogeneous' needs cuda, whatever n", () => {
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, checkOptions({ accumulation: 'homogeneous' }))).toBe('cuda');
    cudaAvailable = false;
    expect(thrown(() => chooseBackend(fake, 1, checkOptions({ accumulation: 'homogeneous' }))).code).toBe('ERR_CUDA_UNAVAILABLE');
  });
  test('constantTime needs cuda, whatever n', () => {
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, checkOptions({ constantTime: true }))).toBe('cuda');
    cudaAvailable = false;
    expect(thrown(() => chooseBackend(fake, 1, checkOptions({ constantTime: true }))).code).toBe('ERR_CUDA_UNAVAILABLE');
  });
  test("group 'g2': 'auto' picks as for G1 (CUDA from the threshold, where available); backend 'cuda' without CUDA is ERR_CUDA_UNAVAILABLE", () => {
    const g2 = checkOptions({ group: 'g2' });
    expect(chooseBackend(fake, big, g2)).toBe('cpu');
    const e = thrown(() => chooseBackend(fake, 1, checkOptions({ group: 'g2', backend: 'cuda' })));
    expect([e.code, e.message]).toEqual(['ERR_CUDA_UNAVAILABLE', 'CUDA backend unavailable: no CUDA device (fake)']);
    cudaAvailable = true;
    expect(chooseBackend(fake, big, g2)).toBe('cuda');
    expect(chooseBackend(fake, big - 1, g2)).toBe('cpu');
    expect(chooseBackend(fake, 1, checkOptions({ group: 'g2', backend: 'cuda' }))).toBe('cuda');
    expect(chooseBackend(fake, 1, checkOptions({ group: 'g2', constantTime: true }))).toBe('cuda');
  });
  test("the table decides the groups: a row without g2 keeps 'auto' on the other backend and rejects it by name, available or not", () => {
    const g2 = checkOptions({ group: 'g2' });
    limits.cuda.groups = ['g1'];
    for (const available of [true, false]) {
      cudaAvailable = available;
      expect(chooseBackend(fake, big, g2)).toBe('cpu');
      const e = thrown(() => chooseBackend(fake, 1, checkOptions({ group: 'g2', backend: 'cuda' })));
      expect([e.code, e.message]).toEqual(['ERR_INVALID_OPTION', "option 'group' 'g2': G2 is not available on the cuda backend yet"]);
    }
    limits.cpu.groups = ['g1'];
    expect(thrown(() => chooseBackend(fake, 1, checkOptions({ group: 'g2', backend: 'cpu' }))).message).toMatch(/G2 is not available on the cpu backend/);
  });
  test("'auto' follows the table: a mode the cpu row lists stays on the CPU", () => {
    cudaAvailable = true;
    limits.cpu.accumulation = ['xyzz', 'homogeneous'];
    expect(chooseBackend(fake, 1, checkOptions({ accumulation: 'homogeneous' }))).toBe('cpu');
    expect(chooseBackend(fake, 1, checkOptions({ constantTime: true }))).toBe('cuda');
  });
  test('the resolved accumulation mode: one name for constantTime and accumulation', () => {
    expect(checkOptions({}).accumulation).toBe('xyzz');
    expect(checkOptions({ constantTime: false, accumulation: 'homogeneous' }).accumulation).toBe('homogeneous');
    expect(checkOptions({ constantTime: true }).accumulation).toBe('constant-time');
    expect(checkOptions({ constantTime: true, accumulation: 'xyzz' }).accumulation).toBe('constant-time');
  });
});

describe("options against info().limits of the backend that runs them", () => {
  test.each([
    ['cpu', { windowBits: 13 }, /'windowBits' must be an integer in \[1, 12\] on the cpu backend \(got 13\)/],
    ['cpu', { threads: 9 }, /'threads' must be an integer in \[0, 8\] on the cpu backend/],
    ['cpu', { constantTime: true }, /'constantTime' is supported by the cuda backend only \(backend is 'cpu'\)/],
    ['cpu', { accumulation: 'homogeneous' }, /'accumulation' 'homogeneous' is supported by the cuda backend only \(backend is 'cpu'\)/],
    ['cuda', { windowBits: 2 }, /'windowBits' must be an integer in \[3, 10\] on the cuda backend \(got 2\)/],
    ['cuda', { windowBits: 11 }, /'windowBits'.*\[3, 10\]/],
    ['cuda', { tau: 6 }, /'tau' must be an integer in \[0, 5\] on the cuda backend/],
    ['cuda', { threads: 7 }, /'threads'.*\[0, 6\] on the cuda backend/],
    ['auto', { windowBits: 13 }, /'windowBits'.*cpu backend/],
    ['auto', { constantTime: true, windowBits: 11 }, /'windowBits'.*cuda backend/],
    ['auto', { accumulation: 'homogeneous', tau: 6 }, /'tau'.*cuda backend/],
  ] as const)('%s %o: ERR_INVALID_OPTION, with or without CUDA', (backend, o, message) => {
    for (const available of [false, true]) {
      cudaAvailable = available;
      const e = thrown(() => chooseBackend(fake, 1, checkOptions({ ...o, backend })));
      expect([e.code, e.message]).toEqual(['ERR_INVALID_OPTION', expect.stringMatching(message)]);
    }
  });
  test('within the limits, and τ where the backend has none', () => {
    expect(chooseBackend(fake, 1, checkOptions({ backend: 'cpu', windowBits: 12, threads: 8, tau: 40 }))).toBe('cpu');
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, checkOptions({ backend: 'cuda', windowBits: 3, tau: 5, threads: 6 }))).toBe('cuda');
    // 'auto' checks the backend it picks: the cuda row does not apply to inputs the CPU runs
    expect(chooseBackend(fake, 1, checkOptions({ windowBits: 12 }))).toBe('cpu');
    expect(thrown(() => chooseBackend(fake, AUTO_CUDA_MIN_POINTS, checkOptions({ windowBits: 12 }))).message).toMatch(/cuda backend/);
  });
  test('more points than the backend takes: ERR_INVALID_ARGUMENT', () => {
    expect(chooseBackend(fake, 1000, checkOptions({ backend: 'cpu' }))).toBe('cpu');
    const e = thrown(() => chooseBackend(fake, 1001, checkOptions({ backend: 'cpu' })));
    expect([e.code, e.message]).toEqual(['ERR_INVALID_ARGUMENT', 'the cpu backend takes at most 1000 points per context (got 1001)']);
    expect(thrown(() => chooseBackend(fake, 501, checkOptions({ backend: 'cuda' }))).code).toBe('ERR_INVALID_ARGUMENT');
  });
  test('the device index, against the devices where CUDA is available', () => {
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, checkOptions({ backend: 'cuda', device: 0 }))).toBe('cuda');
    const e = thrown(() => chooseBackend(fake, 1, checkOptions({ backend: 'cuda', device: 1 })));
    expect([e.code, e.message]).toEqual(['ERR_INVALID_OPTION', "option 'device' must be a CUDA device index in [0, 0] (got 1)"]);
    // not on the cpu, which has no device
    expect(chooseBackend(fake, 1, checkOptions({ backend: 'cpu', device: 1 }))).toBe('cpu');
    // and not knowable where CUDA is not: unavailability is the error
    cudaAvailable = false;
    expect(thrown(() => chooseBackend(fake, 1, checkOptions({ backend: 'cuda', device: 1 }))).code).toBe('ERR_CUDA_UNAVAILABLE');
  });
  test('through msm() and MsmContext.create(), before any native work', async () => {
    await expect(msm('bn254', pts, [1n, 2n, 3n], { backend: 'cpu', windowBits: 13 })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
    await expect(MsmContext.create('bn254', pts, { backend: 'cuda', windowBits: 11 })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
    expect(calls).toEqual([]);
  });
});

test('info() reports backends and devices from the addon', () => {
  expect(info()).toMatchObject({ backends: ['cpu'], native: { loaded: true }, cuda: { available: false, reason: 'no CUDA device (fake)' } });
  cudaAvailable = true;
  const i = info();
  expect(i.backends).toEqual(['cuda', 'cpu']);
  expect(i.cuda.reason).toBeNull();
  expect(i.cuda.devices[0]).toMatchObject({ name: 'Fake GPU', computeCapability: '9.0' });
  expect(i.autoCudaMinPoints).toBe(AUTO_CUDA_MIN_POINTS);
  expect(i.limits).toEqual(fakeLimits());
  // a copy of the addon's table
  i.limits!.cpu.accumulation.push('homogeneous');
  expect(limits.cpu.accumulation).toEqual(['xyzz']);
});

test('msm(): options reach the addon as the contract says, and the context is closed', async () => {
  const res = await msm('bn254', pts, [1n, 2n, 3n], { windowBits: 9, threads: 1, validate: 'subgroup', backend: 'cpu' });
  expect(res).toEqual({ x: 1n, y: 2n });
  expect(calls.map((x) => x.fn)).toEqual(['createContext', 'msm', 'close']);
  const [curve, bytes, pf, validate, options, owned] = calls[0].args as [string, Uint8Array, number, number, NativeContextOptions, boolean];
  expect([curve, pf, validate, owned]).toEqual(['bn254', 0, 2, true]);
  expect(bytes).toEqual(encodePoints(c, pts));
  expect(options).toEqual({ backend: 'cpu', device: 0, windowBits: 9, tau: -1, accumulation: 'xyzz', threads: 1, group: 'g1' });
  // one accumulation name, from constantTime and accumulation
  cudaAvailable = true;
  await msm('bn254', pts, [1n, 2n, 3n], { constantTime: true });
  await msm('bn254', pts, [1n, 2n, 3n], { accumulation: 'homogeneous', backend: 'cuda' });
  const modes = calls.filter((x) => x.fn === 'createContext').map((x) => x.args[4] as NativeContextOptions);
  expect(modes.slice(1).map((o) => [o.backend, o.accumulation])).toEqual([
    ['cuda', 'constant-time'],
    ['cuda', 'homogeneous'],
  ]);
  // bigint scalars are range-checked in TS already; packed ones natively
  expect(calls[1].args).toEqual([encodeScalars(c, [1n, 2n, 3n]), 0, false, true]);
});

test("group 'g2': the option, x.c0‖x.c1‖y.c0‖y.c1 bytes and G2 results cross the contract", async () => {
  const g2 = [{ x: [1n, 2n], y: [3n, 4n] }, { x: [0n, 0n], y: [0n, 0n] }] as G2AffinePoint[];
  expect(await msm('bn254', g2, [1n, 2n], { group: 'g2', backend: 'cpu' })).toEqual({ x: [1n, 2n], y: [0n, 0n] });
  const [curve, bytes, , , options] = calls[0].args as [string, Uint8Array, number, number, NativeContextOptions];
  expect([curve, options.group, bytes]).toEqual(['bn254', 'g2', encodePoints(c, g2, 'canonical', 'g2')]);
  expect(bytes.subarray(0, 4 * c.fieldBytes).filter((b) => b !== 0)).toEqual(new Uint8Array([1, 2, 3, 4]));
  const ctx = await MsmContext.create('bn254', g2, { group: 'g2' });
  expect([ctx.group, ctx.size, ctx.backend]).toEqual(['g2', 2, 'cpu']);
  expect(await ctx.msmBatch([[1n, 2n]])).toEqual([{ x: [0n, 0n], y: [0n, 0n] }]);
  ctx.close();
  // no points: the group's infinity, nothing native
  calls.length = 0;
  expect(await msm('bn254', [], [], { group: 'g2' })).toEqual({ x: [0n, 0n], y: [0n, 0n] });
  expect(calls).toEqual([]);
});

test('packed inputs reach the addon (or are copied) before the call returns, with their formats; defaults', async () => {
  const P = encodePoints(c, pts, 'montgomery');
  const S = encodeScalars(c, [1n, 2n, 3n], 'montgomery');
  const pending = msm('bn254', P, S, { pointFormat: 'lem', scalarFormat: 'montgomery' });
  // before msm() returns: the points to the addon, which copies them (owned: false), and the
  // scalars copied (their context does not exist yet)
  expect(calls.map((x) => x.fn)).toEqual(['createContext', 'copyBytes']);
  expect(calls[0].args[1]).toBe(P);
  expect(calls[0].args.slice(2)).toEqual([1, 1, { backend: 'cpu', device: 0, windowBits: 0, tau: -1, accumulation: 'xyzz', threads: 0, group: 'g1' }, false]);
  expect(calls[1].args[0]).toBe(S);
  const copyS = calls[1].args[1];
  await pending;
  expect(calls.map((x) => x.fn)).toEqual(['createContext', 'copyBytes', 'msm', 'close']);
  // the copy, handed over (owned)
  expect(calls[2].args[0]).toBe(copyS);
  expect(calls[2].args).toEqual([S, 1, true, true]);
  // a context's packed scalars go to the addon before ctx.msm() returns, which copies them
  calls.length = 0;
  const ctx = await MsmContext.create('bn254', P, { pointFormat: 'lem' });
  const inflight = ctx.msm(S, { scalarFormat: 'montgomery' });
  expect(calls.map((x) => x.fn)).toEqual(['createContext', 'msm']);
  expect(calls[1].args).toEqual([S, 1, true, false]);
  expect(calls[1].args[0]).toBe(S);
  await inflight;
  ctx.close();
});

test('points in parts reach the addon before the call returns, as a list of its own, copied there (owned: false)', async () => {
  const P = encodePoints(c, pts, 'montgomery');
  const parts = [P.subarray(0, 64), P.subarray(64, 64), P.subarray(64)];
  const S = encodeScalars(c, [1n, 2n, 3n]);
  const pending = msm('bn254', parts, S, { pointFormat: 'lem' });
  expect(calls.map((x) => x.fn)).toEqual(['createContext', 'copyBytes']);
  const given = calls[0].args[1] as Uint8Array[];
  expect(given).not.toBe(parts); // a snapshot: what is done to the caller's list afterwards cannot reach it
  expect(given).toHaveLength(3);
  given.forEach((p, i) => expect(p).toBe(parts[i]));
  expect(calls[0].args.slice(2)).toEqual([1, 1, { backend: 'cpu', device: 0, windowBits: 0, tau: -1, accumulation: 'xyzz', threads: 0, group: 'g1' }, false]);
  await pending;
  calls.length = 0;
  const ctx = await MsmContext.create('bn254', parts, { pointFormat: 'lem' });
  expect(calls.map((x) => x.fn)).toEqual(['createContext']);
  expect(calls[0].args[5]).toBe(false);
  expect(ctx.size).toBe(3);
  ctx.close();
});

test('the context is closed when the native msm fails', async () => {
  const ctxCalls: string[] = [];
  const orig = fake.createContext;
  fake.createContext = async (...a) => {
    const ctx = await orig(...a);
    return { ...ctx, msm: async () => Promise.reject(Object.assign(new Error('boom'), { code: 'ERR_CUDA_OOM' })), close: () => ctxCalls.push('close') };
  };
  try {
    await expect(msm('bn254', pts, [1n, 2n, 3n])).rejects.toMatchObject({ code: 'ERR_CUDA_OOM', message: 'boom' });
    expect(ctxCalls).toEqual(['close']);
    // an error without a known code becomes ERR_INTERNAL
    fake.createContext = async () => Promise.reject(new TypeError('weird'));
    const e = await msm('bn254', pts, [1n, 2n, 3n]).catch((x) => x);
    expect(e).toBeInstanceOf(MsmError);
    expect(e.code).toBe('ERR_INTERNAL');
    expect(e.stack).toMatch(/backend\.test\.ts/); // the caller's stack, captured before the await
  } finally {
    fake.createContext = orig;
  }
});

test('MsmContext: calls, batch, close', async () => {
  cudaAvailable = true;
  const ctx = await MsmContext.create('bn254', pts, { backend: 'cuda' });
  expect([ctx.size, ctx.backend, ctx.windowBits, ctx.closed]).toEqual([3, 'cuda', 7, false]);
  expect(await ctx.msm([1n, 2n, 3n])).toEqual({ x: 1n, y: 2n });
  const S = encodeScalars(c, [1n, 2n, 3n]);
  expect(await ctx.msmBatch([[1n, 2n, 3n], S])).toEqual([
    { x: 0n, y: 0n },
    { x: 0n, y: 0n },
  ]);
  const batch = calls.find((x) => x.fn === 'msmBatch')!;
  expect(batch.args[2]).toBe(true); // one packed set: all are range-checked natively
  expect(batch.args[3]).toBe(true); // owned: an encoding and a copy
  const copied = calls.find((x) => x.fn === 'copyBytes')!;
  expect(copied.args[0]).toBe(S);
  expect((batch.args[0] as Uint8Array[])[1]).toBe(copied.args[1]);
  // packed sets only: to the addon as they are, before msmBatch() returns (the addon copies them)
  calls.length = 0;
  const inflight = ctx.msmBatch([S, S]);
  expect(calls.map((x) => x.fn)).toEqual(['msmBatch']);
  expect(calls[0].args[0]).toEqual([S, S]);
  expect(calls[0].args.slice(1)).toEqual([0, true, false]);
  await inflight;
  await expect(ctx.msmBatch([[1n, 2n, 3n], [1n]])).rejects.toMatchObject({ code: 'ERR_LENGTH_MISMATCH', message: /scalar set 1/ });
  ctx.close();
  ctx.close();
  expect(calls.filter((x) => x.fn === 'close')).toHaveLength(1);
  await expect(ctx.msm([1n, 2n, 3n])).rejects.toMatchObject({ code: 'ERR_CONTEXT_CLOSED' });
  await expect(ctx.msmBatch([])).rejects.toMatchObject({ code: 'ERR_CONTEXT_CLOSED' });
});

test('no points: CUDA asked for is checked as for n > 0; otherwise nothing native runs', async () => {
  const empties = [
    () => msm('bn254', [], [], { backend: 'cuda' }),
    () => msm('bn254', new Uint8Array(0), new Uint8Array(0), { constantTime: true }),
    () => msm('bn254', [], [], { accumulation: 'homogeneous' }),
    () => MsmContext.create('bn254', [], { backend: 'cuda' }),
    () => MsmContext.create('bn254', new Uint8Array(0), { constantTime: true }),
  ];
  for (const f of empties) await expect(f()).rejects.toMatchObject({ code: 'ERR_CUDA_UNAVAILABLE' });
  // the limits of the backend asked for, as for n > 0
  await expect(msm('bn254', [], [], { backend: 'cuda', windowBits: 11 })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
  await expect(msm('bn254', [], [], { backend: 'cpu', constantTime: true })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
  cudaAvailable = true;
  for (const f of empties.slice(0, 3)) await expect(f()).resolves.toEqual({ x: 0n, y: 0n });
  const ctx = await MsmContext.create('bn254', [], { backend: 'cuda' });
  expect([ctx.size, ctx.backend]).toEqual([0, null]);
  await expect(ctx.msm([])).resolves.toEqual({ x: 0n, y: 0n });
  // nothing was created or copied
  expect(calls).toEqual([]);
  // the default options need no addon at all (test/validate.test.ts runs them without one)
  cudaAvailable = false;
  await expect(msm('bn254', [], [], { backend: 'cpu', windowBits: 13 })).resolves.toEqual({ x: 0n, y: 0n });
  await expect(msm('bn254', [], [])).resolves.toEqual({ x: 0n, y: 0n });
});
