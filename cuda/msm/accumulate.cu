// Accumulation kernel, Chen et al. §3.3 Alg. 4: T threads per window, each summing its even share
// of the window's sorted entries into XYZZ runs written to the compact buffer (the index logic is
// accumulate_thread in accumulate.cuh, shared with the host tests).
//
// Adding an entry (Alg. 4 lines 13–20): the point 2^min(EXP,τ)·P_i comes from the table, is
// negated for SIGN, and when EXP > τ doubled EXP − τ more times (mdbl-2008-s-1 then
// dbl-2008-s-1, EFD) and added with add-2008-s (12M + 2S); otherwise added with madd-2008-s
// (8M + 2S). The running sum lives in registers rather than the paper's shared-memory slots.
#include <cstdlib>
#include <string>

#include "accumulate.cuh"
#include "device.cuh"
#include "recode.cuh"
#include "stages.cuh"

namespace msm::gpu {

constexpr unsigned kAccBlock = 128;
// Blocks per SM the register budget is squeezed to (registers ≤ 65536 / (128·k)). Two builds of
// the kernel: "wide" (BLS12 fields 2 blocks, 232 registers, no spills; BN254 4 blocks, 126) and
// "tight" (3 blocks, 168 registers and ~100–150 B of spills; BN254 5 blocks, 96 registers,
// ~400 B). The kernel is latency-bound on dependent carry chains (ncu: ~0.4 eligible warps per
// scheduler), so more resident warps can beat a few spilled registers. Measured on the H100
// (engine, random scalars, 2^20 / 2^22 / 2^24): BLS12-381 wide 21.2 / 73.0 / 283.8 ms, tight
// 18.3 / 58.7 / 217.6; BN254 wide 9.1 / 24.4 / 94.0, tight 8.9 / 27.1 / 97.8. So tight for the
// 6-limb fields, wide for BN254 (MSM_CUDA_ACC=wide|tight overrides). BLS24-315's 5-limb field
// takes the 6-limb budgets and tight by default: ptxas (sm_90, CUDA 13.0) fits it in 168
// registers with no spills (wide: 222), so 3 blocks per SM cost nothing; timings not measured yet.
template <class G, bool Tight>
constexpr int acc_min_blocks() {
  return G::field::N >= 5 ? (Tight ? 3 : 2) : (Tight ? 5 : 4);
}
template <class G>
bool acc_tight() {
  static const bool tight = [] {
    const char* e = std::getenv("MSM_CUDA_ACC");
    if (e && std::string(e) == "wide") return false;
    if (e && std::string(e) == "tight") return true;
    return G::field::N >= 5;  // measured on the H100: tight for the 381/377-bit fields, not BN254
  }();
  return tight;
}

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

template <class G, bool Tight>
__global__ void __launch_bounds__(kAccBlock, acc_min_blocks<G, Tight>()) accumulate_kernel(Workspace<G> w) {
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
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, acc_tight<G>() ? accumulate_kernel<G, true> : accumulate_kernel<G, false>, kAccBlock, 0));
  if (blocks < 1) blocks = 1;
  return uint32_t(sms) * uint32_t(blocks) * kAccBlock;
}

template <class G>
void launch_accumulate(const Workspace<G>& w, cudaStream_t s) {
  const dim3 grid(blocks_for(w.T, kAccBlock), unsigned(w.W));
  if (acc_tight<G>()) accumulate_kernel<G, true><<<grid, kAccBlock, 0, s>>>(w);
  else accumulate_kernel<G, false><<<grid, kAccBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("accumulate_kernel");
}

#define MSM_INSTANTIATE(G)                         \
  template uint32_t accumulate_threads<G>(int); \
  template void launch_accumulate<G>(const Workspace<G>&, cudaStream_t);
MSM_FOR_EACH_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
