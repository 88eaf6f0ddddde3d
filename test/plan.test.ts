// The CUDA context plan (cuda/msm/plan.hpp) on the host, through the test addon: the window size,
// the precompute depth τ and its memory fallbacks, the constant-time mode lowering c, the Alg. 4
// thread count, and the layout of the one device allocation, for devices of 16, 24, 48 and 80 GB
// (no GPU needed). The expected values come from the rules written out here, not from the plan.

import { CURVES, CURVE_NAMES, type CurveName } from '../lib/curves';
import { testingAddon, type ContextPlan, type PlanRegions } from './support/testing';

const T = testingAddon;
const GB = 2 ** 30;
const DEVICES = [16, 24, 48, 80].map((g) => ({ name: `${g} GB`, free: (g - 1) * GB })); // ~1 GB taken by the context
const BLOCK = 128; // tuning.hpp kAccBlock
const RESIDENT = 132 * 3 * BLOCK; // H100: SMs × blocks × block size
const TABLE_SHARE = 0.5;
const LEVELS_SHARE = 0.25; // plan.hpp kLevelsShare

// Alg. 4 threads per window in a wave: whole blocks, so that the launch's W·T/BLOCK blocks are all
// resident; the plain quotient where not even one block per window is resident.
function threadsPerWave(resident: number, W: number): number {
  const q = Math.floor(resident / W);
  return q >= BLOCK ? Math.floor(q / BLOCK) * BLOCK : q;
}
// Waves of them (accumulate.cuh alg4_waves): as many, up to 8, as keep ≥ 256 of the window's entries
// a thread; T at most the entries (D·n in the one window of shared buckets), one wave then.
const WAVE_ENTRIES = 256;
function alg4Waves(entries: number, perWave: number): number {
  return Math.min(8, Math.max(1, Math.floor(entries / (perWave * WAVE_ENTRIES))));
}
function wavesAndThreads(resident: number, W: number, n: number): { T: number; waves: number } {
  const perWave = threadsPerWave(resident, W);
  const waves = alg4Waves(n, perWave);
  const T = Math.max(1, Math.min(waves * perWave, n));
  return { T, waves: T < waves * perWave ? 1 : waves };
}
function threadsPerWindow(resident: number, W: number, n: number): number {
  return wavesAndThreads(resident, W, n).T;
}

// The largest h ≤ top with (h + 1)·n affine points in TABLE_SHARE of the free memory, or -1.
function deepestFitting(n: number, affine: number, free: number, top: number): number {
  for (let h = top; h >= 0; h--) if ((h + 1) * n * affine <= TABLE_SHARE * free) return h;
  return -1;
}

function checkLayout(p: ContextPlan, n: number): void {
  const ct = p.mode === 'constant-time';
  // D·n entries in all; a sort takes g windows of n, or with shared buckets all of them at once
  const perSort = p.sharedBuckets ? p.D * n : p.sortGroup * n;
  const want: Record<keyof PlanRegions, number> = {
    table: (p.tau + 1) * n * p.affineBytes,
    recodeTable: p.sharedBuckets ? 0 : (2 ** p.c + 1) * 4,
    scalars0: n * 32,
    scalars1: n * 32,
    // a later piece of a split call adds onto the buckets in every mode (engine.cu run_piece)
    keysIn: p.D * n * 4,
    valsIn: p.D * n * 4,
    keys: p.D * n * 4,
    vals: p.D * n * 4,
    // the stand-in for CUB's figure (test/native/plan.cpp): 4 bytes per entry of one sort, plus
    // 2^(key bits): log2 M + 1 for the bucket, and the group's bits
    sortTemp: perSort * 4 + 2 ** (Math.log2(p.M) + 1 + Math.ceil(Math.log2(p.sortGroup))),
    // constant time: §5's slots homogeneous, Alg. 4's runs into them XYZZ (accumulate.cu ConstantTimeAcc)
    buffer: p.W * p.slots * (ct ? p.homogeneousBytes : p.xyzzBytes),
    ctRuns: ct ? p.W * p.slots * p.xyzzBytes : 0,
    bufOffset: p.W * p.T * 4,
    bufUsed: p.W * p.T * 4,
    bufIndex: p.W * p.slots * 4,
    buckets: p.W * p.M * p.xyzzBytes,
    heavy: p.W * p.M * 16,
    heavyCount: 4,
    // the chunk level hands the rounds homogeneous points in every mode (reduce.cu)
    chunkSums: p.chunkLog > 0 ? p.W * (p.M / 2 ** p.chunkLog) * p.homogeneousBytes : 0,
    chunkRest: p.chunkLog > 0 ? p.W * (p.M / 2 ** p.chunkLog) * p.homogeneousBytes : 0,
    bhat1: p.W * p.xyzzBytes,
    // constant time: the W head weights (u64) in the slots after the window sums, one download for both
    windowSums: (p.W + (ct ? Math.ceil((8 * p.W) / p.xyzzBytes) : 0)) * p.xyzzBytes,
  };
  const spans = Object.entries(p.regions).map(([name, [offset, bytes]]) => ({ name, offset, bytes }));
  expect(spans.map((s) => s.name).sort()).toEqual(Object.keys(want).sort());
  for (const s of spans) {
    const w = want[s.name as keyof PlanRegions];
    if (w >= 0) expect([s.name, s.bytes]).toEqual([s.name, w]);
    expect(s.offset % 256).toBe(0);
    expect(s.offset + s.bytes).toBeLessThanOrEqual(p.total);
  }
  spans.sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < spans.length; i++) expect(spans[i].offset).toBeGreaterThanOrEqual(spans[i - 1].offset + spans[i - 1].bytes);
}

describe.each(CURVE_NAMES)('%s', (curve: CurveName) => {
  test.each(DEVICES)('2^24 points on a $name device, a bucket set per window: τ lowered only as far as the table needs, and the context fits', ({ free }) => {
    const n = 2 ** 24;
    const p = T().planContext(curve, n, { buckets: 'windows' }, free, RESIDENT);
    expect([p.sharedBuckets, p.D]).toEqual([false, p.W]);
    expect(p.c).toBe(T().chooseWindow(curve, n));
    expect(p.W).toBe(T().numWindows(curve, p.c));
    expect(p.M).toBe(2 ** (p.c - 2));
    expect(p.tau).toBe(deepestFitting(n, p.affineBytes, free, p.c - 1));
    expect(p.tableLowered).toBe(p.tau < p.c - 1);
    expect(p.T).toBe(threadsPerWindow(RESIDENT, p.W, n));
    expect(p.W * Math.ceil(p.T / p.waves / BLOCK)).toBeLessThanOrEqual(RESIDENT / BLOCK); // a wave of blocks resident
    expect(p.total).toBeLessThanOrEqual(free);
    checkLayout(p, n);
  });

  test.each(DEVICES)('constant time on a $name device: τ = c − 1, c lowered until the full table fits', ({ free }) => {
    const n = 2 ** 24;
    const p = T().planContext(curve, n, { accumulation: 'constant-time', buckets: 'windows' }, free, RESIDENT);
    expect(p.tau).toBe(p.c - 1);
    let c = T().chooseWindow(curve, n);
    while (c > 4 && deepestFitting(n, p.affineBytes, free, c - 1) < c - 1) c--;
    expect(p.c).toBe(c);
    expect(p.slots & (p.slots - 1)).toBe(0);
    // §5's buffer: a head and a tail slot per Alg. 4 thread (accumulate.cuh accumulate_thread_ct), padded.
    expect(p.slots).toBeGreaterThanOrEqual(2 * p.T);
    expect(p.slots).toBeLessThan(4 * p.T);
    checkLayout(p, n);
  });

  test('the full table on an 80 GB device at 2^24; smaller devices get a shallower one', () => {
    const taus = DEVICES.map(({ free }) => T().planContext(curve, 2 ** 24, { buckets: 'windows' }, free, RESIDENT).tau);
    expect(taus[3]).toBe(T().planContext(curve, 2 ** 24, { buckets: 'windows' }, DEVICES[3].free, RESIDENT).c - 1);
    for (let i = 1; i < taus.length; i++) expect(taus[i]).toBeGreaterThanOrEqual(taus[i - 1]);
    expect(taus[0]).toBeLessThan(taus[3]);
  });

  test('explicit c and τ are kept; a τ above c − 1, or τ ≠ c − 1 in constant time, is an option error', () => {
    const p = T().planContext(curve, 1000, { windowBits: 10, tau: 3 }, 80 * GB, RESIDENT);
    expect([p.c, p.tau, p.tableLowered]).toEqual([10, 3, false]);
    checkLayout(p, 1000);
    const expectOptionError = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect((e as { code?: string }).code).toBe('ERR_INVALID_OPTION');
        expect((e as Error).message).toMatch(/tau/);
        return;
      }
      throw new Error('no error');
    };
    expectOptionError(() => T().planContext(curve, 1000, { windowBits: 10, tau: 10 }, 80 * GB, RESIDENT));
    expectOptionError(() => T().planContext(curve, 1000, { windowBits: 10, tau: 5, accumulation: 'constant-time' }, 80 * GB, RESIDENT));
  });

  test.each([
    ['an H100 at 3 blocks per SM', 132 * 3 * BLOCK],
    ['an H100 at 2 blocks per SM', 132 * 2 * BLOCK],
    ['a 46-SM GPU at 4 blocks per SM', 46 * 4 * BLOCK],
    ['fewer resident blocks than windows', 8 * BLOCK],
  ])('Alg. 4 launches whole waves on %s', (_name, resident) => {
    for (const log of [16, 20, 22, 24]) {
      const p = T().planContext(curve, 2 ** log, {}, 80 * GB, resident);
      const want = wavesAndThreads(resident, p.W, (p.sharedBuckets ? p.D : 1) * 2 ** log);
      expect({ T: p.T, waves: p.waves }).toEqual(want);
      if (resident / p.W >= BLOCK) {
        const perWave = p.T / p.waves;
        expect(perWave % BLOCK).toBe(0);
        expect(p.W * (perWave / BLOCK)).toBeLessThanOrEqual(resident / BLOCK);
        expect(p.W * (perWave / BLOCK + 1)).toBeGreaterThan(resident / BLOCK); // no whole block per window left idle
      }
    }
  });

  test('the reduction\'s chunk level: chunks of 2^l buckets, as large as leaves a thread per counted one', () => {
    // The plan counts a third of chunkThreads (plan.cpp kChunkThreadShare, measured on the H100).
    const share = 3;
    for (const resident of [132 * 3 * BLOCK, 46 * 4 * BLOCK, 8 * BLOCK]) {
      for (const c of [4, 12, 16, 17, 18, 20, 22]) {
        // The count (chunkThreads, the register-sum kernel's residency) sets the level, not the
        // resident threads of the Alg. 4 kernel that runs (4× or a quarter of them).
        for (const alg4 of [resident, 4 * resident, Math.max(BLOCK, resident / 4)]) {
          const q = T().planContext(curve, 2 ** 20, { windowBits: c }, 80 * GB, alg4, resident);
          expect(q.chunkLog).toBe(T().planContext(curve, 2 ** 20, { windowBits: c }, 80 * GB, resident).chunkLog);
        }
        const p = T().planContext(curve, 2 ** 20, { windowBits: c }, 80 * GB, resident);
        const buckets = p.W * p.M;
        const l = p.chunkLog;
        expect(l).toBeGreaterThanOrEqual(0);
        expect(l).toBeLessThanOrEqual(c - 2);
        const counted = Math.max(1, Math.floor(resident / share));
        if (l > 0) expect(buckets / 2 ** l).toBeGreaterThanOrEqual(counted);
        if (l < c - 2) expect(buckets / 2 ** (l + 1)).toBeLessThan(counted);
        checkLayout(p, 2 ** 20);
      }
    }
  });

  // With one bucket set the plan runs chunks of at least 4 buckets (plan.cpp kMinSharedChunkLog:
  // measured faster at 2^15 buckets, where the count alone gives none); a set per window keeps the
  // count's level (the test above).
  test('one bucket set: the chunk level is the count\'s, at least 2', () => {
    const share = 3;
    let raised = 0;
    for (const resident of [RESIDENT, 132 * 3 * BLOCK, 46 * 4 * BLOCK]) {
      for (const log of [16, 17, 18, 19, 20, 22]) {
        const p = T().planContext(curve, 2 ** log, {}, 80 * GB, resident);
        if (!p.sharedBuckets) continue;
        const logM = Math.log2(p.M);
        const counted = Math.max(1, Math.floor(resident / share));
        let l = 0;
        while (l < logM && p.M / 2 ** (l + 1) >= counted) l++;
        expect(p.chunkLog).toBe(Math.max(l, Math.min(2, logM)));
        if (l < 2) raised++;
        checkLayout(p, 2 ** log);
      }
    }
    expect(raised).toBeGreaterThan(0);
  });

  // The constant-time mode's chunk level turns its XYZZ buckets homogeneous for §3.4's complete
  // additions (cuda/msm/reduce.cu), so its plans always have one, where the count gives none too.
  test('constant time: a chunk level at every size, otherwise the count\'s', () => {
    let raised = 0;
    for (const resident of [RESIDENT, 8 * BLOCK]) {
      for (const log of [0, 1, 4, 10, 12, 14, 16, 20, 22]) {
        const p = T().planContext(curve, 2 ** log, { accumulation: 'constant-time' }, 80 * GB, resident);
        const buckets = p.levels ? 'levels' : p.sharedBuckets ? 'shared' : 'windows';
        const q = T().planContext(curve, 2 ** log, { windowBits: p.c, buckets }, 80 * GB, resident);
        expect(p.chunkLog).toBeGreaterThanOrEqual(1);
        expect(p.chunkLog).toBeLessThanOrEqual(Math.log2(p.M));
        if (q.M === p.M && q.W === p.W) expect(p.chunkLog).toBe(Math.max(q.chunkLog, 1));
        if (q.chunkLog === 0) raised++;
        checkLayout(p, 2 ** log);
      }
    }
    expect(raised).toBeGreaterThan(0);
  });

  test('the radix sort takes several windows at once where the per-sort cost dominates, at most 2^24 entries', () => {
    const groups: number[] = [];
    for (const log of [10, 12, 16, 18, 20, 22, 24, 26]) {
      const n = 2 ** log;
      const p = T().planContext(curve, n, { buckets: 'windows' }, 160 * GB, RESIDENT);
      const g = p.sortGroup;
      expect(g).toBeGreaterThanOrEqual(1);
      expect(g).toBeLessThanOrEqual(p.W);
      if (g > 1) expect(g * n).toBeLessThanOrEqual(2 ** 24);
      checkLayout(p, n);
      groups.push(g);
    }
    // 2^16 and below: one sort for all windows; 2^24 and above: one per window.
    expect(groups.slice(0, 3)).toEqual(groups.slice(0, 3).map((_, i) => T().planContext(curve, 2 ** [10, 12, 16][i], { buckets: 'windows' }, 160 * GB, RESIDENT).W));
    // shared buckets: one sort of all D·n entries
    expect(T().planContext(curve, 2 ** 22, { buckets: 'shared' }, 160 * GB, RESIDENT).sortGroup).toBe(1);
    expect(groups.slice(-2)).toEqual([1, 1]);
  });

  test('windowBits above 16 leaves the point index 26 bits: refused from 2^26 points', () => {
    expect(T().planContext(curve, 2 ** 26 - 1, { windowBits: 22 }, 160 * GB, RESIDENT).c).toBe(22);
    for (const c of [17, 22]) {
      let error: { code?: string; message?: string } | undefined;
      try {
        T().planContext(curve, 2 ** 26, { windowBits: c }, 160 * GB, RESIDENT);
      } catch (e) {
        error = e as typeof error;
      }
      expect(error?.code).toBe('ERR_INVALID_OPTION');
      expect(error?.message).toMatch(/'windowBits'.*67108863 points/);
    }
    expect(T().planContext(curve, 2 ** 26, { windowBits: 16 }, 160 * GB, RESIDENT).c).toBe(16);
  });

  test('a call is split in pieces from 2^20 points on, each piece\'s copy ending as the compute before it does', () => {
    // plan.cpp choose_pieces: a piece of m points computes for t0 + β·m (t0 = 0.25 ms, β = 0.185 ns·D·(F/32)²
    // for F-byte coordinates), the copy takes 0.75 ns a point; in points, with the margin 0.9 on β,
    // the cuts follow S_(i+1) = S_1 + i·E + ρ'·S_i, E = t0 / copy, ρ' = 0.9·β / copy: each piece's copy
    // ends as the compute of the pieces before it does, and only the first piece's copy is exposed
    // (at least 2^17 points, the pieces that t0 was measured on; the later cuts stay where they were)
    const E = 0.25 / 0.75e-6;
    const rho = (p: ContextPlan): number => {
      const f = p.affineBytes / 2 / 32;
      return (0.9 * 0.185 * p.D * f * f) / 0.75;
    };
    for (const log of [12, 16, 19, 20, 21, 22, 24]) {
      const n = 2 ** log + 3;
      for (const opts of [{}, { accumulation: 'constant-time' }, { accumulation: 'homogeneous' }, { group: 'g2' }]) {
        if ('group' in opts && !['bn254', 'bls12-381'].includes(curve)) continue;
        const p = T().planContext(curve, n, opts, 80 * GB, RESIDENT);
        const k = p.cuts.length;
        if (log < 20) expect({ log, opts, k }).toEqual({ log, opts, k: 1 });
        expect(k).toBeLessThanOrEqual(8);
        expect(p.cuts[k - 1]).toBe(n);
        for (let i = 1; i < k; i++) expect(p.cuts[i]).toBeGreaterThan(p.cuts[i - 1]);
        if (k === 1) continue;
        const r = rho(p), s1 = p.cuts[0];
        expect(s1).toBeGreaterThanOrEqual(2 ** 17);
        // each piece's copy ends no later than the compute of the pieces before it, at the same time
        // (within the rounding of the cuts to whole points) unless the first piece was raised to 2^17
        const raised = s1 <= 2 ** 17 + 1;
        for (let i = 1; i < k; i++) {
          const due = s1 + i * E + r * p.cuts[i - 1];
          expect(p.cuts[i] - due).toBeLessThanOrEqual(2 + r);
          if (!raised) expect(Math.abs(p.cuts[i] - due)).toBeLessThanOrEqual(2 + r);
        }
        checkLayout(p, n);
      }
    }
    // from 2^20 on the default mode splits: a first piece's copy of 2^17 points or more, against the whole
    // copy of 2^20 (~0.8 ms) and a piece's 0.25 ms
    for (const log of [20, 21, 22, 24]) expect(T().planContext(curve, 2 ** log, {}, 80 * GB, RESIDENT).cuts.length).toBeGreaterThan(1);
    expect(T().planContext(curve, 0, {}, 80 * GB, RESIDENT).cuts).toEqual([0]);
    // H100 at 2^24, where k = 2 … 6 were timed (bench/gpu-notes.md): the default mode's pieces cost
    // a pass of Alg. 3–5, the constant-time one's §5 tree too, the homogeneous one's an addition onto
    // every bucket in Alg. 5 (2^19 of them at its c = 20, 2^21 at the others' c = 22)
    const at24 = (accumulation: 'default' | 'constant-time' | 'homogeneous') =>
      T().planContext(curve, 2 ** 24, accumulation === 'default' ? {} : { accumulation }, 80 * GB, RESIDENT).cuts.length;
    // (at ρ' = 0.65·ρ, without t0, the default mode took one piece more: 5 and 4)
    const want24: Partial<Record<CurveName, number[]>> = { bn254: [4, 4, 4], 'bls12-381': [3, 3, 3] };
    if (want24[curve]) expect([at24('default'), at24('constant-time'), at24('homogeneous')]).toEqual(want24[curve]);
  });

  test('small inputs: T never exceeds n, and n = 0 allocates nothing', () => {
    expect(T().planContext(curve, 3, {}, 80 * GB, RESIDENT).T).toBe(3);
    const empty = T().planContext(curve, 0, {}, 80 * GB, RESIDENT);
    expect(empty.total).toBe(0);
    expect(empty.T).toBe(1);
  });
});

// The shared set of odd digits (Plan::levels): the table holds 2^e·P_i for every e < D·c, the set
// 2^(c−2) buckets, and the sort value's EXP field the level: ⌈log2(D·c)⌉ bits below the point index.
function levelsRules(curve: CurveName, p: ContextPlan, n: number): void {
  expect([p.sharedBuckets, p.levels]).toEqual([true, true]);
  expect(p.D).toBe(T().numWindows(curve, p.c));
  expect([p.W, p.M, p.tau, p.sortGroup, p.tableLowered]).toEqual([1, 2 ** (p.c - 2), p.D * p.c - 1, 1, false]);
  expect(p.T).toBe(threadsPerWindow(RESIDENT, 1, p.D * n));
  expect(n).toBeLessThan(2 ** (32 - 1 - Math.ceil(Math.log2(p.D * p.c))));
  checkLayout(p, n);
}

// One bucket set for all windows (Plan::shared_buckets; issue 12, lever 1): the table holds
// 2^(jc)·P_i for the D windows, the pipeline runs one window of D·n entries into 2^(c−1) buckets.
// The cost model takes it from 2^16 points where it is cheaper and its table fits; an explicit τ or
// windowBits keeps a bucket set per window.
describe.each(CURVE_NAMES)('%s: shared buckets', (curve: CurveName) => {
  const sharedRules = (p: ContextPlan, n: number) => {
    if (p.levels) return levelsRules(curve, p, n);
    expect(p.sharedBuckets).toBe(true);
    expect(p.D).toBe(T().numWindows(curve, p.c));
    expect([p.W, p.M, p.tau, p.sortGroup, p.tableLowered]).toEqual([1, 2 ** (p.c - 1), p.D - 1, 1, false]);
    expect(p.T).toBe(threadsPerWindow(RESIDENT, 1, p.D * n));
    // the window index goes in the sort value's EXP field: exp_bits(c) bits
    expect(p.D).toBeLessThanOrEqual(2 ** Math.ceil(Math.log2(p.c)));
    checkLayout(p, n);
  };
  test('on an 80 GB device from 2^16 points, with the cost model\'s shared c; never below 2^16', () => {
    for (const log of [16, 18, 20, 22, 24]) {
      const n = 2 ** log;
      for (const accumulation of ['xyzz', 'homogeneous', 'constant-time'] as const) {
        const p = T().planContext(curve, n, { accumulation }, 80 * GB, RESIDENT);
        expect({ log, accumulation, shared: p.sharedBuckets }).toEqual({ log, accumulation, shared: true });
        expect(p.c).toBe(T().chooseWindow(curve, n, RESIDENT, RESIDENT, true, accumulation, p.levels));
        sharedRules(p, n);
      }
    }
    for (const n of [1000, 2 ** 12, 2 ** 16 - 1]) expect(T().planContext(curve, n, {}, 80 * GB, RESIDENT).sharedBuckets).toBe(false);
  });
  test('its D levels must fit the table share: a 16 GB device at 2^24 keeps a bucket set per window', () => {
    const n = 2 ** 24;
    for (const { free } of DEVICES) {
      const p = T().planContext(curve, n, {}, free, RESIDENT);
      const D = T().numWindows(curve, T().chooseWindow(curve, n, RESIDENT, RESIDENT, true));
      if (D * n * p.affineBytes > TABLE_SHARE * free) expect(p.sharedBuckets).toBe(false);
      else sharedRules(p, n);
      expect(p.total).toBeLessThanOrEqual(free);
    }
  });
  test('an explicit τ or windowBits keeps a bucket set per window; forced shared takes windowBits as its c', () => {
    expect(T().planContext(curve, 2 ** 22, { tau: 3 }, 80 * GB, RESIDENT).sharedBuckets).toBe(false);
    expect(T().planContext(curve, 2 ** 22, { windowBits: 18 }, 80 * GB, RESIDENT).sharedBuckets).toBe(false);
    expect(T().planContext(curve, 2 ** 22, { buckets: 'windows' }, 80 * GB, RESIDENT).sharedBuckets).toBe(false);
    for (const [n, c] of [[1000, 17], [4096, 16], [2 ** 20, 18]]) {
      const p = T().planContext(curve, n, { buckets: 'shared', windowBits: c }, 80 * GB, RESIDENT);
      expect(p.c).toBe(c);
      sharedRules(p, n);
    }
    // a shared table needs no doubling, so the constant-time mode takes it too
    sharedRules(T().planContext(curve, 4096, { buckets: 'shared', accumulation: 'constant-time' }, 80 * GB, RESIDENT), 4096);
  });
});

// The levels where their table of D·c levels fits the table share and the model prices them below
// the plain shared set (issue 12: the reduction halves with the buckets).
describe.each(CURVE_NAMES)('%s: the shared set of odd digits (levels)', (curve: CurveName) => {
  test('taken by the model only where its D·c levels fit, with the levels\' c; forced, with windowBits as c', () => {
    for (const log of [16, 18, 20, 22, 24])
      for (const { free } of DEVICES) {
        const n = 2 ** log;
        const p = T().planContext(curve, n, {}, free, RESIDENT);
        if (!p.levels) continue;
        expect(p.c).toBe(T().chooseWindow(curve, n, RESIDENT, RESIDENT, true, 'xyzz', true));
        expect(p.D * p.c * n * p.affineBytes).toBeLessThanOrEqual(LEVELS_SHARE * free);
        levelsRules(curve, p, n);
        expect(p.total).toBeLessThanOrEqual(free);
      }
    // never with fewer buckets than Alg. 4's resident threads (at fewer, small scalars crowd a bucket
    // over several threads), so not at 2^16 and 2^18 on this device, whose 101,376 threads need
    // c ≥ 19; nor in the homogeneous mode, which gained nothing from them
    for (const n of [2 ** 16, 2 ** 18]) expect(T().planContext(curve, n, {}, DEVICES[3].free, RESIDENT).levels).toBe(false);
    for (const n of [2 ** 20, 2 ** 21])
      expect(T().planContext(curve, n, { accumulation: 'homogeneous' }, DEVICES[3].free, RESIDENT).levels).toBe(false);
    for (const resident of [RESIDENT, RESIDENT / 3, 4 * RESIDENT])
      for (const log of [16, 17, 18, 19, 20, 21]) {
        const c = T().chooseWindow(curve, 2 ** log, resident, resident, true, 'xyzz', true);
        expect({ log, resident, M: 2 ** (c - 2) >= resident }).toEqual({ log, resident, M: true });
        const p = T().planContext(curve, 2 ** log, {}, 139 * GB, resident);
        if (p.levels) expect(p.M).toBeGreaterThanOrEqual(resident);
      }
    // with a third of the threads (c ≥ 18 qualifies) the model takes the levels at 2^19, as it did
    // on an H200 (c = 20), where 2^19 gained 0–5 % on them, every distribution within 1.0× random
    expect(T().planContext(curve, 2 ** 19, {}, 139 * GB, RESIDENT / 3).levels).toBe(true);
    // BN254 2^20 (c = 20, 13 windows: 16.25 GiB of levels) on the 80 GB device, as on an H100
    if (curve === 'bn254') expect(T().planContext(curve, 2 ** 20, {}, DEVICES[3].free, RESIDENT).levels).toBe(true);
    for (const [n, c] of [[1000, 12], [4096, 16], [2 ** 18, 20]]) {
      const p = T().planContext(curve, n, { buckets: 'levels', windowBits: c }, 80 * GB, RESIDENT);
      expect(p.c).toBe(c);
      levelsRules(curve, p, n);
    }
    // no doubling in Alg. 4 either, so the constant-time mode takes it too
    levelsRules(curve, T().planContext(curve, 4096, { buckets: 'levels', accumulation: 'constant-time' }, 80 * GB, RESIDENT), 4096);
    // a table that does not fit: the per-window layout
    expect(T().planContext(curve, 2 ** 24, { buckets: 'levels' }, 80 * GB, RESIDENT).sharedBuckets).toBe(false);
  });
});

// Which Alg. 4 kernel a context runs (tuning.hpp acc_shared_for): the running sums in shared memory
// from 2^20 points in every mode of G1; in registers below 2^20 and in G2.
describe('the running sums of Alg. 4', () => {
  const shared = (curve: CurveName, n: number, options: Parameters<ReturnType<typeof T>['planContext']>[2] = {}) =>
    T().planContext(curve, n, options, 80 * GB, RESIDENT).sharedSum;
  test.each(CURVE_NAMES)('%s G1: shared memory from 2^20 points in every mode', (curve) => {
    expect([2 ** 16, 2 ** 20 - 1, 2 ** 20, 2 ** 24].map((n) => shared(curve, n))).toEqual([false, false, true, true]);
    expect([2 ** 16, 2 ** 20, 2 ** 24].map((n) => shared(curve, n, { accumulation: 'constant-time' }))).toEqual([false, true, true]);
    expect([2 ** 16, 2 ** 20, 2 ** 24].map((n) => shared(curve, n, { accumulation: 'homogeneous' }))).toEqual([false, true, true]);
  });
  test.each(['bn254', 'bls12-381'] as const)('%s G2: registers in every mode', (curve) => {
    for (const accumulation of ['xyzz', 'homogeneous', 'constant-time'] as const)
      expect(shared(curve, 2 ** 22, { group: 'g2', accumulation })).toBe(false);
  });
});

// G2 (group 'g2'): the same plan over the sizes of Fp2 points, twice G1's per coordinate, so the
// table holds half as many levels in the same memory; the windows and T do not depend on the group.
describe.each(['bn254', 'bls12-381'] as const)('%s G2', (curve) => {
  const fb = CURVES[curve].fieldBytes;
  test('point sizes are G2\'s: affine 4·F, XYZZ 8·F, homogeneous 6·F bytes', () => {
    const g1 = T().planContext(curve, 1000, {}, 80 * GB, RESIDENT);
    const g2 = T().planContext(curve, 1000, { group: 'g2' }, 80 * GB, RESIDENT);
    expect([g2.affineBytes, g2.xyzzBytes, g2.homogeneousBytes]).toEqual([4 * fb, 8 * fb, 6 * fb]);
    expect([g2.affineBytes, g2.xyzzBytes, g2.homogeneousBytes]).toEqual([2 * g1.affineBytes, 2 * g1.xyzzBytes, 2 * g1.homogeneousBytes]);
    expect([g2.c, g2.W, g2.T, g2.tau]).toEqual([g1.c, g1.W, g1.T, g1.tau]);
    checkLayout(g2, 1000);
  });

  test.each(DEVICES)('2^24 points on a $name device: τ lowered for the G2 table, and the context fits', ({ free }) => {
    const n = 2 ** 24;
    const p = T().planContext(curve, n, { group: 'g2', buckets: 'windows' }, free, RESIDENT);
    expect(p.c).toBe(T().chooseWindow(curve, n));
    expect(p.tau).toBe(deepestFitting(n, 4 * fb, free, p.c - 1));
    expect(p.tableLowered).toBe(p.tau < p.c - 1);
    expect(p.total).toBeLessThanOrEqual(free);
    checkLayout(p, n);
  });

  test.each(DEVICES)('constant time and homogeneous on a $name device', ({ free }) => {
    const n = 2 ** 22;
    const ct = T().planContext(curve, n, { group: 'g2', accumulation: 'constant-time', buckets: 'windows' }, free, RESIDENT);
    expect(ct.tau).toBe(ct.c - 1);
    let c = T().chooseWindow(curve, n);
    while (c > 4 && deepestFitting(n, 4 * fb, free, c - 1) < c - 1) c--;
    expect(ct.c).toBe(c);
    checkLayout(ct, n);
    const hom = T().planContext(curve, n, { group: 'g2', accumulation: 'homogeneous' }, free, RESIDENT);
    checkLayout(hom, n);
  });

  test('a group other than g1 or g2 is refused', () => {
    expect(() => T().planContext(curve, 10, { group: 'g3' } as never, 80 * GB, RESIDENT)).toThrow(/group/);
  });
});

test('G2 of a curve without one is ERR_INVALID_OPTION', () => {
  let code: string | undefined;
  try {
    T().planContext('bls12-377', 10, { group: 'g2' }, 80 * GB, RESIDENT);
  } catch (e) {
    code = (e as { code?: string }).code;
  }
  expect(code).toBe('ERR_INVALID_OPTION');
});
