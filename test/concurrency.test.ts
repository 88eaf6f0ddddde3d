// Concurrent calls give identical, correct results; heavy work stays off the event loop.

import { PerformanceObserver, type PerformanceEntry } from 'perf_hooks';
import { CURVES, msm, MsmContext, type AffinePoint } from '../lib';
import { bigintToBytesLE, decodePoints, decodeScalars, encodeScalars } from '../lib/encoding';
import { jacMul, toAff, toJac } from './model/ec';
import { awkwardPoints, expectedFromDlogs, fieldOf, fromModel, gen, mixedScalars, progression, seededRng } from './support/data';
import { testingAddon } from './support/testing';

const rng = seededRng('concurrency.test');

test('50 concurrent msm() calls give identical, correct results', async () => {
  const c = CURVES['bls12-381'];
  const d = awkwardPoints(c, 1000, rng);
  const k = mixedScalars(c, 1000, rng);
  const results = await Promise.all(Array.from({ length: 50 }, () => msm('bls12-381', d.points, k, { backend: 'cpu' })));
  const want = expectedFromDlogs(c, d.dlogs, k);
  for (const r of results) expect(r).toEqual(want);
});

test('50 concurrent calls on one context, each with its own scalars', async () => {
  const c = CURVES.bn254;
  const d = awkwardPoints(c, 800, rng);
  const sets = Array.from({ length: 50 }, (_, j) => (j % 5 === 0 ? mixedScalars(c, 800, rng) : null));
  const scalars = sets.map((s, j) => s ?? sets[j - (j % 5)]!); // 10 distinct sets, each used 5 times
  const ctx = await MsmContext.create('bn254', d.points, { backend: 'cpu' });
  try {
    const got = await Promise.all(scalars.map((k) => ctx.msm(k)));
    const want = new Map<bigint[], AffinePoint>();
    got.forEach((r, j) => {
      const k = scalars[j];
      if (!want.has(k)) want.set(k, expectedFromDlogs(c, d.dlogs, k));
      expect(r).toEqual(want.get(k));
    });
  } finally {
    ctx.close();
  }
});

// Runs call() with a 2 ms interval timer beside it. maxGap: the longest time the event loop went
// without a tick. syncMs: how long call() took to return its promise (a bigint array's snapshot is
// taken there, by contract: V8's copy of the array). ownGap: the longest stretch without a tick after
// that, less the pauses of V8's collector inside it (perf_hooks 'gc' entries, on performance.now()'s
// clock): the call's own slices. A major collection of a heap of 2^20 bigints pauses the loop for
// 45–70 ms on a 2-core VM, whoever allocated last. Also the collector's pauses in all (gcMs), how
// long the call took and how many ticks it got.
async function watch<T>(
  call: () => Promise<T>,
): Promise<{ result: T; maxGap: number; syncMs: number; ownGap: number; gcMs: number; ms: number; ticks: number }> {
  const pauses: [number, number][] = [];
  const take = (entries: readonly PerformanceEntry[]) => {
    for (const e of entries) pauses.push([e.startTime, e.startTime + e.duration]);
  };
  const observer = new PerformanceObserver((list) => take(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const gaps: [number, number][] = [];
  let ticks = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push([last, now]);
    last = now;
    ticks++;
  }, 2);
  const started = performance.now();
  let returned = started;
  let result: T;
  try {
    const pending = call();
    returned = performance.now();
    result = await pending;
  } finally {
    clearInterval(timer);
    gaps.push([last, performance.now()]);
    take(observer.takeRecords());
    observer.disconnect();
  }
  const ms = performance.now() - started;
  const paused = (a: number, b: number) => pauses.reduce((sum, [s, e]) => sum + Math.max(0, Math.min(b, e) - Math.max(a, s)), 0);
  const maxGap = Math.max(...gaps.map(([a, b]) => b - a));
  const after = gaps.map(([a, b]): [number, number] => [Math.max(a, returned), b]).filter(([a, b]) => b > a);
  const ownGap = Math.max(0, ...after.map(([a, b]) => b - a - paused(a, b)));
  const gcMs = pauses.reduce((sum, [s, e]) => sum + (e - s), 0);
  return { result, maxGap, syncMs: returned - started, ownGap, gcMs, ms, ticks };
}

test('the event loop keeps ticking during a 2^16 MSM', async () => {
  const c = CURVES.bn254;
  const n = 1 << 16;
  const d = progression(c, n, 1n + rng.below(c.r - 1n), 1n + rng.below(c.r - 1n));
  const k = Array.from({ length: n }, () => rng.below(c.r));
  const want = expectedFromDlogs(c, d.dlogs, k);
  // the context is created and the scalars packed first: what is watched is the MSM itself
  const packed = encodeScalars(c, k);
  const ctx = await MsmContext.create('bn254', d.points, { backend: 'cpu' });
  try {
    const { result, maxGap, ms, ticks } = await watch(() => ctx.msm(packed));
    process.stdout.write(`[event loop] 2^16 MSM ${ms.toFixed(0)} ms, ${ticks} ticks, max gap ${maxGap.toFixed(1)} ms\n`);
    expect(result).toEqual(want);
    expect(maxGap).toBeLessThan(200);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(ms / 50));
  } finally {
    ctx.close();
  }
});

// Issue 10: bigint arrays are read into a snapshot when the call is made (synchronously: the
// contract), then checked and encoded in slices that yield. What is watched is the whole call,
// from before it is made to its result, on the CPU backend: the longest time without a tick.
describe('bigint input keeps the event loop ticking', () => {
  const c = CURVES.bn254;

  const made = new Map<number, ReturnType<typeof make>>();
  const data = (log: number) => made.get(log) ?? made.set(log, make(log)).get(log)!;

  function make(log: number) {
    const n = 1 << log;
    const s = 1n + rng.below(c.r - 1n);
    const t = 1n + rng.below(c.r - 1n);
    const packed = testingAddon().generatePoints('bn254', n, bigintToBytesLE(s, 32), bigintToBytesLE(t, 32));
    const points = decodePoints(c, packed);
    // random scalars below 2^253 < r, 32 bits at a time (rng.below per scalar takes seconds at 2^20)
    const bytes = new Uint8Array(32 * n);
    const words = new Uint32Array(bytes.buffer);
    for (let i = 0; i < words.length; i++) words[i] = rng.u32();
    for (let i = 31; i < bytes.length; i += 32) bytes[i] &= 0x1f;
    const k = decodeScalars(c, bytes);
    let e = 0n;
    for (let i = 0; i < n; i++) e += k[i] * ((s + BigInt(i) * t) % c.r);
    const want = fromModel(toAff(fieldOf(c), jacMul(fieldOf(c), e % c.r, toJac(gen(c)))));
    return { n, packed, points, k, want };
  }

  const report = (what: string, w: { maxGap: number; syncMs: number; ownGap: number; gcMs: number; ms: number; ticks: number }) =>
    process.stdout.write(
      `[event loop] ${what}: ${w.ms.toFixed(0)} ms, ${w.ticks} ticks, max gap ${w.maxGap.toFixed(1)} ms; returned after ` +
        `${w.syncMs.toFixed(1)} ms, then ${w.ownGap.toFixed(1)} ms at most less the collector's pauses (${w.gcMs.toFixed(1)} ms of them in all)\n`,
    );
  // V8's copy of an array (the snapshot's own cost), best of three, in the test's own conditions.
  const copyMs = (a: readonly unknown[]) =>
    Math.min(
      ...[0, 1, 2].map(() => {
        const t = performance.now();
        Array.prototype.slice.call(a);
        return performance.now() - t;
      }),
    );
  // The call returns after its snapshots (a copy of each array) and little else: the checks and the
  // encoding run in slices after it. Before issue 10 they ran there too: 0.96–1.4 s at 2^20.
  const snapshotBound = (...arrays: readonly unknown[][]) => 30 + 3 * arrays.reduce((sum, a) => sum + copyMs(a), 0);

  test('2^16 bigint points and scalars through msm(): snapshot at the call, then no gap of 50 ms but the collector\'s', async () => {
    const d = data(16);
    const bound = snapshotBound(d.points, d.k);
    const w = await watch(() => msm('bn254', d.points, d.k, { backend: 'cpu' }));
    report('2^16 bigint points and scalars, msm', w);
    expect(w.result).toEqual(d.want);
    expect(w.syncMs).toBeLessThan(bound);
    expect(w.ownGap).toBeLessThan(50);
  });

  test.each([16, 20])('2^%i bigint scalars through ctx.msm(): snapshot at the call, then no gap of 50 ms but the collector\'s', async (log) => {
    const d = data(log);
    const ctx = await MsmContext.create('bn254', d.packed, { backend: 'cpu' });
    try {
      const bound = snapshotBound(d.k);
      const w = await watch(() => ctx.msm(d.k));
      report(`2^${log} bigint scalars, ctx.msm`, w);
      expect(w.result).toEqual(d.want);
      expect(w.syncMs).toBeLessThan(bound);
      expect(w.ownGap).toBeLessThan(50);
    } finally {
      ctx.close();
    }
  });

  test('2^20 bigint points: MsmContext.create() and msm(), within a regression bound', async () => {
    // The snapshot of 2^20 {x, y} objects, read on the event loop before the call returns (the
    // contract), takes 25–45 ms on its own; the call returns after 40–50 ms in plain Node. Its
    // allocation can set off a major GC of this large heap of bigints, whose pause lands in the
    // same gap: 45–80 ms in most runs here, up to ~360 ms under jest beside other busy processes.
    // That pause is V8's: the bound is a regression guard (before issue 10 the encoding held the
    // loop for 0.96 s in create, 1.4 s in msm). The README advises packed points for large n.
    const d = data(20);
    const created = await watch(() => MsmContext.create('bn254', d.points, { backend: 'cpu' }));
    report('2^20 bigint points, MsmContext.create', created);
    expect(created.result.size).toBe(d.n);
    created.result.close();
    const one = await watch(() => msm('bn254', d.points, d.k, { backend: 'cpu' }));
    report('2^20 bigint points and scalars, msm', one);
    expect(one.result).toEqual(d.want);
    expect(created.maxGap).toBeLessThan(600);
    expect(one.maxGap).toBeLessThan(600);
    made.clear();
  });
});
