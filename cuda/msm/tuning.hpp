// Launch tuning of the GPU pipeline, kept apart from the algorithm (as CUB keeps its tuning
// policies): block sizes, and for the accumulation kernel the register budget per (field size,
// mode), each beside the measurement that chose it. The kernels read only these names.
#pragma once

#include "../common/env.hpp"
#include "../options.hpp"

namespace msm::gpu {

// ---- Alg. 4, accumulation (accumulate.cu) --------------------------------------------------------
// The kernel is latency-bound on dependent carry chains (ncu: ~0.4 eligible warps per scheduler),
// so more resident warps can beat a few spilled registers. The budget is set by the blocks per SM
// ptxas must fit (registers ≤ 65536 / (kAccBlock · blocks)):
//
//   field limbs   wide                       tight                                  shared
//   ≥ 5           2 blocks, 232 registers    3 blocks, 168 registers, ~100–150 B    4 blocks, 128 registers
//                                            spilled (6 limbs)                      ~50–120 B spilled; the
//                                                                                   default mode at 5 limbs
//                                                                                   5 blocks, 96, 86 B
//   4             4 blocks, 126 registers    5 blocks, 96 registers, ~400 B         8 blocks, 64 registers,
//                                                                                   ~250 B spilled; the
//                                                                                   homogeneous mode 5
//                                                                                   blocks, 96, 194 B
//
// `shared` is the default and homogeneous modes of G1 from 2^20 points, and the constant-time mode
// of the 5- and 6-limb fields (acc_shared_for): its running sum lives in shared memory
// (accumulate.cu SharedSum, as the paper's Alg. 4 keeps it), so the registers hold only the
// addition's temporaries. Measured on the H100 (MSM_CUDA_PROFILE, random scalars, the accumulate
// stage of the call's second piece at 2^22 / 2^24): BLS12-381 tight 26.41 / 85.2 ms, shared 23.96 /
// 79.7 (at 5 blocks, 96 registers and ~340 B spilled: 24.0 / 79.6); BN254 wide 9.90 / 34.5, shared
// 9.18 / 32.0 (at 6 blocks, 80 registers: 9.47 / 33.0; at 5: 9.47 / 33.5). ncu (BLS12-381 2^22, the
// second piece): fmaheavy pipe 80.7 → 84.0 % busy, 9.7 → 12.3 warps per SM, local loads 55.5 M →
// 13.3 M; BN254 79.5 → 84.3 %, 12.7 → 21.8 warps. With Alg. 4's rare paths over inline products
// (accumulate.cu) the 96-register kernels spill 34–126 B; at 5 blocks (one H200, API, random,
// against 4, alternated twice, 2^22 / 2^24): BLS12-381 default 25.89, 25.97 / 91.30, 91.33 ms
// against 24.10, 24.17 / 83.44, 83.68 (its callees' saved registers: 127 local accesses an entry
// against 9); BLS12-377 default 29.64, 29.70 / 103.07, 102.99 against 28.64, 28.65 / 99.77, 99.54
// (before its products lost their split multiplies, ff/ptx.cuh mont_factor; not timed since: at 96
// registers its product callees are 508 / 461 / 772 SASS instructions against 421 / 375 / 590 at
// 128, with 121 local accesses an entry, BLS12-381's picture);
// BLS24-315 default 17.68, 17.63 / 60.98, 61.03 against 18.13, 18.20 / 61.99, 62.00, constant time
// 18.89, 18.86 / 66.25, 66.35 against 19.37, 19.26 / 65.29, 65.32 (bench/gpu-notes.md). So only
// the 5-limb field's default mode takes 5 blocks. Otherwise the sums stay in registers, at the
// table's register budget below.
//
// The register budgets, measured with the sum in registers (engine alone, random scalars, 2^20 /
// 2^22 / 2^24): BLS12-381 wide 21.2 / 73.0 / 283.8 ms, tight 18.3 / 58.7 / 217.6; BN254 wide
// 9.1 / 24.4 / 94.0, tight 8.9 / 27.1 / 97.8. So tight for the 6-limb fields and wide for BN254.
// BLS24-315's 5-limb field takes the 6-limb budgets: ptxas (sm_90, CUDA 13.0) fits it in 168
// registers with no spills (wide: 222), so tight costs nothing there (not timed). The homogeneous
// mode keeps a pending affine point beside its projective sum and fits the tight budget without
// spilling (165–168 registers for the 6-limb fields, since its run ends compute nothing:
// accumulate.cu); the constant-time mode takes the same budget. Those timings were taken with the
// field products inlined; out of line (ff/ptx.cuh, MSM_FF_OUTLINE_PRODUCTS) ptxas reports for the
// default mode: 6-limb wide 195 registers, no spill; tight 168, 236 B spilled; BN254 wide 128,
// 16 B; tight 96, 664 B. Timed again so (API, random, c = 16, 2^20 / 2^22 / 2^24): BLS12-381 tight
// 13.97 / 46.64 / 161.3 ms, wide 15.15 / 44.92 / 160.8 (within noise); BN254 tight 7.97 / 26.87 /
// 94.0, wide 8.02 / 27.45 / 85.6: the table's choice stands. (BN254's default and constant-time
// kernels have their products inline again since c47609d, CMakeLists.txt: bench/gpu-notes.md.)
//
// G2 (fp2: Fp2 coordinates, `limbs` = 2·F::N = 8 or 12) holds twice the registers per point of its
// base field: the accumulator alone is 64 (BN254) or 96 (BLS12-381) 32-bit registers, and 2 blocks
// of 128 threads already allow ptxas's cap of 255 per thread. So every G2 mode is built wide, once
// (MSM_CUDA_ACC does not apply); ptxas's figures for these kernels are in ec/G2.md.
constexpr unsigned kAccBlock = 128;

enum class Budget { wide, tight, shared };

constexpr int acc_min_blocks(int limbs, Budget b, Accumulation mode = Accumulation::xyzz) {
  if (b == Budget::shared) {
    if (limbs >= 5) return limbs == 5 && mode == Accumulation::xyzz ? 5 : 4;
    return mode == Accumulation::homogeneous ? 5 : 8;
  }
  return limbs >= 5 ? (b == Budget::tight ? 3 : 2) : (b == Budget::tight ? 5 : 4);
}
// The register budget of every kernel that keeps its sums in registers (the table above).
constexpr Budget acc_budget(int limbs, bool fp2 = false) {
  return fp2 || limbs < 5 ? Budget::wide : Budget::tight;
}
// Whether Alg. 4 keeps its sums in shared memory for a context of n points: G1's default mode from
// kSharedSumFrom points (MSM_CUDA_ACC=registers|shared: never, always). Below it the kernel gains
// ≤ 5 % (BLS12-381 2^18 accumulate 2.10 → 1.99 ms at c = 15), and its 4/3× (BLS12-381) and 2×
// (BN254) threads per window give Alg. 5 more pieces and the window model (plan.cpp, fitted with the
// register kernel's residency) other choices: BN254 2^16 c = 10 at 1.56–1.70 ms against c = 13 at
// 1.37–1.62, BLS12-381 2^16 c = 14 at 2.63–2.67 against 2.09–2.28 (H100, API, random).
constexpr uint64_t kSharedSumFrom = uint64_t(1) << 20;
// The kernels with a shared-memory sum: G1's three modes. Default and constant time: the same XYZZ
// sum and madd-2008-s (accumulate.cu XyzzAcc, ConstantTimeAcc), so the same budgets.
// Homogeneous: the projective sum and the waiting
// affine point (HomogeneousAcc), 240 B a thread for BLS12-381, 278 B spilled at 128 registers
// against none at 166 (API, H100, random, two runs each, registers → shared: BLS12-381 2^22 32.59,
// 32.61 → 31.72, 32.69 ms, 2^24 114.74, 114.97 → 112.22, 112.07; bench/gpu-notes.md). BN254's
// homogeneous kernel at 5 blocks (96 registers, 194 B spilled; 80 and 472 B at 6): API, H100,
// random, two runs each, against the register kernel: 2^20 5.75, 5.39 → 5.27, 5.29 ms, 2^22 16.12,
// 16.35 → 15.93, 15.67, 2^24 55.17, 55.53 → 53.80, 54.01.
constexpr bool acc_has_shared(bool fp2) { return !fp2; }
inline bool acc_shared_for(uint64_t n, bool fp2) {
  if (!acc_has_shared(fp2)) return false;
  const int e = environment().cuda_acc_sum;
  return e == 1 ? false : e == 2 ? true : n >= kSharedSumFrom;
}

// ---- the other stages: block sizes (not tuned beyond the first working value) --------------------
constexpr unsigned kRecodeBlock = 256;     // recode.cu: one thread per scalar
constexpr unsigned kTableBlock = 128;      // precompute.cu: one thread per batch of points
constexpr unsigned kTableThreadsPerSm = 512;
constexpr int kTableMaxBatch = 32;         // points per thread sharing one inversion (registers: F[32])
constexpr unsigned kAggBlock = 128;        // aggregate.cu: one thread per Alg. 4 thread, one block per part of a heavy bucket
// aggregate.cu heavy_kernel's and split_kernel's blocks per SM (G1). Set when heavy_kernel also
// summed the homogeneous mode's light buckets (ptxas took 186 registers and 2 blocks, where 3 ran
// that path at 0.31–0.33 ms against 0.40; ncu, BLS12-381 2^20); a part of a heavy bucket is one
// block's work, and the bound stays. split_kernel took it later (aggregate.cu).
constexpr int agg_min_blocks(int limbs, bool fp2) { return fp2 ? 1 : limbs >= 5 ? 3 : 4; }
constexpr unsigned kCtBlock = 128;         // ct_aggregate.cu: one thread per group of four
constexpr int kRedLog = 7;                 // reduce.cu: blocks of 2^7 threads, grid-stride over the rounds'
constexpr unsigned kRedBlock = 1u << kRedLog;  // tasks; the first 8 rounds of each phase block-local
// (6 where a quad of lanes adds: all but G2's XYZZ buckets; blocks of 2^8 with quads measured no faster)
// reduce_kernel's blocks per SM (G1): BN254 at 2^22 (c = 17, l = 2) has 480 blocks of tasks per round;
// at 126 registers all were resident (4 per SM), at the 142 that the block-local rounds took only 396
// were, and reduce went from 1.03 to 1.18 ms (MSM_CUDA_PROFILE, H100).
constexpr int red_min_blocks(int limbs, bool fp2) { return fp2 || limbs >= 5 ? 1 : 4; }

}  // namespace msm::gpu
