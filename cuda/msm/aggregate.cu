// Aggregation kernels. The default mode's Alg. 4 wrote every bucket a thread held whole, so only the
// split ones are summed, one thread per Alg. 4 thread (split_kernel). The homogeneous mode's runs
// are all buffered (Chen et al. §3.3): one thread per Alg. 4 thread gives each bucket whose first
// piece it holds the sum of its pieces (scatter_kernel, aggregate.cuh). Both sum with add-2008-s,
// and both queue a bucket whose pieces span more than kHeavyPieces threads for whole blocks
// (heavy_kernel: parts of a block each, strided partial sums, then a shared-memory tree, G1's by
// quads of lanes), so that few distinct scalars cost about as much as random ones. In a call's
// later piece the homogeneous mode adds each bucket's sum onto the earlier pieces'
// (Workspace::later), so no second set of buckets is written and merged.
#include "../ec/quad.cuh"
#include "aggregate.cuh"
#include "device.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

// A shared-memory tree within aligned groups of G units, unit u = threadIdx.x >> q holding sm[u]
// and adding by its 2^q threads (ec::add_to: a quad's chain is 4 products instead of a thread's 14),
// G a power of two; every thread gets its group's total. The heavy buckets' path of both
// aggregations. Every thread of the block calls it (block barriers).
template <int q, class X>
__device__ __forceinline__ X tree_sum(X* sm, uint32_t G) {
  __syncthreads();
  const uint32_t u = threadIdx.x >> q, i = u & (G - 1);
  for (uint32_t k = G / 2; k > 0; k >>= 1) {
    if (i < k) ec::add_to<q>(sm + u, sm + u + k);
    __syncthreads();
  }
  return sm[u - i];
}
// Partial sums, one a thread, by tree_sum within aligned groups of G threads (sm: kAggBlock points).
template <class X>
__device__ __forceinline__ X group_sum(X* sm, const X& partial, uint32_t G) {
  sm[threadIdx.x] = partial;
  return tree_sum<0>(sm, G);
}

// split_kernel's and heavy_kernel's blocks an SM for G (tuning.hpp agg_min_blocks).
template <class G>
constexpr int agg_blocks() {
  return agg_min_blocks(G::field::N, ff::is_fp2<typename G::field>);
}

// Window j's record of Alg. 4's runs: the homogeneous mode's buffer (BufferView), the default mode's
// split buckets (DirectView; Alg. 4 reuses buf_offset and buf_used for lead and split).
template <class G>
__device__ __forceinline__ BufferView window_view(const Workspace<G>& w, uint32_t j) {
  return BufferView{w.buf_offset + size_t(j) * w.T, w.buf_index + size_t(j) * w.slots(), w.buf_used + size_t(j) * w.T,
                    w.T};
}
template <class G>
__device__ __forceinline__ DirectView direct_view(const Workspace<G>& w, uint32_t j) {
  return DirectView{w.buf_offset + size_t(j) * w.T, w.buf_used + size_t(j) * w.T, w.T};
}

// The homogeneous mode's Alg. 5, one thread per Alg. 4 thread (aggregate.cuh for_each_first_piece):
// each bucket whose first piece the thread holds gets its pieces' sum (in a later piece of a call,
// added onto the earlier pieces' value); a bucket over more than kHeavyPieces threads is queued for
// heavy_kernel. One thread per bucket instead, each finding its pieces by binary searches over the
// threads (the paper's Alg. 5, lines 1–31), took 0.96 / 1.58 ms at BN254 / BLS12-381 2^24 for a
// piece without additions, against 0.67 / 0.89 so (H100, MSM_CUDA_PROFILE; bench/gpu-notes.md).
template <class G>
__global__ void __launch_bounds__(kAggBlock) scatter_kernel(Workspace<G> w) {
  using X = XyzzOf<G>;
  const uint32_t j = blockIdx.y;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= w.T) return;
  const BufferView v = window_view(w, j);
  const uint32_t M = w.M();
  const X* buf = w.buffer + size_t(j) * w.slots();
  X* const buckets = w.buckets + size_t(j) * M;
  for_each_first_piece(
      v, t,
      [&](uint32_t b, uint32_t slot, uint32_t t1) {
        X acc = buf[slot];
        for (uint32_t x = t + 1; x < t1; ++x) acc = acc.add(buf[v.head(x)]);
        buckets[b - 1] = w.later ? buckets[b - 1].add(acc) : acc;
      },
      [&](uint32_t b, uint32_t t1) {
        const uint32_t q = atomicAdd(w.heavy_count, 1u);
        w.heavy[q] = make_uint4(j * M + b - 1, t, t1, 0);
      });
}

// The default mode's aggregation (aggregate.cuh DirectView): one thread per Alg. 4 thread; where its
// tail slot starts a split bucket, it adds the bucket's few pieces into the bucket itself, or, past
// Plan::heavy_pieces of them, queues the bucket for heavy_kernel. Every other bucket Alg. 4 wrote.
// Its blocks per SM as heavy_kernel's: BLS12-381's 178 registers (2 blocks) became 168 (3, 80 B
// spilled), and the kernel took 66 µs against 71–73 a piece at 2^20, 88–96 against 100 at 2^16
// (ncu, one H200; bench/gpu-notes.md); BN254's 126 registers already let 4 blocks run.
template <class G>
__global__ void __launch_bounds__(kAggBlock, agg_blocks<G>())
    split_kernel(Workspace<G> w) {
  using X = XyzzOf<G>;
  const uint32_t j = blockIdx.y;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= w.T) return;
  const DirectView v = direct_view(w, j);
  const uint32_t b = v.split[t];
  if (b == 0) return;
  const uint32_t t1 = split_end(v, t, b), M = w.M();
  if (t1 - t > w.heavy_pieces) {
    const uint32_t q = atomicAdd(w.heavy_count, 1u);
    w.heavy[q] = make_uint4(j * M + b - 1, t, t1, 0);
    return;
  }
  const X* buf = w.buffer + size_t(j) * w.slots();
  X acc = X::infinity();
  for_each_piece(v, t, t, t1, 0, 1, [&](uint32_t slot) { acc = acc.add(buf[slot]); });
  w.buckets[size_t(j) * M + b - 1] = acc;
}

// A point read past L1 (ld.global.cg): the parts' sums other blocks wrote during this launch, whose
// lines this SM's L1 may hold from an earlier read of a neighbouring slot.
template <class X>
__device__ __forceinline__ X load_cg(const X* p) {
  static_assert(sizeof(X) % sizeof(uint4) == 0, "a point is whole uint4s (its slots are then 16-byte aligned)");
  uint4 raw[sizeof(X) / sizeof(uint4)];
  for (unsigned i = 0; i < sizeof(X) / sizeof(uint4); ++i) raw[i] = __ldcg(reinterpret_cast<const uint4*>(p) + i);
  X x;
  memcpy(&x, raw, sizeof(X));
  return x;
}

// The buckets split_kernel (Split) or scatter_kernel queued, each in up to `most` parts of a block
// each (aggregate.cuh heavy_parts: the grid shared out over the queued buckets), or, where they
// outnumber the blocks, several at once in groups of a block (heavy_groups): strided partial sums
// over the threads that hold a part's pieces (for_each_piece, on the mode's view), then a
// shared-memory tree per group, G1's by quads of lanes (ec::quad_log_lanes: each of a group's
// size/4 quads sums every (size/4)-th piece, then tree_sum over the quads), G2's a thread an
// addition. A bucket of one part is written at once; otherwise each part's sum goes over its first
// piece's slot and the block that ends the bucket's last part (a counter in the queued entry's w,
// after a fence: the CUDA guide's threadFenceReduction) sums the parts into the bucket. In a later
// piece of a call the homogeneous mode adds the total onto the bucket; the default mode's later
// pieces carry the earlier sum in the bucket's first piece (Alg. 4).
template <class G, bool Split>
__global__ void __launch_bounds__(kAggBlock, agg_blocks<G>())
    heavy_kernel(Workspace<G> w) {
  using X = XyzzOf<G>;
  __shared__ alignas(16) unsigned char raw[kAggBlock * sizeof(X)];
  X* sm = reinterpret_cast<X*>(raw);
  const uint32_t count = *w.heavy_count, M = w.M();
  const uint32_t groups = heavy_groups(count, gridDim.x, blockDim.x), size = blockDim.x / groups;
  const uint32_t group = threadIdx.x / size, lane = threadIdx.x % size;
  // > 1 only with one group: then every q below is the block's.
  const uint32_t most = count == 0 ? 1 : max(1u, gridDim.x * groups / count);
  const uint32_t items = count * most;
  for (uint32_t base = blockIdx.x * groups; base < items; base += gridDim.x * groups) {
    const uint32_t item = base + group;
    uint4 e = make_uint4(0, 0, 0, 0);
    uint32_t h = 0, p = 0, q = 0;
    if (item < items) {
      h = item / most, p = item % most;
      e = w.heavy[h];
      q = heavy_parts(e.y, e.z, most);
    }
    const bool on = p < q;
    if (!__syncthreads_or(on)) continue;
    const uint32_t j = e.x / M;
    X* const buf = w.buffer + size_t(j) * w.slots();
    // The view is made where it is used, not held across group_sum: held, it spills more.
    const auto with_view = [&](auto&& f) {
      if constexpr (Split) return f(direct_view(w, j));
      else return f(window_view(w, j));
    };
    const auto slot_of = [&](uint32_t t) { return with_view([&](const auto& v) { return piece_slot(v, e.y, t); }); };
    const auto finish = [&](const X& total) {
      if (lane == 0) w.buckets[e.x] = !Split && w.later ? w.buckets[e.x].add(total) : total;
    };
    const PartRange r = on ? heavy_part(e.y, e.z, q, p) : PartRange{0, 0};
    X total;
    if constexpr (ec::quad_log_lanes<X>() == 2) {  // G1: quad k of the group sums pieces k, k + size/4, …
      X* const mine = sm + (threadIdx.x >> 2);
      const unsigned mask = ec::quad_mask();
      if ((threadIdx.x & 3u) == 0) *mine = X::infinity();
      __syncwarp(mask);
      with_view([&](const auto& v) {
        for_each_piece(v, e.y, r.from, r.to, lane >> 2, size >> 2, [&](uint32_t slot) {
          ec::add_to<2>(mine, buf + slot);
          __syncwarp(mask);  // the lanes' stores of the sum, before the quad reads it again
        });
      });
      total = tree_sum<2>(sm, size >> 2);
    } else {
      X acc = X::infinity();
      with_view([&](const auto& v) {
        for_each_piece(v, e.y, r.from, r.to, lane, size, [&](uint32_t slot) { acc = acc.add(buf[slot]); });
      });
      total = group_sum(sm, acc, size);
    }
    if (q <= 1) {
      if (on) finish(total);
    } else {  // one group, so q is the block's
      bool last = false;
      if (threadIdx.x == 0) {
        buf[slot_of(r.from)] = total;
        __threadfence();
        last = atomicAdd(&w.heavy[h].w, 1u) == q - 1;
        if (last) __threadfence();  // the other parts' sums, ordered after their fences
      }
      if (__syncthreads_or(last)) {  // thread 0's answer to the block (no shared flag: G2's tree fills 48 KB)
        X sum = X::infinity();
        for (uint32_t k = threadIdx.x; k < q; k += blockDim.x)
          sum = sum.add(load_cg(buf + slot_of(heavy_part(e.y, e.z, q, k).from)));
        finish(group_sum(sm, sum, blockDim.x));
      }
    }
    __syncthreads();
  }
}

// O in every bucket, or in the constant-time mode the blinding point R (accumulate.cu
// ConstantTimeAcc: every bucket then holds R once, and once more per head piece, whichever runs
// wrote it; the engine takes the reduction's public multiple of R and the heads' off its result),
// with the heads' weights at 0 (ct_open.cuh adds every piece's): Alg. 4 and the
// aggregation write only the buckets that have entries.
template <class G>
void launch_clear_buckets(const Workspace<G>& w, cudaStream_t s) {
  const size_t count = size_t(w.W) * w.M();
  if (w.mode == Accumulation::constant_time) {
    launch_fill(w.buckets, count, XyzzOf<G>::from_affine(w.blind), s);
    MSM_CUDA_CHECK(cudaMemsetAsync(w.ct_heads, 0, size_t(w.W) * sizeof(*w.ct_heads), s));
  } else {
    launch_fill_infinity(w.buckets, count, s);
  }
}

template <class G>
void launch_aggregate(const Workspace<G>& w, int device, cudaStream_t s) {
  MSM_CUDA_CHECK(cudaMemsetAsync(w.heavy_count, 0, sizeof(uint32_t), s));
  if (w.mode == Accumulation::xyzz) {
    split_kernel<G><<<dim3(blocks_for(w.T, kAggBlock), unsigned(w.W)), kAggBlock, 0, s>>>(w);
    MSM_LAUNCH_CHECK("split_kernel");
    heavy_kernel<G, true><<<resident_grid(heavy_kernel<G, true>, kAggBlock, device), kAggBlock, 0, s>>>(w);
    MSM_LAUNCH_CHECK("heavy_kernel");
    return;
  }
  scatter_kernel<G><<<dim3(blocks_for(w.T, kAggBlock), unsigned(w.W)), kAggBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("scatter_kernel");
  heavy_kernel<G, false><<<resident_grid(heavy_kernel<G, false>, kAggBlock, device), kAggBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("heavy_kernel");
}

#define MSM_INSTANTIATE(G)                                                     \
  template void launch_aggregate<G>(const Workspace<G>&, int, cudaStream_t); \
  template void launch_clear_buckets<G>(const Workspace<G>&, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
