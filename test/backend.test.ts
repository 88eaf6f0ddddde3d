// Backend selection (lib/backend.ts) and what the TypeScript layer hands the addon, checked
// against a recording fake of the native contract (lib/native.ts).

import type { NativeBinding, NativeContextOptions, NativeInfo } from '../lib/native';

const calls: { fn: string; args: unknown[] }[] = [];
let cudaAvailable = false;

function fakeInfo(): NativeInfo {
  return {
    version: '0.0.0-fake',
    curves: [...CURVE_NAMES],
    cpu: { threads: 2 },
    cuda: {
      compiled: true,
      available: cudaAvailable,
      reason: cudaAvailable ? null : 'no CUDA device (fake)',
      runtimeVersion: 13000,
      driverVersion: cudaAvailable ? 13000 : 0,
      devices: cudaAvailable ? [{ index: 0, name: 'Fake GPU', computeCapability: '9.0', totalMemory: 80e9, multiProcessors: 132 }] : [],
    },
  };
}

const fake: NativeBinding = {
  info: fakeInfo,
  async createContext(curve, points, pointFormat, validate, options) {
    calls.push({ fn: 'createContext', args: [curve, points, pointFormat, validate, options] });
    const fb = CURVES[curve as CurveName].fieldBytes;
    return {
      size: points.byteLength / (2 * fb),
      memory: { host: points.byteLength, device: 0 },
      windowBits: options.windowBits || 7,
      tau: 0,
      async msm(scalars, fmt, checkRange) {
        calls.push({ fn: 'msm', args: [scalars, fmt, checkRange] });
        const out = new Uint8Array(2 * fb);
        out[0] = 1;
        out[fb] = 2; // (1, 2)
        return out;
      },
      async msmBatch(sets, fmt, checkRange) {
        calls.push({ fn: 'msmBatch', args: [sets, fmt, checkRange] });
        return sets.map(() => new Uint8Array(2 * fb));
      },
      close() {
        calls.push({ fn: 'close', args: [] });
      },
    };
  },
};

jest.mock('../lib/native', () => ({ loadNative: () => fake }));

import { AUTO_CUDA_MIN_POINTS, info, msm, MsmContext, MsmError } from '../lib';
import { chooseBackend } from '../lib/backend';
import { encodePoints, encodeScalars } from '../lib/encoding';
import { generatePoints } from '../lib/generate';
import { Rng } from '../lib/random';
import { CURVES, CURVE_NAMES, type CurveName } from '../lib/curves';

const c = CURVES.bn254;
const pts = generatePoints(c, 3, new Rng(1)).points;

beforeEach(() => {
  calls.length = 0;
  cudaAvailable = false;
});

describe('chooseBackend', () => {
  const big = AUTO_CUDA_MIN_POINTS;
  test('auto: cuda only when available and n ≥ the threshold', () => {
    expect(chooseBackend(fake, big, { backend: 'auto', constantTime: false, accumulation: 'xyzz' })).toBe('cpu');
    cudaAvailable = true;
    expect(chooseBackend(fake, big, { backend: 'auto', constantTime: false, accumulation: 'xyzz' })).toBe('cuda');
    expect(chooseBackend(fake, big - 1, { backend: 'auto', constantTime: false, accumulation: 'xyzz' })).toBe('cpu');
  });
  test('explicit backends', () => {
    expect(chooseBackend(fake, 1, { backend: 'cpu', constantTime: false, accumulation: 'xyzz' })).toBe('cpu');
    expect(() => chooseBackend(fake, 1, { backend: 'cuda', constantTime: false, accumulation: 'xyzz' })).toThrow(/no CUDA device \(fake\)/);
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, { backend: 'cuda', constantTime: false, accumulation: 'xyzz' })).toBe('cuda');
  });
  test("accumulation 'homogeneous' needs cuda, whatever n", () => {
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, { backend: 'auto', constantTime: false, accumulation: 'homogeneous' })).toBe('cuda');
    cudaAvailable = false;
    expect(() => chooseBackend(fake, 1, { backend: 'auto', constantTime: false, accumulation: 'homogeneous' })).toThrow(MsmError);
  });
  test('constantTime needs cuda, whatever n', () => {
    cudaAvailable = true;
    expect(chooseBackend(fake, 1, { backend: 'auto', constantTime: true, accumulation: 'xyzz' })).toBe('cuda');
    cudaAvailable = false;
    let err: unknown;
    try {
      chooseBackend(fake, 1, { backend: 'auto', constantTime: true, accumulation: 'xyzz' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MsmError);
    expect((err as MsmError).code).toBe('ERR_CUDA_UNAVAILABLE');
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
});

test('msm(): options reach the addon as the contract says, and the context is closed', async () => {
  const res = await msm('bn254', pts, [1n, 2n, 3n], { windowBits: 9, threads: 1, validate: 'subgroup', backend: 'cpu' });
  expect(res).toEqual({ x: 1n, y: 2n });
  expect(calls.map((x) => x.fn)).toEqual(['createContext', 'msm', 'close']);
  const [curve, bytes, pf, validate, options] = calls[0].args as [string, Uint8Array, number, number, NativeContextOptions];
  expect([curve, pf, validate]).toEqual(['bn254', 0, 2]);
  expect(bytes).toEqual(encodePoints(c, pts));
  expect(options).toEqual({ backend: 'cpu', device: 0, windowBits: 9, tau: -1, accumulation: 'xyzz', threads: 1 });
  // bigint scalars are range-checked in TS already; packed ones natively
  expect(calls[1].args).toEqual([encodeScalars(c, [1n, 2n, 3n]), 0, false]);
});

test('packed inputs pass through with their formats; defaults', async () => {
  const P = encodePoints(c, pts, 'montgomery');
  const S = encodeScalars(c, [1n, 2n, 3n], 'montgomery');
  await msm('bn254', P, S, { pointFormat: 'lem', scalarFormat: 'montgomery' });
  expect(calls[0].args.slice(2)).toEqual([1, 1, { backend: 'cpu', device: 0, windowBits: 0, tau: -1, accumulation: 'xyzz', threads: 0 }]);
  expect(calls[0].args[1]).toBe(P);
  expect(calls[1].args).toEqual([S, 1, true]);
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
  await expect(ctx.msmBatch([[1n, 2n, 3n], [1n]])).rejects.toMatchObject({ code: 'ERR_LENGTH_MISMATCH', message: /scalar set 1/ });
  ctx.close();
  ctx.close();
  expect(calls.filter((x) => x.fn === 'close')).toHaveLength(1);
  await expect(ctx.msm([1n, 2n, 3n])).rejects.toMatchObject({ code: 'ERR_CONTEXT_CLOSED' });
  await expect(ctx.msmBatch([])).rejects.toMatchObject({ code: 'ERR_CONTEXT_CLOSED' });
});
