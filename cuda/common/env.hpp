// The one place that reads the environment: every MSM_* variable the native code honours, read once
// at first use. (The build reads MSM_DISABLE_CUDA and MSM_CUDA_ARCH; lib/ reads none.)
#pragma once

namespace msm {

struct Environment {
  // MSM_CPU_SIMD=0: the CPU backend's batched additions stay off the AVX-512 IFMA lanes.
  bool cpu_simd = true;
  // MSM_CUDA_ACC=registers|shared: where G1's accumulation kernels keep their running sums
  // (cuda/msm/tuning.hpp acc_shared_for; for comparison): 0 = by the context's size, 1 = registers,
  // 2 = shared memory.
  int cuda_acc_sum = 0;
  // MSM_CUDA_CHUNK_LOG=l (0 … 20): the chunk level of the bucket reduction (cuda/msm/reduce.cuh),
  // 2^l buckets per chunk, clamped to the window's buckets; −1 = the plan's choice (for measuring).
  int cuda_chunk_log = -1;
  // MSM_CUDA_SORT_GROUP=g (1 … 64): windows per radix sort (cuda/msm/sort.cu), clamped to the
  // windows; 0 = the plan's choice (for measuring, and to test groups of unequal size).
  int cuda_sort_group = 0;
  // MSM_CUDA_BUCKETS=shared|levels|windows: one bucket set for all windows (of plain digits, or of
  // odd digits over every level), or one per window, whatever the cost model says (cuda/msm/plan.hpp
  // Plan::shared_buckets, Plan::levels; shared only where no τ is asked for and the table fits):
  // 0 = the plan's choice, 1 = windows, 2 = shared, 3 = levels (for measuring and tests).
  int cuda_buckets = 0;
  // MSM_CUDA_PIECES=k (1 … 8): a call whose scalars are handed over while copied runs in k pieces at
  // any n ≥ k (1: no split); 0 = the plan's choice (cuda/msm/plan.hpp Plan::pieces).
  int cuda_pieces = 0;
  // MSM_CUDA_HEAVY=h (1 … 64): the default mode's Alg. 5 sums a split bucket over more than h threads
  // by a block; 0 = the plan's choice (cuda/msm/plan.hpp Plan::heavy_pieces; for measuring).
  int cuda_heavy = 0;
  // MSM_CUDA_WAVES=k (1 … 8): every Alg. 4 launch takes k waves of its resident threads (cuda/msm/
  // plan.hpp Plan::waves), whatever its entries; 0 = the plan's choice, and each launch as many of
  // those as its entries allow (accumulate.cuh alg4_waves). For measuring and tests.
  int cuda_waves = 0;
  // MSM_CUDA_PROFILE (any value): per-stage device times of every MSM on stderr, and the host's
  // phases (call-time copy, launches).
  bool cuda_profile = false;
  bool cuda_profile_host = false;  // MSM_CUDA_PROFILE=host: the host's phases only, no device timing events
  // MSM_CUDA_UPLOAD=pageable: scalars go to the device straight from the caller's memory rather
  // than through pinned staging (for comparison).
  bool cuda_upload_pageable = false;
  // MSM_CUDA_BLIND=base0: the constant-time mode's blinding point is the context's first base
  // (cuda/msm/engine.cu), so that tests reach the accumulation's exceptional additions.
  bool cuda_blind_base0 = false;
};

const Environment& environment();

}  // namespace msm
