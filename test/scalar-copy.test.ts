// The call-time copy of scalars into memory a DMA reads next (cuda/common/bytes.hpp
// HostBytes::stream: non-temporal stores on the copy threads, the range scan shown only the pieces
// that hold a scalar whose top limb reaches r's). The CUDA engine copies every MSM's scalars this
// way; this runs it on the host through the test addon. Needs no GPU.

import { CURVES } from '../lib/curves';
import { writeLE } from '../lib/encoding';
import { seededRng, unreducedAtSplits } from './support/data';
import { testingAddon } from './support/testing';

const T = testingAddon;
const seed = 'scalar-copy';
const rng = seededRng(seed);
const PIECE = 8192; // scalars per piece (HostBytes::kPiece = 256 KiB)

// n random scalars below 2^252 (< r for every curve), so no top limb reaches r's.
function lowScalars(n: number): Uint8Array {
  const b = new Uint8Array(32 * n);
  for (let i = 0; i < b.length; i++) b[i] = rng.int(256);
  for (let i = 31; i < b.length; i += 32) b[i] &= 0x0f;
  return b;
}
const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0;

describe.each(['bn254', 'bls12-381'])(`the call-time copy and range scan, %s (seed ${seed})`, (curve) => {
  const c = CURVES[curve];

  test('scalars below r: copied exactly, no piece shown to the scan, at every size, source and destination offset', () => {
    for (const n of [0, 1, 2, 3, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 5]) {
      const s = lowScalars(n);
      for (const [srcOffset, dstOffset] of [
        [0, 0],
        [1, 0],
        [8, 0],
        [0, 8], // not 16-byte aligned: the plain copy, which shows every piece
      ]) {
        const src = new Uint8Array(srcOffset + s.length);
        src.set(s, srcOffset);
        const r = T().streamScalars(curve, src, srcOffset, dstOffset, true);
        expect({ n, srcOffset, dstOffset, same: equal(r.copy, s), first: r.first }).toEqual({ n, srcOffset, dstOffset, same: true, first: -1 });
        if (dstOffset % 16 === 0) expect(r.looked).toBe(0);
        else expect(r.looked).toBeGreaterThanOrEqual(Math.ceil(n / PIECE));
      }
    }
  });

  test('a scalar ≥ r anywhere (piece and thread boundaries, several at once): the lowest index, the copy exact', () => {
    const n = 4 * PIECE + 3; // pieces over several copy threads, a 32-byte tail
    const good = lowScalars(n);
    for (const { bytes, index } of unreducedAtSplits(c, good)) {
      for (const srcOffset of [0, 4]) {
        const src = new Uint8Array(srcOffset + bytes.length);
        src.set(bytes, srcOffset);
        const r = T().streamScalars(curve, src, srcOffset, 0, true);
        expect({ index, first: r.first, same: equal(r.copy, bytes) }).toEqual({ index, first: index, same: true });
        expect(r.looked).toBeGreaterThanOrEqual(1);
      }
    }
  });

  test('r − 1 and other ties on the top limb: shown to the scan, found in range', () => {
    const n = 2 * PIECE + 1;
    for (const at of [0, PIECE - 1, PIECE, n - 1]) {
      const s = lowScalars(n);
      writeLE(new DataView(s.buffer), 32 * at, c.r - 1n - BigInt(rng.int(1000)), 32);
      const r = T().streamScalars(curve, s, 0, 0, true);
      expect({ at, first: r.first, looked: r.looked, same: equal(r.copy, s) }).toEqual({ at, first: -1, looked: 1, same: true });
    }
  });

  test('without a scan, any length (a part of an element at the end) is copied exactly', () => {
    for (const len of [0, 5, 63, 64, 65, 100, 32 * PIECE + 17]) {
      const s = new Uint8Array(len);
      for (let i = 0; i < len; i++) s[i] = rng.int(256);
      for (const srcOffset of [0, 3]) {
        const src = new Uint8Array(srcOffset + len);
        src.set(s, srcOffset);
        const r = T().streamScalars(curve, src, srcOffset, 0, false);
        expect({ len, srcOffset, same: equal(r.copy, s), looked: r.looked }).toEqual({ len, srcOffset, same: true, looked: 0 });
      }
    }
  });
});
