// make_plan (plan.hpp): the window size by a cost model of n, τ and c against the device's free
// memory, and the layout of the context's one device allocation.
#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../common/env.hpp"
#include "../engine.hpp"
#include "accumulate.cuh"
#include "aggregate.cuh"
#include "ct_aggregate.cuh"
#include "tuning.hpp"

namespace msm::gpu {

// The chunk level (reduce.cuh): chunks of 2^l buckets, one thread each, at least as many as
// `threads`, and none while the windows' buckets are fewer than twice that.
int chunk_log_for(uint32_t M, int W, uint32_t threads) {
  const int log_m = int(__builtin_ctz(M));
  const uint64_t want = std::max<uint32_t>(threads, 1);
  int l = 0;
  while (l < log_m && (uint64_t(W) * M >> (l + 1)) >= want) ++l;
  return l;
}
// The share of PlanInput::chunk_threads the plan's chunk level counts (make_plan).
constexpr uint32_t kChunkThreadShare = 3;
// The level the plan runs: chunk_log_for, and with one bucket set (W = 1) chunks of at least
// 2^kMinSharedChunkLog buckets. One H200, the reduce step (MSM_CUDA_PROFILE, MSM_CUDA_CHUNK_LOG) at
// 2^16 and 2^18 points on 2^15 plain buckets, where chunk_log_for gives l = 0: BLS12-381 l = 0 / 1 /
// 2 / 3 0.515 / 0.384 / 0.323 / 0.402 ms, BN254 0.200 / 0.218 / 0.191 / 0.227. §3.4's 30 rounds over
// 2^15 points are wider than BLS12-381's resident quads, and four rounds fewer over a quarter of the
// points outweigh a chain of 6 additions (l = 1 also doubles the tree, over the chunk sums and their
// rests, for two rounds fewer). From 2^18 buckets chunk_log_for gives l ≥ 3, the fastest there or
// within 0.08 ms (bench/gpu-notes.md). window_cost prices chunk_log_for's level: the model's c at
// 2^16–2^19 was fitted to measured times before this minimum, and is left as measured. The
// constant-time mode takes at least l = 1, forced or not: its chunk level is where each XYZZ bucket
// becomes homogeneous for §3.4's complete additions (reduce.cu), ct_finish's pass over every bucket
// before (bench/gpu-notes.md).
constexpr int kMinSharedChunkLog = 2;
int choose_chunk_log(uint32_t M, int W, uint32_t threads, bool ct) {
  const int forced = environment().cuda_chunk_log;
  const int log_m = int(__builtin_ctz(M));
  const int least = ct ? std::min(1, log_m) : 0;
  if (forced >= 0) return std::max(std::min(forced, log_m), least);
  const int l = std::max(chunk_log_for(M, W, threads), least);
  return W == 1 ? std::max(l, std::min(kMinSharedChunkLog, log_m)) : l;
}

// The most windows one sort may take: kMaxSortEntries (one, if a window has more).
namespace {
int max_sort_group(uint64_t n, int W) {
  int g = std::max(W, 1);
  while (g > 1 && uint64_t(g) * n > kMaxSortEntries) --g;
  return g;
}
}  // namespace

// Windows per radix sort (sort.cu): the g that minimises ⌈W/g⌉·a + W·n·⌈(c − 1 + ⌈log2 g⌉)/8⌉·b,
// a CUB onesweep sort costing about a fixed a per call (its histogram, scan and one kernel per 8-bit
// pass) plus b per entry and pass, and grouping g windows costing ⌈log2 g⌉ key bits more. Fitted to
// the H100's per-window sorts (MSM_CUDA_PROFILE, random scalars): 26 sorts of 2^16 entries on 9 bits
// 0.86–1.1 ms, 16 of 2^20 on 15 bits 0.82–0.87 ms, 13 of 2^24 on 19 bits 5.9 ms. At most
// kMaxSortEntries per sort, so CUB's temporary storage stays what a single window of 2^24 needs.
int sort_group_for(uint64_t n, int W, int c) {
  constexpr double a = 37.0, b = 7.5e-6;  // µs
  int best = 1;
  double best_cost = 1e300;
  const int most = max_sort_group(n, W);
  for (int g = 1; g <= most; ++g) {
    const double sorts = double((W + g - 1) / g), passes = double((sort_key_bits(c, g) + 7) / 8);
    const double cost = sorts * a + double(W) * double(n) * passes * b;
    if (cost < best_cost) best_cost = cost, best = g;
  }
  return best;
}
int choose_sort_group(uint64_t n, int W, int c) {
  const int forced = environment().cuda_sort_group;
  return forced > 0 ? std::min(forced, max_sort_group(n, W)) : sort_group_for(n, W, c);
}

// The call-time copy of n scalars (into pinned memory, each chunk DMA'd as it is copied) takes
// ~0.75 ns per point (16 copy threads: 12.7 ms at 2^24 on the H100's host, 11.3–12.3 on the H200's),
// and the device waits for the first piece's scalars. A piece of m points computes for about
// t0 + β·m, β = kComputeMsPerPoint·D·(F/32)² for F-byte coordinates and t0 = kPieceFixedMs: its
// aggregation and launches, and Alg. 4's one thin wave (H200, MSM_CUDA_PROFILE at 2^20 and 2^24:
// BN254 2.3 ns per point at D = 12–13 in the large pieces, BLS12-381 4.8, and 0.25–0.3 ms more
// in pieces of ~2^18 points; bench/gpu-notes.md). The device never waits for a later piece when each
// piece's copy ends before the compute of the pieces before it: with cumulative shares S_i,
// S_(i+1) ≤ S_1 + i·e + ρ'·S_i, e = t0 over the copy of all n points, ρ' = kPieceMargin·β over the
// copy per point; equality throughout fixes S_1 (each S_i is linear in it), and S_1's copy is what
// stays exposed. ρ of 0.3·D·(F/32)² without t0 (before) made the last piece too large at 2^24:
// it waited 0.35–0.96 ms for its scalars at BLS12-381 (MSM_CUDA_PROFILE, H200), and this model's
// pieces 85.3–86.5 ms against 89.0–89.8 in a machine start where the copy was slower; at 2^20 its
// smaller first piece changed nothing measurable (the wait for the first piece is mostly the copy
// threads' start). The margin covers the copy's spread (512 MiB took 9.7 to 14.8 ms in consecutive
// calls). A first piece below kMinFirstPiece points is raised to it (t0 was measured on larger
// ones), the others kept: raising them too put BLS12-381 2^22's middle piece at 31 % of the points,
// a piece of one Alg. 4 wave where the last piece would run two (accumulate.cuh alg4_waves).
// Each piece more costs its t0 (it was 0.15 ms, fitted with ρ of 0.3·D·(F/32)²), and in the other
// modes more: the constant-time mode's §5 tree (0.24 / 0.43 ms a piece at BN254 / BLS12-381 on the
// H100, whatever n), the homogeneous mode's Alg. 5 (its copy of the runs to the buckets, and in a
// later piece an XYZZ addition onto each: 1.0–1.1 / 1.6–1.9 ms a piece over 2^21 buckets,
// MSM_CUDA_PROFILE). Those two were fitted to k = 2 … 6 forced on the H100 (API, 2^20 / 2^22 / 2^24,
// every mode: bench/gpu-notes.md, "A call in k pieces", and its later sections).
namespace {
constexpr double kPieceMargin = 0.9;
constexpr double kCopyMsPerPoint = 0.75e-6;
constexpr double kComputeMsPerPoint = 0.185e-6;  // per digit, times (F/32)²
constexpr double kPieceFixedMs = 0.25;
constexpr uint64_t kMinFirstPiece = uint64_t(1) << 17;
constexpr double kCtTreeMs = 0.25;       // times (F/32)^1.4
constexpr double kHomogeneousMs = 1.05;  // per 2^21 buckets, times (F/32)^1.3

// The cumulative shares S_1 … S_k (S_k = 1) of n points in k pieces, the first raised to at least
// `least` points (the later ones stay, with their copies then ending sooner); false where fewer
// pieces cover the copy.
bool piece_shares(uint64_t n, int k, double rho, double e, uint64_t least, double* S) {
  S[k - 1] = 1.0;
  if (k == 1) return true;
  double a = 1.0, b = 0.0;  // S_i = a·S_1 + b
  for (int i = 1; i < k; ++i) a = 1.0 + rho * a, b = i * e + rho * b;
  S[0] = (1.0 - b) / a;
  if (S[0] <= 0.0) return false;
  for (int i = 1; i + 1 < k; ++i) S[i] = S[0] + i * e + rho * S[i - 1];
  S[0] = std::max(S[0], double(least) / double(n));
  return S[0] < S[1];
}

void choose_pieces(Plan& p, uint64_t n, size_t coordinate_bytes) {
  const double f = double(coordinate_bytes) / 32.0;
  const double rho = kPieceMargin * kComputeMsPerPoint * p.D * f * f / kCopyMsPerPoint;
  const double e = kPieceFixedMs / (std::max<double>(double(n), 1.0) * kCopyMsPerPoint);
  const double buckets = double(p.W) * double(p.M) / double(1u << 21);
  const double piece_ms = kPieceFixedMs + (p.mode == Accumulation::constant_time ? kCtTreeMs * std::pow(f, 1.4)
                                           : p.mode == Accumulation::homogeneous ? kHomogeneousMs * std::pow(f, 1.3) * buckets
                                                                                 : 0.0);
  double S[Plan::kMaxPieces];
  const int forced = environment().cuda_pieces;  // MSM_CUDA_PIECES: k at any n ≥ k, for tests
  int k = forced;
  if (k == 0) {
    k = 1;
    double best = double(n) * kCopyMsPerPoint;
    if (n >= kPiecesFrom)
      for (int j = 2; j <= Plan::kMaxPieces; ++j) {
        if (!piece_shares(n, j, rho, e, kMinFirstPiece, S)) break;
        const double cost = S[0] * double(n) * kCopyMsPerPoint + (j - 1) * piece_ms;
        if (cost < best) best = cost, k = j;
      }
  }
  k = int(std::min<uint64_t>(uint64_t(k), std::max<uint64_t>(n, 1)));
  p.pieces = k;
  // A forced k takes the shares of ρ alone, which split any n
  if (forced != 0) piece_shares(n, k, rho, 0.0, 0, S);
  else piece_shares(n, k, rho, e, kMinFirstPiece, S);
  uint64_t prev = 0;
  for (int i = 1; i < k; ++i) {
    const uint64_t at = uint64_t(double(n) * S[i - 1]);  // 0 < S_i < 1, increasing
    prev = std::min(std::max(at, prev + 1), n - uint64_t(k - i));  // every piece ≥ 1 point
    p.cuts[i - 1] = uint32_t(prev);
  }
  p.cuts[k - 1] = uint32_t(n);
}
}  // namespace

// Estimated cost, in mixed additions, of one MSM of n points with window c (D digits per scalar;
// W = D windows of M = 2^(c−2) buckets each, or with `shared` one set of M = 2^(c−1) buckets for all
// D·n entries) on a device running R = `resident` Alg. 4 threads at once, the chunk level l counting
// chunk_threads / LayoutCosts::chunk_share:
//   D'·n                    Alg. 4: one mixed addition per non-zero digit, D' = D less the share of
//                           scalars whose carry-only top window is zero (DigitProfile::active())
//   D'·n·s·p                the radix sort, ≈ s of an addition per entry and 8-bit pass, p =
//                           ⌈(log2 M + 1)/8⌉ passes, one less where the recode partitions the
//                           entries by the first digit (recode.cuh partition_bits)
//   max(W·M·a, C·min(h, H)) Alg. 5, ≈ a per bucket, or its longest chain where that takes longer: a
//                           bucket over h of the Alg. 4 threads has its pieces added one after
//                           another (a block sums the buckets of more than H = Plan::heavy_pieces), each
//                           ≈ C additions of throughput. With odd digits bucket 1 holds the digits ±2^e
//                           (e < c − 1), (c − 1)/2^(c−1) of a window's entries, h = (c − 1)·R/(2^(c−1)·W),
//                           and with the levels also log2(values) + 1 of the top window's values.
//                           Plain shared digits spread evenly, h = R/M, except the top window's,
//                           which take only the values up to the top of r (3 bits there put n entries
//                           into 8 buckets): h = R·share/(D'·values) where that is larger
//   W·(m·M·[l > 0] + K·(log2 K / 2 + 1))·k + b·[l > 0]
//                           the reduction (reduce.cuh): the chunk level's running sums (m per bucket,
//                           b fixed), then M/2 layered additions per round over the K = M/2^l points
//                           left, log2 K rounds, and the tree's K − 1; k ≈ 2: full XYZZ additions, in
//                           a kernel of fewer warps than Alg. 4's
//   2·log2 K·L              the rounds' latency: each is at least one dependent addition plus a
//                           grid barrier, worth ≈ L additions of throughput
// The constants are fitted to the H100. Per-window buckets (kWindowsCosts): MSM_CUDA_PROFILE,
// BLS12-381 2^24 at c = 20 (accumulate 107 ms for 13·2^24 entries, Alg. 5 2.0 ms for 13·2^18
// buckets, the reduction 5.7 ms), C to the API times of c = 10 … 17 at 2^16 … 2^20, where c = 13 beat
// the c = 10 and 12 that the model without the chain took at 2^16 and 2^17; the chunk level counted
// every chunk thread then. One bucket set (kSharedCosts): forced c = 15 … 22 at 2^16 … 2^22, BN254
// and BLS12-381, API and MSM_CUDA_PROFILE (bench/gpu-notes.md, "The cost model refitted to one
// bucket set"; the homogeneous mode's a apart, kSharedHomogeneousCosts): Alg. 4 writes the buckets
// itself, so a is what clearing them and splitting the threads' shared runs cost (0.024 + 0.033 ms
// at BN254 c = 20, 2^19 buckets, 0.034 + 0.053 at BLS12-381: 0.4–0.55 additions a bucket, both
// kernels counted per bucket); the chunk level the plan runs measured 3.2 additions per bucket and
// 0.33 M fixed (BN254's reduction 0.30 / 0.40 / 0.45 / 0.54 / 0.70 ms at c = 16 … 20, l = 0 … 4);
// the top window's 232 buckets of ~16 pieces at BLS12-381 c = 19 cost 0.29 ms of Alg. 5 against
// 0.05 at c = 20.
namespace {
// The constants of window_cost that differ by layout (the per-window ones are from before Alg. 4
// wrote the buckets and have not been refitted since; the layout serves below kSharedBucketsFrom and
// where one bucket set does not fit or a τ is asked for).
struct LayoutCosts {
  double aggregate;         // a, per bucket
  uint32_t chunk_share;     // the chunk level counts chunk_threads / this
  double chunk_per_bucket;  // m
  double chunk_fixed;       // b
};
constexpr LayoutCosts kWindowsCosts{1.2, 1, 2.0, 0.0};
constexpr LayoutCosts kSharedCosts{0.35, kChunkThreadShare, 1.6, 330000.0};
// The homogeneous mode keeps the paper's Alg. 5: every run copied to its bucket, and in a later piece
// added onto it (aggregate.cu scatter_kernel; kHomogeneousMs per piece in the piece model). At 2^20
// (two pieces) c = 20 took 0.63 / 1.28 ms more than c = 16 beyond what the default mode's difference
// is (BN254 / BLS12-381), ≈ 6.5 additions for each of the 2^19 − 2^15 buckets more; the later pieces
// of larger calls add to it, and 8 keeps c = 20 at 2^23–2^24, faster there than 22 in every round
// (BLS12-381 2^23 58.1 against 59.4 ms, 2^24 109.5 against 110.1; BN254 2^24 53.5 against 54.4).
constexpr LayoutCosts kSharedHomogeneousCosts{8.0, kSharedCosts.chunk_share, kSharedCosts.chunk_per_bucket,
                                              kSharedCosts.chunk_fixed};
}  // namespace

double window_cost(double n, int c, const DigitProfile& d, uint32_t resident, uint32_t chunk_threads, bool shared,
                   Accumulation mode, bool levels) {
  const LayoutCosts& k = !shared                               ? kWindowsCosts
                         : mode == Accumulation::homogeneous ? kSharedHomogeneousCosts
                                                             : kSharedCosts;
  const bool plain = shared && !levels;
  const int log_m = log2_buckets(c, plain), W = shared ? 1 : d.D;
  const uint32_t M = 1u << log_m;
  const int l = chunk_log_for(M, W, std::max<uint32_t>(chunk_threads / k.chunk_share, 1));
  const double K = double(M >> l), log_k = double(log_m - l);
  constexpr double k_full = 2.0, latency = 40000.0, sort_pass = 0.025, chain = 60000.0;
  const int kb = key_bits(log_m);
  const double passes = double((kb + 7) / 8 - (partition_bits(kb, d.D, shared) > 0 ? 1 : 0));
  const double reduce = K * (log_k / 2 + 1) + (l > 0 ? k.chunk_per_bucket * M : 0.0);
  const double R = double(resident);
  const double spread = plain ? R / double(M) : double(c - 1) * R / (double(1u << (c - 1)) * W);
  // the top window's values, each a bucket's span of threads; with the levels bucket 1 takes
  // log2(values) + 1 of them (every ±2^e below the top) besides its share of the full windows
  const double top_value = shared ? R * d.top_share / (d.active() * d.top_values) : 0.0;
  const double top = levels ? spread + top_value * (std::log2(d.top_values) + 1.0) : top_value;
  const double heavy = double(levels ? kHeavyPiecesLevels : kHeavyPieces);
  const double alg5 = std::max(W * M * k.aggregate, chain * std::min(std::max(spread, top), heavy));
  return d.active() * n * (1.0 + sort_pass * passes) + alg5 + W * reduce * k_full + (l > 0 ? k.chunk_fixed : 0.0) +
         2 * log_k * latency;
}

// The digits of scalars below r at window c. Windows whose digit is not almost always zero: D, less
// the share of scalars whose extra top window (num_windows adds one where the top digit can carry
// out) gets no carry. That window holds only the carry out of the window below, set where its t =
// raw digit + carry reaches 2^(c−1): for uniform scalars about (top + 2 − 2^(c−1)) / (top + 1) of
// them, top the largest raw digit there (BLS12-381 at c = 17: 0.45, so c = 17 costs 15.45 windows of
// additions, not 16), and its one value is 1. Otherwise the top window's digit t takes the values
// 1 … top + 1.
DigitProfile digit_profile(const uint32_t* rm1, int bits, int c) {
  DigitProfile d;
  d.D = num_windows(rm1, kScalarWords, bits, c);
  const int w0 = (bits + c - 1) / c;
  const double top = scalar_bits(rm1, kScalarWords, (w0 - 1) * c, c), half = double(1u << (c - 1));
  if (d.D == w0) {
    d.top_share = 1.0;
    d.top_values = top + 1;
  } else {
    d.top_share = std::max(0.0, std::min(1.0, (top + 2 - half) / (top + 1)));
    d.top_values = 1;
  }
  return d;
}

// The largest c the sort values allow for n points (recode.cuh: 26 bits of point index above c = 16).
int max_window_bits(uint64_t n) {
  int c = kMaxWindowBits;
  while (c > 16 && n >= window_points_limit(c)) --c;
  return c;
}

int choose_window_bits(uint64_t n, const uint32_t* rm1, int bits, uint32_t resident, uint32_t chunk_threads,
                       bool shared, Accumulation mode, double* cost, bool levels) {
  int best = 8;
  double best_cost = 1e300;
  for (int c = 4; c <= max_window_bits(n); ++c) {
    const DigitProfile d = digit_profile(rm1, bits, c);
    if (shared && !levels && !shared_fits(c, d.D)) continue;
    if (shared && levels && n >= levels_points_limit(d.D, c)) continue;
    // The levels' 2^(c−2) buckets no fewer than Alg. 4's resident threads: with fewer, a bucket's
    // entries span several threads and most buckets go to Alg. 5's block-wide path at the levels'
    // heavy bound (H200: BN254 2^16 at c = 13 0.80 → 1.00 ms; at 2^18, c = 16, scalars below 2^64
    // took 3.4× the random ones' time). At c = 20 every distribution stayed within 1.04× random at
    // 2^19 and 2^20, and 2^19 gained 0–5 % over the plain set (bench/gpu-notes.md).
    if (shared && levels && (uint64_t(1) << log2_buckets(c)) < resident) continue;
    const double x = window_cost(double(n), c, d, resident, chunk_threads, shared, mode, levels);
    if (x < best_cost) best_cost = x, best = c;
  }
  if (cost) *cost = best_cost;
  return best;
}

namespace {

// Alg. 4 threads per window in one wave (Plan::T is Plan::waves of them): whole blocks of kAccBlock,
// so that a wave's W·(T/waves)/kAccBlock blocks are resident at once. Alg. 4 gives every thread an
// equal share, so every block runs about as long; a grid even a few blocks over whole waves runs a
// last wave of that length
// (ncu, H100, BLS12-381 2^20: 400 blocks against 396 resident, 272 against 264 for G2). Rounding
// down idles at most W − 1 of the resident blocks (under 4 %); a device too small for one block per
// window keeps the plain quotient.
uint32_t threads_per_window(uint32_t resident, int W) {
  const uint32_t per_window = resident / uint32_t(W);
  return per_window >= kAccBlock ? per_window / kAccBlock * kAccBlock : per_window;
}

// Hands out 256-byte-aligned regions of one allocation, in order.
struct Layout {
  size_t end = 0;
  Region take(size_t bytes) {
    const Region r{end, bytes};
    end += (bytes + 255) / 256 * 256;
    return r;
  }
};

}  // namespace

Plan make_plan(const PlanInput& in) {
  const EngineOptions& opt = in.options;
  const CurveSizes& cv = in.curve;
  const bool ct = opt.accumulation == Accumulation::constant_time;
  Plan p;
  p.n = uint32_t(in.n);
  p.mode = opt.accumulation;
  p.shared_sum = in.shared_sum;
  const uint32_t chunk_threads = in.chunk_threads ? in.chunk_threads : in.resident_threads;
  const uint64_t n1 = std::max<uint64_t>(in.n, 1);
  const auto windows_of = [&](int bits) { return num_windows(cv.rm1, kScalarWords, cv.scalar_bits, bits); };
  double windows_cost = 0;  // the model's cost at its per-window c
  int c = opt.window_bits > 0 ? opt.window_bits
                              : choose_window_bits(n1, cv.rm1, cv.scalar_bits, in.resident_threads, chunk_threads,
                                                   false, opt.accumulation, &windows_cost);
  if (c > max_window_bits(in.n))
    throw EngineError("ERR_INVALID_OPTION", "option 'windowBits' above " + std::to_string(max_window_bits(in.n)) +
                                                " leaves the point index 26 bits: at most " +
                                                std::to_string(window_points_limit(c) - 1) + " points (got " +
                                                std::to_string(in.n) + " and windowBits " + std::to_string(c) + ")");
  if (opt.tau > c - 1)
    throw EngineError("ERR_INVALID_OPTION", "option 'tau' must be at most windowBits − 1 = " + std::to_string(c - 1) +
                                                " (got " + std::to_string(opt.tau) + ")");
  if (ct && opt.tau >= 0 && opt.tau != c - 1)
    throw EngineError("ERR_INVALID_OPTION", "constantTime needs tau = windowBits − 1 (" + std::to_string(c - 1) +
                                                "): a doubling step would depend on the digits");

  // τ: as asked, else c − 1 (no doublings during accumulation) when the table fits in kTableShare of
  // the free memory, else the largest depth that does. The constant-time mode needs τ = c − 1, so
  // where its table does not fit, a cost-model c is lowered until it does.
  const auto fits = [&](int depth, double share = kTableShare) {
    return double(depth + 1) * double(in.n) * double(cv.affine) <= share * double(in.free_memory);
  };

  // One bucket set for all windows (Plan::shared_buckets) where the cost model prefers it from
  // kSharedBucketsFrom points, its table fits, and no τ was asked for: of plain digits over D levels,
  // or of odd digits over D·c levels (Plan::levels), whichever the model prices lower among those
  // whose table fits (PlanInput::buckets forces a layout, for measuring; a forced shared layout
  // takes an explicit windowBits as its c).
  const int forced = in.buckets;
  if (opt.tau < 0 && forced != 1 && (forced >= 2 || (opt.window_bits <= 0 && in.n >= kSharedBucketsFrom))) {
    struct Shared {
      int c = 0;
      double cost = 1e300;
      bool ok = false;
    };
    const auto shared = [&](bool levels) {
      Shared o;
      o.c = opt.window_bits > 0 ? opt.window_bits
                                : choose_window_bits(n1, cv.rm1, cv.scalar_bits, in.resident_threads, chunk_threads,
                                                     true, opt.accumulation, &o.cost, levels);
      const int D = windows_of(o.c);
      o.ok = uint64_t(D) * n1 < (uint64_t(1) << 32) &&
             (levels ? n1 < levels_points_limit(D, o.c) && fits(D * o.c - 1, kLevelsShare)
                    : shared_fits(o.c, D) && fits(D - 1));
      return o;
    };
    const Shared plain = forced == 3 ? Shared{} : shared(false);
    // Not in the homogeneous mode, whose Alg. 5 copies every run to its bucket whatever the set's
    // size: at 2^20 it gained nothing from the levels (BN254 4.82, 4.90 ms against 4.88, 4.64 on the
    // plain set; BLS12-381 9.56, 9.52 against 9.55, 9.41), and BN254 at c = 20 read 4.73 against its
    // plain set's 4.57 (bench/gpu-notes.md).
    const bool model_levels = opt.accumulation != Accumulation::homogeneous;
    const Shared odd = forced == 2 || (forced == 0 && !model_levels) ? Shared{} : shared(true);
    const bool take_odd = odd.ok && (forced == 3 || ((!plain.ok || odd.cost < plain.cost) && odd.cost < windows_cost));
    const bool take_plain = !take_odd && plain.ok && (forced == 2 || plain.cost < windows_cost);
    if (take_odd || take_plain) {
      p.shared_buckets = true;
      p.levels = take_odd;
      c = take_odd ? odd.c : plain.c;
    }
  }
  if (ct && opt.window_bits <= 0 && !p.shared_buckets)
    while (c > kMinWindowBits + 2 && !fits(c - 1)) --c, p.table_lowered = true;
  p.D = windows_of(c);
  int tau = opt.tau;
  if (p.shared_buckets) {
    tau = p.levels ? p.D * c - 1 : p.D - 1;
  } else if (tau < 0) {
    tau = c - 1;
    if (!ct)
      while (tau > 0 && !fits(tau)) --tau, p.table_lowered = true;
  }
  p.c = c;
  p.tau = tau;
  p.W = p.shared_buckets ? 1 : p.D;
  const int log_m = log2_buckets(c, p.shared_buckets && !p.levels);
  p.M = 1u << log_m;
  // Entries per window: n, or all D·n in the one shared window.
  const uint64_t entries = p.shared_buckets ? uint64_t(p.D) * n1 : n1;
  uint32_t per_wave = threads_per_window(in.resident_threads, p.W);
  const bool fixed = environment().cuda_waves > 0;
  p.waves = fixed ? uint32_t(environment().cuda_waves) : alg4_waves(entries, per_wave, kMaxWaves);
  p.wave_entries = fixed ? 0 : kWaveEntries;
  if (fixed && uint64_t(per_wave) * p.waves > entries) {  // tests: the forced waves at small n, of fewer threads
    const uint64_t q = entries / p.waves;
    per_wave = uint32_t(q >= kAccBlock ? q / kAccBlock * kAccBlock : std::max<uint64_t>(q, 1));
  }
  p.T = std::max<uint32_t>(1, uint32_t(std::min<uint64_t>(uint64_t(p.waves) * per_wave, entries)));
  if (p.T < uint64_t(p.waves) * per_wave) p.waves = 1;  // fewer entries than threads: one (partial) wave
  p.slots = ct ? ct_window_slots(p.T) : buffer_slots(p.T, log_m);
  // The reduction counts a third of the register kernel's threads (PlanInput::chunk_threads): with one
  // bucket set a sweep of MSM_CUDA_CHUNK_LOG on the H100 (BN254 and BLS12-381 at 2^22 and 2^24,
  // c = 20 and 22) had it fastest at 2^15 chunks every time, l = 4 at 2^22 and 6 at 2^24 (BN254
  // 2^22: 1.06 ms at the l = 2 of the whole count, 0.70 at l = 4, 0.80 at 5; BLS12-381 2^24: 3.45
  // at l = 5, 3.22 at 6, 4.33 at 7; bench/gpu-notes.md): the chunks' chains of 2L additions cost less
  // than the layered rounds over the points they remove until the chunk kernel runs short of warps.
  // window_cost prices this same level.
  p.chunk_log = choose_chunk_log(p.M, p.W, std::max<uint32_t>(chunk_threads / kChunkThreadShare, 1), ct);
  p.heavy_pieces = environment().cuda_heavy > 0 ? uint32_t(environment().cuda_heavy)
                   : p.levels                  ? kHeavyPiecesLevels
                                               : kHeavyPieces;
  p.sort_group = p.shared_buckets ? 1 : choose_sort_group(n1, p.W, c);
  choose_pieces(p, in.n, cv.affine / 2);
  if (in.n == 0) return p;

  const size_t n = p.n, D = size_t(p.D), W = size_t(p.W), M = p.M, T = p.T, S = p.slots;
  Layout l;
  p.table = l.take(size_t(tau + 1) * n * cv.affine);
  p.recode_table = l.take(p.shared_buckets ? 0 : size_t(table_size(c)) * 4);
  for (Region& r : p.scalars) r = l.take(n * kScalarWords * 4);
  p.keys_in = l.take(D * n * 4);
  p.vals_in = l.take(D * n * 4);
  p.keys = l.take(D * n * 4);
  p.vals = l.take(D * n * 4);
  const size_t per_sort = p.shared_buckets ? D * n : size_t(p.sort_group) * n;
  const size_t cub_temp = in.sort_temp_bytes ? in.sort_temp_bytes(uint32_t(per_sort), sort_key_bits(log_m, p.sort_group)) : 0;
  p.sort_temp = l.take(std::max(cub_temp, partition_count_bytes(partition_bits(key_bits(log_m), p.D, p.shared_buckets))));
  p.buffer = l.take(W * S * (ct ? cv.homogeneous : cv.xyzz));
  p.ct_runs = l.take(ct ? W * S * cv.xyzz : 0);
  p.buf_offset = l.take(W * T * 4);
  p.buf_used = l.take(W * T * 4);
  p.buf_index = l.take(W * S * 4);
  p.buckets = l.take(W * M * cv.xyzz);
  p.heavy = l.take(W * M * 16);
  p.heavy_count = l.take(4);
  const size_t chunks = p.chunk_log > 0 ? W * (M >> p.chunk_log) : 0;
  p.chunk_sums = l.take(chunks * cv.homogeneous);  // homogeneous in every mode (reduce.cu)
  p.chunk_rest = l.take(chunks * cv.homogeneous);
  p.bhat1 = l.take(W * cv.xyzz);
  p.sums_slots = uint32_t(W + (ct ? (W * 8 + cv.xyzz - 1) / cv.xyzz : 0));
  p.window_sums = l.take(p.sums_slots * cv.xyzz);
  p.total = l.end;
  return p;
}

}  // namespace msm::gpu
