#include "env.hpp"

#include <cstdlib>
#include <cstring>

namespace msm {

const Environment& environment() {
  static const Environment env = [] {
    Environment e;
    const auto is = [](const char* name, const char* value) {
      const char* v = std::getenv(name);
      return v && std::strcmp(v, value) == 0;
    };
    e.cpu_simd = !is("MSM_CPU_SIMD", "0");
    e.cuda_acc_sum = is("MSM_CUDA_ACC", "registers") ? 1 : is("MSM_CUDA_ACC", "shared") ? 2 : 0;
    // An integer in [lo, hi], else (unset, not a number, out of range) `dflt`.
    const auto integer = [](const char* name, long lo, long hi, int dflt) {
      const char* v = std::getenv(name);
      if (!v) return dflt;
      char* end = nullptr;
      const long x = std::strtol(v, &end, 10);
      return end != v && *end == 0 && x >= lo && x <= hi ? int(x) : dflt;
    };
    e.cuda_chunk_log = integer("MSM_CUDA_CHUNK_LOG", 0, 20, -1);
    e.cuda_sort_group = integer("MSM_CUDA_SORT_GROUP", 1, 64, 0);
    e.cuda_buckets = is("MSM_CUDA_BUCKETS", "windows") ? 1
                     : is("MSM_CUDA_BUCKETS", "shared")  ? 2
                     : is("MSM_CUDA_BUCKETS", "levels")  ? 3
                                                         : 0;
    e.cuda_pieces = integer("MSM_CUDA_PIECES", 1, 8, 0);
    e.cuda_heavy = integer("MSM_CUDA_HEAVY", 1, 64, 0);
    e.cuda_waves = integer("MSM_CUDA_WAVES", 1, 8, 0);
    e.cuda_profile = std::getenv("MSM_CUDA_PROFILE") != nullptr;
    e.cuda_profile_host = is("MSM_CUDA_PROFILE", "host");
    e.cuda_upload_pageable = is("MSM_CUDA_UPLOAD", "pageable");
    e.cuda_blind_base0 = is("MSM_CUDA_BLIND", "base0");
    return e;
  }();
  return env;
}

}  // namespace msm
