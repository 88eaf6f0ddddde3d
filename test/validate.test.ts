// The validation layer: every error a bad argument can cause before native code runs. The addon
// is replaced by one that throws when loaded, so each case here proves that the check happens in
// TypeScript, before any native work (and that empty input needs no native code at all).

jest.mock('../lib/native', () => ({
  loadNative: () => {
    throw new Error('native code touched');
  },
}));

import { CURVES, info, msm, MsmContext, MsmError, type MsmErrorCode } from '../lib';
import { encodePoints } from '../lib/encoding';
import { generatePoints } from '../lib/generate';
import { seededRng } from './support/data';

const rng = seededRng('validate.test');
const c = CURVES.bn254;
const pts = generatePoints(c, 4, rng).points;
const ks = [1n, 2n, 3n, 4n];

async function rejects(p: Promise<unknown>, code: MsmErrorCode, opts: { index?: number; message?: RegExp } = {}): Promise<MsmError> {
  const err = await p.then(
    () => {
      throw new Error(`expected ${code}, but it resolved`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MsmError);
  const e = err as MsmError;
  expect(e.code).toBe(code);
  expect(e.name).toBe('MsmError');
  expect(e.index).toBe(opts.index);
  if (opts.message) expect(e.message).toMatch(opts.message);
  return e;
}

test('empty input resolves to infinity without native code', async () => {
  await expect(msm('bn254', [], [])).resolves.toEqual({ x: 0n, y: 0n });
  await expect(msm('bls12-381', new Uint8Array(0), new Uint8Array(0))).resolves.toEqual({ x: 0n, y: 0n });
  const ctx = await MsmContext.create('bls12-377', []);
  expect(ctx.size).toBe(0);
  expect(ctx.backend).toBeNull();
  await expect(ctx.msm([])).resolves.toEqual({ x: 0n, y: 0n });
  await expect(ctx.msmBatch([[], new Uint8Array(0)])).resolves.toEqual([
    { x: 0n, y: 0n },
    { x: 0n, y: 0n },
  ]);
  ctx.close();
  await rejects(ctx.msm([]), 'ERR_CONTEXT_CLOSED');
});

test('unknown curve', async () => {
  await rejects(msm('secp256k1' as never, pts, ks), 'ERR_UNKNOWN_CURVE', { message: /secp256k1.*bn254/ });
  await rejects(MsmContext.create(42 as never, pts), 'ERR_UNKNOWN_CURVE');
});

// The shape of each option (test/options.test.ts drives them through every backend).
test.each([
  [{ backend: 'gpu' }, /'backend'.*'auto', 'cuda', 'cpu'.*'gpu'/],
  [{ device: -1 }, /'device'/],
  [{ device: 1.5 }, /'device'/],
  [{ devices: 'some' }, /'devices'.*'all' or a non-empty array/],
  [{ devices: [] }, /'devices'/],
  [{ devices: [0, 0] }, /'devices'.*distinct/],
  [{ devices: [0, -1] }, /'devices\[1\]'/],
  [{ devices: [0, 1.5] }, /'devices\[1\]'/],
  [{ devices: [0], device: 1 }, /'device' and 'devices' exclude each other/],
  [{ devices: new Proxy([0], { get: (t, k) => (k === 'length' ? -1 : Reflect.get(t, k)) }) }, /'devices'/],
  [{ windowBits: 0 }, /'windowBits'/],
  [{ windowBits: 2 ** 31 }, /'windowBits'/],
  [{ tau: '6' }, /'tau'/],
  [{ constantTime: 1 }, /'constantTime'/],
  [{ accumulation: 'jacobian' }, /'accumulation'.*'xyzz', 'homogeneous'/],
  [{ accumulation: 'homogeneous', constantTime: true }, /exclude each other/],
  [{ validate: 'full' }, /'validate'/],
  [{ pointFormat: 'be' }, /'pointFormat'/],
  [{ scalarFormat: 'lem' }, /'scalarFormat'/],
  [{ threads: -2 }, /'threads'/],
  [{ window: 8 }, /unknown option 'window'/],
])('bad option %o', async (options, message) => {
  await rejects(msm('bn254', pts, ks, options as never), 'ERR_INVALID_OPTION', { message });
  await rejects(MsmContext.create('bn254', pts, options as never), 'ERR_INVALID_OPTION', { message });
});

// A backend's limits (windowBits 31, the accumulation modes it lacks…) are the addon's table
// (info().limits): without an addon there is no backend to check them against.
test.each([{ windowBits: 31 }, { backend: 'cpu', constantTime: true }, { backend: 'cpu', accumulation: 'homogeneous' }])('in shape, %o needs the addon', async (options) => {
  await rejects(msm('bn254', pts, ks, options as never), 'ERR_NATIVE_UNAVAILABLE');
});

test('options must be an object', async () => {
  await rejects(msm('bn254', pts, ks, 'cpu' as never), 'ERR_INVALID_ARGUMENT');
});

test('format options apply to packed input only', async () => {
  await rejects(msm('bn254', pts, ks, { pointFormat: 'lem' }), 'ERR_INVALID_OPTION', { message: /pointFormat/ });
  await rejects(msm('bn254', pts, ks, { scalarFormat: 'montgomery' }), 'ERR_INVALID_OPTION', { message: /scalarFormat/ });
});

test('points: wrong shapes name the index', async () => {
  await rejects(msm('bn254', 'points' as never, ks), 'ERR_INVALID_ARGUMENT');
  await rejects(msm('bn254', [pts[0], { x: 1, y: 2n }, ...pts.slice(2)] as never, ks), 'ERR_INVALID_ARGUMENT', { index: 1 });
  await rejects(msm('bn254', [pts[0], pts[1], null, pts[3]] as never, ks), 'ERR_INVALID_ARGUMENT', { index: 2 });
  await rejects(msm('bn254', new Uint8Array(65), new Uint8Array(32)), 'ERR_INVALID_ARGUMENT', { message: /multiple of 64/ });
  await rejects(msm('bls12-381', new Uint8Array(64), new Uint8Array(32)), 'ERR_INVALID_ARGUMENT', { message: /multiple of 96/ });
  await rejects(msm('bls24-315', new Uint8Array(96), new Uint8Array(32)), 'ERR_INVALID_ARGUMENT', { message: /multiple of 80/ });
});

test('points: coordinates outside [0, p) are ERR_POINT_ENCODING with the index', async () => {
  const bad = [...pts];
  bad[3] = { x: pts[3].x, y: c.p };
  await rejects(msm('bn254', bad, ks), 'ERR_POINT_ENCODING', { index: 3 });
  bad[3] = { x: -1n, y: pts[3].y };
  await rejects(MsmContext.create('bn254', bad), 'ERR_POINT_ENCODING', { index: 3 });
});

test('scalars: range, type and count', async () => {
  await rejects(msm('bn254', pts, [1n, c.r, 3n, 4n]), 'ERR_SCALAR_RANGE', { index: 1, message: /scalars\[1\]/ });
  await rejects(msm('bn254', pts, [1n, 2n, -1n, 4n]), 'ERR_SCALAR_RANGE', { index: 2 });
  await rejects(msm('bn254', pts, [1n, 2n, 3n, 4] as never), 'ERR_INVALID_ARGUMENT', { index: 3, message: /scalars\[3\].*bigint.*number/ });
  await rejects(msm('bn254', pts, [1n, 2n, 3n]), 'ERR_LENGTH_MISMATCH', { message: /3 scalars for 4 points/ });
  await rejects(msm('bn254', pts, new Uint8Array(96)), 'ERR_LENGTH_MISMATCH');
  await rejects(msm('bn254', encodePoints(c, pts), [1n]), 'ERR_LENGTH_MISMATCH');
  await rejects(msm('bn254', pts, 5n as never), 'ERR_INVALID_ARGUMENT');
  // range is checked on bigints even when one of them is right at r − 1
  await rejects(msm('bn254', pts, [c.r - 1n, c.r - 1n, c.r - 1n, c.r + 1n]), 'ERR_SCALAR_RANGE', { index: 3 });
});

test('the order of checks: curve, options, points, scalars', async () => {
  await rejects(msm('nope' as never, 'x' as never, 'y' as never, { bad: 1 } as never), 'ERR_UNKNOWN_CURVE');
  await rejects(msm('bn254', 'x' as never, 'y' as never, { bad: 1 } as never), 'ERR_INVALID_OPTION');
  await rejects(msm('bn254', 'x' as never, 'y' as never), 'ERR_INVALID_ARGUMENT', { message: /^points/ });
});

test('the stack of an async rejection points at the caller', async () => {
  const e = await rejects(msm('bn254', pts, [1n]), 'ERR_LENGTH_MISMATCH');
  expect(e.stack).toMatch(/validate\.test\.ts/);
});

test('info() without an addon says why and lists no backend', () => {
  const i = info();
  expect(i.native.loaded).toBe(false);
  expect(i.native.error).toMatch(/native code touched/);
  expect(i.backends).toEqual([]);
  expect(i.limits).toBeNull();
  expect(i.cuda.available).toBe(false);
  expect(i.cuda.reason).toMatch(/could not be loaded/);
});

test('valid input with no addon is ERR_NATIVE_UNAVAILABLE', async () => {
  await rejects(msm('bn254', pts, ks), 'ERR_NATIVE_UNAVAILABLE', { message: /native code touched/ });
});
