// The constant-time mode's buckets of a call split in pieces (engine.cu, Plan::pieces): a later
// piece's §5 wrote its buckets apart (into keys_in, free once the sort has read it), and each
// bucket of the earlier pieces gets the later one added, B = B + B', over all windows at once with RCB
// Alg. 7 (complete, 12M), the same instructions for every bucket. The other modes add a later piece
// onto the buckets in Alg. 4 or 5 instead (Workspace::later).
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

template <class P>
__global__ void __launch_bounds__(kAggBlock) merge_kernel(P* __restrict__ buckets, const P* __restrict__ later,
                                                        size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) buckets[i] = buckets[i].add(later[i]);
}

template <class G>
void launch_merge_buckets(const Workspace<G>& w, const void* later, cudaStream_t s) {
  const size_t count = size_t(w.W) * w.M();
  merge_kernel<<<blocks_for(count, kAggBlock), kAggBlock, 0, s>>>(w.ct_buckets(), static_cast<const HomOf<G>*>(later),
                                                                  count);
  MSM_LAUNCH_CHECK("merge_kernel");
}

#define MSM_INSTANTIATE(G) template void launch_merge_buckets<G>(const Workspace<G>&, const void*, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
