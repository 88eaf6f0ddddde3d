// Accumulation kernel, Chen et al. §3.3 Alg. 4: T threads per window, each summing its even share
// of the window's sorted entries into XYZZ runs written to the compact buffer (the index logic is
// accumulate_thread in accumulate.cuh, shared with the host tests).
//
// Adding an entry (Alg. 4 lines 13–20): the point 2^min(EXP,τ)·P_i comes from the table, is
// negated for SIGN, and when EXP > τ doubled EXP − τ more times (mdbl-2008-s-1 then
// dbl-2008-s-1, EFD) and added with add-2008-s (12M + 2S); otherwise added with madd-2008-s
// (8M + 2S). The running sum lives in registers rather than the paper's shared-memory slots.
#include "accumulate.cuh"
#include "device.cuh"
#include "recode.cuh"
#include "stages.cuh"

namespace msm::gpu {

constexpr unsigned kAccBlock = 128;

template <class G>
struct PointAcc {
  using A = AffineOf<G>;
  using X = XyzzOf<G>;
  const A* __restrict__ table;
  uint32_t n;
  uint32_t tau;
  X* __restrict__ buffer;
  X acc;

  __device__ __forceinline__ void reset() { acc = X::infinity(); }
  __device__ __forceinline__ void add(uint32_t v) {
    const uint32_t i = value_point(v), e = value_exp(v);
    const uint32_t h = e < tau ? e : tau;
    A p = table[size_t(h) * n + i];
    if (value_sign(v)) p = -p;
    if (e > h) {
      X q = X::dbl(p);
      for (uint32_t k = h + 1; k < e; ++k) q = q.dbl();
      acc = acc.add(q);
    } else {
      acc = acc.add(p);
    }
  }
  __device__ __forceinline__ void store(uint32_t slot) { buffer[slot] = acc; }
};

template <class G>
__global__ void __launch_bounds__(kAccBlock) accumulate_kernel(Workspace<G> w) {
  const uint32_t j = blockIdx.y;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= w.T) return;
  const size_t base = size_t(j) * w.n;
  const uint32_t* keys = w.keys + base;
  const uint32_t first = first_nonzero(keys, w.n);
  const Span sp = thread_span(first, w.n, w.T, tid);
  PointAcc<G> acc{w.table, w.n, uint32_t(w.tau), w.buffer + size_t(j) * w.slots()};
  accumulate_thread(tid, sp, keys, w.vals + base, w.buf_offset + size_t(j) * w.T,
                    w.buf_index + size_t(j) * w.slots(), w.buf_used + size_t(j) * w.T, acc);
}

template <class G>
uint32_t accumulate_threads(int device) {
  int sms = 0, blocks = 0;
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, accumulate_kernel<G>, kAccBlock, 0));
  if (blocks < 1) blocks = 1;
  return uint32_t(sms) * uint32_t(blocks) * kAccBlock;
}

template <class G>
void launch_accumulate(const Workspace<G>& w, cudaStream_t s) {
  const dim3 grid(blocks_for(w.T, kAccBlock), unsigned(w.W));
  accumulate_kernel<G><<<grid, kAccBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("accumulate_kernel");
}

#define MSM_INSTANTIATE(G)                         \
  template uint32_t accumulate_threads<G>(int); \
  template void launch_accumulate<G>(const Workspace<G>&, cudaStream_t);
MSM_FOR_EACH_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
