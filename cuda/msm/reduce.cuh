// Bucket reduction schedule: Chen et al. §3.4 (layered parallel reduction, Fig. 6) and the final
// summation, after an optional chunk level. M buckets per window at positions 0 … M−1: with §3.1's
// odd digits (M = 2^(c−2)) position p holds B_{2p+1} and the window's sum is Q_j = Σ_p (2p+1)·B_p;
// with one bucket set for all windows (recode.cuh shared_bucket, M = 2^(c−1)) position p holds
// B_{p+1} and Q = Σ_p (p+1)·B_p. Both are Σ_p (a·p + 1)·B_p, a = 2 ("odd") or 1.
//
// Chunk level (l > 0; plan.cpp picks l so that W·M/2^l threads fill the device). The layered
// rounds cost M/2 additions each, log2 M of them, so for the large M of c > 16 the positions are
// first cut into K = M/L chunks of L = 2^l, one thread each running the serial running sum over its
// chunk (2(L − 1) additions, the summation-by-parts of bucket reduction): with p = kL + i,
//   R_k = Σ_i B_{kL+i},   T_k = Σ_i (i+1)·B_{kL+i},   Σ_i (a·i+1)·B_{kL+i} = a·T_k − (a−1)·R_k,
//   Q_j = Σ_k (a·kL·R_k + a·T_k − (a−1)·R_k) = a·(L·Σ_k k·R_k + Σ_k T_k) − (a−1)·Σ_k R_k,
// so the layered reduction below runs on the K points R_k, whose suffix sums give
// Σ_k k·R_k = Σ_{k ≥ 1} B̂_k and Σ_k R_k = B̂_0, and the summation tree also sums the T_k. The chunk
// threads end with their running sums: every doubling by L sits in window_sum (one task a window),
// not on each chunk's chain (l + 2 serial steps a chunk before, bench/gpu-notes.md). l = 0 is the
// plain §3.4 reduction.
//
// Layered suffix sums, rounds r = 1 … log2 K, K/2 tasks each, one addition per task:
//   baseline = 2^r·⌊t/2^(r−1)⌋ + 2^(r−1),  offset = (t mod 2^(r−1)) + 1,
//   B[(baseline+offset)-th to last] += B[baseline-th to last]
// (the k-th to last bucket is position K − k). After round r every aligned block of 2^r buckets
// holds its own suffix sums; a round reads only blocks it does not write, so its tasks are
// independent. Afterwards B̂_p = Σ_{q ≥ p} B_q.
//
// Final summation: a binary tree over positions, rounds r = 1 … log2 K with K/2^r tasks:
//   B[t·2^r] += B[t·2^r + 2^(r−1)],
// so position 0 ends with Σ_p B̂_p = Σ_p (p+1)·B_p. With B̂_0 saved before the tree,
//   Q = a·Σ_p B̂_p − (a−1)·B̂_0 = Σ_p (a·p+1)·B_p        (a = 2: §3.4, last paragraph).
// After a chunk level position 0 is set to O once B̂_0 is saved, so the tree ends with
// Σ_{k ≥ 1} B̂_k, and Q = a·(2^l·Σ_{k ≥ 1} B̂_k + Σ_k T_k) − (a−1)·B̂_0.
// The windows then combine by Horner: Q = Σ_j 2^(jc)·Q_j (one window where they share the buckets).
#pragma once

#include <cstdint>

#include "../ff/common.hpp"

namespace msm::gpu {

struct Task {
  uint32_t dst, src;
};

// Round r ∈ [1, log_m], task t ∈ [0, M/2) of the layered suffix sum.
MSM_HD MSM_INLINE Task layered_task(int log_m, int r, uint32_t t) {
  const uint32_t M = 1u << log_m, half = 1u << (r - 1);
  const uint32_t baseline = (1u << r) * (t / half) + half;
  const uint32_t offset = (t % half) + 1;
  return Task{M - (baseline + offset), M - baseline};
}
MSM_HD MSM_INLINE uint32_t layered_tasks(int log_m) { return log_m > 0 ? (1u << log_m) >> 1 : 0; }

// Round r ∈ [1, log_m], task t ∈ [0, M >> r) of the summation tree.
MSM_HD MSM_INLINE Task tree_task(int r, uint32_t t) {
  const uint32_t dst = t << r;
  return Task{dst, dst + (1u << (r - 1))};
}
MSM_HD MSM_INLINE uint32_t tree_tasks(int log_m, int r) { return (1u << log_m) >> r; }

// Block-local rounds. Rounds r ≤ b of either phase stay inside aligned groups of G = 2^b positions:
// layered tasks t ∈ [g·2^(b−1), (g+1)·2^(b−1)) read and write only the k-th to last positions for
// k ∈ (g·G, (g+1)·G], and the tree's round-r tasks u ∈ [g·2^(b−r), (g+1)·2^(b−r)) only positions
// [g·G, (g+1)·G). So a block whose threads cover whole groups runs those rounds with block barriers,
// and only rounds b+1 … log2 K need the grid's (a grid barrier costs ~6 µs on the H100, about one
// BN254 addition: 44 % of the rounds' stalls at 2^16, bench/gpu-notes.md).
MSM_HD MSM_INLINE int local_rounds(int log_k, int log_threads) {
  return log_k < log_threads + 1 ? log_k : log_threads + 1;
}
// Tree round r ≤ b, lane i of group g: a task while i < 2^(b−r).
MSM_HD MSM_INLINE bool tree_local_active(int b, int r, uint32_t i) { return i < (1u << (b - r)); }
MSM_HD MSM_INLINE Task tree_local_task(int b, int r, uint32_t g, uint32_t i) {
  return tree_task(r, (g << (b - r)) + i);
}

// The chunk level for one chunk B[0, 2^l) (X: a point type with add, dbl and negation, or an
// integer stand-in in the host tests; as(B_i): a bucket in X's form, read as it is added):
// *R = Σ_i B_i and *T = Σ_i (i+1)·B_i, by the running sum from the top (s = Σ_{q ≥ i} B_q,
// t += s): 2(L − 1) additions, whose chain is the L − 1 of s and one.
template <class X, class B, class As>
MSM_HD MSM_INLINE void chunk_sums(const B* bucket, int l, X* R, X* T, As&& as) {
  const uint32_t L = 1u << l;
  X s = as(bucket[L - 1]), t = s;
  for (uint32_t i = L - 1; i-- > 0;) {
    s = s.add(as(bucket[i]));
    t = t.add(s);
  }
  *R = s;
  *T = t;
}
// The same for buckets already of X.
template <class X>
MSM_HD MSM_INLINE void chunk_sums(const X* bucket, int l, X* R, X* T) {
  chunk_sums(bucket, l, R, T, [](const X& p) { return p; });
}

// Whether the tree's position 0 is set to O once B̂_0 is saved: after a chunk level (l > 0).
MSM_HD MSM_INLINE bool tree_drops_first(int l) { return l > 0; }

// Q_j from the tree's total and B̂_0, in place in *total: without a chunk level (tsum null) total =
// Σ_p B̂_p and Q = a·total − (a−1)·B̂_0; after one total = Σ_{k ≥ 1} B̂_k, *tsum = Σ_k T_k and
// Q = a·(2^l·total + Σ_k T_k) − (a−1)·B̂_0 (a = 2 for odd, else 1); *bhat0 is negated on the way.
// dbl(x), add(x, y) and neg(x) double x, add y to x and negate x in place: a thread's point
// operations (window_sum below), or the reduction's quad of lanes (reduce.cu), whose steps each
// wait on 3–4 products instead of 9–14 (l + 1 of them at BN254 2^20, on the MSM's last chain).
template <class X, class Dbl, class Add, class Neg>
MSM_HD MSM_INLINE void window_sum_to(X* total, X* bhat0, int l, bool odd, const X* tsum, Dbl&& dbl, Add&& add,
                                     Neg&& neg) {
  if (tsum) {
    for (int k = 0; k < l; ++k) dbl(total);
    add(total, tsum);
  }
  if (odd) {
    dbl(total);
    neg(bhat0);
    add(total, bhat0);
  }
}
template <class X>
MSM_HD MSM_INLINE X window_sum(const X& total, const X& bhat0, int l, bool odd, const X* tsum) {
  X q = total, b = bhat0;
  window_sum_to(
      &q, &b, l, odd, tsum, [](X* a) { *a = a->dbl(); }, [](X* a, const X* y) { *a = a->add(*y); },
      [](X* a) { *a = -*a; });
  return q;
}

// Σ_p (a·p + 1) over the M = 2^log_m positions: the multiple of a point every bucket of a window
// holds (the constant-time mode's R, accumulate.cu ConstantTimeAcc) that Q_j holds; a·M(M − 1)/2 + M,
// M² for odd digits. Below 2^45 for every window the plans take (M ≤ 2^22).
MSM_HD MSM_INLINE uint64_t bucket_weights(int log_m, bool odd) {
  const uint64_t M = uint64_t(1) << log_m;
  return odd ? M * M : M * (M + 1) / 2;
}
// a·p + 1 for bucket v ≥ 1 (position p = v − 1), 0 for v = 0 (the zero digits, which reach no
// bucket): the multiple of a point in bucket v that Q_j holds. Below 2^23 for M ≤ 2^22. The
// constant-time mode counts its head pieces' R by it (ct_open.cuh).
MSM_HD MSM_INLINE uint32_t bucket_weight(uint32_t v, bool odd) {
  const uint32_t w = odd ? 2 * v - 1 : v;
  return v == 0 ? 0 : w;
}

}  // namespace msm::gpu
