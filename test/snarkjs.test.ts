// msm-cuda/snarkjs (lib/snarkjs.ts): snarkjs's own provers, with their MSMs on msm-cuda (CPU
// backend: there is no GPU here) and their Fr transforms on its threads, make real proofs that
// snarkjs verifies: Groth16 and PLONK on BN254 and BLS12-381, FFLONK on BN254. The keys are
// committed (test/vectors/snarkjs/, made once by make-fixtures.js, which also found that snarkjs
// 0.7.6 cannot prove FFLONK on BLS12-381: its own prover, without msm-cuda, fails with
// "Polynomial is not divisible"); the circuit's witness generator is compiled here by circom2
// when missing (circuit.js). The Fr transforms alone: test/snarkjs-field.test.ts.
// Then the hook itself: its results against snarkjs's own multiExpAffine on the same input (G1
// and G2, infinity, zero scalars, BigBuffers, every fallback), a powers-of-tau ceremony and its
// verification (odd MSMs), install/uninstall/terminate()/singleThread, the resident bases (no
// new context for a second proof, the budget, concurrent proofs), G2 through a stand-in for the
// `group: 'g2'` API where this build has none, and snarkjs's ES module build and CLI.

import { pippenger } from '@noble/curves/abstract/curve.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { execFileSync } from 'child_process';
import fs = require('fs');
import os = require('os');
import path = require('path');
import { CURVES, MsmError } from '../lib';
import { MsmContext } from '../lib/context';
import { bytesToBigintLE, modInverse } from '../lib/encoding';
import * as hook from '../lib/snarkjs';

// CommonJS builds, as `require('snarkjs')` and the snarkjs CLI load them
// eslint-disable-next-line @typescript-eslint/no-require-imports
const snarkjs = require('snarkjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ff = require('ffjavascript');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureCircuit } = require('./vectors/snarkjs/circuit');

type Proto = 'groth16' | 'plonk' | 'fflonk';
type SnarkCurve = 'bn254' | 'bls12-381';
const FX = path.join(__dirname, 'vectors', 'snarkjs');
const fixture = (c: SnarkCurve, f: string) => path.join(FX, c, f);
const INPUT = { a: 3, b: 5 };
const ORIGINAL = Symbol.for('msm-cuda.snarkjs.original');
const BUILD = { bn254: 'buildBn128', 'bls12-381': 'buildBls12381' } as const;
const GLOBAL = { bn254: 'curve_bn128', 'bls12-381': 'curve_bls12381' } as const;

// An ffjavascript curve and group, as far as these tests use them.
interface Group {
  F: { n8: number };
  g: Uint8Array;
  zero: Uint8Array;
  zeroAffine: Uint8Array;
  add(a: Uint8Array, b: Uint8Array): Uint8Array;
  timesScalar(a: Uint8Array, k: Uint8Array): Uint8Array;
  toAffine(a: Uint8Array): Uint8Array;
  toRprLEM(buf: Uint8Array, off: number, a: Uint8Array): void;
  multiExpAffine(...args: unknown[]): Promise<Uint8Array>;
}
interface FfCurve {
  G1: Group;
  G2: Group;
  Fr: { random(): Uint8Array; fromMontgomery(a: Uint8Array): Uint8Array };
  terminate(): Promise<void>;
}

const wasm: Partial<Record<SnarkCurve, string>> = {};
beforeAll(() => {
  for (const c of ['bn254', 'bls12-381'] as const) wasm[c] = ensureCircuit(c).wasm;
}, 120000);

async function prove(p: Proto, c: SnarkCurve, proverOptions?: object) {
  return snarkjs[p].fullProve(INPUT, wasm[c], fixture(c, `${p}.zkey`), undefined, undefined, proverOptions);
}
async function verifies(p: Proto, c: SnarkCurve, r: { proof: unknown; publicSignals: unknown }): Promise<boolean> {
  const vkey = JSON.parse(fs.readFileSync(fixture(c, `${p}.vkey.json`), 'utf8'));
  return snarkjs[p].verify(vkey, r.publicSignals, r.proof);
}

/** n points (the i-th one the point at infinity where i ∈ inf) in LEM, and n scalars (zero where i ∈ zero). */
function inputs(curve: FfCurve, G: Group, n: number, opts: { inf?: number[]; zero?: number[] } = {}) {
  const sG = 2 * G.F.n8;
  const bases = new Uint8Array(n * sG);
  const step = G.timesScalar(G.g, curve.Fr.random());
  let P = G.timesScalar(G.g, curve.Fr.random());
  for (let i = 0; i < n; i++) {
    P = G.add(P, step);
    G.toRprLEM(bases, i * sG, opts.inf?.includes(i) ? G.zeroAffine : G.toAffine(P));
  }
  const scalars = new Uint8Array(n * 32);
  for (let i = 0; i < n; i++) if (!opts.zero?.includes(i)) scalars.set(curve.Fr.fromMontgomery(curve.Fr.random()), 32 * i);
  return { bases, scalars };
}

/**
 * Equal points, compared affine: snarkjs's WASM returns the G2 sum of no points (all bases at
 * infinity) as (0 : 0 : z) with z ≠ 0, which its G2.eq does not find equal to G2.zero.
 */
const same = (G: Group, a: Uint8Array, b: Uint8Array) => Buffer.from(G.toAffine(a)).equals(Buffer.from(G.toAffine(b)));

/** snarkjs's own multiExpAffine of a hooked group. */
const originalOf = (G: Group) => (G.multiExpAffine as unknown as Record<symbol, (...a: unknown[]) => Promise<Uint8Array>>)[ORIGINAL];

const curves: Partial<Record<SnarkCurve, FfCurve>> = {};
const curveOf = async (c: SnarkCurve): Promise<FfCurve> => (curves[c] ??= await ff[BUILD[c]]());

afterEach(() => {
  jest.restoreAllMocks();
  hook.uninstall();
});

afterAll(async () => {
  // the cached curves' worker threads would keep jest waiting
  for (const c of ['bn254', 'bls12-381'] as const) await (globalThis as Record<string, FfCurve | null>)[GLOBAL[c]]?.terminate();
});

// ---- real proofs ------------------------------------------------------------------------------

const PROOFS: [Proto, SnarkCurve][] = [
  ['groth16', 'bn254'],
  ['groth16', 'bls12-381'],
  ['plonk', 'bn254'],
  ['plonk', 'bls12-381'],
  ['fflonk', 'bn254'],
];

describe.each(PROOFS)('%s on %s', (p, c) => {
  test('a proof made with its MSMs on msm-cuda verifies', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    const r = await prove(p, c);
    const s = hook.stats();
    // Groth16: A, B1, C, H in G1 and B2 in G2; PLONK and FFLONK commit in G1 only
    expect(s.accelerated.g1).toBeGreaterThanOrEqual(p === 'plonk' ? 5 : 4);
    expect(s.calls.g2).toBe(p === 'groth16' ? 1 : 0);
    expect(s.accelerated.g2 + s.fallbacks.g2).toBe(s.calls.g2);
    expect(s.fallbacks.input + s.fallbacks.buffer + s.fallbacks.shape + s.fallbacks.scalarSize + s.fallbacks.arguments).toBe(0);
    // Groth16's FFTs (three ifft, batchApplyKey and fft each) ran here too (lib/snarkjs-field.ts)
    if (p === 'groth16') expect(s.fr).toEqual({ calls: 9, accelerated: 9, fallbacks: { threshold: 0, arguments: 0, buffer: 0, shape: 0, input: 0 } });
    expect(await verifies(p, c, r)).toBe(true);
    // a proof for other public signals does not
    expect(await verifies(p, c, { ...r, publicSignals: (r.publicSignals as string[]).map((v, i) => (i === 0 ? String(BigInt(v) + 1n) : v)) })).toBe(false);
  });
});

// ---- the hook against snarkjs's own code --------------------------------------------------------

describe.each(['bn254', 'bls12-381'] as const)('multiExpAffine on %s', (c) => {
  test.each(['G1', 'G2'] as const)('%s: the hooked result equals snarkjs\'s own, with infinity bases and zero scalars', async (g) => {
    const curve = await curveOf(c);
    hook.install({ backend: 'cpu', threshold: 1 });
    const G = curve[g];
    const { bases, scalars } = inputs(curve, G, 300, { inf: [0, 7, 299], zero: [3, 7, 100] });
    const got = await G.multiExpAffine(bases, scalars, undefined, 'test');
    expect(same(G, got, await originalOf(G)(bases, scalars))).toBe(true);
    const s = hook.stats();
    if (g === 'G1') expect(s.accelerated.g1).toBe(1);
    else expect(s.accelerated.g2 + s.fallbacks.g2).toBe(1); // G2 here where this build has it
    // all scalars zero, all bases infinity: infinity, as snarkjs's G.zero
    const zero = await G.multiExpAffine(bases, new Uint8Array(scalars.length));
    expect(same(G, zero, G.zero)).toBe(true);
    const allInf = await G.multiExpAffine(new Uint8Array(bases.length), scalars);
    expect(same(G, allInf, G.zero)).toBe(true);
  });

  test('BigBuffer bases and scalars, of one page and of several', async () => {
    const curve = await curveOf(c);
    hook.install({ backend: 'cpu', threshold: 1 });
    const G = curve.G1;
    const { bases, scalars } = inputs(curve, G, 200, { inf: [50] });
    const want = await originalOf(G)(bases, scalars);
    const big = (b: Uint8Array, cuts: number[]) => {
      const bb = new ff.BigBuffer(b.byteLength);
      bb.set(b, 0);
      // pages are 1 GiB in ffjavascript; cut into smaller ones to exercise several
      if (cuts.length) bb.buffers = [0, ...cuts].map((at, i, a) => b.slice(at, a[i + 1] ?? b.byteLength));
      return bb;
    };
    expect(same(G, await G.multiExpAffine(big(bases, []), big(scalars, [])), want)).toBe(true);
    expect(same(G, await G.multiExpAffine(big(bases, [1000, 7001]), big(scalars, [32 * 10 + 5])), want)).toBe(true);
    expect(hook.stats().accelerated.g1).toBe(2);
    expect(hook.stats().cache.created).toBe(1); // the same bytes, however paged
  });

  test('what it leaves to snarkjs: below the threshold, other scalar sizes, extra arguments, unknown buffers, scalars ≥ r', async () => {
    const curve = await curveOf(c);
    hook.install({ backend: 'cpu', threshold: 64 });
    const G = curve.G1;
    const orig = originalOf(G);
    const small = inputs(curve, G, 63);
    expect(same(G, await G.multiExpAffine(small.bases, small.scalars), await orig(small.bases, small.scalars))).toBe(true);
    expect(hook.stats().fallbacks.threshold).toBe(1);
    const { bases, scalars } = inputs(curve, G, 64);
    // 4-byte scalars (snarkjs's powers-of-tau verifier uses random 32-bit ones)
    const short = new Uint8Array(64 * 4).map((_, i) => (i * 37) & 0xff);
    expect(same(G, await G.multiExpAffine(bases, short), await orig(bases, short))).toBe(true);
    expect(hook.stats().fallbacks.scalarSize).toBe(1);
    expect(same(G, await G.multiExpAffine(bases, scalars, undefined, 'x', 'more'), await orig(bases, scalars))).toBe(true);
    expect(hook.stats().fallbacks.arguments).toBe(1);
    // not a Uint8Array: snarkjs's own code says what it says about it
    const words = new Uint32Array(bases.buffer);
    const mine = await G.multiExpAffine(words, scalars).catch((e: Error) => e.message);
    expect(mine).toEqual(await orig(words, scalars).catch((e: Error) => e.message));
    expect(hook.stats().fallbacks.buffer).toBe(1);
    expect(same(G, await G.multiExpAffine(bases.subarray(1), scalars).catch(() => G.zero), await orig(bases.subarray(1), scalars).catch(() => G.zero))).toBe(true);
    expect(hook.stats().fallbacks.shape).toBe(1);
    // a scalar ≥ r: msm-cuda refuses it, snarkjs computes with it as it is
    const big = scalars.slice();
    big.fill(0xff, 32 * 5, 32 * 6);
    expect(same(G, await G.multiExpAffine(bases, big), await orig(bases, big))).toBe(true);
    expect(hook.stats().fallbacks.input).toBe(1);
    expect(hook.stats().accelerated.g1).toBe(0);
    // and then msm-cuda again
    expect(same(G, await G.multiExpAffine(bases, scalars), await orig(bases, scalars))).toBe(true);
    expect(hook.stats().accelerated.g1).toBe(1);
  });
});

describe('the ceremony tools', () => {
  test('a powers-of-tau ceremony of 2^5 made and verified with the hook: its odd MSMs (32-bit scalars, BigBuffers) are handled', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msm-snarkjs-ptau-'));
    try {
      hook.install({ backend: 'cpu', threshold: 1 });
      const f = (n: string) => path.join(tmp, n);
      await snarkjs.powersOfTau.newAccumulator(await curveOf('bn254'), 5, f('0.ptau'));
      await snarkjs.powersOfTau.beacon(f('0.ptau'), f('1.ptau'), 'test', '0102030405060708', 10);
      await snarkjs.powersOfTau.preparePhase2(f('1.ptau'), f('2.ptau'));
      expect(await snarkjs.powersOfTau.verify(f('2.ptau'))).toBe(true);
      const s = hook.stats();
      expect(s.accelerated.g1).toBeGreaterThan(0);
      expect(s.fallbacks.scalarSize).toBeGreaterThan(0);
      expect(s.fallbacks.input + s.fallbacks.buffer + s.fallbacks.shape + s.fallbacks.arguments).toBe(0);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

// ---- install, uninstall, terminate, singleThread ------------------------------------------------

describe('installation', () => {
  test('uninstall() puts snarkjs\'s own functions back everywhere', async () => {
    const curve = await curveOf('bn254');
    const before = { build: ff.buildBn128, g1: curve.G1.multiExpAffine, g2: curve.G2.multiExpAffine, global: Object.getOwnPropertyDescriptor(globalThis, 'curve_bn128') };
    hook.install({ backend: 'cpu' });
    expect(ff.buildBn128).not.toBe(before.build);
    expect(curve.G1.multiExpAffine).not.toBe(before.g1);
    expect(Object.getOwnPropertyDescriptor(globalThis, 'curve_bn128')!.get).toBeDefined();
    expect(hook.stats().installed).toBe(true);
    hook.uninstall();
    expect(ff.buildBn128).toBe(before.build);
    expect(curve.G1.multiExpAffine).toBe(before.g1);
    expect(curve.G2.multiExpAffine).toBe(before.g2);
    expect(Object.getOwnPropertyDescriptor(globalThis, 'curve_bn128')).toEqual(before.global);
    expect(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(curve.G1), 'multiExpAffine')).toBeUndefined();
    expect(hook.stats()).toMatchObject({ installed: false, calls: { g1: 0, g2: 0 } });
    hook.uninstall(); // idempotent
  });

  test('a curve built after terminate() is hooked, and finds the bases still resident', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    const first = await prove('groth16', 'bn254');
    const created = hook.stats().cache.created;
    await (globalThis as Record<string, FfCurve>).curve_bn128.terminate();
    delete curves.bn254;
    expect((globalThis as Record<string, unknown>).curve_bn128).toBeNull();
    const calls = hook.stats().calls.g1;
    const second = await prove('groth16', 'bn254');
    expect(hook.stats().calls.g1).toBeGreaterThan(calls);
    expect(hook.stats().cache.created).toBe(created);
    expect(await verifies('groth16', 'bn254', first)).toBe(true);
    expect(await verifies('groth16', 'bn254', second)).toBe(true);
  });

  test('singleThread proofs (an uncached curve each) are hooked', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    for (const c of ['bn254', 'bls12-381'] as const) {
      const calls = hook.stats().accelerated.g1;
      const r = await prove('groth16', c, { singleThread: true });
      expect(hook.stats().accelerated.g1).toBe(calls + 4);
      expect(await verifies('groth16', c, r)).toBe(true);
    }
  });

  test("a curve that neither a builder returns nor the cache holds (an ES module build's singleThread one) is hooked at birth, through its groups' prototype", async () => {
    await curveOf('bn254'); // a curve of this ffjavascript seen once
    hook.install({ backend: 'cpu', threshold: 1 });
    const curve: FfCurve = await ff.buildBls12381[ORIGINAL](true); // around interception points 1 and 2
    const { bases, scalars } = inputs(curve, curve.G1, 100);
    const got = await curve.G1.multiExpAffine(bases, scalars);
    expect(same(curve.G1, got, await originalOf(curve.G1)(bases, scalars))).toBe(true);
    expect(hook.stats().accelerated.g1).toBe(1);
  });

  test('a curve put back by uninstall() is hooked again by the next install()', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    const curve: FfCurve = await ff.buildBn128(true);
    const hooked = curve.G1.multiExpAffine;
    hook.uninstall();
    expect(curve.G1.multiExpAffine).toBe(originalOf({ multiExpAffine: hooked } as Group));
    hook.install({ backend: 'cpu', threshold: 1 });
    const { bases, scalars } = inputs(curve, curve.G1, 100);
    await curve.G1.multiExpAffine(bases, scalars);
    expect(hook.stats().accelerated.g1).toBe(1);
  });

  test('hookCurve() hooks a curve by hand; installing again replaces the options', async () => {
    hook.install({ backend: 'cpu', threshold: 1000 });
    const curve = hook.hookCurve(await curveOf('bn254'));
    const { bases, scalars } = inputs(curve, curve.G1, 100);
    await curve.G1.multiExpAffine(bases, scalars);
    expect(hook.stats().fallbacks.threshold).toBe(1);
    hook.install({ backend: 'cpu', threshold: 10 });
    expect(hook.stats()).toMatchObject({ threshold: 10, calls: { g1: 0 } });
    await curve.G1.multiExpAffine(bases, scalars);
    expect(hook.stats().accelerated.g1).toBe(1);
    expect(hook.hookCurve(null)).toBeNull();
  });

  test('bad options are MsmErrors, before anything is hooked', () => {
    const bad: [unknown, string][] = [
      [{ backend: 'gpu' }, 'ERR_INVALID_OPTION'],
      [{ threshold: -1 }, 'ERR_INVALID_OPTION'],
      [{ threshold: 1.5 }, 'ERR_INVALID_OPTION'],
      [{ memoryBudget: -5 }, 'ERR_INVALID_OPTION'],
      [{ memoryBudget: { gpu: 1 } }, 'ERR_INVALID_OPTION'],
      [{ windowBits: 8 }, 'ERR_INVALID_OPTION'],
      [{ threads: 'all' }, 'ERR_INVALID_OPTION'],
      ['cpu', 'ERR_INVALID_ARGUMENT'],
    ];
    for (const [o, code] of bad) {
      expect(() => hook.install(o as hook.SnarkjsOptions)).toThrow(MsmError);
      expect(() => hook.install(o as hook.SnarkjsOptions)).toThrow(expect.objectContaining({ code }));
      expect(hook.stats().installed).toBe(false);
    }
    if (!require('../lib').info().cuda.available) {
      expect(() => hook.install({ backend: 'cuda' })).toThrow(expect.objectContaining({ code: 'ERR_CUDA_UNAVAILABLE' }));
    }
  });
});

// ---- the resident bases -----------------------------------------------------------------------

describe('resident bases', () => {
  test('a second proof with the same zkey creates no context; concurrent proofs create each one once', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    const rs = await Promise.all([prove('groth16', 'bn254'), prove('groth16', 'bn254'), prove('groth16', 'bn254')]);
    const s = hook.stats();
    const g1Sections = 4; // A, B1, C, H (and the 2-point IC of each verification below)
    expect(s.cache.created).toBe(g1Sections + (s.g2.bn254 === 'original' ? 0 : 1));
    expect(s.cache.hits).toBe(2 * s.cache.created);
    for (const r of rs) expect(await verifies('groth16', 'bn254', r)).toBe(true);
    const afterVerify = hook.stats().cache.created;
    const again = await prove('groth16', 'bn254');
    expect(hook.stats().cache.created).toBe(afterVerify);
    expect(await verifies('groth16', 'bn254', again)).toBe(true);
  });

  test('the memory budget evicts the least recently used bases, and closes them', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    await prove('groth16', 'bn254');
    const one = hook.stats().cache;
    expect(one.evictions).toBe(0);
    // room for about one section: every proof evicts, and still verifies
    const spy = jest.spyOn(MsmContext.prototype, 'close');
    hook.install({ backend: 'cpu', threshold: 1, memoryBudget: { host: Math.ceil(one.host / 3) } });
    const r = await prove('groth16', 'bn254');
    const s = hook.stats().cache;
    expect(s.evictions).toBeGreaterThanOrEqual(3);
    expect(s.host).toBeLessThanOrEqual(Math.ceil(one.host / 3));
    expect(spy.mock.calls.length).toBeGreaterThanOrEqual(s.evictions);
    expect(await verifies('groth16', 'bn254', r)).toBe(true);
    // no room at all: each context serves its call and goes
    hook.install({ backend: 'cpu', threshold: 1, memoryBudget: 0 });
    await prove('groth16', 'bn254');
    expect(hook.stats().cache).toMatchObject({ contexts: 0, host: 0 });
    expect(hook.stats().cache.evictions).toBe(hook.stats().cache.created);
  });

  test('a creation that runs out of memory drops the idle contexts and tries once more', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    const curve = await curveOf('bn254');
    const a = inputs(curve, curve.G1, 100);
    const b = inputs(curve, curve.G1, 120);
    await curve.G1.multiExpAffine(a.bases, a.scalars);
    const create = MsmContext.create.bind(MsmContext);
    const spy = jest.spyOn(MsmContext, 'create').mockImplementationOnce(() => Promise.reject(new MsmError('ERR_OUT_OF_MEMORY', 'test'))).mockImplementation(create);
    const got = await curve.G1.multiExpAffine(b.bases, b.scalars);
    expect(same(curve.G1, got, await originalOf(curve.G1)(b.bases, b.scalars))).toBe(true);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(hook.stats().cache).toMatchObject({ contexts: 1, evictions: 1 });
    // twice: the MsmError reaches snarkjs's caller
    spy.mockReset().mockImplementation(() => Promise.reject(new MsmError('ERR_OUT_OF_MEMORY', 'test')));
    await expect(curve.G1.multiExpAffine(a.bases, a.scalars)).rejects.toMatchObject({ name: 'MsmError', code: 'ERR_OUT_OF_MEMORY' });
  });
});

// ---- G2 through the `group` API ----------------------------------------------------------------

// A stand-in for MsmContext.create(curve, lemG2Points, { group: 'g2', … }) as the G2 API is
// specified (issue 11): results {x: [c0, c1], y: [c0, c1]}, infinity all zeros. Computed by
// @noble/curves, so the hook's G2 decoding and conversion meet an independent reference.
const NOBLE_G2 = { bn254: bn254.G2.Point, 'bls12-381': bls12_381.G2.Point } as const;
function fakeG2Context(c: SnarkCurve, lem: Uint8Array) {
  const { p, fieldBytes: fb } = CURVES[c];
  const rInv = modInverse((1n << BigInt(8 * fb)) % p, p);
  const fp = (i: number) => (bytesToBigintLE(lem.subarray(i * fb, (i + 1) * fb)) * rInv) % p;
  const P = NOBLE_G2[c];
  const n = lem.byteLength / (4 * fb);
  const points = Array.from({ length: n }, (_, i) => {
    const [a, b, d, e] = [0, 1, 2, 3].map((k) => fp(4 * i + k));
    return a === 0n && b === 0n && d === 0n && e === 0n ? P.ZERO : P.fromAffine({ x: { c0: a, c1: b }, y: { c0: d, c1: e } } as never);
  });
  return {
    memory: { host: lem.byteLength, device: 0 },
    close() {},
    async msm(scalars: Uint8Array) {
      const ks = Array.from({ length: n }, (_, i) => bytesToBigintLE(scalars.subarray(32 * i, 32 * i + 32)));
      const q = pippenger(P as never, points as never, ks) as InstanceType<typeof P>;
      if (q.is0()) return { x: [0n, 0n], y: [0n, 0n] };
      const a = q.toAffine();
      return { x: [a.x.c0, a.x.c1], y: [a.y.c0, a.y.c1] };
    },
  };
}

function mockG2(accept: (backend: string) => boolean) {
  const create = MsmContext.create.bind(MsmContext);
  const seen: string[] = [];
  const spy = jest.spyOn(MsmContext, 'create').mockImplementation(async (curve, points, options) => {
    const o = options as { group?: string; backend: string };
    if (o.group !== 'g2') return create(curve, points, options);
    seen.push(o.backend);
    if (!accept(o.backend)) throw new MsmError('ERR_INVALID_OPTION', `G2 is not supported by the ${o.backend} backend`);
    return fakeG2Context(curve as SnarkCurve, points as Uint8Array) as unknown as MsmContext;
  });
  return { spy, seen };
}

describe('G2 through the group option', () => {
  test.each(['bn254', 'bls12-381'] as const)('%s: where msm-cuda takes G2, Groth16\'s B2 runs there and the proof verifies', async (c) => {
    const { seen } = mockG2(() => true);
    hook.install({ backend: 'cpu', threshold: 1 });
    const r = await prove('groth16', c);
    expect(hook.stats()).toMatchObject({ accelerated: { g2: 1 }, g2: { [c]: 'cpu' } });
    expect(seen).toEqual(['cpu']);
    expect(await verifies('groth16', c, r)).toBe(true);
    // and equals snarkjs's own G2 on inputs with infinity and zeros
    const curve = await curveOf(c);
    const { bases, scalars } = inputs(curve, curve.G2, 50, { inf: [1], zero: [2] });
    expect(same(curve.G2, await curve.G2.multiExpAffine(bases, scalars), await originalOf(curve.G2)(bases, scalars))).toBe(true);
    expect(hook.stats().accelerated.g2).toBe(2);
  });

  test("under 'auto', G2 rejected by the backend auto picks goes to the CPU backend; rejected everywhere, to snarkjs, asked once", async () => {
    const curve = await curveOf('bn254');
    const { bases, scalars } = inputs(curve, curve.G2, 40);
    const want = await curve.G2.multiExpAffine(bases, scalars); // not installed: snarkjs's own
    const cpuOnly = mockG2((b) => b === 'cpu');
    hook.install({ backend: 'auto', threshold: 1 });
    expect(same(curve.G2, await curve.G2.multiExpAffine(bases, scalars), want)).toBe(true);
    expect(cpuOnly.seen).toEqual(['auto', 'cpu']);
    expect(hook.stats().g2.bn254).toBe('cpu');
    jest.restoreAllMocks();
    const none = mockG2(() => false);
    hook.install({ backend: 'auto', threshold: 1 });
    expect(same(curve.G2, await curve.G2.multiExpAffine(bases, scalars), want)).toBe(true);
    expect(same(curve.G2, await curve.G2.multiExpAffine(bases, scalars), want)).toBe(true);
    expect(none.seen).toEqual(['auto', 'cpu']); // not asked again
    expect(hook.stats()).toMatchObject({ g2: { bn254: 'original' }, fallbacks: { g2: 2 }, accelerated: { g2: 0 } });
  });

  test('this build, as it is: G2 on msm-cuda where the group option exists, else snarkjs\'s own; the same result', async () => {
    const curve = await curveOf('bls12-381');
    hook.install({ backend: 'cpu', threshold: 1 });
    const { bases, scalars } = inputs(curve, curve.G2, 40, { inf: [0] });
    expect(same(curve.G2, await curve.G2.multiExpAffine(bases, scalars), await originalOf(curve.G2)(bases, scalars))).toBe(true);
    expect(['cpu', 'original']).toContain(hook.stats().g2['bls12-381']);
  });
});

// ---- outside jest: snarkjs's ES module build, and its command line -----------------------------

// Through the compiled package (dist/, built by npm ci's prepare step), as a user loads it: the
// repository root resolves `msm-cuda/...` to itself through package.json "exports".
describe('outside jest', () => {
  const root = path.resolve(__dirname, '..');
  const env = { ...process.env, MSM_SNARKJS_BACKEND: 'cpu', MSM_SNARKJS_THRESHOLD: '1' };

  test("snarkjs's ES module build: the cached curve, and the singleThread ones after it, are hooked", () => {
    const script = `
      import * as snarkjs from 'snarkjs';
      import { createRequire } from 'module';
      import fs from 'fs';
      const hook = createRequire(process.cwd() + '/')('msm-cuda/snarkjs');
      hook.install({ backend: 'cpu', threshold: 1 });
      const [wasm, zkey, vkey] = ${JSON.stringify([wasm.bn254, fixture('bn254', 'groth16.zkey'), fixture('bn254', 'groth16.vkey.json')])};
      const vk = JSON.parse(fs.readFileSync(vkey, 'utf8'));
      const out = [];
      for (const singleThread of [false, true]) {
        const { proof, publicSignals } = await snarkjs.groth16.fullProve(${JSON.stringify(INPUT)}, wasm, zkey, undefined, undefined, { singleThread });
        out.push([hook.stats().accelerated.g1, await snarkjs.groth16.verify(vk, publicSignals, proof)]);
      }
      await globalThis.curve_bn128?.terminate();
      console.log(JSON.stringify(out));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root }).toString();
    // 4 G1 MSMs per proof, 1 per verification (2 points ≥ threshold 1)
    expect(JSON.parse(out)).toEqual([
      [4, true],
      [9, true],
    ]);
  });

  test('the snarkjs CLI under node -r msm-cuda/snarkjs/register', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msm-snarkjs-cli-'));
    try {
      const cli = path.join(path.dirname(require.resolve('snarkjs')), 'cli.cjs');
      const run = (...args: string[]) => execFileSync(process.execPath, ['-r', 'msm-cuda/snarkjs/register', cli, ...args], { cwd: root, env }).toString();
      const f = (n: string) => path.join(tmp, n);
      fs.writeFileSync(f('input.json'), JSON.stringify(INPUT));
      run('wtns', 'calculate', wasm['bls12-381']!, f('input.json'), f('w.wtns'));
      const log = run('groth16', 'prove', fixture('bls12-381', 'groth16.zkey'), f('w.wtns'), f('proof.json'), f('public.json'), '-v');
      for (const m of ['A', 'B1', 'C', 'H']) expect(log).toMatch(new RegExp(`msm-cuda: multiexp ${m}: \\d+ points`));
      for (const t of ['IFFT_A', 'FFT_C']) expect(log).toMatch(new RegExp(`msm-cuda: ${t}: i?fft of \\d+ elements`));
      expect(run('groth16', 'verify', fixture('bls12-381', 'groth16.vkey.json'), f('public.json'), f('proof.json'))).toMatch(/OK/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
