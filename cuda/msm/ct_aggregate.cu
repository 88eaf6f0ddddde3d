// Constant-time aggregation kernels, Chen et al. §5 as a tree of one addition per level (index logic
// in ct_aggregate.cuh): launch_ct_prepare sets every window's padded buffer to O (index 0) before
// Alg. 4 (the buckets are set to O by launch_clear_buckets, aggregate.cu); then the levels, several
// per launch (ct_launch_last), over the blocks that hold Alg. 4's slots (ct_launch_blocks), each
// pair of nodes run by ct_pair (one complete addition, RCB Alg. 7, by a quad of lanes for G1, then
// three selects and two OUTs), all windows at once, the last launch ending with ct_root per window.
// The launches and their thread counts depend only on n, c and the device, never on the scalars.
#include <algorithm>

#include "../ec/quad.cuh"
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

template <class G>
__device__ __forceinline__ auto window_buckets(const Workspace<G>& w, uint32_t j) {
  HomOf<G>* B = w.ct_buckets() + size_t(j) * w.M();
  return [B](uint32_t v) { return B + (v - 1); };  // bucket v ≥ 1 at v − 1
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
// and stores, lane 3 storing none (its coordinate is lane 2's) but the index.
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
  __device__ __forceinline__ bool lead() const { return lane == 3; }
};

// Levels d0 … d1 (ct_aggregate.cuh ct_launch_last / ct_launch_base); the block barrier makes one
// level's writes visible to the next (global memory, within the block). The last launch has one
// block per window, which ends with ct_root. A pair's lanes are consecutive threads, so the loop's
// bound is uniform over them.
template <class G>
__global__ void __launch_bounds__(ct_block_threads<G>()) ct_rounds_kernel(Workspace<G> w, uint32_t d0, uint32_t d1) {
  constexpr int L = ct_log_lanes<G>();
  const uint32_t j = blockIdx.y;
  const uint32_t P = w.ct_padded();
  HomOf<G>* const buf = w.ct_buffer() + size_t(j) * P;
  uint32_t* const index = w.buf_index + size_t(j) * P;
  for (uint32_t d = d0; d <= d1; d <<= 1) {
    for (uint32_t k = threadIdx.x >> L; k < d1 / d; k += kCtBlock) {
      const uint32_t base = ct_launch_base(blockIdx.x, k, d, d1);
      if constexpr (L == 2) ct_pair(buf, index, base, d, window_buckets(w, j), QuadPart{threadIdx.x & 3u});
      else ct_pair(buf, index, base, d, window_buckets(w, j));
    }
    __syncthreads();
  }
  if (d1 == P / 2 && threadIdx.x == 0) ct_root(buf, index, P / 2, window_buckets(w, j));
}

template <class G>
void launch_ct_prepare(const Workspace<G>& w, cudaStream_t s) {
  const size_t slots = size_t(w.W) * w.ct_padded();
  launch_fill_infinity(w.ct_buffer(), slots, s);
  MSM_CUDA_CHECK(cudaMemsetAsync(w.buf_index, 0, slots * sizeof(uint32_t), s));
}

template <class G>
void launch_ct_aggregate(const Workspace<G>& w, int device, cudaStream_t s) {
  const uint32_t P = w.ct_padded();
  const uint32_t resident =
      std::max(1u, resident_grid(ct_rounds_kernel<G>, ct_block_threads<G>(), device) / unsigned(w.W));
  for (uint32_t d0 = 1; d0 <= P / 2;) {
    const uint32_t d1 = ct_launch_last(d0, P, kCtBlock, resident, 2 * w.T);
    ct_rounds_kernel<G>
        <<<dim3(ct_launch_blocks(P, d1, 2 * w.T), unsigned(w.W)), ct_block_threads<G>(), 0, s>>>(w, d0, d1);
    MSM_LAUNCH_CHECK("ct_rounds_kernel");
    d0 = 2 * d1;
  }
}

#define MSM_INSTANTIATE(G)                                                  \
  template void launch_ct_prepare<G>(const Workspace<G>&, cudaStream_t); \
  template void launch_ct_aggregate<G>(const Workspace<G>&, int, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
