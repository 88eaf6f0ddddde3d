// The GPU pipeline's stages as host-side launchers, one .cu file each, explicitly instantiated for
// every curve struct the engine runs: each curve's g1, and the g2 of MSM_G2_CURVES (so the files
// compile in parallel). The dispatch layer (engine.cu) owns the memory and calls them in order on
// one stream:
//   recode (Alg. 3) → sort (CUB, g windows a call) → accumulate (Alg. 4) → aggregate (Alg. 5, or
//   the split buckets)
//   → reduce (§3.4, one cooperative launch) → Horner on the host (combine.hpp).
// The point arithmetic is the curve struct's field (Fp, or Fp2 for G2) through ec/; scalars,
// digits and indices do not depend on the group.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "../curves/all.hpp"  // MSM_FOR_EACH_CURVE
#include "../ec/homogeneous.hpp"
#include "../ec/xyzz.hpp"
#include "../options.hpp"
#include "accumulate.cuh"
#include "ct_aggregate.cuh"
#include "plan.hpp"

// The curve structs a stage's translation unit instantiates its launchers for: every g1, or, where
// MSM_STAGE_G2 is defined (the <stage>_g2.cu files, which include <stage>.cu), every g2, so that
// the G2 kernels (about three times the code of G1's: an Fp2 product is two F ones, lazily reduced)
// compile beside G1's rather than after them. Stages with small kernels instantiate both at once
// (MSM_FOR_EACH_GROUP).
#if defined(MSM_STAGE_G2)
#define MSM_FOR_EACH_STAGE_CURVE(X) MSM_FOR_EACH_G2(X)
#else
#define MSM_FOR_EACH_STAGE_CURVE(X) MSM_FOR_EACH_CURVE(X)
#endif
#define MSM_FOR_EACH_GROUP(X) MSM_FOR_EACH_CURVE(X) MSM_FOR_EACH_G2(X)

namespace msm::gpu {

template <class G>
using AffineOf = ec::Affine<typename G::field>;
template <class G>
using XyzzOf = ec::XYZZ<typename G::field>;
template <class G>
using HomOf = ec::HomogeneousOf<G>;

// The kernels' view of one context (passed by value to every launch): the plan's sizes and the
// device pointers of its buffers, all inside the one allocation that plan.hpp lays out.
template <class G>
struct Workspace {
  using A = AffineOf<G>;
  using X = XyzzOf<G>;
  // n, c, W (bucket sets), D (digits per scalar), τ, T (Alg. 4 threads per window): as in Plan
  // (plan.hpp), which defines them.
  uint32_t n = 0;
  // The piece of the MSM that recode, sort, Alg. 4 and Alg. 5 run on: points [first, first + count)
  // (all n unless engine.cu splits the call, Plan::pieces). Each window has `count` entries;
  // the table keeps its stride n.
  uint32_t first = 0, count = 0;
  int c = 0;
  int W = 0;
  int D = 0;
  bool shared_buckets = false;  // every digit in one bucket set (Plan::shared_buckets): W = 1
  bool levels = false;          // the shared set with §3.1's odd digits over every level (Plan::levels)
  int tau = 0;
  Accumulation mode = Accumulation::xyzz;
  bool shared_sum = false;  // Alg. 4 keeps its running sums in shared memory (Plan::shared_sum)
  bool later = false;       // a call's later piece: Alg. 4 (default, constant time) or 5 (homogeneous) adds onto `buckets`
  uint32_t T = 0;
  uint32_t waves = 1, wave_entries = 0;  // Plan::waves, Plan::wave_entries
  int chunk_log = 0;  // l of the reduction's chunk level (reduce.cuh)
  uint32_t heavy_pieces = 0;  // Plan::heavy_pieces
  int sort_group = 1;  // g: windows per radix sort (sort.cu)
  // constant_time: the context's blinding point R (ec/blinding.hpp): every run of Alg. 4 starts from
  // R or from a bucket that holds it (accumulate.cu ConstantTimeAcc), and every bucket starts as R.
  A blind{};
  const A* table = nullptr;                // [(τ+1)·n]: table[h·n + i] = 2^h·P_i (plain shared buckets: 2^(hc)·P_i)
  const uint32_t* recode_table = nullptr;  // [2^c + 1]: k̂ (the packed ODD|EXP|SIGN digit of Fig. 3) per t
  uint32_t* keys_in = nullptr;   // [D·count] sort_key: bucket of each digit (0 = zero digit), window's place in its group
  uint32_t* vals_in = nullptr;   // [D·count] sort_value: i | EXP | SIGN (recode.cuh; plain shared buckets: i | j | SIGN,
                                 // levels: i | jc + EXP | SIGN)
  uint32_t* keys = nullptr;      // [W·entries()] sorted per window (the bucket: key & bucket_mask(log_m()))
  uint32_t* vals = nullptr;      // [W·entries()]
  void* sort_temp = nullptr;
  size_t sort_temp_bytes = 0;
  X* buffer = nullptr;             // [W·slots()] Alg. 4 buffers (constant_time: §5's [W·P] of HomOf<G>, P = ct_padded())
  X* ct_runs = nullptr;            // constant_time: [W·P] Alg. 4's head and tail runs (accumulate_thread_ct's slots), then §5's sinks
  uint32_t* buf_offset = nullptr;  // [W·T] Alg. 4 buffer_offset (default mode: each thread's first key, `lead`)
  uint32_t* buf_index = nullptr;   // [W·slots()] Alg. 4 buffer_index (constant_time: [W·P])
  uint32_t* buf_used = nullptr;    // [W·T] Alg. 4 buffer_used (default mode: the split bucket each starts)
  X* buckets = nullptr;            // [W·M]; a later piece adds onto them
  uint4* heavy = nullptr;          // [W·M] buckets left to the block-wide path: {j·M + p, t0, t1, 0}
  uint32_t* heavy_count = nullptr;
  X* chunk_sums = nullptr;         // [W·M/2^l] R_k of the chunk level (l > 0), of HomOf<G> (reduce.cu)
  X* chunk_rest = nullptr;         // [W·M/2^l] T_k
  X* bhat1 = nullptr;              // [W] B̂_1 of each window: the suffix sum of all its buckets (§3.4)
  X* window_sums = nullptr;        // [W] Q_j
  // constant_time: [W] the head pieces' weights (ct_open.cuh), in the region's slots after
  // window_sums (Plan::sums_slots), so that one download brings both
  unsigned long long* ct_heads = nullptr;
  // Plain digits (bucket |k̃|, weight p + 1) in a shared set without the levels; else §3.1's odd ones.
  MSM_HD bool plain() const { return shared_buckets && !levels; }
  MSM_HD int log_m() const { return log2_buckets(c, plain()); }
  // Where the sort value's EXP field starts the point index (recode.cuh).
  MSM_HD int value_shift() const { return levels ? levels_value_shift(D, c) : gpu::value_shift(c); }
  MSM_HD uint32_t M() const { return 1u << log_m(); }
  // Entries per window: each window's digits, or all D·count where the windows share the buckets.
  MSM_HD uint32_t entries() const { return shared_buckets ? uint32_t(D) * count : count; }
  MSM_HD uint32_t slots() const { return buffer_slots(T, log_m()); }
  // The Alg. 4 threads that take spans of m entries: whole waves of T / waves (accumulate.cuh
  // alg4_waves); the rest of the T have empty spans.
  MSM_HD uint32_t span_threads(uint32_t m) const {
    const uint32_t per_wave = T / waves;
    return per_wave * alg4_waves(m, per_wave, waves, wave_entries);
  }
  // The first key bit the radix sort takes: the bits below it are the recode's (partition_bits).
  MSM_HD int sort_first_bit() const { return partition_bits(key_bits(log_m()), D, shared_buckets); }
  // constant_time: P, the window's buffer padded to a power of two (ct_aggregate.cuh), and the view
  // of the buffer as homogeneous points.
  MSM_HD uint32_t ct_padded() const { return ct_window_slots(T); }
  MSM_HD HomOf<G>* ct_buffer() const { return reinterpret_cast<HomOf<G>*>(buffer); }

  // The workspace of a plan whose allocation starts at base.
  static Workspace bind(const Plan& p, unsigned char* base) {
    const auto at = [&](const Region& r) { return static_cast<void*>(base + r.offset); };
    Workspace w;
    w.n = p.n, w.first = 0, w.count = p.n, w.c = p.c, w.W = p.W, w.D = p.D, w.tau = p.tau, w.mode = p.mode, w.shared_sum = p.shared_sum, w.T = p.T, w.waves = p.waves, w.wave_entries = p.wave_entries, w.chunk_log = p.chunk_log;
    w.sort_group = p.sort_group;
    w.shared_buckets = p.shared_buckets;
    w.levels = p.levels;
    w.heavy_pieces = p.heavy_pieces;
    w.table = static_cast<const A*>(at(p.table));
    w.recode_table = static_cast<const uint32_t*>(at(p.recode_table));
    w.keys_in = static_cast<uint32_t*>(at(p.keys_in)), w.vals_in = static_cast<uint32_t*>(at(p.vals_in));
    w.keys = static_cast<uint32_t*>(at(p.keys)), w.vals = static_cast<uint32_t*>(at(p.vals));
    w.sort_temp = at(p.sort_temp), w.sort_temp_bytes = p.sort_temp.bytes;
    w.buffer = static_cast<X*>(at(p.buffer));
    w.buf_offset = static_cast<uint32_t*>(at(p.buf_offset));
    w.buf_index = static_cast<uint32_t*>(at(p.buf_index));
    w.buf_used = static_cast<uint32_t*>(at(p.buf_used));
    w.buckets = static_cast<X*>(at(p.buckets));
    w.ct_runs = static_cast<X*>(at(p.ct_runs));
    w.heavy = static_cast<uint4*>(at(p.heavy));
    w.heavy_count = static_cast<uint32_t*>(at(p.heavy_count));
    w.chunk_sums = static_cast<X*>(at(p.chunk_sums));
    w.chunk_rest = static_cast<X*>(at(p.chunk_rest));
    w.bhat1 = static_cast<X*>(at(p.bhat1));
    w.window_sums = static_cast<X*>(at(p.window_sums));
    if (p.mode == Accumulation::constant_time) w.ct_heads = reinterpret_cast<unsigned long long*>(w.window_sums + p.W);
    return w;
  }
};

// precompute.cu: table levels 1 … tau from level 0 (already uploaded), level h = 2^step·(level h − 1).
template <class G>
void build_table(AffineOf<G>* table, uint32_t n, int tau, int step, cudaStream_t s);

// recode.cu: scalars [n × 8 words] → keys_in / vals_in for the points of w's piece (grouped by the
// keys' bits below w.sort_first_bit(), the group counts in w.sort_temp).
template <class G>
void launch_recode(const Workspace<G>& w, const uint32_t* scalars, cudaStream_t s);

// sort.cu (curve-independent): temp bytes for one sort of n items, and the sorts of the W windows,
// g at a time on key bits [first_bit, key_bits) (sort_key_bits(log_m, g); first_bit > 0 where the
// recode grouped the entries by the bits below, Workspace::sort_first_bit).
size_t sort_temp_bytes(uint32_t n, int key_bits);
void sort_windows(void* temp, size_t temp_bytes, const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in,
                  uint32_t* vals_out, uint32_t n, int W, int g, int first_bit, int key_bits, cudaStream_t s);

// accumulate.cu: Alg. 4. accumulate_threads: resident threads the device can run for the mode's kernel
// (`shared`: the default mode's shared-memory sum, acc_shared_for).
template <class G>
uint32_t accumulate_threads(int device, Accumulation mode, bool shared);
template <class G>
void launch_accumulate(const Workspace<G>& w, cudaStream_t s);

// aggregate.cu: the split buckets of the default mode's direct Alg. 4, else Alg. 5 (light buckets per
// thread, heavy ones per block); launch_clear_buckets puts O in every bucket (the constant-time
// mode: the blinding point R) before a call's first piece (Alg. 4 and the aggregation write only the
// buckets that have entries).
template <class G>
void launch_aggregate(const Workspace<G>& w, int device, cudaStream_t s);
template <class G>
void launch_clear_buckets(const Workspace<G>& w, cudaStream_t s);

// ct_aggregate.cu: §5 after Alg. 4 (the head runs' R counted, the tree, its outputs into the buckets).
template <class G>
void launch_ct_aggregate(const Workspace<G>& w, int device, cudaStream_t s);

// reduce.cu: the chunk level, then §3.4 in one cooperative launch → window_sums (constant_time: each
// holding its buckets' public multiple of R, bucket_weights in reduce.cuh).
template <class G>
void launch_reduce(const Workspace<G>& w, int device, cudaStream_t s);

}  // namespace msm::gpu
