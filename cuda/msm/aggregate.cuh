// Aggregation of the buffered runs into buckets: Chen et al. §3.3 step 3, Alg. 5 (index logic).
//
// After Alg. 4 a window's buffer holds, thread by thread, runs with strictly increasing bucket
// indices inside a thread and non-decreasing ones across threads. Bucket b's pieces therefore sit
// in a contiguous range of threads [t0, t1): t0 holds its first piece, and every thread after it up
// to t1 starts with b (only a thread's last run can go on into the next). The paper's Alg. 5 gives
// each bucket a thread that finds t0 by a binary search over the threads; here each Alg. 4 thread
// sums the buckets whose first piece it holds (for_each_first_piece), which needs no search but
// for the heavy buckets. Empty threads (buffer_used = 0) are only at the tail.
//
// A bucket spread over many threads (all scalars equal, a few distinct values) is summed by a whole
// block instead of one thread (aggregate.cu, "heavy" buckets): a single GPU thread adding thousands
// of points one after another would dominate the MSM.
#pragma once

#include <cstdint>

#include "../ff/common.hpp"
#include "accumulate.cuh"

namespace msm::gpu {

struct BufferView {
  const uint32_t* offset;  // [T]
  const uint32_t* index;   // [T + 2^(c−2)]
  const uint32_t* used;    // [T]
  uint32_t T;
  MSM_HD MSM_INLINE uint32_t first_idx(uint32_t t) const { return index[offset[t]]; }
  MSM_HD MSM_INLINE uint32_t last_idx(uint32_t t) const { return index[offset[t] + used[t] - 1]; }
  // for_each_piece: a bucket over several threads starts at its first thread's last run and goes on
  // in the first run of each thread after it.
  MSM_HD MSM_INLINE uint32_t tail(uint32_t t) const { return offset[t] + used[t] - 1; }
  MSM_HD MSM_INLINE uint32_t head(uint32_t t) const { return offset[t]; }
};

// Smallest thread t with first_idx(t) > b (empty threads count as +∞); T if none.
MSM_HD MSM_INLINE uint32_t end_thread_of(const BufferView& v, uint32_t b) {
  uint32_t lo = 0, hi = v.T;
  while (lo < hi) {
    const uint32_t mid = lo + ((hi - lo) >> 1);
    if (v.used[mid] != 0 && v.first_idx(mid) <= b) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
// The slot of thread t's piece of a bucket whose first thread is t0: t0's tail slot, then each later
// thread's head slot (View: BufferView, or DirectView below).
template <class View>
MSM_HD MSM_INLINE uint32_t piece_slot(const View& v, uint32_t t0, uint32_t t) {
  return t == t0 ? v.tail(t) : v.head(t);
}
// Calls f(slot) for the pieces of a bucket whose first thread is t0 that threads [from, to) hold
// (t0 ≤ from, every thread up to the bucket's last starting with it) and thread k of `stride` takes:
// from + k, from + k + stride, …
template <class View, class F>
MSM_HD MSM_INLINE void for_each_piece(const View& v, uint32_t t0, uint32_t from, uint32_t to, uint32_t k,
                                      uint32_t stride, F&& f) {
  for (uint32_t t = from + k; t < to; t += stride) f(piece_slot(v, t0, t));
}

// Buckets whose pieces span more threads than this go to the block-wide (heavy) path (the default
// mode: Plan::heavy_pieces, this or kHeavyPiecesLevels).
constexpr uint32_t kHeavyPieces = 16;
constexpr uint32_t kHeavyPiecesLevels = 4;

// A heavy bucket over many threads is split into parts, a block each (aggregate.cu heavy_kernel):
// with all scalars equal a window's n entries are one bucket, or with one bucket set for all windows
// (Plan::shared_buckets) about D buckets hold all D·n, and a block each left the rest of the grid
// idle while its threads chained ~T/(D·kAggBlock) additions. Each part writes its sum over its
// first piece's slot (read by that part alone), and the block that ends a bucket's last part adds
// the parts' sums. A bucket takes one part per kHeavyPartPieces threads' pieces (rounded up: up to
// one piece per thread of a block), at most `most` (the grid's share per heavy bucket).
constexpr uint32_t kHeavyPartPieces = 128;
MSM_HD MSM_INLINE uint32_t heavy_parts(uint32_t t0, uint32_t t1, uint32_t most) {
  const uint32_t q = (t1 - t0 + kHeavyPartPieces - 1) / kHeavyPartPieces;
  return q < most ? q : most;
}
// Buckets a block of `block` threads sums at once: 1 (the whole block per bucket, or per part)
// while the grid has a block for every queued bucket, else 2, 4, … groups of ≥ 32 threads, so that
// more buckets than blocks are summed in one wave of the resident grid. Each group's sum is a chain
// of additions (its strided pieces, then a tree) of latency-bound length: a block taking two buckets
// one after the other pays ~2·(⌈pieces/block⌉ − 1 + log2 block) additions, two half-blocks
// ⌈pieces/(block/2)⌉ − 1 + log2 block − 1. (32 distinct scalars at BLS12-381 2^16: ~512 buckets of
// ~130 pieces against 396 resident blocks; bench/gpu-notes.md.) With more than one group `most` is
// 1: a bucket is one part.
MSM_HD MSM_INLINE uint32_t heavy_groups(uint32_t count, uint32_t grid, uint32_t block) {
  uint32_t g = 1;
  while (block / (2 * g) >= 32 && uint64_t(count) > uint64_t(grid) * g) g *= 2;
  return g;
}

// Part p of q of the threads [t0, t1): an even split, none empty (q ≤ t1 − t0).
struct PartRange {
  uint32_t from, to;
};
MSM_HD MSM_INLINE PartRange heavy_part(uint32_t t0, uint32_t t1, uint32_t q, uint32_t p) {
  const uint64_t n = t1 - t0;
  return PartRange{t0 + uint32_t(n * p / q), t0 + uint32_t(n * (p + 1) / q)};
}

// Whether thread t holds the first piece of a heavy bucket: only a thread's last run can go on into
// the next threads, so a bucket spanning several threads is b = last_idx(t0) of its first thread t0,
// which t0 − 1 ends below; its pieces span more than kHeavyPieces threads exactly when thread t0 +
// kHeavyPieces still starts with b (first indices do not decrease, and are ≥ b from t0 on). True
// when t is such a t0.
MSM_HD MSM_INLINE bool heavy_starts_at(const BufferView& v, uint32_t t) {
  if (v.used[t] == 0) return false;
  const uint32_t last = v.last_idx(t);
  if (t > 0 && v.used[t - 1] != 0 && v.last_idx(t - 1) >= last) return false;
  const uint32_t u = t + kHeavyPieces;
  return u < v.T && v.used[u] != 0 && v.first_idx(u) == last;
}

// Alg. 5 from the Alg. 4 threads' side (aggregate.cu scatter_kernel, the homogeneous mode), in
// place of one thread per bucket searching for its pieces: a thread's runs have increasing buckets,
// only its first can continue the previous thread's last run and only its last go on into the next
// threads. So thread t sums every bucket whose first piece it holds, each of its runs but a first
// one that continues (continues_run): f(b, slot, t1) for bucket b from `slot`, plus, for its last
// run, the first slots of threads t + 1 … t1 − 1 (those that start with b, at most kHeavyPieces);
// heavy(b, t1) where more threads than that hold b (heavy_starts_at), for the block-wide path.
MSM_HD MSM_INLINE bool continues_run(const BufferView& v, uint32_t t) {
  return t > 0 && v.used[t] != 0 && v.used[t - 1] != 0 && v.last_idx(t - 1) == v.first_idx(t);
}
template <class F, class Heavy>
MSM_HD MSM_INLINE void for_each_first_piece(const BufferView& v, uint32_t t, F&& f, Heavy&& heavy) {
  const uint32_t u = v.used[t], o = v.offset[t];
  for (uint32_t r = continues_run(v, t) ? 1 : 0; r < u; ++r) {
    const uint32_t slot = o + r, b = v.index[slot];
    uint32_t t1 = t + 1;
    if (r == u - 1) {
      if (heavy_starts_at(v, t)) {
        heavy(b, end_thread_of(v, b));
        continue;
      }
      while (t1 < v.T && v.used[t1] != 0 && v.first_idx(t1) == b) ++t1;
    }
    f(b, slot, t1);
  }
}

// The aggregation after accumulate_thread_direct (accumulate.cuh), from what its threads recorded:
// every bucket not split over threads is already in place, and split bucket b = split[t0] is thread
// t0's tail slot plus the head slots of threads t0 + 1 … t1 − 1, those whose first key lead[t] is b
// (first keys do not decrease, are ≥ b after t0, and empty spans, only at the tail, count as +∞).
struct DirectView {
  const uint32_t* lead;   // [T] each thread's first key (kNoLead: empty span)
  const uint32_t* split;  // [T] the split bucket each thread's tail slot starts (0: none)
  uint32_t T;
  MSM_HD MSM_INLINE uint32_t tail(uint32_t t) const { return tail_slot(t); }
  MSM_HD MSM_INLINE uint32_t head(uint32_t t) const { return head_slot(t); }
};
// The first thread in (t0, hi) whose first key is not b (hi if none).
MSM_HD MSM_INLINE uint32_t split_end(const DirectView& v, uint32_t t0, uint32_t b, uint32_t hi) {
  uint32_t lo = t0 + 1;
  while (lo < hi) {
    const uint32_t mid = lo + ((hi - lo) >> 1);
    if (v.lead[mid] == b) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
// t1 of split bucket b starting at thread t0; a first search up to the heavy bound keeps the light
// buckets' searches short.
MSM_HD MSM_INLINE uint32_t split_end(const DirectView& v, uint32_t t0, uint32_t b) {
  const uint32_t lim = t0 + kHeavyPieces + 1 < v.T ? t0 + kHeavyPieces + 1 : v.T;
  const uint32_t t1 = split_end(v, t0, b, lim);
  return t1 == lim && lim < v.T && v.lead[lim] == b ? split_end(v, lim, b, v.T) : t1;
}

}  // namespace msm::gpu
