// The precomputed table 2^h·P_i for h ≤ τ (Chen et al. §3.1, "Change the way to add points into
// the bucket"): level h+1 = 2^k·(level h) with k = 1, or k = c where the windows share one bucket
// set (recode.cuh shared_bucket: level j is 2^(jc)·P_i), in affine form so that the accumulation
// adds it with the mixed formula. Each point's k doublings run in Jacobian coordinates
// (dbl-2009-l, 2M + 5S each, EFD g1p/auto-shortw-jacobian-0), then (X/Z², Y/Z³) with one
// inversion that each thread shares over its `batch` points by Montgomery's trick (3M per point
// + one Fermat inversion per thread, ~500 products at BLS12-381 over ≤ kTableMaxBatch points).
// Doubling in affine form instead paid that inversion at every doubling: 242 passes of 13 ms
// for BLS12-381's shared table at 2^24 (H100). Built once when a context is created.
#include "../ec/jacobian.hpp"
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

template <class G>
__global__ void double_level_kernel(const AffineOf<G>* __restrict__ in, AffineOf<G>* __restrict__ out, uint32_t n,
                                    uint32_t stride, int batch, int k) {
  using F = typename G::field;
  using J = ec::Jacobian<F>;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= stride) return;
  F z[kTableMaxBatch], prefix[kTableMaxBatch];
  F acc = F::one();
  int cnt = 0;
  for (int b = 0; b < batch; ++b) {
    const uint32_t i = tid + uint32_t(b) * stride;
    if (i >= n) break;
    J p = J::from_affine(in[i]);
    for (int d = 0; d < k; ++d) p = p.dbl();  // O, and a 2-torsion point's double, end with Z = 0
    out[i] = AffineOf<G>{p.X, p.Y};           // until its Z is inverted below
    z[b] = p.Z;
    acc = acc * (p.is_inf() ? F::one() : p.Z);
    prefix[b] = acc;
    cnt = b + 1;
  }
  F inv = acc.inverse();
  for (int b = cnt - 1; b >= 0; --b) {
    const uint32_t i = tid + uint32_t(b) * stride;
    const bool inf = z[b].is_zero();
    const F zinv = b > 0 ? inv * prefix[b - 1] : inv;  // Z_b⁻¹
    inv = inv * (inf ? F::one() : z[b]);
    if (inf) {
      out[i] = AffineOf<G>::infinity();
      continue;
    }
    const F zinv2 = zinv.sqr();
    const AffineOf<G> t = out[i];
    out[i] = AffineOf<G>{t.x * zinv2, t.y * (zinv2 * zinv)};
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
    double_level_kernel<G><<<blocks_for(stride, kTableBlock), kTableBlock, 0, s>>>(
        table + size_t(h) * n, table + size_t(h + 1) * n, n, stride, batch, step);
    MSM_LAUNCH_CHECK("double_level_kernel");
  }
}

#define MSM_INSTANTIATE(G) template void build_table<G>(AffineOf<G>*, uint32_t, int, int, cudaStream_t);
MSM_FOR_EACH_GROUP(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
