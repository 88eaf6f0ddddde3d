// Dispatch decisions of the GPU backend that need no device: the window size c by a cost model of
// n, and the default precompute depth τ. Plain C++ (the host tests and the CUDA engine share it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "recode.cuh"

namespace msm::gpu {

// Estimated cost, in mixed additions, of one MSM of n points with window c (W windows):
//   W·n                     Alg. 4: one mixed addition per non-zero digit (≈ all of them)
//   W·M·(log2 M / 2 + 1)·k  §3.4: M/2 additions per layered round, M − 1 for the summation
//                           tree; k ≈ 1.5 as they are full XYZZ additions
//   2·log2 M·L              the rounds' latency: each round is at least one dependent addition
//                           plus a grid barrier, worth ≈ L additions of throughput
//   W·n·s                   the per-window radix sort, ≈ s of an addition per entry
inline double window_cost(double n, int c, int W) {
  const double M = double(1u << (c - 2));
  const double log_m = double(c - 2);
  constexpr double k_full = 1.5, latency = 40000.0, sort = 0.05;
  return W * n * (1.0 + sort) + W * M * (log_m / 2 + 1) * k_full + 2 * log_m * latency;
}

// rm1: r − 1 as 8 little-endian words; bits: bit length of r.
inline int choose_window_bits(size_t n, const uint32_t* rm1, int bits) {
  int best = 8;
  double best_cost = 1e300;
  for (int c = 4; c <= kMaxWindowBits; ++c) {
    const double cost = window_cost(double(n), c, num_windows(rm1, kScalarWords, bits, c));
    if (cost < best_cost) best_cost = cost, best = c;
  }
  return best;
}

}  // namespace msm::gpu
