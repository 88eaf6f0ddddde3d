// lib/encoding.ts: little-endian integers, the canonical and Montgomery ("LEM") packed formats.
// The Montgomery forms are checked against ffjavascript's own encoder (snarkjs's engine), so
// that LEM here is what snarkjs writes.

import { buildBls12381, buildBn128, F1Field } from 'ffjavascript';
import { CURVES, CURVE_NAMES, type CurveName } from '../lib';
import {
  bigintToBytesLE,
  bytesToBigintLE,
  decodePoints,
  decodeScalars,
  encodePoints,
  encodeScalars,
  fromMontgomery,
  montgomeryRadix,
  toMontgomery,
} from '../lib/encoding';
import { generatePoints } from '../lib/generate';
import { seededRng } from './support/data';

const rng = seededRng('encoding.test');

/** Little-endian bytes by way of a hex string: a second, independent encoder. */
function hexLE(v: bigint, len: number): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(2 * len, '0'), 'hex').reverse());
}

test('bigint ↔ little-endian bytes', () => {
  for (const len of [8, 32, 48]) {
    const values = [0n, 1n, 255n, 256n, (1n << BigInt(8 * len)) - 1n, rng.bits(8 * len), rng.bits(8 * len - 3)];
    for (const v of values) {
      const b = bigintToBytesLE(v, len);
      expect(b).toEqual(hexLE(v, len));
      expect(bytesToBigintLE(b)).toBe(v);
    }
  }
  // views into a larger buffer at an offset
  const big = new Uint8Array(80);
  big.set(hexLE(123456789n, 32), 16);
  expect(bytesToBigintLE(big.subarray(16, 48))).toBe(123456789n);
});

describe.each(CURVE_NAMES)('%s', (name) => {
  const c = CURVES[name];
  const pts = [...generatePoints(c, 6, rng).points, { x: 0n, y: 0n }];
  const ks = [0n, 1n, c.r - 1n, rng.below(c.r), rng.bits(64)];

  test('canonical points: x‖y little-endian, infinity all zeros; decode inverts', () => {
    const b = encodePoints(c, pts);
    const fb = c.fieldBytes;
    expect(b.byteLength).toBe(pts.length * 2 * fb);
    pts.forEach((P, i) => {
      expect(b.subarray(2 * fb * i, 2 * fb * i + fb)).toEqual(hexLE(P.x, fb));
      expect(b.subarray(2 * fb * i + fb, 2 * fb * (i + 1))).toEqual(hexLE(P.y, fb));
    });
    expect(decodePoints(c, b)).toEqual(pts);
  });

  test('Montgomery points: coordinates times R = 2^(8·fieldBytes) mod p; decode inverts', () => {
    const R = montgomeryRadix(c.p, c.fieldBytes);
    expect(R).toBe((1n << BigInt(8 * c.fieldBytes)) % c.p);
    expect((R * fromMontgomery(1n, c.p, c.fieldBytes)) % c.p).toBe(1n);
    const b = encodePoints(c, pts, 'montgomery');
    expect(decodePoints(c, b, 'montgomery')).toEqual(pts);
    const last = b.subarray(b.byteLength - 2 * c.fieldBytes);
    expect(last.every((x) => x === 0)).toBe(true);
    expect(bytesToBigintLE(b.subarray(0, c.fieldBytes))).toBe(toMontgomery(pts[0].x, c.p, c.fieldBytes));
  });

  test('scalars: 32 bytes little-endian, canonical and Montgomery; decode inverts', () => {
    const b = encodeScalars(c, ks);
    ks.forEach((k, i) => expect(b.subarray(32 * i, 32 * i + 32)).toEqual(hexLE(k, 32)));
    expect(decodeScalars(c, b)).toEqual(ks);
    const m = encodeScalars(c, ks, 'montgomery');
    ks.forEach((k, i) => expect(bytesToBigintLE(m.subarray(32 * i, 32 * i + 32))).toBe((k * (1n << 256n)) % c.r));
    expect(decodeScalars(c, m, 'montgomery')).toEqual(ks);
  });
});

// ffjavascript's generic field sizes and encodes any p: n8 = 8·⌈bits(p)/64⌉ bytes, x·2^(8·n8) mod p.
// The packed formats of every curve, the 40-byte BLS24-315 among them, are what it writes.
test.each(CURVE_NAMES)('%s: fieldBytes and LEM coordinates equal ffjavascript F1Field(p)', (name) => {
  const c = CURVES[name];
  const F1 = new F1Field(c.p);
  const fb = c.fieldBytes;
  expect(F1.n8).toBe(fb);
  const pts = generatePoints(c, 3, rng).points;
  const ours = encodePoints(c, pts, 'montgomery');
  const theirs = new Uint8Array(ours.byteLength);
  pts.forEach((P, i) => {
    F1.toRprLEM(theirs, 2 * fb * i, F1.e(P.x));
    F1.toRprLEM(theirs, 2 * fb * i + fb, F1.e(P.y));
  });
  expect(ours).toEqual(theirs);
});

describe.each([
  ['bn254', buildBn128],
  ['bls12-381', buildBls12381],
] as [CurveName, (single: boolean) => Promise<any>][])('%s LEM equals ffjavascript', (name, build) => {
  let ff: any;
  beforeAll(async () => {
    ff = await build(true); // single-threaded: no workers
  });
  afterAll(async () => ff?.terminate());

  test('points', () => {
    const c = CURVES[name];
    const pts = generatePoints(c, 5, rng).points;
    const ours = encodePoints(c, pts, 'montgomery');
    const theirs = new Uint8Array(ours.byteLength);
    pts.forEach((P, i) => ff.G1.toRprLEM(theirs, i * 2 * c.fieldBytes, ff.G1.toAffine(ff.G1.fromObject([P.x, P.y, 1n]))));
    expect(ours).toEqual(theirs);
    // ffjavascript's Montgomery one is our R mod p
    expect(bytesToBigintLE(ff.F1.one)).toBe(montgomeryRadix(c.p, c.fieldBytes));
  });

  test('scalars', () => {
    const c = CURVES[name];
    const ks = [1n, 2n, c.r - 1n, rng.below(c.r)];
    const ours = encodeScalars(c, ks, 'montgomery');
    ks.forEach((k, i) => expect(ours.subarray(32 * i, 32 * i + 32)).toEqual(Uint8Array.from(ff.Fr.e(k))));
  });
});
