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
    e.cuda_acc_budget = is("MSM_CUDA_ACC", "wide") ? 1 : is("MSM_CUDA_ACC", "tight") ? 2 : 0;
    if (const char* v = std::getenv("MSM_CUDA_CHUNK_LOG")) {
      char* end = nullptr;
      const long l = std::strtol(v, &end, 10);
      if (end != v && *end == 0 && l >= 0 && l <= 20) e.cuda_chunk_log = int(l);
    }
    if (const char* v = std::getenv("MSM_CUDA_SORT_GROUP")) {
      char* end = nullptr;
      const long g = std::strtol(v, &end, 10);
      if (end != v && *end == 0 && g >= 1 && g <= 64) e.cuda_sort_group = int(g);
    }
    e.cuda_profile = std::getenv("MSM_CUDA_PROFILE") != nullptr;
    e.cuda_upload_pageable = is("MSM_CUDA_UPLOAD", "pageable");
    return e;
  }();
  return env;
}

}  // namespace msm
