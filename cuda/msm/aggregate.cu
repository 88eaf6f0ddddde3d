// Aggregation kernels, Chen et al. §3.3 Alg. 5: one thread per bucket (2^(c−2) per window, all
// windows at once) finds its pieces among the Alg. 4 runs (aggregate.cuh) and sums them with
// add-2008-s. A bucket whose pieces span more than kHeavyPieces threads is queued instead and summed
// by a whole block (strided partial sums, then a shared-memory tree), so that few distinct scalars
// cost about as much as random ones.
#include "aggregate.cuh"
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

template <class G>
__device__ __forceinline__ BufferView window_view(const Workspace<G>& w, uint32_t j) {
  return BufferView{w.buf_offset + size_t(j) * w.T, w.buf_index + size_t(j) * w.slots(), w.buf_used + size_t(j) * w.T,
                    w.T};
}

template <class G>
__global__ void __launch_bounds__(kAggBlock) aggregate_kernel(Workspace<G> w) {
  using X = XyzzOf<G>;
  const uint32_t j = blockIdx.y;
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t M = w.M();
  if (p >= M) return;
  const uint32_t b = p + 1;
  const BufferView v = window_view(w, j);
  const PieceRange r = pieces_of(v, b);
  if (r.t1 > r.t0 + kHeavyPieces) {
    const uint32_t q = atomicAdd(w.heavy_count, 1u);
    w.heavy[q] = make_uint4(j * M + p, r.t0, r.t1, 0);
    return;
  }
  const X* buf = w.buffer + size_t(j) * w.slots();
  X acc = X::infinity();
  for_each_piece(v, b, r, 0, 1, [&](uint32_t slot) { acc = acc.add(buf[slot]); });
  w.buckets[size_t(j) * M + p] = acc;
}

template <class G>
__global__ void __launch_bounds__(kHeavyBlock) aggregate_heavy_kernel(Workspace<G> w) {
  using X = XyzzOf<G>;
  __shared__ alignas(16) unsigned char raw[kHeavyBlock * sizeof(X)];
  X* sm = reinterpret_cast<X*>(raw);
  const uint32_t count = *w.heavy_count;
  const uint32_t M = w.M();
  for (uint32_t h = blockIdx.x; h < count; h += gridDim.x) {
    const uint4 e = w.heavy[h];
    const uint32_t j = e.x / M, b = e.x % M + 1;
    const BufferView v = window_view(w, j);
    const X* buf = w.buffer + size_t(j) * w.slots();
    X acc = X::infinity();
    for_each_piece(v, b, PieceRange{e.y, e.z}, threadIdx.x, blockDim.x,
                   [&](uint32_t slot) { acc = acc.add(buf[slot]); });
    sm[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = kHeavyBlock / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) sm[threadIdx.x] = sm[threadIdx.x].add(sm[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) w.buckets[e.x] = sm[0];
    __syncthreads();
  }
}

template <class G>
void launch_aggregate(const Workspace<G>& w, int device, cudaStream_t s) {
  MSM_CUDA_CHECK(cudaMemsetAsync(w.heavy_count, 0, sizeof(uint32_t), s));
  const dim3 grid(blocks_for(w.M(), kAggBlock), unsigned(w.W));
  aggregate_kernel<G><<<grid, kAggBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("aggregate_kernel");
  int sms = 0, blocks = 0;
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, aggregate_heavy_kernel<G>, kHeavyBlock, 0));
  if (blocks < 1) blocks = 1;
  aggregate_heavy_kernel<G><<<unsigned(sms * blocks), kHeavyBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("aggregate_heavy_kernel");
}

#define MSM_INSTANTIATE(G) template void launch_aggregate<G>(const Workspace<G>&, int, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
