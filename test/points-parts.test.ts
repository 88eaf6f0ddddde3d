// Packed points in parts (issue 13): an array of Uint8Arrays, concatenated in order, for bases
// larger than one typed array. Parts and one array give the same results (G1 and G2, both
// formats, msm and MsmContext); point errors name the index in the whole, across part boundaries;
// bad lists are refused with the part named; parts are taken at the call (the child-process
// cases of test/reliability.test.ts do so under a busy worker); the test addon's generator and
// the snarkjs hook's BigBuffer pages give parts.

import { normalizeZ } from '@noble/curves/abstract/curve.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { CURVES, msm, MsmContext, type AffinePoint, type G2AffinePoint, type Group, type PointOf } from '../lib';
import { bigintToBytesLE, encodePoints, encodeScalars, writeLE } from '../lib/encoding';
import { loadNative } from '../lib/native';
import { pointParts } from '../lib/snarkjs-cache';
import { pointAtOrAfter } from './model/ec';
import { twistPoint, TWISTS } from './model/fp2';
import { expectedFromDlogs, fieldOf, fromModel, progression, seededRng } from './support/data';
import { rejects } from './support/expect';
import { testingAddon } from './support/testing';

const rng = seededRng('points-parts.test');
const CURVES_TESTED = ['bn254', 'bls12-381'] as const;
type Name = (typeof CURVES_TESTED)[number];
const NOBLE = { bn254: bn254.G2.Point, 'bls12-381': bls12_381.G2.Point } as const;

/** bytes cut before the given point indices (ascending, repeats give empty parts): views of bytes. */
function cut(bytes: Uint8Array, pointBytes: number, at: readonly number[]): Uint8Array[] {
  const edges = [0, ...at, bytes.byteLength / pointBytes];
  return edges.slice(1).map((e, i) => bytes.subarray(edges[i] * pointBytes, e * pointBytes));
}

/** n points of the group, in G1 with their discrete logs (for a model result). */
function points<G extends Group>(name: Name, group: G, n: number): { pts: PointOf<G>[]; dlogs?: bigint[] } {
  const c = CURVES[name];
  const s = 1n + rng.below(c.r - 1n);
  const t = 1n + rng.below(c.r - 1n);
  if (group === 'g1') {
    const d = progression(c, n, s, t);
    return { pts: d.points as PointOf<G>[], dlogs: d.dlogs };
  }
  const P = NOBLE[name];
  const T = P.BASE.multiply(t);
  const proj = [P.BASE.multiply(s)];
  while (proj.length < n) proj.push(proj[proj.length - 1].add(T));
  const pts = normalizeZ(P, proj).map((q) => {
    const a = q.toAffine();
    return { x: [a.x.c0, a.x.c1], y: [a.y.c0, a.y.c1] } as G2AffinePoint;
  });
  return { pts: pts as PointOf<G>[] };
}

/** A point on the curve (the twist, for G2) outside the order-r subgroup. */
function outsideSubgroup(name: Name, group: Group): AffinePoint | G2AffinePoint {
  const c = CURVES[name];
  if (group === 'g1') return fromModel(pointAtOrAfter(fieldOf(c), 5n + rng.below(1n << 64n)));
  const Q = twistPoint(TWISTS[name], [rng.below(c.p), rng.below(c.p)]);
  return { x: [Q.x[0], Q.x[1]], y: [Q.y[0], Q.y[1]] };
}

/** The point with y (its c0 on G2) plus one: off the curve. */
function offCurve(c: (typeof CURVES)[Name], P: AffinePoint | G2AffinePoint): AffinePoint | G2AffinePoint {
  if (typeof P.y === 'bigint') return { x: P.x as bigint, y: (P.y + 1n) % c.p };
  const y = P.y as [bigint, bigint];
  return { x: P.x as [bigint, bigint], y: [(y[0] + 1n) % c.p, y[1]] };
}

describe.each(CURVES_TESTED.flatMap((name) => (['g1', 'g2'] as const).map((group) => [name, group] as const)))('%s %s', (name, group) => {
  const c = CURVES[name];
  const n = 20;
  const pointBytes = (group === 'g1' ? 2 : 4) * c.fieldBytes;
  const { pts, dlogs } = points(name, group, n);
  const ks = pts.map(() => rng.below(c.r));
  const opts = { backend: 'cpu', group } as const;

  test('parts give the result of one array: msm, MsmContext.create, both formats, empty parts too', async () => {
    const want = await msm(name, encodePoints(c, pts, 'canonical', group), ks, opts);
    if (dlogs) expect(want).toEqual(expectedFromDlogs(c, dlogs, ks));
    for (const pointFormat of ['canonical', 'montgomery'] as const) {
      const bytes = encodePoints(c, pts, pointFormat, group);
      for (const at of [[], [1], [0, 5, 5, 11, n], [6, 7, 13], Array.from({ length: n - 1 }, (_, i) => i + 1)]) {
        const parts = cut(bytes, pointBytes, at);
        expect(await msm(name, parts, ks, { ...opts, pointFormat })).toEqual(want);
        const ctx = await MsmContext.create(name, parts, { ...opts, pointFormat });
        try {
          expect(ctx.size).toBe(n);
          expect(await ctx.msm(encodeScalars(c, ks))).toEqual(want);
          expect(await ctx.msmBatch([ks, ks])).toEqual([want, want]);
        } finally {
          ctx.close();
        }
      }
    }
  });

  test('point errors name the index in the whole: first point of a part, last point of a part, across parts', async () => {
    // parts [0, 7), [7, 13), [13, 20)
    const at = [7, 13];
    const cases: { bad: number[]; index: number }[] = [
      { bad: [7], index: 7 }, // the first point of the second part
      { bad: [6], index: 6 }, // the last point of the first part
      { bad: [12], index: 12 },
      { bad: [n - 1], index: n - 1 },
      { bad: [15, 8], index: 8 }, // the lowest, whatever part it is in
    ];
    for (const { bad, index } of cases) {
      const off = [...pts];
      for (const i of bad) off[i] = offCurve(c, pts[i]) as PointOf<typeof group>;
      for (const pointFormat of ['canonical', 'montgomery'] as const) {
        const parts = cut(encodePoints(c, off, pointFormat, group), pointBytes, at);
        await rejects(msm(name, parts, ks, { ...opts, pointFormat }), 'ERR_POINT_NOT_ON_CURVE', index);
        await rejects(MsmContext.create(name, parts, { ...opts, pointFormat }), 'ERR_POINT_NOT_ON_CURVE', index);
        // a coordinate ≥ p (x, its c0 on G2)
        const big = encodePoints(c, pts, pointFormat, group);
        for (const i of bad) writeLE(new DataView(big.buffer), i * pointBytes, c.p, c.fieldBytes);
        await rejects(msm(name, cut(big, pointBytes, at), ks, { ...opts, pointFormat, validate: 'none' }), 'ERR_POINT_ENCODING', index);
      }
    }
    if (name === 'bls12-381') {
      const outside = [...pts];
      outside[7] = outsideSubgroup(name, group) as PointOf<typeof group>;
      const parts = cut(encodePoints(c, outside, 'montgomery', group), pointBytes, at);
      await rejects(MsmContext.create(name, parts, { ...opts, pointFormat: 'lem', validate: 'subgroup' }), 'ERR_POINT_NOT_IN_SUBGROUP', 7);
      await expect(MsmContext.create(name, parts, { ...opts, pointFormat: 'lem' }).then((ctx) => ctx.close())).resolves.toBeUndefined();
    }
  });

  test('a part with a partial point: ERR_INVALID_ARGUMENT naming the part and its byte length', async () => {
    const bytes = encodePoints(c, pts, 'canonical', group);
    const half = pointBytes / 2; // a whole number of G1 points on G2: still partial
    const bad = [bytes.subarray(0, 3 * pointBytes), bytes.subarray(3 * pointBytes, 5 * pointBytes + half), bytes.subarray(5 * pointBytes + half)];
    const e = await rejects(msm(name, bad, ks, opts), 'ERR_INVALID_ARGUMENT');
    expect(e.message).toMatch(new RegExp(`points\\[1\\].*${pointBytes}-byte points.*got ${2 * pointBytes + half} bytes`));
    const first = await rejects(MsmContext.create(name, [bytes.subarray(0, 1)], opts), 'ERR_INVALID_ARGUMENT');
    expect(first.message).toMatch(/points\[0\].*got 1 bytes/);
  });
});

describe('lists that are not parts, or not only parts', () => {
  const name = 'bn254';
  const c = CURVES[name];
  const d = progression(c, 6, 1n + rng.below(c.r - 1n), 1n + rng.below(c.r - 1n));
  const ks = d.points.map(() => rng.below(c.r));
  const bytes = encodePoints(c, d.points);
  const want = expectedFromDlogs(c, d.dlogs, ks);
  const [a, b] = cut(bytes, 64, [2]);
  const opts = { backend: 'cpu' } as const;

  test('an element that is not a Uint8Array: ERR_INVALID_ARGUMENT naming it', async () => {
    for (const odd of [new Uint16Array(32), new DataView(new ArrayBuffer(64)), new Uint8ClampedArray(64), null, undefined, 64, 'bytes', [1, 2], new ArrayBuffer(64)]) {
      const e = await rejects(msm(name, [a, odd, b] as never, ks), 'ERR_INVALID_ARGUMENT');
      expect(e.message).toMatch(/points\[1\] must be a Uint8Array/);
      await rejects(MsmContext.create(name, [a, b, odd] as never), 'ERR_INVALID_ARGUMENT');
    }
    // a Buffer is a Uint8Array
    expect(await msm(name, [Buffer.from(a), b], ks, opts)).toEqual(want);
  });

  test('point objects and parts mixed: an error naming the element', async () => {
    const e = await rejects(msm(name, [a, d.points[2]] as never, ks), 'ERR_INVALID_ARGUMENT');
    expect(e.message).toMatch(/points\[1\] must be a Uint8Array, as points\[0\] is/);
    // points first: the element's index is a point's index
    const mixed = await rejects(msm(name, [...d.points.slice(0, 3), b, ...d.points.slice(4)] as never, ks), 'ERR_INVALID_ARGUMENT', 3);
    expect(mixed.message).toMatch(/points\[3\] is a Uint8Array but points\[0\] is not/);
  });

  test('[] is an empty list of points, as before; empty parts are no points', async () => {
    expect(await msm(name, [], [], opts)).toEqual({ x: 0n, y: 0n });
    expect(await msm(name, [], new Uint8Array(0), opts)).toEqual({ x: 0n, y: 0n });
    expect((await MsmContext.create(name, [])).size).toBe(0);
    expect(await msm(name, [new Uint8Array(0)], [], opts)).toEqual({ x: 0n, y: 0n });
    expect(await msm(name, [new Uint8Array(0), bytes.subarray(64, 64)], [], { ...opts, pointFormat: 'lem' })).toEqual({ x: 0n, y: 0n });
    expect(await msm(name, [], [], { group: 'g2' })).toEqual({ x: [0n, 0n], y: [0n, 0n] });
    // the count is the parts' total
    await rejects(msm(name, [a, b], ks.slice(1)), 'ERR_LENGTH_MISMATCH');
    await rejects(msm(name, [new Uint8Array(0)], [1n]), 'ERR_LENGTH_MISMATCH');
  });

  test('a Proxy: its length and each part read once; a lying length reads no more than it claims', async () => {
    const reads: Record<string, number> = {};
    const counted = new Proxy([a, b], {
      get(t, k) {
        if (typeof k === 'string') reads[k] = (reads[k] ?? 0) + 1;
        return Reflect.get(t, k);
      },
    });
    expect(await msm(name, counted, ks, opts)).toEqual(want);
    expect(reads).toEqual({ length: 1, '0': 1, '1': 1 });
    // claims more parts than it holds: the first missing one is named
    const longer = new Proxy([a, b], { get: (t, k) => (k === 'length' ? 5 : Reflect.get(t, k)) });
    const e = await rejects(msm(name, longer, ks), 'ERR_INVALID_ARGUMENT');
    expect(e.message).toMatch(/points\[2\] must be a Uint8Array.*undefined/);
    // claims fewer: only those are points
    const shorter = new Proxy([a, b], { get: (t, k) => (k === 'length' ? 1 : Reflect.get(t, k)) });
    expect(await msm(name, shorter, ks.slice(0, 2), opts)).toEqual(expectedFromDlogs(c, d.dlogs.slice(0, 2), ks.slice(0, 2)));
    // a part that throws when read
    const throwing = new Proxy([a, b], { get: (t, k) => (k === '1' ? (() => { throw new RangeError('part'); })() : Reflect.get(t, k)) });
    const t = await rejects(msm(name, throwing, ks), 'ERR_INVALID_ARGUMENT');
    expect(t.message).toMatch(/points\[1\] could not be read \(RangeError: part\)/);
    // a part that is a Uint8Array when first read and garbage afterwards: the first read counts
    let second = 0;
    const changing = new Proxy([a, b], { get: (t2, k) => (k === '1' ? (++second === 1 ? b : 'garbage') : Reflect.get(t2, k)) });
    expect(await msm(name, changing, ks, opts)).toEqual(want);
    expect(second).toBe(1);
  });

  test('a part whose class lies about its length: the true length decides', async () => {
    class Liar extends Uint8Array {
      get byteLength(): number {
        return 64 * 4;
      }
    }
    const liar = new Liar(b); // 4 points; a subclass cannot change what the engine reads
    expect(await msm(name, [a, liar], ks, opts)).toEqual(want);
    const short = new Liar(b.subarray(0, 100));
    const e = await rejects(msm(name, [a, short], ks), 'ERR_INVALID_ARGUMENT');
    expect(e.message).toMatch(/got 100 bytes/);
  });

  test('the addon checks the parts too (its own re-check, for callers other than lib/)', async () => {
    const native = loadNative();
    const options = { backend: 'cpu', device: 0, windowBits: 0, tau: -1, accumulation: 'xyzz', threads: 0, group: 'g1' } as const;
    await expect(native.createContext(name, [a, b.subarray(1)], 0, 1, options)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT', message: /points\[1\] \(a part\) has 255 bytes, not a multiple of 64/ });
    await expect(native.createContext(name, [a, 7 as never], 0, 1, options)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT', message: /points\[1\] must be a Uint8Array/ });
    await expect(native.createContext(name, 7 as never, 0, 1, options)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    const ctx = await native.createContext(name, [new Uint8Array(0), a, b], 0, 1, options);
    expect(ctx.size).toBe(6);
    ctx.close();
  });
});

test('parts are taken at the call: mutation, resize(0), transfer and the list emptied afterwards change nothing', async () => {
  const name = 'bls12-381';
  const c = CURVES[name];
  const d = progression(c, 9, 1n + rng.below(c.r - 1n), 1n + rng.below(c.r - 1n));
  const ks = d.points.map(() => rng.below(c.r));
  const want = expectedFromDlogs(c, d.dlogs, ks);
  const bytes = encodePoints(c, d.points);
  const make = () => {
    const plain = bytes.slice(0, 3 * 96);
    const ab = new ArrayBuffer(3 * 96, { maxByteLength: 3 * 96 });
    const resizable = new Uint8Array(ab);
    resizable.set(bytes.subarray(3 * 96, 6 * 96));
    const moved = bytes.slice(6 * 96);
    const parts = [plain, resizable, moved];
    const abuse = () => {
      plain.fill(0xa5);
      ab.resize(0);
      structuredClone(moved.buffer, { transfer: [moved.buffer] });
      parts.length = 0;
    };
    return { parts, abuse };
  };
  for (const api of ['msm', 'create'] as const) {
    const { parts, abuse } = make();
    const pending = api === 'msm' ? msm(name, parts, ks, { backend: 'cpu' }) : MsmContext.create(name, parts, { backend: 'cpu' });
    abuse();
    if (api === 'msm') expect(await pending).toEqual(want);
    else {
      const ctx = (await pending) as MsmContext;
      expect(await ctx.msm(ks)).toEqual(want);
      ctx.close();
    }
  }
});

test('2^16 BN254 points in 7 uneven parts: the result of one array, and of the discrete-log model', async () => {
  const name = 'bn254';
  const c = CURVES[name];
  const n = 1 << 16;
  const s = 1n + rng.below(c.r - 1n);
  const t = 1n + rng.below(c.r - 1n);
  const bytes = testingAddon().generatePoints(name, n, bigintToBytesLE(s, 32), bigintToBytesLE(t, 32));
  const at = new Set<number>();
  while (at.size < 6) at.add(1 + rng.int(n - 1));
  const parts = cut(bytes, 64, [...at].sort((x, y) => x - y)).map((p) => p.slice()); // copies: no shared buffer
  expect(parts.map((p) => p.byteLength / 64).reduce((x, y) => x + y)).toBe(n);
  const ks = Array.from({ length: n }, () => rng.below(c.r));
  const packed = encodeScalars(c, ks);
  const want = await msm(name, bytes, packed, { backend: 'cpu' });
  expect(await msm(name, parts, packed, { backend: 'cpu' })).toEqual(want);
  const dlogs = Array.from({ length: n }, (_, i) => (s + BigInt(i) * t) % c.r);
  expect(want).toEqual(expectedFromDlogs(c, dlogs, ks));
  const ctx = await MsmContext.create(name, parts, { backend: 'cpu', validate: 'subgroup' });
  try {
    expect(await ctx.msm(packed)).toEqual(want);
  } finally {
    ctx.close();
  }
});

test("the test addon's generatePoints in parts: the same bytes, in parts of partPoints points", () => {
  const testing = testingAddon();
  for (const name of CURVES_TESTED) {
    const pb = 2 * CURVES[name].fieldBytes;
    const s = bigintToBytesLE(1n + rng.below(1n << 128n), 32);
    const t = bigintToBytesLE(1n + rng.below(1n << 128n), 32);
    const whole = testing.generatePoints(name, 1000, s, t);
    for (const per of [1000, 300, 250, 1, 5000]) {
      const parts = testing.generatePoints(name, 1000, s, t, undefined, per);
      expect(parts.map((p) => p.byteLength)).toEqual(Array.from({ length: Math.ceil(1000 / per) }, (_, k) => Math.min(per, 1000 - k * per) * pb));
      expect(Buffer.concat(parts).equals(Buffer.from(whole))).toBe(true);
    }
    expect(testing.generatePoints(name, 0, s, t, undefined, 10)).toEqual([]);
    expect(() => testing.generatePoints(name, 10, s, t, undefined, 0)).toThrow(/partPoints/);
    if (CURVES[name].groups.includes('g2')) {
      const whole2 = testing.generatePoints(name, 1000, s, t, 'g2');
      const parts2 = testing.generatePoints(name, 1000, s, t, 'g2', 300);
      expect(parts2.map((p) => p.byteLength)).toEqual([300, 300, 300, 100].map((k) => k * 2 * pb));
      expect(Buffer.concat(parts2).equals(Buffer.from(whole2))).toBe(true);
    }
  }
});

describe("snarkjs's BigBuffer pages as parts (lib/snarkjs-cache.ts pointParts)", () => {
  test('whole points of each page as views; a point across pages copied alone; pages smaller than a point', () => {
    for (const pointBytes of [64, 96, 128, 192]) {
      for (let trial = 0; trial < 20; trial++) {
        const n = 1 + rng.int(40);
        const bytes = new Uint8Array(n * pointBytes).map(() => rng.int(256));
        const cuts = new Set<number>();
        const k = rng.int(8);
        while (cuts.size < k) cuts.add(rng.int(bytes.byteLength + 1)); // 0 and the end: empty pages
        const edges = [0, ...[...cuts].sort((x, y) => x - y), bytes.byteLength];
        const pages = edges.slice(1).map((e, i) => bytes.slice(edges[i], e));
        const got = pointParts({ byteLength: bytes.byteLength, parts: pages }, pointBytes);
        const parts = Array.isArray(got) ? got : [got];
        expect(Buffer.concat(parts).equals(Buffer.from(bytes))).toBe(true);
        for (const p of parts) expect(p.byteLength % pointBytes).toBe(0);
        // copied: at most the points that straddle a page boundary
        const copied = parts.filter((p) => !pages.some((page) => page.buffer === p.buffer)).reduce((sum, p) => sum + p.byteLength, 0);
        expect(copied).toBeLessThanOrEqual((pages.length - 1) * pointBytes);
      }
    }
    const one = new Uint8Array(128);
    expect(pointParts({ byteLength: 128, parts: [one] }, 64)).toBe(one);
  });
});
