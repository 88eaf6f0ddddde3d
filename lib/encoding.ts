// Byte encodings shared with the native addon (see lib/native.ts):
//   points   n × (2·fieldBytes), x‖y little-endian; 'canonical' integers < p, or 'montgomery'
//            (snarkjs/ffjavascript "LEM": x·R mod p with R = 2^(8·fieldBytes)); infinity = zeros.
//            G2: n × (4·fieldBytes), x.c0‖x.c1‖y.c0‖y.c1, each F_p coordinate as above (the zkey
//            section-7 order; ffjavascript's F2Field keeps c0 then c1, each in F1's Montgomery form).
//   scalars  n × 32 bytes little-endian; 'canonical' integers < r, or 'montgomery' (k·2^256 mod r).
// Nothing here validates: lib/validate.ts does, before anything is encoded.

import type { Curve, Group } from './curves';

export interface AffinePoint {
  x: bigint;
  y: bigint;
}

/** A G2 point: coordinates in F_p² = F_p[u]/(u² + 1) as [c0, c1] (c0 + c1·u); infinity is all zeros. */
export interface G2AffinePoint {
  x: [bigint, bigint];
  y: [bigint, bigint];
}

/** The point type of a group. */
export type PointOf<G extends Group> = G extends 'g2' ? G2AffinePoint : AffinePoint;

/** F_p coordinates of one point in the packed formats: x‖y for G1, x.c0‖x.c1‖y.c0‖y.c1 for G2. */
export const COORDINATES: Readonly<Record<Group, number>> = Object.freeze({ g1: 2, g2: 4 });

/** The F_p coordinates of a point of `group`, in packed order. */
function coordinates(pt: AffinePoint | G2AffinePoint, group: Group): readonly bigint[] {
  if (group === 'g1') return [(pt as AffinePoint).x, (pt as AffinePoint).y];
  const { x, y } = pt as G2AffinePoint;
  return [x[0], x[1], y[0], y[1]];
}

/** The point of `group` with F_p coordinates v (packed order). */
function fromCoordinates<G extends Group>(v: readonly bigint[], group: G): PointOf<G> {
  return (group === 'g1' ? { x: v[0], y: v[1] } : { x: [v[0], v[1]], y: [v[2], v[3]] }) as PointOf<G>;
}

/** The point at infinity of a group: all coordinates 0n. */
export function infinityOf<G extends Group>(group: G): PointOf<G> {
  return fromCoordinates(new Array<bigint>(COORDINATES[group]).fill(0n), group);
}

export type ByteFormat = 'canonical' | 'montgomery';

export const INFINITY: Readonly<AffinePoint> = Object.freeze({ x: 0n, y: 0n });

// The shift of each 64-bit limb: one shift of the value per limb, and BigInt.asUintN instead of a
// mask, encode 2^20 scalars in ~175 ms against ~240 ms for mask-and-shift (Node 20).
const LIMB_SHIFTS = Array.from({ length: 16 }, (_, i) => BigInt(64 * i));

/** Write `value` (0 ≤ value < 2^(8·len), len a multiple of 8) little-endian at `offset`. */
export function writeLE(view: DataView, offset: number, value: bigint, len: number): void {
  for (let i = 0; i < len; i += 8) {
    view.setBigUint64(offset + i, BigInt.asUintN(64, value >> (LIMB_SHIFTS[i >> 3] ?? BigInt(8 * i))), true);
  }
}

/** Read a little-endian integer of `len` bytes (a multiple of 8) at `offset`. */
export function readLE(view: DataView, offset: number, len: number): bigint {
  let v = 0n;
  for (let i = len - 8; i >= 0; i -= 8) v = (v << 64n) | view.getBigUint64(offset + i, true);
  return v;
}

export function bigintToBytesLE(value: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  writeLE(new DataView(out.buffer), 0, value, len);
  return out;
}

export function bytesToBigintLE(bytes: Uint8Array): bigint {
  return readLE(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, bytes.byteLength);
}

/** R = 2^(8·len) mod m: the Montgomery radix used by the packed 'montgomery' formats. */
export function montgomeryRadix(m: bigint, len: number): bigint {
  return (1n << BigInt(8 * len)) % m;
}

export function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new RangeError('not invertible');
  return ((s0 % m) + m) % m;
}

export function toMontgomery(v: bigint, m: bigint, len: number): bigint {
  return (v * montgomeryRadix(m, len)) % m;
}

export function fromMontgomery(v: bigint, m: bigint, len: number): bigint {
  return (v * modInverse(montgomeryRadix(m, len), m)) % m;
}

/** Pack points of `group` (coordinates already known to be in [0, p)). */
export function encodePoints<G extends Group = 'g1'>(curve: Curve, points: readonly PointOf<G>[], format: ByteFormat = 'canonical', group: G = 'g1' as G): Uint8Array {
  const fb = curve.fieldBytes;
  const k = COORDINATES[group];
  const out = new Uint8Array(points.length * k * fb);
  const view = new DataView(out.buffer);
  const R = format === 'montgomery' ? montgomeryRadix(curve.p, fb) : 1n;
  for (let i = 0; i < points.length; i++) {
    const v = coordinates(points[i], group);
    if (v.every((c) => c === 0n)) continue; // infinity: all zeros in both formats
    for (let j = 0; j < k; j++) writeLE(view, fb * (k * i + j), R === 1n ? v[j] : (v[j] * R) % curve.p, fb);
  }
  return out;
}

/** Unpack points of `group` (all-zero entries become the point at infinity, all 0n). */
export function decodePoints<G extends Group = 'g1'>(curve: Curve, bytes: Uint8Array, format: ByteFormat = 'canonical', group: G = 'g1' as G): PointOf<G>[] {
  const fb = curve.fieldBytes;
  const k = COORDINATES[group];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Math.floor(bytes.byteLength / (k * fb));
  const Rinv = format === 'montgomery' ? modInverse(montgomeryRadix(curve.p, fb), curve.p) : 1n;
  const out: PointOf<G>[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const v: bigint[] = new Array(k);
    for (let j = 0; j < k; j++) {
      const c = readLE(view, fb * (k * i + j), fb);
      v[j] = Rinv === 1n ? c : (c * Rinv) % curve.p;
    }
    out[i] = fromCoordinates(v, group);
  }
  return out;
}

/** The native result: canonical coordinates (x‖y, or x.c0‖x.c1‖y.c0‖y.c1), all zeros for infinity. */
export function decodePoint<G extends Group = 'g1'>(curve: Curve, bytes: Uint8Array, group: G = 'g1' as G): PointOf<G> {
  return decodePoints(curve, bytes, 'canonical', group)[0] ?? infinityOf(group);
}

/** Pack scalars (already known to be in [0, r)) as 32-byte little-endian integers. */
export function encodeScalars(curve: Curve, scalars: readonly bigint[], format: ByteFormat = 'canonical'): Uint8Array {
  const sb = curve.scalarBytes;
  const out = new Uint8Array(scalars.length * sb);
  const view = new DataView(out.buffer);
  const R = format === 'montgomery' ? montgomeryRadix(curve.r, sb) : 1n;
  for (let i = 0; i < scalars.length; i++) {
    const k = R === 1n ? scalars[i] : (scalars[i] * R) % curve.r;
    if (k !== 0n) writeLE(view, sb * i, k, sb);
  }
  return out;
}

export function decodeScalars(curve: Curve, bytes: Uint8Array, format: ByteFormat = 'canonical'): bigint[] {
  const sb = curve.scalarBytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Math.floor(bytes.byteLength / sb);
  const Rinv = format === 'montgomery' ? modInverse(montgomeryRadix(curve.r, sb), curve.r) : 1n;
  const out: bigint[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = readLE(view, sb * i, sb);
    out[i] = Rinv === 1n ? k : (k * Rinv) % curve.r;
  }
  return out;
}
