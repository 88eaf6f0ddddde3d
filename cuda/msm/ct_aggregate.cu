// Constant-time aggregation kernels, Chen et al. §5 as a tree of one addition per level (index logic
// in ct_aggregate.cuh). Alg. 4 writes all of its 2T run slots and their indices
// (accumulate_thread_ct), and each of its threads then opens §5 (ct_open.cuh): level 1's nodes,
// homogeneous, in the §5 buffer, its head piece's R counted for the engine to take off the result,
// and the padding stored O. launch_ct_aggregate, after Alg. 4: the other levels, several per launch
// (ct_launch_last), over the blocks that hold Alg. 4's slots (ct_launch_blocks), each pair of nodes
// run by ct_pair (one complete addition, RCB Alg. 7, by a quad of lanes for G1, then three selects
// and two OUTs), all windows at once, the last launch ending with ct_root per window. An OUT goes
// into its XYZZ bucket as XYZZ (3M + 1S), so that each bucket holds R once and once more per head
// piece, or one not taken into ct_runs, dead once ct_open has read it; from distance ds on
// (ct_stage_from: levels whose blocks hold few pairs, each waiting on one pair's chain) the OUTs are
// staged in the buffer as they are, and ct_put_kernel converts and stores them all at once after the
// last launch. §3.4 reads the buckets with their R (engine.cu takes the public multiple and the
// heads' off the result). Every thread of these launches runs the same instructions (branching only
// on T and the level); the launches and their thread counts depend only on n, c and the device,
// never on the scalars.
#include <algorithm>

#include "../ec/quad.cuh"
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

// Window j's OUT targets (ct_aggregate.cuh OutTargets): bucket v ≥ 1 at v − 1, a sink at its slot
// of ct_runs.
template <class G>
__device__ __forceinline__ auto window_outs(const Workspace<G>& w, uint32_t j) {
  XyzzOf<G>* const B = w.buckets + size_t(j) * w.M();
  XyzzOf<G>* const S = w.ct_runs + size_t(j) * w.ct_padded();
  return out_targets([B](uint32_t v) { return B + (v - 1); }, [S](uint32_t slot) { return S + slot; });
}

// Lanes per pair: a quad for G1 (ec/quad.cuh add_by_quad: each level waits on one addition's chain
// of products, 2 products and a two-product sum deep by a quad against 6 and 3 by one thread); G2's
// Fp2 points one thread each, as in reduce.cu. A block is kCtBlock pairs at a time either way, so
// the launches (ct_launch_last) do not depend on it.
template <class G>
constexpr int ct_log_lanes() {
  return ff::is_fp2<typename G::field> ? 0 : 2;
}
template <class G>
constexpr unsigned ct_block_threads() {
  return kCtBlock << ct_log_lanes<G>();
}

// ct_pair's part of a pair for a lane of a quad (ct_aggregate.cuh WholePoints for one thread): the
// sum by the quad, ec::add_by_quad, and then coordinate min(lane, 2) of every point it reads, selects
// and stores, lane 3 storing none (its coordinate is lane 2's) but the index; an OUT as XYZZ, each
// lane one of its coordinates.
struct QuadPart {
  unsigned lane;
  template <class P>
  using Part = typename P::field;
  template <class P>
  __device__ __forceinline__ typename P::field sum(const P* a, const P* b) const {
    return ec::add_by_quad(a, b);
  }
  template <class P>
  __device__ __forceinline__ typename P::field load(const P* p) const {
    return (&p->X)[lane == 3 ? 2 : lane];
  }
  template <class P>
  __device__ __forceinline__ void store(P* p, const typename P::field& v) const {
    if (lane < 3) (&p->X)[lane] = v;
  }
  // Homogeneous::to_xyzz by the quad: Z from lane 2, then lane k's coordinate of (X·Z, Y·Z², 1·Z²,
  // Z²·Z) in one product (1S + 1M a lane against 3M + 1S by one thread).
  template <class F>
  __device__ __forceinline__ void put(ec::XYZZ<F>* p, const F& v) const {
    const F z = ec::quad_shfl(v, 2, ec::quad_mask());
    const F zz = z.sqr();
    (&p->X)[lane] = ec::by_lane(lane, v, v, F::one(), zz) * ec::by_lane(lane, z, zz, zz, z);
  }
  __device__ __forceinline__ bool lead() const { return lane == 3; }
};

// Levels d0 … d1 (ct_aggregate.cuh ct_launch_last / ct_launch_base); the block barrier makes one
// level's writes visible to the next (global memory, within the block). From distance ds on the
// OUTs are staged (StagedOuts), below it they go to their targets. The last launch has one block per
// window, which ends with ct_root, staged too. A pair's lanes are consecutive threads, so the loop's
// bound is uniform over them.
template <class G>
__global__ void __launch_bounds__(ct_block_threads<G>())
    ct_rounds_kernel(Workspace<G> w, uint32_t d0, uint32_t d1, uint32_t ds) {
  constexpr int L = ct_log_lanes<G>();
  const uint32_t j = blockIdx.y;
  const uint32_t P = w.ct_padded();
  HomOf<G>* const buf = w.ct_buffer() + size_t(j) * P;
  uint32_t* const index = w.buf_index + size_t(j) * P;
  const auto pair = [&](uint32_t base, uint32_t d, auto outs) {
    if constexpr (L == 2) ct_pair(buf, index, base, d, outs, QuadPart{threadIdx.x & 3u});
    else ct_pair(buf, index, base, d, outs);
  };
  for (uint32_t d = d0; d <= d1; d <<= 1) {
    const bool staged = d >= ds;  // uniform over the launch
    for (uint32_t k = threadIdx.x >> L; k < d1 / d; k += kCtBlock) {
      const uint32_t base = ct_launch_base(blockIdx.x, k, d, d1);
      if (staged) pair(base, d, staged_outs(buf, index, d, P));
      else pair(base, d, window_outs(w, j));
    }
    __syncthreads();
  }
  if (d1 == P / 2 && threadIdx.x < (1u << L)) {
    if constexpr (L == 2) ct_root(buf, index, P / 2, staged_outs(buf, index, P, P), QuadPart{threadIdx.x});
    else ct_root(buf, index, P / 2, staged_outs(buf, index, P, P));
  }
}

// The staged OUTs to their buckets or sinks (ct_aggregate.cuh ct_put_pair): one thread a pair of
// records, each turned XYZZ (Homogeneous::to_xyzz, 3M + 1S) whether taken or not.
template <class G>
__global__ void __launch_bounds__(kCtBlock) ct_put_kernel(Workspace<G> w, uint32_t ds) {
  const uint32_t P = w.ct_padded(), pairs = ct_staged_pairs(P, ds);
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(w.W) * pairs) return;
  const uint32_t j = uint32_t(i / pairs), h = uint32_t(i % pairs);
  ct_put_pair(w.ct_buffer() + size_t(j) * P, w.buf_index + size_t(j) * P, P, 2 * w.T, h, window_outs(w, j));
}

template <class G>
void launch_ct_aggregate(const Workspace<G>& w, int device, cudaStream_t s) {
  const uint32_t P = w.ct_padded();
  const uint32_t resident =
      std::max(1u, resident_grid(ct_rounds_kernel<G>, ct_block_threads<G>(), device) / unsigned(w.W));
  const uint32_t ds = ct_stage_from(P, kCtBlock, resident, 2 * w.T);
  for (uint32_t d0 = kCtFirstDistance; d0 <= P / 2;) {
    const uint32_t d1 = ct_launch_last(d0, P, kCtBlock, resident, 2 * w.T);
    ct_rounds_kernel<G>
        <<<dim3(ct_launch_blocks(P, d1, 2 * w.T), unsigned(w.W)), ct_block_threads<G>(), 0, s>>>(w, d0, d1, ds);
    MSM_LAUNCH_CHECK("ct_rounds_kernel");
    d0 = 2 * d1;
  }
  const size_t puts = size_t(w.W) * ct_staged_pairs(P, ds);
  ct_put_kernel<G><<<blocks_for(puts, kCtBlock), kCtBlock, 0, s>>>(w, ds);
  MSM_LAUNCH_CHECK("ct_put_kernel");
}

#define MSM_INSTANTIATE(G)                                                  \
  template void launch_ct_aggregate<G>(const Workspace<G>&, int, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
