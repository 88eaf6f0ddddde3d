// GPU benchmark of the development tree (node dist/bench/gpu.js --help; not shipped: it needs the
// test addon, scripts/build-testing.js): the CUDA backend through the public API (MsmContext),
// points resident, packed scalars uploaded and the affine result downloaded inside the timed region;
// median of --runs after one warm-up; context setup (upload + 2^h·P table) and device memory
// reported apart. Points are P_i = (s + i·t)·G from the test addon's generator, so results are
// checked against the discrete-log model (Σ k_i·(s + i·t))·G: in full up to --check-max-log, and
// in closed form for identical scalars. Points of more than PART_BYTES are generated and passed in
// parts of at most that many bytes (MsmContext.create's parts form), so that 2^26 bases fit.
// --group g2 benches G2 (the generator G2's, and its expected results by the test addon's
// g2ScalarMul); --group g1,g2 both, with G2's time over G1's per curve, size, mode and distribution
// (issue 11's target: G2 at 2^20 within 3× of G1). --sppark DIR runs sppark beside ours on the same
// G1 points and random scalars (bench/sppark.ts) and reports its times, ours over its, and whether
// the two results agree.

import fs = require('fs');
import path = require('path');
import { parseArgs } from 'util';
import { CURVES, info, MsmContext, type CurveName, type Group } from '../lib';
import { COORDINATES, decodePoint } from '../lib/encoding';
import { scalarMul } from '../lib/generate';
import { Rng } from '../lib/random';
import { median } from '../lib/stats';
import { testingAddon, type G2Curve } from '../test/support/testing';
import { runSppark, spparkExecutable, type SpparkRun } from './sppark';

const USAGE = `Usage: node dist/bench/gpu.js [options]
  --curves LIST         (default bn254,bls12-381)
  --group LIST          g1, g2 or g1,g2 (default g1): the group of the points (g2: bn254, bls12-381)
  --logs LIST           log2 sizes (default 16,18,20,22,24)
  --dists LIST          random,identical,distinct32,small,mostly-zero (default random,identical)
  --modes LIST          default,constant-time,homogeneous (default default): accumulation modes
  --modes-together      create the modes' contexts of a size together and time them round-robin
                        (run r of every mode before run r + 1), so that their ratios to the default
                        mode are taken from the same stretch of time; each context holds its own
                        table, so this needs the device memory of all of them at once
  --devices LIST        device sets to compare, e.g. 0,all or 0,0+1 (default 0): a context per set
  --api-only            time through the API only (skip the engine-alone timing and its second setup)
  --runs N              timed runs after one warm-up (default 5)
  --batch K             also time ctx.msmBatch of K copies of each distribution's scalars (per MSM:
                        the batch's time over K), beside K separate ctx.msm calls (default: off)
  --window-bits C       force c (default: cost model)
  --tau T               force τ (default: backend's choice)
  --check-max-log N     full model check up to 2^N (default 20)
  --seed N              PRNG seed
  --sppark DIR          also time sppark (G1, random scalars, default mode, first device set): the
                        harnesses sppark_peer_<curve> in DIR (the build's Release folder when built
                        with SPPARK_DIR and BLST_DIR: CMakeLists.txt)
  --out FILE            JSON output (default bench/results/gpu-<device>.json; gpu-g2-<device>.json
                        when G2 is benched)
Points above 1 GiB are passed in 1 GiB parts (2^26 BLS12-381 points are 6 GiB; Node 20's typed
arrays hold at most 4 GiB).
`;

// 1 GiB, ffjavascript's BigBuffer page: below Node 20's 2^32-byte typed arrays, and above it the
// parts form runs already at BLS12-381 2^24 (1.5 GiB), not only at the 2^26 that needs it.
const PART_BYTES = 2 ** 30;

const MODES: Record<string, Record<string, unknown>> = {
  default: {},
  'constant-time': { constantTime: true },
  homogeneous: { accumulation: 'homogeneous' },
};

interface Row {
  curve: CurveName;
  group: Group;
  n: number;
  mode: string;
  devices: string; // the --devices entry: a device index, 'all', or indices joined by '+'
  deviceNames: string[];
  distribution: string;
  pointParts: number; // Uint8Arrays the points were passed in
  medianMs: number; // through the public API (MsmContext.msm: argument copy and checks included)
  runsMs: number[];
  modesTogether: boolean; // timed round-robin with the other modes' contexts (--modes-together)
  engineMedianMs: number | null; // the CUDA engine alone (scalar upload, compute, result download)
  engineRunsMs: number[] | null;
  setupMs: number;
  deviceMemoryBytes: number;
  windowBits: number;
  tau: number;
  checked: 'model' | 'closed-form' | 'unchecked';
  correct: boolean | null;
  sppark?: SpparkRow; // --sppark: the peer on the same points and scalars
  batch?: BatchRow; // --batch K: msmBatch of K sets
}

interface BatchRow {
  k: number;
  medianMs: number; // one ctx.msmBatch of K sets
  runsMs: number[];
  perMsmMs: number; // medianMs / K, against the row's medianMs for one ctx.msm
  correct: boolean; // every result of every batch equals the single call's
}

interface SpparkRow {
  pageableMedianMs: number; // scalars from pageable host memory, as ours come
  pinnedMedianMs: number; // from pinned memory (sppark's fastest path)
  pageableRunsMs: number[];
  pinnedRunsMs: number[];
  oursOverPinned: number; // our medianMs over sppark's pinnedMedianMs (below 1: ours is faster)
  agrees: boolean; // sppark's result equals ours
}

const le = (k: bigint): Uint8Array => {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++) b[i] = Number((k >> BigInt(8 * i)) & 0xffn);
  return b;
};

function scalarBytes(rng: Rng, curve: CurveName, n: number, dist: string): Uint8Array {
  const r = CURVES[curve].r;
  const bits = r.toString(2).length;
  const out = new Uint8Array(32 * n);
  const fillRandom = (off: number) => {
    for (let i = 0; i < 32; i += 4) {
      const v = rng.u32();
      out[off + i] = v & 0xff;
      out[off + i + 1] = (v >>> 8) & 0xff;
      out[off + i + 2] = (v >>> 16) & 0xff;
      out[off + i + 3] = v >>> 24;
    }
    // below 2^(bits−1) < r: uniform over all but the top bit
    const top = off + Math.floor((bits - 1) / 8);
    out[top] &= (1 << ((bits - 1) % 8)) - 1;
    out.fill(0, top + 1, off + 32);
  };
  if (dist === 'random') for (let i = 0; i < n; i++) fillRandom(32 * i);
  else if (dist === 'identical') {
    fillRandom(0);
    for (let i = 1; i < n; i++) out.copyWithin(32 * i, 0, 32);
  } else if (dist === 'distinct32') {
    const pool = new Uint8Array(32 * 32);
    for (let k = 0; k < 32; k++) {
      fillRandom(0);
      pool.set(out.subarray(0, 32), 32 * k);
    }
    for (let i = 0; i < n; i++) {
      const k = rng.int(32);
      out.set(pool.subarray(32 * k, 32 * k + 32), 32 * i);
    }
  } else if (dist === 'small') {
    for (let i = 0; i < n; i++) for (let b = 0; b < 8; b += 4) {
      const v = rng.u32();
      out.set([v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24], 32 * i + b);
    }
  } else if (dist === 'mostly-zero') {
    for (let i = 0; i < n; i++) if (rng.int(10) === 0) fillRandom(32 * i);  // 90 % zero
  } else throw new Error(`unknown distribution ${dist}`);
  return out;
}

function fromLe(b: Uint8Array, off: number): bigint {
  let hex = '';
  for (let i = off + 31; i >= off; i--) hex += b[i].toString(16).padStart(2, '0');
  return BigInt('0x' + hex);
}

// A result of either group as its list of F_p coordinates (G1: x, y; G2: x.c0, x.c1, y.c0, y.c1).
type Coords = bigint[];
const coords = (P: { x: bigint | readonly bigint[]; y: bigint | readonly bigint[] }): Coords => [P.x, P.y].flat();
const sameCoords = (a: Coords, b: Coords): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      curves: { type: 'string' },
      group: { type: 'string' },
      logs: { type: 'string' },
      dists: { type: 'string' },
      modes: { type: 'string' },
      'modes-together': { type: 'boolean' },
      devices: { type: 'string' },
      'api-only': { type: 'boolean' },
      runs: { type: 'string' },
      batch: { type: 'string' },
      'window-bits': { type: 'string' },
      tau: { type: 'string' },
      'check-max-log': { type: 'string' },
      seed: { type: 'string' },
      sppark: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return void process.stdout.write(USAGE);
  const inf = info();
  if (!inf.cuda.available) throw new Error(`CUDA unavailable: ${inf.cuda.reason}`);
  const dev = inf.cuda.devices[0];
  const curves = (values.curves ?? 'bn254,bls12-381').split(',') as CurveName[];
  const groups = (values.group ?? 'g1').split(',') as Group[];
  for (const g of groups) if (g !== 'g1' && g !== 'g2') throw new Error(`unknown group ${g}; known: g1, g2`);
  for (const g of groups)
    for (const curve of curves)
      if (!CURVES[curve]?.groups.includes(g)) throw new Error(`curve ${curve} has no ${g.toUpperCase()} here`);
  const logs = (values.logs ?? '16,18,20,22,24').split(',').map(Number);
  const dists = (values.dists ?? 'random,identical').split(',');
  const modes = (values.modes ?? 'default').split(',');
  for (const m of modes) if (!(m in MODES)) throw new Error(`unknown mode ${m}; known: ${Object.keys(MODES).join(', ')}`);
  // The modes' contexts one after another (each closed before the next is created), or all at once
  // and timed round-robin with --modes-together.
  const modeBatches = values['modes-together'] === true ? [modes] : modes.map((m) => [m]);
  const apiOnly = values['api-only'] === true;
  const deviceSets = (values.devices ?? '0').split(',');
  const deviceOptions = (set: string): { options: Record<string, unknown>; names: string[] } => {
    const list = set === 'all' ? inf.cuda.devices.map((x) => x.index) : set.split('+').map(Number);
    for (const i of list) if (!inf.cuda.devices[i]) throw new Error(`no CUDA device ${i}`);
    const names = list.map((i) => inf.cuda.devices[i].name);
    return { options: list.length === 1 ? { device: list[0] } : { devices: set === 'all' ? 'all' : list }, names };
  };
  const runs = Number(values.runs ?? 5);
  const batchK = Number(values.batch ?? 0);
  if (!Number.isInteger(batchK) || batchK < 0) throw new Error(`--batch takes a count of scalar sets (got ${values.batch})`);
  const spparkDir = values.sppark;
  if (spparkDir !== undefined && groups.includes('g1')) for (const curve of curves) spparkExecutable(spparkDir, curve);
  const checkMax = Number(values['check-max-log'] ?? 20);
  const seed = Number(values.seed ?? Rng.freshSeed());
  const rng = new Rng(seed);
  const testing = testingAddon();
  // (Σ-form exponent e)·G of the group: lib/generate's bigint arithmetic for G1, the test addon's
  // XYZZ double-and-add over Fp2 for G2.
  const timesGenerator = (curve: CurveName, group: Group, e: bigint): Coords => {
    const c = CURVES[curve];
    if (group === 'g1') return coords(scalarMul(c, e, c.generator));
    return coords(decodePoint(c, testing.g2ScalarMul(curve as G2Curve, testing.g2Generator(curve as G2Curve), le(e % c.r)).xyzz, 'g2'));
  };
  const opts: Record<string, unknown> = { backend: 'cuda', validate: 'none' };
  if (values['window-bits']) opts.windowBits = Number(values['window-bits']);
  if (values.tau) opts.tau = Number(values.tau);
  const rows: Row[] = [];
  process.stdout.write(`# ${dev.name}, driver ${inf.cuda.driverVersion}, runtime ${inf.cuda.runtimeVersion}, seed ${seed}\n`);
  for (const curve of curves) {
    const c = CURVES[curve];
    for (const lg of logs) {
      const n = 2 ** lg;
      const s = 1n + rng.below(c.r - 1n),
        t = 1n + rng.below(c.r - 1n);
      // The same scalars for every group and mode, and each one's exponent e: the expected result
      // is e·G of the group (model or closed form).
      const sets = dists.map((dist) => {
        const ks = scalarBytes(rng, curve, n, dist);
        let e: bigint | null = null;
        let checked: Row['checked'] = 'unchecked';
        if (dist === 'identical') {
          // Σ k·(s + i·t) = k·(n·s + t·n(n−1)/2)
          const k = fromLe(ks, 0);
          e = (k * ((BigInt(n) * s + (t * BigInt(n) * BigInt(n - 1)) / 2n) % c.r)) % c.r;
          checked = 'closed-form';
        } else if (lg <= checkMax) {
          e = 0n;
          for (let i = 0; i < n; i++) e += fromLe(ks, 32 * i) * ((s + BigInt(i) * t) % c.r);
          e %= c.r;
          checked = 'model';
        }
        return { dist, ks, e, checked };
      });
      for (const group of groups) {
        const pointBytes = COORDINATES[group] * c.fieldBytes;
        const partPoints = n * pointBytes > PART_BYTES ? Math.floor(PART_BYTES / pointBytes) : undefined;
        const pts =
          partPoints === undefined ? testing.generatePoints(curve, n, le(s), le(t), group) : testing.generatePoints(curve, n, le(s), le(t), group, partPoints);
        const pointParts = Array.isArray(pts) ? pts.length : 1;
        const wants = sets.map(({ e }) => (e === null ? null : timesGenerator(curve, group, e)));
        for (const devSet of deviceSets)
        for (const batchModes of modeBatches) {
          const devs = deviceOptions(devSet);
          // One context per mode of the batch (all of them with --modes-together), each created
          // before any is timed.
          const ctxs: { mode: string; ctx: MsmContext<Group>; setupMs: number }[] = [];
          try {
            for (const mode of batchModes) {
              const t0 = performance.now();
              const ctx = await MsmContext.create(curve, pts, { ...opts, ...MODES[mode], ...devs.options, group });
              ctxs.push({ mode, ctx, setupMs: performance.now() - t0 });
            }
            // Warm-up and check each (mode, distribution), then time them round-robin (run r of
            // every one before run r + 1), so drifts of the clock or the host spread evenly over
            // the distributions, and over the modes when they share a batch.
            const cells = ctxs.flatMap(({ mode, ctx, setupMs }) => sets.map((set, k) => ({ mode, ctx, setupMs, k, set })));
            const firsts: Coords[] = [];
            const correctness: (boolean | null)[] = [];
            for (const { ctx, k, set } of cells) {
              const first = coords(await ctx.msm(set.ks));
              firsts.push(first);
              const want = wants[k];
              correctness.push(want ? sameCoords(want, first) : null);
            }
            const timings: number[][] = cells.map(() => []);
            for (let r = 0; r < runs; r++) {
              for (let j = 0; j < cells.length; j++) {
                const a = performance.now();
                const q = coords(await cells[j].ctx.msm(cells[j].set.ks));
                timings[j].push(performance.now() - a);
                if (!sameCoords(q, firsts[j])) correctness[j] = false;
              }
            }
            for (let j = 0; j < cells.length; j++) {
              const { mode, ctx, setupMs, set } = cells[j];
              const { dist, ks, checked } = set;
              const first = firsts[j];
              let correct = correctness[j];
              const times = timings[j];
              let engineRunsMs: number[] | null = null;
              if (!apiOnly && mode === 'default' && devSet === deviceSets[0] && devs.names.length === 1) {
                const eb = testing.engineBench(curve, pts, ks, runs, Number(values['window-bits'] ?? 0), Number(values.tau ?? -1), group);
                if (!eb) throw new Error('the test addon was built without CUDA');
                if (!sameCoords(coords(decodePoint(c, eb.result, group)), first)) correct = false;
                engineRunsMs = eb.runsMs;
              }
              let peer: SpparkRun | null = null;
              if (spparkDir !== undefined && group === 'g1' && mode === 'default' && devSet === deviceSets[0] && dist === 'random')
                peer = runSppark(spparkExecutable(spparkDir, curve), pts, ks, runs);
              const row: Row = {
                curve,
                group,
                n,
                mode,
                devices: devSet,
                deviceNames: devs.names,
                distribution: dist,
                pointParts,
                medianMs: median(times),
                runsMs: times,
                modesTogether: batchModes.length > 1,
                engineMedianMs: engineRunsMs ? median(engineRunsMs) : null,
                engineRunsMs,
                setupMs,
                deviceMemoryBytes: ctx.memory.device,
                windowBits: ctx.windowBits,
                tau: ctx.tau,
                checked,
                correct,
              };
              if (batchK > 0) {
                const batchRuns: number[] = [];
                let batchCorrect = true;
                const list = Array.from({ length: batchK }, () => ks);
                for (let r = 0; r <= runs; r++) {
                  const a = performance.now();
                  const qs = await ctx.msmBatch(list);
                  if (r > 0) batchRuns.push(performance.now() - a); // run 0: the warm-up
                  for (const q of qs) if (!sameCoords(coords(q), first)) batchCorrect = false;
                }
                row.batch = { k: batchK, medianMs: median(batchRuns), runsMs: batchRuns, perMsmMs: median(batchRuns) / batchK, correct: batchCorrect };
              }
              if (peer)
                row.sppark = {
                  pageableMedianMs: median(peer.pageableMs),
                  pinnedMedianMs: median(peer.pinnedMs),
                  pageableRunsMs: peer.pageableMs,
                  pinnedRunsMs: peer.pinnedMs,
                  oursOverPinned: row.medianMs / median(peer.pinnedMs),
                  agrees: sameCoords(peer.coords, first),
                };
              rows.push(row);
              process.stdout.write(
                `${curve.padEnd(10)} ${group} 2^${lg} ${mode.padEnd(13)} dev ${devSet.padEnd(5)} ${dist.padEnd(11)} api ${row.medianMs.toFixed(2).padStart(8)} ms  ` +
                  `engine ${row.engineMedianMs === null ? '     -' : row.engineMedianMs.toFixed(2).padStart(8)} ms  setup ${setupMs.toFixed(0).padStart(6)} ms  ` +
                  `dev ${(row.deviceMemoryBytes / 2 ** 30).toFixed(2)} GiB  c=${row.windowBits} τ=${row.tau}  ${checked}:${correct}\n`,
              );
              if (row.batch)
                process.stdout.write(
                  `${''.padEnd(10)} msmBatch of ${row.batch.k} ${row.batch.medianMs.toFixed(2).padStart(8)} ms, per MSM ${row.batch.perMsmMs.toFixed(2).padStart(8)} ms ` +
                    `(${(row.batch.perMsmMs / row.medianMs).toFixed(3)}× one msm)  results equal: ${row.batch.correct}\n`,
                );
              if (row.sppark)
                process.stdout.write(
                  `${''.padEnd(10)} sppark    pageable ${row.sppark.pageableMedianMs.toFixed(2).padStart(8)} ms  pinned ${row.sppark.pinnedMedianMs.toFixed(2).padStart(8)} ms  ` +
                    `ours / sppark pinned ${row.sppark.oursOverPinned.toFixed(3)}×  results agree: ${row.sppark.agrees}\n`,
                );
            }
          } finally {
            for (const { ctx } of ctxs) ctx.close();
          }
        }
      }
    }
  }
  const spread = spreadReport(rows);
  const g2OverG1 = groupRatios(rows);
  const overDefault = modeRatios(rows);
  const tag = groups.includes('g2') ? 'g2-' : '';
  const file = values.out ?? path.join('bench', 'results', `gpu-${tag}${dev.name.replace(/[^A-Za-z0-9]+/g, '-')}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        gpu: dev.name,
        computeCapability: dev.computeCapability,
        driverVersion: inf.cuda.driverVersion,
        runtimeVersion: inf.cuda.runtimeVersion,
        date: new Date().toISOString(),
        method: 'points resident; scalars uploaded and the affine result downloaded inside the timed region; median of runs after a warm-up; the distributions of one context timed round-robin (with --modes-together, every mode\'s context too); spread: each distribution\'s median over the random one\'s; overDefault: each mode\'s median over the default mode\'s, and with --modes-together the median of the runs\' paired ratios. medianMs: through MsmContext.msm (the N-API layer copies and range-checks the scalars); engineMedianMs: the CUDA engine alone (engineBench of the test addon); sppark (--sppark): msm_t with the same points resident, the same scalars from pageable and from pinned memory, in its own process after ours, median of the same runs after a warm-up (bench/native/sppark_peer.cu)',
        seed,
        spread,
        g2OverG1,
        overDefault,
        rows,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`wrote ${file}\n`);
}

// Timing spread per mode, in the manner of Chen et al. Table 6 (average vs corner cases): each
// distribution's median over the random one's, on the same context.
interface Spread {
  curve: CurveName;
  group: Group;
  n: number;
  mode: string;
  devices: string;
  randomMs: number;
  ratios: Record<string, number>;
  worst: { distribution: string; ratio: number }; // slowest against random
  fastest: { distribution: string; ratio: number }; // fastest against random
}
function spreadReport(rows: Row[]): Spread[] {
  const out: Spread[] = [];
  for (const base of rows.filter((r) => r.distribution === 'random')) {
    const same = rows.filter((r) => r.curve === base.curve && r.group === base.group && r.n === base.n && r.mode === base.mode && r.devices === base.devices);
    const ratios: Record<string, number> = {};
    let worst = { distribution: 'random', ratio: 1 };
    let fastest = { distribution: 'random', ratio: 1 };
    for (const r of same) {
      const ratio = Number((r.medianMs / base.medianMs).toFixed(4));
      ratios[r.distribution] = ratio;
      if (ratio > worst.ratio) worst = { distribution: r.distribution, ratio };
      if (ratio < fastest.ratio) fastest = { distribution: r.distribution, ratio };
    }
    out.push({ curve: base.curve, group: base.group, n: base.n, mode: base.mode, devices: base.devices, randomMs: base.medianMs, ratios, worst, fastest });
    process.stdout.write(
      `spread ${base.curve.padEnd(10)} ${base.group} 2^${Math.log2(base.n)} ${base.mode.padEnd(13)} dev ${base.devices.padEnd(5)} random ${base.medianMs.toFixed(2)} ms  ` +
        Object.entries(ratios)
          .map(([d, x]) => `${d} ${x.toFixed(3)}×`)
          .join('  ') +
        `  slowest ${worst.distribution} ${worst.ratio.toFixed(3)}×, fastest ${fastest.distribution} ${fastest.ratio.toFixed(3)}×\n`,
    );
  }
  return out;
}

// Each mode's median over the default mode's for each (curve, group, n, devices, distribution)
// benched in both; where the two were timed together (--modes-together), also the median of the
// runs' own ratios (run r of the mode over run r of the default, taken moments apart).
interface ModeRatio {
  curve: CurveName;
  group: Group;
  n: number;
  mode: string;
  devices: string;
  distribution: string;
  defaultMs: number;
  modeMs: number;
  ratio: number; // modeMs / defaultMs
  pairedRatio: number | null; // median over r of runsMs[r] / default runsMs[r]; null when timed apart
}
function modeRatios(rows: Row[]): ModeRatio[] {
  const out: ModeRatio[] = [];
  for (const m of rows.filter((r) => r.mode !== 'default')) {
    const d = rows.find(
      (r) => r.mode === 'default' && r.curve === m.curve && r.group === m.group && r.n === m.n && r.devices === m.devices && r.distribution === m.distribution,
    );
    if (!d) continue;
    const ratio = Number((m.medianMs / d.medianMs).toFixed(4));
    const paired = m.modesTogether && d.modesTogether && m.runsMs.length === d.runsMs.length;
    const pairedRatio = paired ? Number(median(m.runsMs.map((t, r) => t / d.runsMs[r])).toFixed(4)) : null;
    out.push({ curve: m.curve, group: m.group, n: m.n, mode: m.mode, devices: m.devices, distribution: m.distribution, defaultMs: d.medianMs, modeMs: m.medianMs, ratio, pairedRatio });
    process.stdout.write(
      `mode/default ${m.curve.padEnd(10)} ${m.group} 2^${Math.log2(m.n)} ${m.mode.padEnd(13)} dev ${m.devices.padEnd(5)} ${m.distribution.padEnd(11)} ` +
        `default ${d.medianMs.toFixed(2)} ms  ${m.mode} ${m.medianMs.toFixed(2)} ms  ${ratio.toFixed(3)}×` +
        (pairedRatio === null ? '' : `  paired ${pairedRatio.toFixed(3)}×`) +
        '\n',
    );
  }
  return out;
}

// G2's median over G1's for each (curve, n, mode, devices, distribution) benched in both groups.
interface GroupRatio {
  curve: CurveName;
  n: number;
  mode: string;
  devices: string;
  distribution: string;
  g1Ms: number;
  g2Ms: number;
  ratio: number;
}
function groupRatios(rows: Row[]): GroupRatio[] {
  const out: GroupRatio[] = [];
  for (const g2 of rows.filter((r) => r.group === 'g2')) {
    const g1 = rows.find((r) => r.group === 'g1' && r.curve === g2.curve && r.n === g2.n && r.mode === g2.mode && r.devices === g2.devices && r.distribution === g2.distribution);
    if (!g1) continue;
    const ratio = Number((g2.medianMs / g1.medianMs).toFixed(3));
    out.push({ curve: g2.curve, n: g2.n, mode: g2.mode, devices: g2.devices, distribution: g2.distribution, g1Ms: g1.medianMs, g2Ms: g2.medianMs, ratio });
    process.stdout.write(
      `g2/g1  ${g2.curve.padEnd(10)} 2^${Math.log2(g2.n)} ${g2.mode.padEnd(13)} dev ${g2.devices.padEnd(5)} ${g2.distribution.padEnd(11)} ` +
        `g1 ${g1.medianMs.toFixed(2)} ms  g2 ${g2.medianMs.toFixed(2)} ms  ${ratio.toFixed(2)}×\n`,
    );
  }
  return out;
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
