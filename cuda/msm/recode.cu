// Recoding kernel, Chen et al. §3.1 (Alg. 3 through the mapping table): one thread per scalar,
// every window's digit, written window-major as the sort's (key, value) pairs (the key with the
// window's place in its sort group, recode.cuh sort_key). Where the windows share one bucket set
// (recode.cuh shared_bucket) the digit is the plain signed one and the value carries the window.
#include "device.cuh"
#include "recode.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

// Points [first, first + n): scalar first + i at entry i of each window, its point index in the value.
template <bool Shared>
__global__ void recode_kernel(const uint4* __restrict__ scalars, uint32_t first, uint32_t n, int c, int W, int g,
                              int log_m, const uint32_t* __restrict__ table, uint32_t* __restrict__ keys,
                              uint32_t* __restrict__ vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t k[kScalarWords];
  const size_t at = 2 * (size_t(first) + i);
  const uint4 lo = scalars[at], hi = scalars[at + 1];
  k[0] = lo.x, k[1] = lo.y, k[2] = lo.z, k[3] = lo.w, k[4] = hi.x, k[5] = hi.y, k[6] = hi.z, k[7] = hi.w;
  for_each_digit(k, c, W, [&](int j, uint32_t t) {
    if constexpr (Shared) {
      keys[size_t(j) * n + i] = shared_bucket(t, c);
      vals[size_t(j) * n + i] = shared_value(t, first + i, j, c);
    } else {
      const uint32_t khat = __ldg(&table[t]);  // Alg. 3 lines 5–7 by table
      keys[size_t(j) * n + i] = sort_key(khat_bucket(khat, c), j, g, log_m);
      vals[size_t(j) * n + i] = sort_value(khat, first + i, c);
    }
  });
}

template <class G>
void launch_recode(const Workspace<G>& w, const uint32_t* scalars, cudaStream_t s) {
  const auto kernel = w.shared_buckets ? recode_kernel<true> : recode_kernel<false>;
  kernel<<<blocks_for(w.count, kRecodeBlock), kRecodeBlock, 0, s>>>(reinterpret_cast<const uint4*>(scalars), w.first,
                                                                     w.count, w.c, w.D, w.sort_group, w.log_m(),
                                                                     w.recode_table, w.keys_in, w.vals_in);
  MSM_LAUNCH_CHECK("recode_kernel");
}

#define MSM_INSTANTIATE(G) template void launch_recode<G>(const Workspace<G>&, const uint32_t*, cudaStream_t);
MSM_FOR_EACH_GROUP(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
