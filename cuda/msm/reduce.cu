// Bucket reduction, Chen et al. §3.4: for large windows first the chunk level (chunk_kernel, one
// thread per chunk of 2^l buckets; BLS12-381 G2's chunk_quad_kernel, a quad), then one cooperative
// launch (grid = co-resident blocks from the occupancy API × SMs; block barriers between the first
// rounds, grid barriers after): the layered suffix sums, B̂_1 saved (and after a chunk level set to
// O), the summation tree, then Q_j = 2·(2^l·Σ_{k>1} B̂_k + Σ T) − B̂_1 per window of odd digits
// (and for the one set of the levels), or 2^l·Σ_{k>1} B̂_k + Σ T for the one set of plain shared
// digits (reduce.cuh window_sum, whose B̂_0 is this B̂_1; without a chunk level 2·Σ B̂ − B̂_1, or Σ
// B̂). The chunk level and everything after it run on homogeneous points in every mode: in G1 the
// chunk level turns each XYZZ bucket into homogeneous form as it reads it (Homogeneous::from_xyzz,
// 3M) and adds with RCB's complete formulas (Alg. 7, 12M + 2m_3b against add-2008-s's 12M + 2S;
// G2's: chunk_kernel), and the rounds and window_sum run them by a quad of lanes (ec/quad.cuh: 3
// dependent steps against add-2008-s's 4; G2's too since they are homogeneous: its reduce step, one
// thread → a quad, BN254 2^16 0.852 → 0.568 ms, 2^20 1.503 → 1.244, BLS12-381 2^16 1.533 → 0.947,
// 2^20 4.288 → 3.740). The constant-time mode always has a chunk level (plan.cpp choose_chunk_log) and
// turns G2's buckets on read too, so that no step there branches on O or equal operands. On one H200
// (MSM_CUDA_PROFILE, bench/gpu-notes.md), the reduce step with XYZZ rounds → homogeneous rounds:
// BLS12-381 2^20 0.889 → 0.784 ms, 2^22 1.182 → 1.069; BN254 2^22 0.548 → 0.542; then G1's XYZZ chunk
// sums → homogeneous ones (chunk_kernel BN254 144 registers against 204, BLS12-381 208 without spill
// against 255 spilling 216 B): BN254 2^20 0.398 → 0.391, 2^22 0.540 → 0.522, 2^24 1.465 → 1.416;
// BLS12-381 2^20 0.784 → 0.767, 2^22 1.067 → 1.038, 2^24 2.944 → 2.818. Without a chunk level (l = 0:
// windows of their own at small n) the rounds add the XYZZ buckets in place (add-2008-s, the doubling
// dbl-2008-s-1).
#include <algorithm>
#include <type_traits>

#include <cooperative_groups.h>

#include "../ec/quad.cuh"
#include "device.cuh"
#include "reduce.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace cg = cooperative_groups;

namespace msm::gpu {

template <class F>
__device__ __forceinline__ ec::XYZZ<F> as_xyzz(const ec::XYZZ<F>& p) {
  return p;
}
template <class G>
__device__ __forceinline__ ec::XYZZ<typename G::field> as_xyzz(const ec::Homogeneous<G>& p) {
  return p.to_xyzz();
}

// B[k.dst] += B[k.src] by the calling thread, or by its quad (every lane of which calls it for k).
template <class X>
__device__ __forceinline__ void round_add(X* B, const Task& k) {
  ec::add_to<ec::quad_log_lanes<X>()>(B + k.dst, B + k.src);
}

// The chunk level (reduce.cuh, l > 0): thread (j, k) turns positions [kL, kL + L) of window j into
// R_k and T_k. Every thread runs the same 2(L − 1) additions, so the grid is one even wave.
// B: the buckets' type; X: the rounds' homogeneous type. XYZZ buckets of G1 are turned into X as
// they are read and summed with RCB (on_read); BN254 G2's are summed in XYZZ (add-2008-s) and the two
// sums turned: there RCB's additions and 3 Fp2 products a bucket cost more than they save (one H200,
// the reduce step with G2's buckets turned on read against after: BN254 2^16 0.855 → 0.873 ms, 2^20
// 1.515 → 1.575; bench/gpu-notes.md), but not in the constant-time mode, where add-2008-s's branches
// on O and equal operands would follow the data. BLS12-381 G2's chunks go by quads (chunk_quad_kernel).
template <class B, class X, bool on_read>
__global__ void __launch_bounds__(kRedBlock) chunk_kernel(const B* __restrict__ buckets, X* __restrict__ sums,
                                                          X* __restrict__ rest, int l, uint64_t chunks) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= chunks) return;
  const B* const chunk = buckets + (t << l);
  if constexpr (on_read) {
    chunk_sums(chunk, l, sums + t, rest + t, [](const B& p) { return X::from_xyzz(p); });
  } else {
    B r, u;
    chunk_sums(chunk, l, &r, &u);
    sums[t] = X::from_xyzz(r), rest[t] = X::from_xyzz(u);
  }
}

// The chunk level of G2 over a 6-limb field (BLS12-381), a quad of lanes a chunk (ec/quad.cuh), with
// the running sums s and t in shared memory: each XYZZ bucket turned into X by the quad
// (from_xyzz_by_quad, 3M, into the quad's third slot), then s += B_i, t += s by RCB Alg. 7 on the
// quad (add_to_by_quad).
// One thread a chunk held s, t and the bucket in registers, 288 of them, and spilled at the 255
// cap (3,720 B of spill stores; the constant-time kernel 1,888 B); by quads 248 registers, none
// spilled. One H200, the reduce step at the plan's l, one thread → a quad: 2^16 0.95 → 0.78 ms, 2^18
// 1.56 → 1.50, 2^20 and 2^22 3.74 → 3.59. BN254's G2 loses by quads from 2^20, its RCB additions
// 4 Fp2 products a lane even with the m_3b shared out (ec/quad.cuh), and its serial kernel spills
// less (812 B): 2^16 0.517 → 0.447 ms, 2^18 0.607 → 0.610, 2^20 1.175 → 1.258, 2^22 1.839 → 2.062
// (bench/gpu-notes.md).
template <class B, class X>
__global__ void __launch_bounds__(kRedBlock) chunk_quad_kernel(const B* __restrict__ buckets, X* __restrict__ sums,
                                                               X* __restrict__ rest, int l, uint64_t chunks) {
  __shared__ X sm[3 * (kRedBlock / 4)];
  const uint64_t k = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 2;
  if (k >= chunks) return;  // the quad's lanes share k
  const unsigned mask = ec::quad_mask(), lane = threadIdx.x & 3u;
  X* const s = sm + 3 * (threadIdx.x >> 2);
  X* const t = s + 1;
  X* const b = s + 2;
  const B* const chunk = buckets + (k << l);
  const uint32_t L = 1u << l;
  // The bucket to add, where the quad reads it.
  const auto next = [&](uint32_t i) -> const X* {
    ec::from_xyzz_by_quad(b, chunk + i);
    __syncwarp(mask);
    return b;
  };
  const X* const top = next(L - 1);
  if (lane < 3) (&s->X)[lane] = (&top->X)[lane], (&t->X)[lane] = (&top->X)[lane];
  __syncwarp(mask);
  for (uint32_t i = L - 1; i-- > 0;) {
    ec::add_to_by_quad(s, next(i));
    __syncwarp(mask);
    // Reads s before any lane stores t. No barrier after it: the next turn stores into b only, whose
    // lanes read it before the barrier inside the addition above, and the next addition stores s
    // only after its own barrier; each lane then copies out the coordinates it stored itself.
    ec::add_to_by_quad(t, s);
  }
  if (lane < 3) (&sums[k].X)[lane] = (&s->X)[lane], (&rest[k].X)[lane] = (&t->X)[lane];
}

// log2 of the threads a chunk: a quad for G2 over a 6-limb field (chunk_quad_kernel), else one.
template <class X>
constexpr int chunk_log_lanes() {
  using F = typename X::field;
  return ff::is_fp2<F> && F::N >= 12 ? 2 : 0;
}

// What the layered rounds run on: K = 2^log_k points per window, the chunk sums R_k with their T_k
// (`rest`) for l > 0, else the buckets themselves (X: the mode's bucket type).
template <class X>
struct Rounds {
  X* points;
  X* rest;
  int log_k, l;
};
template <class X, class G>
MSM_HD MSM_INLINE Rounds<X> rounds_of(const Workspace<G>& w) {
  const int l = w.chunk_log;
  return Rounds<X>{reinterpret_cast<X*>(l > 0 ? w.chunk_sums : w.buckets),
                   l > 0 ? reinterpret_cast<X*>(w.chunk_rest) : nullptr, w.log_m() - l, l};
}

// Q_j into w.window_sums[j] (reduce.cuh window_sum_to), in place over the tree's total at position
// j·K, by one thread or by its quad (q = 2: every lane calls it for j; each step's stores are
// seen by the quad's lanes before the next step reads them).
template <int q, class G, class X>
__device__ __forceinline__ void store_window_sum(const Workspace<G>& w, const Rounds<X>& in, X* bhat1, uint32_t j) {
  const size_t K = size_t(1) << in.log_k;
  const unsigned lane = threadIdx.x & ((1u << q) - 1);
  const auto step = [] {
    if constexpr (q == 2) __syncwarp(ec::quad_mask());
  };
  X* const total = in.points + j * K;
  window_sum_to(
      total, bhat1 + j, in.l, !w.plain(), in.rest ? in.rest + j * K : nullptr,
      [&](X* a) {
        ec::dbl_to<q>(a);
        step();
      },
      [&](X* a, const X* y) {
        ec::add_to<q>(a, y);
        step();
      },
      [&](X* a) {
        if (lane == 0) *a = -*a;
        step();
      });
  if (lane == 0) w.window_sums[j] = as_xyzz(*total);
}

// The same out of line, where the rounds add by quads: inline, its steps set the kernel's register
// count (ptxas, sm_90: BN254 at its 128-register bound spilled 308 bytes with serial steps inline,
// 48 out of line). The rounds one thread a task (G2's XYZZ buckets without a chunk level) keep it
// inline.
template <class G, class X>
__device__ __noinline__ void store_window_sum_outlined(const Workspace<G>& w, const Rounds<X>& in, X* bhat1,
                                                       uint32_t j) {
  store_window_sum<2>(w, in, bhat1, j);
}

// The layered rounds and the summation tree over rounds_of(w), the tree also summing the T_k when
// there are some, each task by 2^q threads (ec::quad_log_lanes: a quad but for G2's XYZZ
// buckets). Rounds 1 … b of each phase run block-locally (reduce.cuh local_rounds: a block's
// 2^(kRedLog − q) tasks cover whole groups of 2^b positions), the rest with grid barriers:
// 2(log2 K − b) + 2 grid barriers in all. B̂_1 is saved, and after a chunk level position 0 set to
// O (reduce.cuh tree_drops_first), by the thread whose first tree task writes position 0, before
// its block's first tree round.
template <class G, class X>
__global__ void __launch_bounds__(kRedBlock, red_min_blocks(G::field::N, ff::is_fp2<typename G::field>))
    reduce_kernel(Workspace<G> w) {
  constexpr int q = ec::quad_log_lanes<X>();
  const Rounds<X> in = rounds_of<X>(w);
  X* const buckets = in.points;
  X* const rest = in.rest;
  const int log_k = in.log_k;
  X* const bhat1 = reinterpret_cast<X*>(w.bhat1);
  cg::grid_group grid = cg::this_grid();
  // 32-bit thread indices (launch_reduce_on checks 2^q·2·W·K < 2^32); K and the group sizes are
  // powers of two. A task's 2^q threads are consecutive, so every guard below is uniform over them.
  const uint32_t gtid = uint32_t(grid.thread_rank()), gsize = uint32_t(grid.size());
  const uint32_t K = 1u << log_k, W = uint32_t(w.W);
  const uint32_t arrays = rest ? 2 : 1;
  const int b = local_rounds(log_k, kRedLog - q);
  const uint32_t span = gridDim.x * blockDim.x;

  const uint32_t half = layered_tasks(log_k), tasks = W * half;
  auto window = [&](uint32_t t) { return buckets + size_t(t >> (log_k - 1)) * K; };
  for (uint32_t base = blockIdx.x * blockDim.x; base < tasks << q; base += span) {
    const uint32_t t = (base + threadIdx.x) >> q;
    for (int r = 1; r <= b; ++r) {
      if (t < tasks) round_add(window(t), layered_task(log_k, r, t & (half - 1)));
      __syncthreads();
    }
  }
  grid.sync();
  for (int r = b + 1; r <= log_k; ++r) {
    for (uint32_t u = gtid; u < tasks << q; u += gsize) {
      const uint32_t t = u >> q;
      round_add(window(t), layered_task(log_k, r, t & (half - 1)));
    }
    grid.sync();
  }
  // Tree, block-local: task t is lane t mod 2^(b−1) of group t / 2^(b−1), groups numbered over
  // (array, window, group of the window).
  const int log_lanes = b > 0 ? b - 1 : 0, log_groups = log_k - b;
  const uint32_t tree_tasks_local = arrays * W << (log_groups + log_lanes);
  for (uint32_t base = blockIdx.x * blockDim.x; base < tree_tasks_local << q; base += span) {
    const uint32_t t = (base + threadIdx.x) >> q, gi = t >> log_lanes;
    const bool on = t < tree_tasks_local;
    const uint32_t i = t & ((1u << log_lanes) - 1), g = gi & ((1u << log_groups) - 1);
    const uint32_t aj = gi >> log_groups, a = aj / W, j = aj % W;
    X* B = (on && a ? rest : buckets) + (on ? size_t(j) * K : 0);
    if (on && a == 0 && g == 0 && i == 0 && (threadIdx.x & ((1u << q) - 1)) == 0) {
      bhat1[j] = B[0];
      if (tree_drops_first(in.l)) B[0] = X::infinity();
    }
    if (tree_drops_first(in.l)) __syncthreads();  // the quad's other lanes read position 0 next
    for (int r = 1; r <= b; ++r) {
      if (on && tree_local_active(b, r, i)) round_add(B, tree_local_task(b, r, g, i));
      __syncthreads();
    }
  }
  grid.sync();
  for (int r = b + 1; r <= log_k; ++r) {
    const uint32_t per = tree_tasks(log_k, r), count = arrays * W * per;
    for (uint32_t u = gtid; u < count << q; u += gsize) {
      const uint32_t t = u >> q, aj = t >> (log_k - r), a = aj / W, j = aj % W;
      round_add((a ? rest : buckets) + size_t(j) * K, tree_task(r, t & (per - 1)));
    }
    grid.sync();
  }
  for (uint32_t u = gtid; u < W << q; u += gsize) {  // a quad (or a thread) a window
    if constexpr (q == 2) store_window_sum_outlined(w, in, bhat1, u >> q);
    else store_window_sum<q>(w, in, bhat1, u >> q);
  }
}

// X: the rounds' point type, HomOf<G> after a chunk level (which reads the XYZZ buckets), else the
// buckets' XyzzOf<G>.
template <class G, class X>
void launch_reduce_on(const Workspace<G>& w, int device, cudaStream_t s) {
  using B = XyzzOf<G>;
  int sms = 0, blocks = 0, coop = 0;
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  if (!coop) throw EngineError("ERR_CUDA", "the device does not support cooperative launches");
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const Rounds<X> in = rounds_of<X>(w);
  const int log_k = in.log_k;
  constexpr int q = ec::quad_log_lanes<X>();
  if ((uint64_t(w.W) << (log_k + 1 + q)) >= (uint64_t(1) << 32))
    throw EngineError("ERR_CUDA", "reduce_kernel: 2^q·2·W·K must stay below 2^32");
  if constexpr (std::is_same_v<X, HomOf<G>>) {
    if (in.l > 0) {
      const uint64_t chunks = uint64_t(w.W) << log_k;
      const unsigned grid = unsigned(((chunks << chunk_log_lanes<X>()) + kRedBlock - 1) / kRedBlock);
      const B* const buckets = w.buckets;
      if constexpr (chunk_log_lanes<X>() == 2) {
        chunk_quad_kernel<B, X><<<grid, kRedBlock, 0, s>>>(buckets, in.points, in.rest, in.l, chunks);
        MSM_LAUNCH_CHECK("chunk_quad_kernel");
      } else {
        constexpr bool fp2 = ff::is_fp2<typename G::field>;
        if (fp2 && w.mode == Accumulation::constant_time)
          chunk_kernel<B, X, true><<<grid, kRedBlock, 0, s>>>(buckets, in.points, in.rest, in.l, chunks);
        else
          chunk_kernel<B, X, !fp2><<<grid, kRedBlock, 0, s>>>(buckets, in.points, in.rest, in.l, chunks);
        MSM_LAUNCH_CHECK("chunk_kernel");
      }
    }
  } else if (in.l > 0) {
    throw EngineError("ERR_INTERNAL", "launch_reduce: a chunk level runs on homogeneous points");
  }
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reduce_kernel<G, X>, kRedBlock, 0));
  if (blocks < 1) throw EngineError("ERR_CUDA", "reduce_kernel cannot be resident on the device");
  // No more blocks than the widest round needs.
  const uint64_t widest = uint64_t(w.W) * std::max<uint64_t>({layered_tasks(log_k), in.rest ? tree_tasks(log_k, 1) * 2 : 0, 1});
  uint64_t grid = uint64_t(sms) * uint64_t(blocks);
  const uint64_t need = ((widest << q) + kRedBlock - 1) / kRedBlock;
  if (grid > need) grid = need;
  Workspace<G> arg = w;
  void* args[] = {&arg};
  MSM_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(reduce_kernel<G, X>), dim3(unsigned(grid)),
                                             dim3(kRedBlock), args, 0, s));
}

template <class G>
void launch_reduce(const Workspace<G>& w, int device, cudaStream_t s) {
  if (w.chunk_log > 0) launch_reduce_on<G, HomOf<G>>(w, device, s);
  else if (w.mode == Accumulation::constant_time)
    throw EngineError("ERR_INTERNAL", "launch_reduce: the constant-time mode reduces after a chunk level");
  else launch_reduce_on<G, XyzzOf<G>>(w, device, s);
}

#define MSM_INSTANTIATE(G) template void launch_reduce<G>(const Workspace<G>&, int, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
