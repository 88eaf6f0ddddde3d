// §5's level 1 from one constant-time Alg. 4 thread's two run slots (Chen et al. §5; the tree is
// ct_aggregate.cuh's), run by that thread once its loop is done (accumulate.cu): each thread makes
// ⌈n/T⌉ additions (but for the last spans), so a warp's threads reach it together, and a launch of
// its own (ct_open_kernel before: ~0.04 ms at 2^16, against ~0.02 more in Alg. 4 here; bench/
// gpu-notes.md) goes. What it does for thread tid of window j:
// - its head and tail slots, XYZZ in Workspace::ct_runs, become homogeneous in §5's buffer (3M each),
//   the tail one as level 1's node (ct_first_level: a select, no addition), so that §5's launches
//   start at kCtFirstDistance;
// - its head piece's weight goes to the window's count (Workspace::ct_heads): where its span starts
//   inside its first key's run, that run began from R, not from the bucket, and the R stays: every
//   head piece adds one R to its bucket v, so Q_j holds bucket_weight(v)·R more per head piece than
//   bucket_weights' public multiple, which the host takes off the result (combine.hpp unblinded)
//   with no point arithmetic here (taking R off each head slot by RCB Alg. 8, 11M + 2m_3b, was ~60 %
//   of ct_open's products; bench/gpu-notes.md);
// - the padding pair T + tid, past the 2T slots Alg. 4 writes, is stored O with index 0 (§5's
//   staged OUTs of an earlier call may lie there; there are fewer than T such pairs).
// Which slots, pairs and stores a thread touches depends on T, j and tid alone.
#pragma once

#include "reduce.cuh"
#include "stages.cuh"

namespace msm::gpu {

// The head pieces' weights into window j's count: summed over the warp (below 2^28: 32 weights below
// 2^23, reduce.cuh bucket_weight), one atomic a warp where every lane of it is a thread of the window
// (`whole`: T a multiple of 32, which depends on T alone), else lane by lane. Integer sums, so the
// order of the atomics leaves the count as it is.
__device__ __forceinline__ void add_head_weights(unsigned long long* count, uint32_t weight, bool whole) {
  if (whole) {
    for (int o = 16; o > 0; o >>= 1) weight += __shfl_xor_sync(0xffffffffu, weight, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(count, (unsigned long long)weight);
  } else {
    atomicAdd(count, (unsigned long long)weight);
  }
}

// Thread tid < T of window j, its span sp over the window's keys; every thread of the window's
// warps calls it.
template <class G>
__device__ __forceinline__ void ct_open(const Workspace<G>& w, uint32_t j, uint32_t tid, Span sp,
                                        const WindowKeys& keys) {
  const uint32_t half = w.ct_padded() / 2;
  const size_t window = size_t(j) * 2 * half;
  HomOf<G>* const buf = w.ct_buffer() + window;
  uint32_t* const index = w.buf_index + window;
  const bool head = sp.s < sp.e && sp.s > 0 && keys[sp.s - 1] == keys[sp.s];
  const uint32_t weight = head ? bucket_weight(keys[sp.s], !w.plain()) : 0;
  const HomOf<G> h = HomOf<G>::from_xyzz(w.ct_runs[window + 2 * tid]);
  buf[2 * tid] = h;
  buf[2 * tid + 1] = ct_first_level(index, 2 * tid, h, HomOf<G>::from_xyzz(w.ct_runs[window + 2 * tid + 1]));
  add_head_weights(w.ct_heads + j, weight, w.T % 32 == 0);
  const uint32_t pad = w.T + tid;
  if (pad < half) {
    buf[2 * pad] = buf[2 * pad + 1] = HomOf<G>::infinity();
    index[2 * pad] = index[2 * pad + 1] = 0;
  }
}

}  // namespace msm::gpu
