// Bucket reduction schedule: Chen et al. §3.4 (layered parallel reduction, Fig. 6) and the final
// summation. M = 2^(c−2) buckets per window at positions 0 … M−1 (position p holds B_{2p+1}).
//
// Layered suffix sums, rounds r = 1 … log2 M, M/2 tasks each, one addition per task:
//   baseline = 2^r·⌊t/2^(r−1)⌋ + 2^(r−1),  offset = (t mod 2^(r−1)) + 1,
//   B[(baseline+offset)-th to last] += B[baseline-th to last]
// (the k-th to last bucket is position M − k). After round r every aligned block of 2^r buckets
// holds its own suffix sums; a round reads only blocks it does not write, so its tasks are
// independent. Afterwards B̂_p = Σ_{q ≥ p} B_q.
//
// Final summation: a binary tree over positions, rounds r = 1 … log2 M with M/2^r tasks:
//   B[t·2^r] += B[t·2^r + 2^(r−1)],
// so position 0 ends with Σ_p B̂_p = Σ_p (p+1)·B_p. With B̂_0 saved before the tree,
//   Q_j = 2·Σ_p B̂_p − B̂_0 = Σ_p (2p+1)·B_p                                   (§3.4, last paragraph).
// The windows then combine by Horner: Q = Σ_j 2^(jc)·Q_j.
#pragma once

#include <cstdint>

#include "../ff/common.hpp"

namespace msm::gpu {

struct Task {
  uint32_t dst, src;
};

MSM_HD MSM_INLINE int log2_buckets(int c) { return c - 2; }

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

}  // namespace msm::gpu
