// Bucket reduction, Chen et al. §3.4, in one cooperative launch (grid = co-resident blocks from the
// occupancy API × SMs, grid-wide barriers between rounds): the layered suffix sums, B̂_1 saved, the
// summation tree, then Q_j = 2·Σ B̂ − B̂_1 per window (schedule in reduce.cuh). Additions are
// add-2008-s (12M + 2S), the doubling dbl-2008-s-1; in the constant-time mode the buckets are
// homogeneous and every step is a complete formula (RCB Alg. 7 and 9), so no step branches on O or
// on equal operands.
#include <cooperative_groups.h>

#include "device.cuh"
#include "reduce.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace cg = cooperative_groups;

namespace msm::gpu {

template <class F>
__device__ __forceinline__ ec::XYZZ<F> as_xyzz(const ec::XYZZ<F>& p) {
  return p;
}
template <class G>
__device__ __forceinline__ ec::XYZZ<typename G::field> as_xyzz(const ec::Homogeneous<G>& p) {
  return p.to_xyzz();
}

template <class G, class X>
__global__ void __launch_bounds__(kRedBlock) reduce_kernel(Workspace<G> w) {
  X* const buckets = reinterpret_cast<X*>(w.buckets);
  X* const bhat1 = reinterpret_cast<X*>(w.bhat1);
  cg::grid_group grid = cg::this_grid();
  const uint64_t gtid = grid.thread_rank(), gsize = grid.size();
  const int log_m = log2_buckets(w.c);
  const uint32_t M = w.M();
  const uint64_t W = uint64_t(w.W);

  const uint32_t half = layered_tasks(log_m);
  for (int r = 1; r <= log_m; ++r) {
    for (uint64_t t = gtid; t < W * half; t += gsize) {
      X* B = buckets + (t / half) * M;
      const Task k = layered_task(log_m, r, uint32_t(t % half));
      B[k.dst] = B[k.dst].add(B[k.src]);
    }
    grid.sync();
  }
  for (uint64_t j = gtid; j < W; j += gsize) bhat1[j] = buckets[j * M];
  grid.sync();
  for (int r = 1; r <= log_m; ++r) {
    const uint32_t per = tree_tasks(log_m, r);
    for (uint64_t t = gtid; t < W * per; t += gsize) {
      X* B = buckets + (t / per) * M;
      const Task k = tree_task(r, uint32_t(t % per));
      B[k.dst] = B[k.dst].add(B[k.src]);
    }
    grid.sync();
  }
  for (uint64_t j = gtid; j < W; j += gsize) w.window_sums[j] = as_xyzz(buckets[j * M].dbl().add(-bhat1[j]));
}

template <class G, class X>
void launch_reduce_on(const Workspace<G>& w, int device, cudaStream_t s) {
  int sms = 0, blocks = 0, coop = 0;
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  if (!coop) throw EngineError("ERR_CUDA", "the device does not support cooperative launches");
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reduce_kernel<G, X>, kRedBlock, 0));
  if (blocks < 1) throw EngineError("ERR_CUDA", "reduce_kernel cannot be resident on the device");
  // No more blocks than the widest round needs.
  const uint64_t widest = uint64_t(w.W) * (layered_tasks(w.c - 2) > 0 ? layered_tasks(w.c - 2) : 1);
  uint64_t grid = uint64_t(sms) * uint64_t(blocks);
  const uint64_t need = (widest + kRedBlock - 1) / kRedBlock;
  if (grid > need) grid = need;
  Workspace<G> arg = w;
  void* args[] = {&arg};
  MSM_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(reduce_kernel<G, X>), dim3(unsigned(grid)),
                                             dim3(kRedBlock), args, 0, s));
}

template <class G>
void launch_reduce(const Workspace<G>& w, int device, cudaStream_t s) {
  if (w.mode == Accumulation::constant_time) launch_reduce_on<G, HomOf<G>>(w, device, s);
  else launch_reduce_on<G, XyzzOf<G>>(w, device, s);
}

#define MSM_INSTANTIATE(G) template void launch_reduce<G>(const Workspace<G>&, int, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
