// Packed inputs (canonical x‖y and snarkjs LEM points; canonical and Montgomery scalars; Buffers
// and views at an offset into a larger buffer) give the same results as {x, y} / bigint input.

import { CURVES, CURVE_NAMES, msm, MsmContext } from '../lib';
import { encodePoints, encodeScalars } from '../lib/encoding';
import { awkwardPoints, expectedFromDlogs, mixedScalars, seededRng } from './support/data';

const rng = seededRng('formats.test');

/** `bytes` copied into a larger buffer at an odd offset, returned as a view. */
function atOffset(bytes: Uint8Array, offset: number): Uint8Array {
  const big = new Uint8Array(bytes.byteLength + offset + 5);
  big.set(bytes, offset);
  return big.subarray(offset, offset + bytes.byteLength);
}

describe.each(CURVE_NAMES)('%s', (name) => {
  const c = CURVES[name];
  const n = 77;
  const d = awkwardPoints(c, n, rng);
  const k = mixedScalars(c, n, rng);
  const want = expectedFromDlogs(c, d.dlogs, k);

  test('objects, canonical bytes and LEM bytes agree (with every scalar format)', async () => {
    expect(await msm(name, d.points, k, { backend: 'cpu' })).toEqual(want);
    for (const pointFormat of ['canonical', 'montgomery', 'lem'] as const) {
      const P = encodePoints(c, d.points, pointFormat === 'lem' ? 'montgomery' : pointFormat);
      for (const scalarFormat of ['canonical', 'montgomery'] as const) {
        const S = encodeScalars(c, k, scalarFormat);
        expect(await msm(name, P, S, { backend: 'cpu', pointFormat, scalarFormat })).toEqual(want);
        expect(await msm(name, atOffset(P, 3), atOffset(S, 7), { backend: 'cpu', pointFormat, scalarFormat })).toEqual(want);
        expect(await msm(name, Buffer.from(P), Buffer.from(S), { backend: 'cpu', pointFormat, scalarFormat })).toEqual(want);
      }
      expect(await msm(name, P, k, { backend: 'cpu', pointFormat })).toEqual(want);
    }
  });

  test('a context over LEM points, scalars in either format per call', async () => {
    const ctx = await MsmContext.create(name, encodePoints(c, d.points, 'montgomery'), { backend: 'cpu', pointFormat: 'lem' });
    try {
      expect(await ctx.msm(k)).toEqual(want);
      expect(await ctx.msm(encodeScalars(c, k, 'montgomery'), { scalarFormat: 'montgomery' })).toEqual(want);
      expect(await ctx.msm(encodeScalars(c, k))).toEqual(want);
      expect(await ctx.msmBatch([encodeScalars(c, k, 'montgomery')], { scalarFormat: 'montgomery' })).toEqual([want]);
    } finally {
      ctx.close();
    }
  });

  test('the caller’s buffers are not modified', async () => {
    const P = encodePoints(c, d.points, 'montgomery');
    const S = encodeScalars(c, k, 'montgomery');
    const [P0, S0] = [P.slice(), S.slice()];
    await msm(name, P, S, { backend: 'cpu', pointFormat: 'lem', scalarFormat: 'montgomery' });
    expect(P).toEqual(P0);
    expect(S).toEqual(S0);
  });
});
