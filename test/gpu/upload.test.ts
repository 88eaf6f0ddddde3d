// The CUDA scalar upload paths (engine.cu): the call-time copy into a context's lent pinned
// buffers, the upload started during that copy when the device is idle (a "ticket" msm_batch
// trusts only while the device buffer still holds those bytes), and the staged upload of
// everything else. Every way a ticket can go stale is driven here: calls queued while another
// runs, more sets than lent buffers (8 at 2^16, 2 at 2^20 + 5), batches mixed with single calls,
// two contexts on one device, Montgomery scalars decoded after the copy. At 2^16 points a call runs
// in one piece; at 2^20 + 5 the plan splits it (Plan::pieces: each piece but the last starts while
// the next is being copied, and their buckets stay in the workspace for the call's msm_batch),
// which every one of these drives too (MSM_CUDA_PIECES=k forces k pieces at every size).
// Each result is checked against the CPU backend.
// Skipped, with the reason, where CUDA is unavailable.

import { CURVES, info, MsmContext, type AffinePoint, type CurveName } from '../../lib';
import { packedScalars, seededRng, unreducedAtSplits } from '../support/data';
import { testingAddon } from '../support/testing';

const inf = info();
const available = inf.cuda.available;
if (!available) process.stdout.write(`[skip] test/gpu/upload: CUDA unavailable: ${inf.cuda.reason}\n`);
const d = available ? describe : describe.skip;

const rng = seededRng('gpu/upload');
// 2 MiB of scalars: above the engine's 1 MiB threshold for lent buffers; 2^20 + 5: split in two pieces
const SIZES = [1 << 16, (1 << 20) + 5];

function le(k: bigint): Uint8Array {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++, k >>= 8n) b[i] = Number(k & 0xffn);
  return b;
}

function randomScalars(curve: CurveName, N: number): Uint8Array {
  return packedScalars(CURVES[curve], N, 'random', rng);
}

// k·R mod r, little-endian: the same scalars in Montgomery form (R = 2^256).
function toMontgomery(curve: CurveName, canonical: Uint8Array): Uint8Array {
  const r = CURVES[curve].r;
  const out = new Uint8Array(canonical.length);
  for (let i = 0; i < canonical.length; i += 32) {
    let k = 0n;
    for (let j = 31; j >= 0; j--) k = (k << 8n) | BigInt(canonical[i + j]);
    out.set(le(((k << 256n) % r + r) % r), i);
  }
  return out;
}

d.each(SIZES)('CUDA scalar uploads, n = %i: lent pinned buffers and uploads started at call time', (N) => {
  const curve: CurveName = 'bn254';
  let gpu: MsmContext, gpu2: MsmContext, cpu: MsmContext;
  const sets: Uint8Array[] = [];
  const want: AffinePoint[] = [];

  beforeAll(async () => {
    const t = testingAddon();
    const bytes = t.generatePoints(curve, N, le(1n + rng.below(CURVES[curve].r - 1n)), le(1n + rng.below(CURVES[curve].r - 1n)));
    gpu = await MsmContext.create(curve, bytes, { backend: 'cuda' });
    gpu2 = await MsmContext.create(curve, bytes, { backend: 'cuda' });
    cpu = await MsmContext.create(curve, bytes, { backend: 'cpu' });
    for (let i = 0; i < 8; i++) sets.push(randomScalars(curve, N));
    for (const s of sets) want.push(await cpu.msm(s));
  }, 300_000);

  afterAll(() => {
    gpu?.close();
    gpu2?.close();
    cpu?.close();
  });

  // Eight buffers for a small context (up to 64 MiB), two from 2^20 points (engine.cu lent_buffers).
  const lent = N <= 1 << 16 ? 8 : 2;

  test('the context holds its lent buffers as host memory', () => {
    expect(gpu.memory.host).toBeGreaterThanOrEqual(lent * 32 * N);
  });

  test('one call after another (each copy uploaded while it is made)', async () => {
    for (let i = 0; i < 4; i++) expect(await gpu.msm(sets[i])).toEqual(want[i]);
    expect(await gpu.msm(sets[0])).toEqual(want[0]); // the same bytes again, in the other device buffer
  });

  test('calls queued while others run: more than there are lent buffers', async () => {
    const order = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]; // indices into sets
    expect(order.length).toBeGreaterThan(lent);
    const got = await Promise.all(order.map((i) => gpu.msm(sets[i])));
    expect(got).toEqual(order.map((i) => want[i]));
  });

  test('batches of 1, 2, 8 and 10 sets, and a batch queued between single calls', async () => {
    expect(await gpu.msmBatch([sets[3]])).toEqual([want[3]]);
    expect(await gpu.msmBatch([sets[4], sets[5]])).toEqual([want[4], want[5]]);
    expect(await gpu.msmBatch(sets)).toEqual(want);
    expect(await gpu.msmBatch([...sets, sets[6], sets[2]])).toEqual([...want, want[6], want[2]]);
    const [a, b, c] = await Promise.all([gpu.msm(sets[6]), gpu.msmBatch([sets[1], sets[2], sets[0]]), gpu.msm(sets[7])]);
    expect([a, b, c]).toEqual([want[6], [want[1], want[2], want[0]], want[7]]);
  });

  test('the same set twice in one batch, and in reversed order', async () => {
    expect(await gpu.msmBatch([sets[2], sets[2], sets[1]])).toEqual([want[2], want[2], want[1]]);
    expect(await gpu.msmBatch([sets[1], sets[0]])).toEqual([want[1], want[0]]);
  });

  test('two contexts on one device, called alternately and at once', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await gpu.msm(sets[i])).toEqual(want[i]);
      expect(await gpu2.msm(sets[i + 3])).toEqual(want[i + 3]);
    }
    const got = await Promise.all(sets.map((s, i) => (i % 2 ? gpu2 : gpu).msm(s)));
    expect(got).toEqual(want);
  });

  test('Montgomery scalars (decoded after the copy: its upload must not be used)', async () => {
    const mont = sets.slice(0, 3).map((s) => toMontgomery(curve, s));
    expect(await gpu.msm(mont[0], { scalarFormat: 'montgomery' })).toEqual(want[0]);
    expect(await gpu.msmBatch(mont, { scalarFormat: 'montgomery' })).toEqual(want.slice(0, 3));
    // and canonical calls right after reuse the same buffers correctly
    expect(await gpu.msm(sets[5])).toEqual(want[5]);
  });

  test('a scalar ≥ r, found by the range check made while copying and uploading: the lowest index; the calls after are right', async () => {
    for (const { bytes, index } of unreducedAtSplits(CURVES[curve], sets[0])) {
      await expect(gpu.msm(bytes)).rejects.toMatchObject({ code: 'ERR_SCALAR_RANGE', index });
      await expect(gpu.msmBatch([sets[1], bytes])).rejects.toMatchObject({ code: 'ERR_SCALAR_RANGE', index });
      expect(await gpu.msm(sets[2])).toEqual(want[2]);
    }
    // 2^20 + 3 scalars: copied by several threads, in several DMA chunks each
    const n = (1 << 20) + 3;
    const big = await MsmContext.create(curve, new Uint8Array(64 * n), { backend: 'cuda' }); // all at infinity
    try {
      const good = new Uint8Array(32 * n);
      for (let i = 0; i < n; i += 1 + rng.int(1000)) good[32 * i] = 1 + rng.int(255);
      for (const { bytes, index } of unreducedAtSplits(CURVES[curve], good)) {
        await expect(big.msm(bytes)).rejects.toMatchObject({ code: 'ERR_SCALAR_RANGE', index });
      }
      expect(await big.msm(good)).toEqual({ x: 0n, y: 0n });
    } finally {
      big.close();
    }
  }, 120_000);

  test('the caller overwrites its array right after each call', async () => {
    const mine = sets.slice(0, 4).map((s) => s.slice());
    const pending = mine.map((s) => {
      const p = gpu.msm(s);
      s.fill(0xff);
      return p;
    });
    expect(await Promise.all(pending)).toEqual(want.slice(0, 4));
  });
});
