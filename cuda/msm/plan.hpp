// The plan of one CUDA context, decided on the host with no CUDA call: from the number of bases, the
// curve's sizes, the options, the device's free memory and the Alg. 4 threads it keeps resident, to
// the window size c, the windows W, the precompute depth τ, the Alg. 4 threads T, and the layout of
// every device buffer inside the context's one allocation. CI tests it for devices of any size
// (test/plan.test.ts through the test addon); engine.cu only carries it out.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../options.hpp"
#include "recode.cuh"

namespace msm::gpu {

// What the plan needs to know of a curve (engine.cu reads it off the curve's types).
struct CurveSizes {
  size_t affine = 0;       // bytes of an affine point (the table's entries)
  size_t xyzz = 0;         // bytes of an XYZZ point (runs, buckets, window sums)
  size_t homogeneous = 0;  // bytes of a homogeneous point (the constant-time mode's §5 and reduction)
  uint32_t rm1[kScalarWords] = {};  // r − 1, little-endian words: the largest scalar, for W
  int scalar_bits = 0;     // bit length of r
};

struct PlanInput {
  uint64_t n = 0;
  CurveSizes curve;
  EngineOptions options;
  size_t free_memory = 0;         // device bytes free before the context allocates
  uint32_t resident_threads = 0;  // Alg. 4 threads the device runs at once (SMs × blocks × block size)
  // The threads the chunk level's rule counts (chunk_log_for): what Alg. 4 runs at once with its sums
  // in registers, the residency the rule was fitted with (0: resident_threads).
  uint32_t chunk_threads = 0;
  bool shared_sum = false;        // Alg. 4 keeps its sums in shared memory (tuning.hpp acc_shared_for)
  // Bucket layout: 0 = the cost model's choice (Plan::shared_buckets, Plan::levels), 1 = one set per
  // window, 2 = one set of plain digits for all windows, 3 = one set of odd digits over every level
  // (engine.cu passes MSM_CUDA_BUCKETS; for measuring and tests).
  int buckets = 0;
  // CUB's temporary storage for one radix sort of n entries on key_bits bits.
  size_t (*sort_temp_bytes)(uint32_t n, int key_bits) = nullptr;
};

// One buffer of the context: its byte offset in the one allocation, and its size.
struct Region {
  size_t offset = 0, bytes = 0;
};

struct Plan {
  uint32_t n = 0;      // bases
  int c = 0;           // window bits (§3.1)
  int D = 0;           // digits per scalar: ⌈λ/c⌉, plus one when the top window's carry can be set (recode.cuh)
  // Every digit into one bucket set (recode.cuh shared_bucket; issue 12, lever 1): the table holds
  // 2^(jc)·P_i for the D windows j, the pipeline runs one window of D·n entries and 2^(c−1) buckets.
  // Otherwise each window has its own 2^(c−2) buckets of §3.1's odd digits.
  bool shared_buckets = false;
  // The shared set with §3.1's odd digits (recode.cuh levels_value): the table holds every level
  // 2^e·P_i, e < D·c, and the set 2^(c−2) buckets, where that table fits and the model prefers it.
  bool levels = false;
  int W = 0;           // windows the pipeline runs (bucket sets): D, or 1 with shared buckets
  int tau = 0;         // the table holds 2^h·P_i for h ≤ τ (§3.1); shared buckets: 2^(hc)·P_i, τ = D − 1;
                       // levels: τ = D·c − 1
  uint32_t T = 0;      // Alg. 4 threads per window: `waves` times the resident ones (threads_per_window)
  uint32_t waves = 1;  // the most waves of Alg. 4 threads a launch takes (accumulate.cuh alg4_waves)
  uint32_t wave_entries = 0;  // entries a thread keeps for a wave more: kWaveEntries, 0 where MSM_CUDA_WAVES fixes them
  uint32_t M = 0;      // buckets per window, 2^(c−2) (odd digits only, §3.1), or 2^(c−1) plain shared
  uint32_t slots = 0;  // Alg. 4 buffer slots per window: buffer_slots(T, log2 M) (Eq. (2)); constant time: ct_window_slots(T) (§5)
  int chunk_log = 0;   // l: the reduction's chunk level sums chunks of 2^l buckets first (reduce.cuh)
  // Alg. 5: a split bucket over more Alg. 4 threads than this is summed by a block (aggregate.cu):
  // kHeavyPieces, or kHeavyPiecesLevels with the levels, whose small odd digits gather ~c times a
  // bucket's share of the entries (bucket 1 every ±2^e) and whose top window adds its few values.
  uint32_t heavy_pieces = 0;
  int sort_group = 1;  // g: windows per radix sort (sort.cu), on sort_key_bits(c, g) key bits
  Accumulation mode = Accumulation::xyzz;
  bool shared_sum = false;     // PlanInput::shared_sum
  bool table_lowered = false;  // τ or c was lowered for the table to fit (memory fallback)
  // A call whose scalars are handed over as they are copied (engine.cu) runs in `pieces` pieces:
  // piece i covers points [cuts[i−1], cuts[i]) (from 0; cuts[pieces−1] = n). Each runs Alg. 3–5 as
  // soon as its scalars are on the device while the next ones are still being copied, the later
  // pieces' buckets added onto the earlier ones'. 1: never split.
  static constexpr int kMaxPieces = 8;
  int pieces = 1;
  uint32_t cuts[kMaxPieces] = {};
  uint32_t last_from() const { return pieces > 1 ? cuts[pieces - 2] : 0; }  // where the last piece starts
  // The one device allocation (table first, then the pipeline's scratch), each region 256-aligned.
  Region table;         // [(τ+1)·n] affine: table[h·n + i] = 2^h·P_i (shared buckets: 2^(hc)·P_i)
  Region recode_table;  // [2^c + 1] k̂ per t (Alg. 3 mapping table; empty with shared buckets)
  Region scalars[2];    // [n × 32 B] each: the scalars of the MSM running and of the next upload
  Region keys_in, vals_in, keys, vals;  // [D·n] u32 each: bucket and point|EXP|SIGN, before / after the sort
  Region sort_temp;     // CUB's temporary storage for one sort (g windows; shared buckets: all D·n entries)
  Region buffer;        // [W·slots] XYZZ Alg. 4 runs (constant time: §5's, homogeneous)
  Region ct_runs;       // constant time: [W·slots] XYZZ, Alg. 4's head and tail runs, then §5's sinks (else empty)
  Region buf_offset, buf_used;  // [W·T] u32 (Alg. 4 buffer_offset, buffer_used)
  Region buf_index;     // [W·slots] u32 (Alg. 4 buffer_index)
  Region buckets;       // [W·M] XYZZ
  Region heavy;         // [W·M] uint4: buckets left to the block-wide Alg. 5 path
  Region heavy_count;   // u32
  Region chunk_sums, chunk_rest;  // [W·M/2^l] each (l > 0): the chunk level's R_k and T_k, homogeneous
  Region bhat1;         // [W] B̂_1 of each window (§3.4), of the rounds' point type (sized as XYZZ)
  Region window_sums;   // [sums_slots] XYZZ: Q_j, then (constant time) the W u64 head weights
  // XYZZ slots of window_sums: W, and in the constant-time mode those after them that hold the W
  // head weights (Workspace::ct_heads), so that the engine downloads both at once.
  uint32_t sums_slots = 0;
  size_t total = 0;     // bytes of the allocation (0 for n = 0)
};

// The table must fit in this share of the device's free memory (the rest is scratch and headroom).
constexpr double kTableShare = 0.5;
// The levels' table (Plan::levels: D·c levels, c times the plain shared one's) in this share: it saves
// a part of the bucket reduction only (~0.1–0.5 ms a call), so it stays where it leaves room for
// more contexts (BN254 2^20: 16.3 GiB, within an 80 GB device's share; 2^22: 65 GiB, not).
constexpr double kLevelsShare = 0.25;

// Throws EngineError ERR_INVALID_OPTION for τ > c − 1, or τ ≠ c − 1 in constant time.
Plan make_plan(const PlanInput& in);

// The window size c of the cost model (plan.cpp) for n points on a device running `resident` Alg. 4
// threads at once, the chunk level counting `chunk_threads`; rm1 = r − 1, bits = its bit length;
// `shared`: for one bucket set (Plan::shared_buckets), whose Alg. 5 costs more per bucket in the
// homogeneous `mode`; `levels`: that set of odd digits (Plan::levels), whose values' EXP field must
// hold D·c levels for n points and whose 2^(c−2) buckets must be no fewer than `resident`.
// *cost (if given): the model's cost at that c (none qualifying: 1e300).
int choose_window_bits(uint64_t n, const uint32_t* rm1, int bits, uint32_t resident, uint32_t chunk_threads,
                       bool shared = false, Accumulation mode = Accumulation::xyzz, double* cost = nullptr,
                       bool levels = false);
// What the cost model needs of the digits of scalars below r at window c (digit_profile).
struct DigitProfile {
  int D = 0;               // digits per scalar (num_windows)
  double top_share = 0;    // share of scalars whose top digit is non-zero (1: a full top window)
  double top_values = 0;   // the non-zero values that digit takes
  // Digits not almost always zero: D, the carry-only top window counted by its share.
  double active() const { return D - 1 + top_share; }
};
DigitProfile digit_profile(const uint32_t* rm1, int bits, int c);
// The model's cost of one MSM of n points at window c (W = D windows of their own, or with `shared`
// one bucket set, of odd digits with `levels`).
double window_cost(double n, int c, const DigitProfile& d, uint32_t resident, uint32_t chunk_threads,
                   bool shared = false, Accumulation mode = Accumulation::xyzz, bool levels = false);
// Shared buckets are considered from this many points: they need c ≥ 16 (recode.cuh shared_fits),
// 2^15 buckets, too many below (measured faster from 2^16 on the H100, bench/gpu-notes.md);
// PlanInput::buckets forces either.
constexpr uint64_t kSharedBucketsFrom = uint64_t(1) << 16;
// The chunk level l for W windows of M buckets, counting `threads` (PlanInput::chunk_threads):
// chunk_log_for, which the cost model prices, and the level the plan runs (MSM_CUDA_CHUNK_LOG, else
// chunk_log_for, at least 2 with one bucket set: plan.cpp kMinSharedChunkLog; at least 1 in the
// constant-time mode, `ct`).
int chunk_log_for(uint32_t M, int W, uint32_t threads);
int choose_chunk_log(uint32_t M, int W, uint32_t threads, bool ct);
// Windows per radix sort for W windows of n entries (MSM_CUDA_SORT_GROUP, else sort_group_for), and
// the most entries one sort may take (CUB's temporary storage holds a copy of them).
constexpr uint64_t kMaxSortEntries = uint64_t(1) << 24;
int sort_group_for(uint64_t n, int W, int c);
int choose_sort_group(uint64_t n, int W, int c);
// A call of n points is split in pieces (Plan::pieces, cuts) from kPiecesFrom points on, as many as
// plan.cpp's cost model finds cheapest for the mode; MSM_CUDA_PIECES=k forces k at any n ≥ k.
constexpr uint64_t kPiecesFrom = uint64_t(1) << 20;

}  // namespace msm::gpu
