// The Fr transforms of msm-cuda/snarkjs (lib/snarkjs-field.ts) and the addon's fieldTransform
// (cuda/cpu/ntt.hpp): the NTT and the geometric-sequence product against an independent bigint
// model (a naive DFT), the hooked Fr.fft / Fr.ifft / Fr.batchApplyKey against ffjavascript's own
// on the same inputs (Uint8Array and BigBuffer), every fallback, and install/uninstall. Whole
// proofs with the transforms hooked: test/snarkjs.test.ts.

import { CURVES, MsmError } from '../lib';
import { nativeBinding } from '../lib/backend';
import { bytesToBigintLE, modInverse } from '../lib/encoding';
import * as hook from '../lib/snarkjs';
import { seededRng } from './support/data';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const ff = require('ffjavascript');

type SnarkCurve = 'bn254' | 'bls12-381';
const SNARK_CURVES: SnarkCurve[] = ['bn254', 'bls12-381'];
const BUILD = { bn254: 'buildBn128', 'bls12-381': 'buildBls12381' } as const;
const N8 = 32;
const R = 1n << 256n; // ffjavascript's Montgomery radix for Fr (and ours)
const rng = seededRng('snarkjs-field');

interface Fr {
  w: Uint8Array[];
  s: number;
  e(x: unknown): Uint8Array;
  random(): Uint8Array;
  fromMontgomery(a: Uint8Array): Uint8Array;
  fft(...a: unknown[]): Promise<unknown>;
  ifft(...a: unknown[]): Promise<unknown>;
  batchApplyKey(...a: unknown[]): Promise<unknown>;
}
interface FfCurve {
  Fr: Fr;
  terminate(): Promise<void>;
}
type Method = 'fft' | 'ifft' | 'batchApplyKey';

// ---- the model: elements as bigints mod r; bytes are v·2^256 mod r, little-endian --------------

const r = (c: SnarkCurve) => CURVES[c].r;
const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;
function pow(b: bigint, e: bigint, m: bigint): bigint {
  let x = 1n;
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) x = (x * b) % m;
  return x;
}
function encode(c: SnarkCurve, vs: readonly bigint[]): Uint8Array {
  const out = new Uint8Array(N8 * vs.length);
  vs.forEach((v, i) => {
    let m = mod(v * R, r(c));
    for (let k = 0; k < N8; k++, m >>= 8n) out[N8 * i + k] = Number(m & 0xffn);
  });
  return out;
}
function decode(c: SnarkCurve, bytes: Uint8Array): bigint[] {
  const inv = modInverse(R % r(c), r(c));
  return Array.from({ length: bytes.length / N8 }, (_, i) => (bytesToBigintLE(bytes.subarray(N8 * i, N8 * i + N8)) * inv) % r(c));
}
const randomElements = (c: SnarkCurve, n: number) => Array.from({ length: n }, () => rng.below(r(c)));
// A root of unity of order n = 2^k: g^((r−1)/n) for g a generator of the 2-part (any non-residue).
function rootOfUnity(c: SnarkCurve, n: number): bigint {
  const p = r(c);
  for (let g = 2n; ; g++) {
    if (pow(g, (p - 1n) / 2n, p) !== p - 1n) continue; // a non-residue: its 2-part has full order
    let w = pow(g, (p - 1n) >> BigInt(twoAdicity(p)), p);
    for (let k = twoAdicity(p); 2 ** k > n; k--) w = (w * w) % p;
    return w;
  }
}
function twoAdicity(p: bigint): number {
  let s = 0;
  for (let q = p - 1n; (q & 1n) === 0n; q >>= 1n) s++;
  return s;
}
const dft = (c: SnarkCurve, xs: readonly bigint[], w: bigint, scale: bigint) =>
  xs.map((_, k) => mod(scale * xs.reduce((acc, x, j) => acc + x * pow(w, BigInt(j * k), r(c)), 0n), r(c)));

// ---- the addon's fieldTransform against the model -----------------------------------------------

describe.each(SNARK_CURVES)('fieldTransform on %s', (c) => {
  const native = nativeBinding();
  test.each([1, 2, 4, 8, 16, 64])('the NTT of %i elements is the DFT, with and without a scale', async (n) => {
    const xs = randomElements(c, n);
    const w = rootOfUnity(c, n);
    expect(pow(w, BigInt(n), r(c))).toBe(1n);
    if (n > 1) expect(pow(w, BigInt(n / 2), r(c))).toBe(r(c) - 1n);
    const data = encode(c, xs);
    expect(decode(c, await native.fieldTransform(c, 0, data, encode(c, [w]), null, 0))).toEqual(dft(c, xs, w, 1n));
    const scale = rng.below(r(c));
    expect(decode(c, await native.fieldTransform(c, 0, data, encode(c, [w]), encode(c, [scale]), 2))).toEqual(dft(c, xs, w, scale));
    expect(decode(c, data)).toEqual(xs); // the input is a copy: left as it was
  });

  test.each([1, 5, 100])('the geometric product of %i elements: x_i·first·inc^i', async (n) => {
    const xs = randomElements(c, n);
    const [first, inc] = randomElements(c, 2);
    const got = decode(c, await native.fieldTransform(c, 1, encode(c, xs), encode(c, [first]), encode(c, [inc]), 0));
    expect(got).toEqual(xs.map((x, i) => mod(x * first * pow(inc, BigInt(i), r(c)), r(c))));
  });

  test('parts are one array in order', async () => {
    const xs = randomElements(c, 32);
    const data = encode(c, xs);
    const w = encode(c, [rootOfUnity(c, 32)]);
    const whole = await native.fieldTransform(c, 0, data, w, null, 0);
    expect(await native.fieldTransform(c, 0, [data.subarray(0, 5 * N8), data.subarray(5 * N8, 5 * N8), data.subarray(5 * N8)], w, null, 0)).toEqual(whole);
  });

  test('refusals: an element, root or factor not below r (naming the index), a length other than a power of two', async () => {
    const code = async (p: Promise<unknown>) => p.then(() => 'resolved', (e: MsmError) => `${e.code} ${e.message}`);
    const xs = encode(c, randomElements(c, 8));
    const big = new Uint8Array(N8).fill(0xff);
    const bad = xs.slice();
    bad.set(big, 3 * N8);
    const w = encode(c, [rootOfUnity(c, 8)]);
    expect(await code(native.fieldTransform(c, 0, bad, w, null, 0))).toMatch(/^ERR_INVALID_ARGUMENT element 3 is not below/);
    expect(await code(native.fieldTransform(c, 0, xs, big, null, 0))).toMatch(/^ERR_INVALID_ARGUMENT the root is not below/);
    expect(await code(native.fieldTransform(c, 1, xs, w, big, 0))).toMatch(/^ERR_INVALID_ARGUMENT inc is not below/);
    expect(await code(native.fieldTransform(c, 0, xs.subarray(0, 6 * N8), w, null, 0))).toMatch(/^ERR_INVALID_ARGUMENT an NTT needs a power-of-two number of elements \(got 6\)/);
    expect(await code(native.fieldTransform(c, 0, xs.subarray(0, 33), w, null, 0))).toMatch(/^ERR_INVALID_ARGUMENT data byte length 33 is not a multiple of 32/);
    expect(await code(native.fieldTransform(c, 0, xs, w.subarray(0, 31), null, 0))).toMatch(/^ERR_INVALID_ARGUMENT root must be a Uint8Array of 32 bytes/);
    expect(await code(native.fieldTransform('nope', 0, xs, w, null, 0))).toMatch(/^ERR_UNKNOWN_CURVE/);
  });
});

// ---- the hook against ffjavascript's own transforms ---------------------------------------------

describe.each(SNARK_CURVES)('the hooked Fr of %s', (c) => {
  let curve: FfCurve;
  let own: Record<Method, (...a: unknown[]) => Promise<unknown>>;
  beforeAll(async () => {
    curve = await ff[BUILD[c]](true); // singleThread: no workers to wait for
    own = { fft: curve.Fr.fft, ifft: curve.Fr.ifft, batchApplyKey: curve.Fr.batchApplyKey };
  });
  afterEach(() => hook.uninstall());
  afterAll(async () => curve.terminate());

  const elements = (n: number) => {
    const a = new Uint8Array(N8 * n);
    for (let i = 0; i < n; i++) a.set(curve.Fr.random(), N8 * i);
    return a;
  };
  const bytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : (v as { slice(): Uint8Array }).slice());

  test('fft, ifft and batchApplyKey equal ffjavascript\'s on 1 to 2^10 elements, from a Uint8Array or a BigBuffer', async () => {
    hook.install({ backend: 'cpu', threshold: 1 });
    hook.hookCurve(curve);
    const Fr = curve.Fr;
    expect(Fr.fft).not.toBe(own.fft);
    for (let k = 0; k <= 10; k++) {
      const n = 1 << k;
      const a = elements(n);
      for (const m of ['fft', 'ifft'] as const) expect(bytes(await Fr[m](a))).toEqual(bytes(await own[m].call(Fr, a)));
      const inc = Fr.w[k + 1] ?? Fr.w[k];
      expect(bytes(await Fr.batchApplyKey(a, Fr.e(1), inc))).toEqual(bytes(await own.batchApplyKey.call(Fr, a, Fr.e(1), inc)));
      expect(bytes(await Fr.batchApplyKey(a, 7, 3))).toEqual(bytes(await own.batchApplyKey.call(Fr, a, 7, 3)));
      const big = new ff.BigBuffer(a.length);
      big.set(a, 0);
      // the kind of buffer ffjavascript returns: a Uint8Array from fft of a BigBuffer of one page,
      // a BigBuffer from batchApplyKey
      for (const [m, extra] of [['fft', []], ['ifft', []], ['batchApplyKey', [Fr.e(1), inc]]] as const) {
        const [got, want] = [await Fr[m](big, ...extra), await own[m].call(Fr, big, ...extra)];
        expect(got?.constructor).toBe(want?.constructor);
        expect(bytes(got)).toEqual(bytes(want));
      }
      expect(bytes(await Fr.ifft(await Fr.fft(a)))).toEqual(a);
    }
    expect(hook.stats().fr).toEqual({ calls: 11 * 9, accelerated: 11 * 9, fallbacks: { threshold: 0, arguments: 0, buffer: 0, shape: 0, input: 0 } });
  });

  test('every fallback runs ffjavascript\'s own, with its result', async () => {
    hook.install({ backend: 'cpu', threshold: 8 });
    hook.hookCurve(curve);
    const Fr = curve.Fr;
    const fallbacks = () => hook.stats().fr.fallbacks;
    const a = elements(16);
    expect(bytes(await Fr.fft(a.subarray(0, 4 * N8)))).toEqual(bytes(await own.fft.call(Fr, a.subarray(0, 4 * N8))));
    expect(fallbacks().threshold).toBe(1);
    await Fr.fft(a, '', '', undefined, 'text', 'extra');
    expect(fallbacks().arguments).toBe(1);
    const asArray = Array.from({ length: 16 }, (_, i) => a.slice(N8 * i, N8 * i + N8));
    expect(await Fr.fft(asArray)).toEqual(await own.fft.call(Fr, asArray));
    expect(fallbacks().buffer).toBe(1);
    await expect(Fr.batchApplyKey(a.subarray(0, 12 * N8 + 1), Fr.e(1), Fr.e(2))).resolves.toBeDefined();
    expect(fallbacks().shape).toBe(1);
    const unreduced = a.slice();
    unreduced.fill(0xff, 3 * N8, 4 * N8);
    expect(bytes(await Fr.batchApplyKey(unreduced, Fr.e(1), Fr.e(2)))).toEqual(bytes(await own.batchApplyKey.call(Fr, unreduced, Fr.e(1), Fr.e(2))));
    expect(fallbacks().input).toBe(1);
    expect(hook.stats().fr.accelerated).toBe(0);
  });

  test('fft: false leaves them to ffjavascript, uninstall() restores them, and the option is checked', async () => {
    hook.install({ backend: 'cpu', fft: false });
    hook.hookCurve(curve);
    expect(curve.Fr.fft).toBe(own.fft);
    hook.install({ backend: 'cpu' });
    hook.hookCurve(curve);
    expect(curve.Fr.fft).not.toBe(own.fft);
    hook.uninstall();
    expect([curve.Fr.fft, curve.Fr.ifft, curve.Fr.batchApplyKey]).toEqual([own.fft, own.ifft, own.batchApplyKey]);
    expect(() => hook.install({ fft: 'yes' } as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION', message: "option 'fft' must be a boolean" }));
  });
});
