// The precomputed table 2^h·P_i for h ≤ τ (Chen et al. §3.1, "Change the way to add points into
// the bucket"): level h+1 = 2·(level h), or 2^c·(level h) where the windows share one bucket set
// (recode.cuh shared_bucket: level j is 2^(jc)·P_i, the level's first doubling from the level
// below, the others in place), in affine form so that the accumulation adds it with the
// mixed formula. Affine doubling λ = 3x²/(2y), x' = λ² − 2x, y' = λ(x − x') − y (a = 0), 1M + 2S
// + the inversion, which each thread shares over its `batch` points by Montgomery's trick
// (3M per point + one Fermat inversion per thread). Built once when a context is created.
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

template <class G>
__global__ void double_level_kernel(const AffineOf<G>* in, AffineOf<G>* out, uint32_t n, uint32_t stride, int batch) {
  // in = out (a doubling in place) is allowed: each thread reads point i before it writes it.
  using F = typename G::field;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= stride) return;
  F prefix[kTableMaxBatch];
  F acc = F::one();
  int cnt = 0;
  for (int k = 0; k < batch; ++k) {
    const uint32_t i = tid + uint32_t(k) * stride;
    if (i >= n) break;
    const AffineOf<G> p = in[i];
    const bool skip = p.is_inf() || p.y.is_zero();  // O, or a 2-torsion point: 2P = O
    acc = acc * (skip ? F::one() : p.y.dbl());
    prefix[k] = acc;
    cnt = k + 1;
  }
  F inv = acc.inverse();
  for (int k = cnt - 1; k >= 0; --k) {
    const uint32_t i = tid + uint32_t(k) * stride;
    const AffineOf<G> p = in[i];
    const bool skip = p.is_inf() || p.y.is_zero();
    const F dinv = k > 0 ? inv * prefix[k - 1] : inv;  // (2y_k)⁻¹
    inv = inv * (skip ? F::one() : p.y.dbl());
    if (skip) {
      out[i] = AffineOf<G>::infinity();
      continue;
    }
    const F x2 = p.x.sqr();
    const F lambda = (x2.dbl() + x2) * dinv;
    AffineOf<G> r;
    r.x = lambda.sqr() - p.x.dbl();
    r.y = lambda * (p.x - r.x) - p.y;
    out[i] = r;
  }
}

template <class G>
void build_table(AffineOf<G>* table, uint32_t n, int tau, int step, cudaStream_t s) {
  if (n == 0 || tau <= 0) return;
  int dev = 0, sms = 1;
  MSM_CUDA_CHECK(cudaGetDevice(&dev));
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // Enough threads to fill the device (kTableThreadsPerSm), each batching up to kTableMaxBatch points.
  const uint64_t want = uint64_t(sms) * kTableThreadsPerSm;
  int batch = int((n + want - 1) / want);
  if (batch < 1) batch = 1;
  if (batch > kTableMaxBatch) batch = kTableMaxBatch;
  const uint32_t stride = uint32_t((n + uint32_t(batch) - 1) / uint32_t(batch));
  for (int h = 0; h < tau; ++h) {
    for (int k = 0; k < step; ++k) {
      double_level_kernel<G><<<blocks_for(stride, kTableBlock), kTableBlock, 0, s>>>(
          table + size_t(k == 0 ? h : h + 1) * n, table + size_t(h + 1) * n, n, stride, batch);
      MSM_LAUNCH_CHECK("double_level_kernel");
    }
  }
}

#define MSM_INSTANTIATE(G) template void build_table<G>(AffineOf<G>*, uint32_t, int, int, cudaStream_t);
MSM_FOR_EACH_GROUP(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
