// Constant-time aggregation kernels, Chen et al. §5 (index logic and Table 5 in ct_aggregate.cuh):
// ct_prepare fills every window's padded buffer and buckets with O (index 0) before Alg. 4; then one
// launch per round, each thread running ct_group on its four elements (two complete additions, RCB
// Alg. 7, and two copies), all windows at once; then ct_final per window. The rounds' thread counts
// depend only on n, c and the device, never on the scalars.
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {


template <class G>
__global__ void __launch_bounds__(kCtBlock) ct_prepare_kernel(Workspace<G> w) {
  using H = HomOf<G>;
  const uint32_t j = blockIdx.y;
  const uint32_t P = w.ct_padded(), M = w.M();
  H* buf = w.ct_buffer() + size_t(j) * P;
  uint32_t* index = w.buf_index + size_t(j) * P;
  H* B = w.ct_buckets() + size_t(j) * M;
  for (uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < P; s += gridDim.x * blockDim.x) {
    buf[s] = H::infinity();
    index[s] = 0;
    if (s < M) B[s] = H::infinity();
  }
}

template <class G>
__device__ __forceinline__ auto window_buckets(const Workspace<G>& w, uint32_t j) {
  HomOf<G>* B = w.ct_buckets() + size_t(j) * w.M();
  return [B](uint32_t v) { return B + (v - 1); };  // bucket v ≥ 1 at v − 1
}

template <class G>
__global__ void __launch_bounds__(kCtBlock) ct_round_kernel(Workspace<G> w, uint32_t d) {
  const uint32_t j = blockIdx.y;
  const uint32_t P = w.ct_padded();
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= P / (4 * d)) return;
  ct_group(w.ct_buffer() + size_t(j) * P, w.buf_index + size_t(j) * P, 4 * d * q, d, window_buckets(w, j));
}

template <class G>
__global__ void ct_final_kernel(Workspace<G> w) {
  const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= uint32_t(w.W)) return;
  const uint32_t P = w.ct_padded();
  ct_final(w.ct_buffer() + size_t(j) * P, w.buf_index + size_t(j) * P, P / 2, window_buckets(w, j));
}

template <class G>
void launch_ct_prepare(const Workspace<G>& w, cudaStream_t s) {
  const dim3 grid(blocks_for(w.ct_padded(), kCtBlock), unsigned(w.W));
  ct_prepare_kernel<G><<<grid, kCtBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("ct_prepare_kernel");
}

template <class G>
void launch_ct_aggregate(const Workspace<G>& w, cudaStream_t s) {
  const uint32_t P = w.ct_padded();
  for (int r = 0, rounds = ct_rounds(P); r < rounds; ++r) {
    const uint32_t d = 1u << r;
    const dim3 grid(blocks_for(P / (4 * d), kCtBlock), unsigned(w.W));
    ct_round_kernel<G><<<grid, kCtBlock, 0, s>>>(w, d);
    MSM_LAUNCH_CHECK("ct_round_kernel");
  }
  ct_final_kernel<G><<<blocks_for(unsigned(w.W), 32), 32, 0, s>>>(w);
  MSM_LAUNCH_CHECK("ct_final_kernel");
}

#define MSM_INSTANTIATE(G)                                                  \
  template void launch_ct_prepare<G>(const Workspace<G>&, cudaStream_t); \
  template void launch_ct_aggregate<G>(const Workspace<G>&, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
