// The test addon (msm_cuda_testing.node, test/native): every hook it exports, declared once. It is
// built with the tests (scripts/build-testing.js, npm test's pretest step) and links the same core
// as the product addon; a checkout whose tests run without it is broken, so loading it throws
// instead of letting tests skip.

import fs = require('fs');
import path = require('path');

export interface SelftestResult {
  checked: number;
  mismatches: number;
  first: string;
}

export interface PlanRegions {
  table: [number, number]; // [offset, bytes] in the context's one allocation
  recodeTable: [number, number];
  scalars0: [number, number];
  scalars1: [number, number];
  keysIn: [number, number];
  valsIn: [number, number];
  keys: [number, number];
  vals: [number, number];
  sortTemp: [number, number];
  buffer: [number, number];
  ctRuns: [number, number]; // constant time only (else 0 bytes)
  bufOffset: [number, number];
  bufUsed: [number, number];
  bufIndex: [number, number];
  buckets: [number, number];
  heavy: [number, number];
  heavyCount: [number, number];
  bhat1: [number, number];
  windowSums: [number, number];
  chunkSums: [number, number];
  chunkRest: [number, number];
}

export interface ContextPlan {
  c: number;
  W: number; // windows the pipeline runs: D, or 1 with shared buckets
  D: number; // digits per scalar
  sharedBuckets: boolean; // one bucket set for all windows (cuda/msm/plan.hpp Plan::shared_buckets)
  levels: boolean; // that set of odd digits over every level 2^e·P, e < D·c (Plan::levels)
  tau: number;
  T: number;
  waves: number; // the most waves of Alg. 4 threads a launch takes (plan.hpp Plan::waves)
  M: number;
  slots: number;
  chunkLog: number; // l of the reduction's chunk level (cuda/msm/reduce.cuh)
  sortGroup: number; // g: windows per radix sort (cuda/msm/sort.cu)
  tableLowered: boolean;
  sharedSum: boolean; // Alg. 4's running sums in shared memory (cuda/msm/tuning.hpp acc_shared_for)
  cuts: number[]; // where each piece of a call handed over while copied ends (Plan::cuts; one: no split)
  mode: 'xyzz' | 'homogeneous' | 'constant-time'; // the accumulation mode (cuda/options.hpp kAccumulationNames)
  total: number;
  regions: PlanRegions;
  affineBytes: number;
  xyzzBytes: number;
  homogeneousBytes: number;
}

export interface TestingAddon {
  // stages.cpp: the GPU stages' index logic on integers (cuda/msm/*.cuh)
  recodeTable(c: number): Uint32Array;
  recodeScalars(c: number, windows: number, scalars: Uint8Array): Uint32Array;
  // shared buckets (recode.cuh shared_bucket / shared_value): scalar-major keys and sort values
  recodeShared(c: number, windows: number, scalars: Uint8Array): { keys: Uint32Array; values: Uint32Array };
  recodeLevels(c: number, windows: number, scalars: Uint8Array): { keys: Uint32Array; values: Uint32Array }; // odd digits, value i | jc + EXP | SIGN
  numWindows(curve: string, c: number): number;
  chooseWindow(curve: string, n: number, resident?: number, chunkThreads?: number, shared?: boolean, accumulation?: string, levels?: boolean): number; // resident: Alg. 4 threads (default an H100); chunkThreads: the chunk level's count (default resident); shared: for one bucket set; accumulation: the mode (default xyzz); levels: that set of odd digits
  digitProfile(curve: string, c: number): { D: number; topShare: number; topValues: number }; // plan.cpp digit_profile
  accumulate(
    keys: Uint32Array,
    weights: BigUint64Array,
    T: number,
    c: number,
    place?: number, // the window's place in a sort group, set above the keys' bucket bits
  ): { first: number; offset: Uint32Array; used: Uint32Array; index: Uint32Array; buffer: BigUint64Array };
  aggregate(
    offset: Uint32Array,
    used: Uint32Array,
    index: Uint32Array,
    buffer: BigUint64Array,
    c: number,
    stride: number,
    parts: number, // the most parts the block path splits a heavy bucket into (aggregate.cuh heavy_parts)
    start?: BigUint64Array, // a later piece: the earlier pieces' buckets to add onto (else from O)
  ): { buckets: BigUint64Array; block: BigUint64Array; pieces: Uint32Array; queued: Uint32Array; heavyPieces: number };
  // Alg. 4 into the buckets and the split buckets' aggregation (accumulate_thread_direct, DirectView);
  // old: an earlier piece's buckets to add onto (else from O)
  accumulateDirect(
    keys: Uint32Array,
    weights: BigUint64Array,
    T: number,
    c: number,
    stride: number,
    parts: number,
    old?: BigUint64Array,
    place?: number,
  ): { buckets: BigUint64Array; pieces: Uint32Array; heavy: Uint32Array; heavyPieces: number; lead: Uint32Array };
  reduceSchedule(c: number): { layered: Uint32Array; tree: Uint32Array };
  // shared: 2^(c−1) plain buckets, Q = Σ (p+1)·B_p (else 2^(c−2) odd ones, Q = Σ (2p+1)·B_p)
  reduceIntegers(c: number, buckets: BigUint64Array, reverse: boolean, chunkLog?: number, localRounds?: number, shared?: boolean): { suffix: BigUint64Array; bhat1: bigint; total: bigint; q: bigint };
  bucketWeights(c: number, shared?: boolean): bigint;
  // stages_ct.cpp: §5 and the complete formulas
  // start: the buckets of a call's earlier pieces (Workspace::later), which the runs start from
  accumulateCt(
    keys: Uint32Array,
    weights: BigUint64Array,
    T: number,
    c: number,
    start?: BigUint64Array,
  ): { index: Uint32Array; buffer: BigUint64Array; buckets: BigUint64Array; written: Uint32Array };
  // block: workers (a thread or a quad of lanes a pair) per block of ct_aggregate.cu's round launches (a power of two); resident: blocks at once
  ctAggregate(
    index: Uint32Array,
    buffer: BigUint64Array,
    c: number,
    block: number,
    resident: number,
    live: number, // the slots Alg. 4 wrote (2T): blocks past them are left out (ct_launch_blocks)
  ): { buckets: BigUint64Array; written: Uint32Array };
  homogeneousCheck(curve: string, count: number, seed: number, group?: 'g1' | 'g2'): SelftestResult; // g2: bn254, bls12-381
  // q − S·R with q = a·G, R = b·G (a, b 32 bytes little-endian), S = Σ_j 2^(jc)·(f + counts[j]), by the
  // constant-time mode's table of unblind_digits(top, W, c) hex digits (cuda/msm/combine.hpp); point:
  // canonical affine x‖y (G2: x.c0‖x.c1‖y.c0‖y.c1), zeros for O. Throws ERR_INTERNAL where S does not fit.
  unblind(
    curve: string,
    a: Uint8Array,
    b: Uint8Array,
    counts: BigUint64Array,
    fTop: BigUint64Array,
    c: number,
    group?: 'g1' | 'g2',
  ): { digits: number; point: Uint8Array };
  // tools.cpp
  // P_i = (s + i·t)·G of the group (default g1), canonical x‖y (G2: x.c0‖x.c1‖y.c0‖y.c1); with
  // partPoints, the same bytes in parts of that many points (the last one fewer; [] for n = 0),
  // for bases above one typed array.
  generatePoints(curve: string, n: number, s: Uint8Array, t: Uint8Array, group?: 'g1' | 'g2'): Uint8Array;
  generatePoints(curve: string, n: number, s: Uint8Array, t: Uint8Array, group: 'g1' | 'g2' | undefined, partPoints: number): Uint8Array[];
  // k_i·G of the group (default g1) for 32-byte LE scalars, affine x‖y, canonical or Montgomery
  fixedBaseMul(curve: string, scalars: Uint8Array, group?: 'g1' | 'g2', montgomery?: boolean): Uint8Array;
  // The call-time copy into memory a DMA reads (HostBytes::stream) of bytes[srcOffset…] to dstOffset
  // bytes past a 64-byte boundary, with the range scan when scan: the copy, the lowest index of a
  // scalar ≥ r (or -1) and how many pieces the copy showed the scan.
  streamScalars(curve: string, bytes: Uint8Array, srcOffset: number, dstOffset: number, scan: boolean): { copy: Uint8Array; first: number; looked: number };
  engineBench(
    curve: string,
    points: Uint8Array | readonly Uint8Array[], // parts concatenated
    scalars: Uint8Array,
    runs: number,
    windowBits: number,
    tau: number,
    group?: 'g1' | 'g2',
  ): { setupMs: number; runsMs: number[]; deviceMemory: number; windowBits: number; tau: number; result: Uint8Array } | undefined;
  gpuFieldSelftest(curve: string, count: number, seed: number): SelftestResult | undefined; // undefined without CUDA
  gpuFp2Selftest(curve: G2Curve, count: number, seed: number): SelftestResult | undefined; // G2's Fp2; undefined without CUDA
  gpuQuadSelftest(curve: string, count: number, seed: number): SelftestResult | undefined; // G1 adds by a quad of lanes (XYZZ, RCB); undefined without CUDA
  // Takes all but leaveFreeBytes of a CUDA device's free memory until releaseDevice (undefined without CUDA).
  occupyDevice(device: number, leaveFreeBytes: number): number | undefined;
  releaseDevice(handle: number): void;
  cpuSimdSelftest(curve: string, count: number, seed: number): SelftestResult | undefined; // undefined without IFMA
  readonly cpuSimdAvailable: boolean; // the host has AVX-512 IFMA
  readonly cpuSimdEnabled: boolean; // …and MSM_CPU_SIMD=0 did not turn the path off
  readonly cudaCompiled: boolean;
  // plan.cpp: cuda/msm/plan.hpp
  planContext(
    curve: string,
    n: number,
    options: { windowBits?: number; tau?: number; accumulation?: 'xyzz' | 'homogeneous' | 'constant-time'; group?: 'g1' | 'g2'; buckets?: 'windows' | 'shared' | 'levels' },
    freeBytes: number,
    residentThreads: number,
    chunkThreads?: number, // the threads the chunk level counts (PlanInput::chunk_threads; default residentThreads)
  ): ContextPlan;
  // g2.cpp: Fp2 and the G2 formulas on the host. G2 points are canonical little-endian bytes
  // x.c0‖x.c1‖y.c0‖y.c1 (all zeros for O), Fp2 elements c0‖c1, scalars little-endian bytes.
  g2Generator(curve: G2Curve): Uint8Array;
  g2OnCurve(curve: G2Curve, point: Uint8Array): boolean;
  g2InSubgroup(curve: G2Curve, point: Uint8Array): boolean; // ψ(P) = [λ]P, P on the twist
  g2Psi(curve: G2Curve, point: Uint8Array): Uint8Array;
  g2Add(
    curve: G2Curve,
    a: Uint8Array,
    b: Uint8Array,
  ): { mixed: Uint8Array; full: Uint8Array; jacobian: Uint8Array; dbl: Uint8Array; dblMixed: Uint8Array; dblJacobian: boolean };
  g2ScalarMul(curve: G2Curve, point: Uint8Array, k: Uint8Array): { xyzz: Uint8Array; jacobianAgrees: boolean };
  g2ClearCofactor(curve: G2Curve, point: Uint8Array): Uint8Array; // [h2]P
  g2Msm(curve: G2Curve, points: Uint8Array, scalars: Uint8Array): Uint8Array; // 32 bytes per scalar
  fp2Ops(
    curve: G2Curve,
    a: Uint8Array,
    b: Uint8Array,
  ): {
    add: Uint8Array;
    sub: Uint8Array;
    neg: Uint8Array;
    dbl: Uint8Array;
    mul: Uint8Array;
    sqr: Uint8Array;
    inv: Uint8Array;
    conj: Uint8Array;
    mulBase: Uint8Array; // a·b.c0
    mulAdd: Uint8Array; // a·b + b·b
    equal: boolean;
    isZero: boolean;
  };
  fp2Check(curve: G2Curve, count: number, seed: number): SelftestResult;
}

/** The curves with a G2 in cuda/curves/*_g2.hpp. */
export type G2Curve = 'bn254' | 'bls12-381';

function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

/** Where the test addon is looked for: the CMake build tree, then test/native's node-gyp build. */
export const TESTING_ADDON_PATHS = ['build/Release/msm_cuda_testing.node', 'test/native/build/Release/msm_cuda_testing.node'];

let cached: TestingAddon | undefined;

export function testingAddon(): TestingAddon {
  if (cached) return cached;
  const root = packageRoot();
  const found = TESTING_ADDON_PATHS.map((p) => path.join(root, p)).find((p) => fs.existsSync(p));
  if (!found) {
    throw new Error(
      `the test addon is missing (looked for ${TESTING_ADDON_PATHS.join(', ')}): ` +
        'build it with `node scripts/build-testing.js` (npm test does)',
    );
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cached = require(found) as TestingAddon;
  return cached;
}
