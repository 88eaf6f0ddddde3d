// CUDA plumbing for the GPU backend: every runtime call and launch is checked and mapped to an
// EngineError (ERR_CUDA_OOM for allocation failures, ERR_CUDA naming the call otherwise), and
// device / pinned memory is owned by RAII buffers so that any throw frees what was allocated.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "../engine.hpp"

namespace msm::gpu {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  // Clear the error state where the error is not sticky (allocation failures, bad arguments), so the
  // process and other contexts stay usable; a sticky error (a kernel fault) stays, as CUDA requires.
  cudaGetLastError();
  // The source position relative to the package (cuda/msm/…), not the build machine's path.
  const char* rel = file;
  for (const char* p = file; *p; ++p)
    if (std::strncmp(p, "cuda/", 5) == 0) rel = p;
  std::string msg = std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") at " +
                    rel + ":" + std::to_string(line);
  if (e == cudaErrorMemoryAllocation) throw EngineError("ERR_CUDA_OOM", "out of device memory: " + msg);
  throw EngineError("ERR_CUDA", msg);
}

#define MSM_CUDA_CHECK(call)                                                                   \
  do {                                                                                         \
    const cudaError_t msm_err_ = (call);                                                       \
    if (msm_err_ != cudaSuccess) ::msm::gpu::throw_cuda(msm_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a <<<>>> launch: launch-configuration errors are reported by cudaGetLastError.
#define MSM_LAUNCH_CHECK(name)                                                                \
  do {                                                                                        \
    const cudaError_t msm_err_ = cudaGetLastError();                                          \
    if (msm_err_ != cudaSuccess) ::msm::gpu::throw_cuda(msm_err_, name, __FILE__, __LINE__); \
  } while (0)

// Device memory: cudaMalloc / cudaFree, counted for device_memory().
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { allocate(count); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = o.p_, n_ = o.n_;
      o.p_ = nullptr, o.n_ = 0;
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  void allocate(size_t count) {
    release();
    if (count == 0) return;
    void* p = nullptr;
    MSM_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
    p_ = static_cast<T*>(p);
    n_ = count;
  }
  void release() {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// Page-locked host memory for asynchronous copies.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { release(); }
  void allocate(size_t count) {
    release();
    if (count == 0) return;
    void* p = nullptr;
    MSM_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
    p_ = static_cast<T*>(p);
    n_ = count;
  }
  void release() {
    if (p_) cudaFreeHost(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

inline unsigned blocks_for(size_t threads, unsigned block) { return unsigned((threads + block - 1) / block); }

}  // namespace msm::gpu
