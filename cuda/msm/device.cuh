// CUDA plumbing for the GPU backend: every runtime call and launch is checked and mapped to an
// EngineError (ERR_CUDA_OOM for allocation failures, ERR_CUDA naming the call otherwise); device /
// pinned memory, streams and events are owned by RAII types so that any throw frees what was
// created; the per-stage profiler (MSM_CUDA_PROFILE) and the device checks live here too.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "../common/env.hpp"
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

// As many blocks of `kernel` (`block` threads, no dynamic shared memory) as can be resident at once
// beside nothing else.
template <class K>
unsigned resident_grid(K kernel, unsigned block, int device) {
  int sms = 0, blocks = 0;
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, int(block), 0));
  if (blocks < 1) throw EngineError("ERR_CUDA", "a kernel cannot be resident on the device");
  return unsigned(sms) * unsigned(blocks);
}

// `value` in `count` points (O: launch_fill_infinity), written word by word from a copy of its
// words so that a warp's stores are consecutive (a point per thread, 24 words apart at BLS12-381,
// ran at ~0.35 TB/s: 1.1 ms at 2^21 buckets, bench/gpu-notes.md).
constexpr unsigned kFillBlock = 256;
template <class P>
__global__ void __launch_bounds__(kFillBlock) fill_kernel(uint64_t* __restrict__ words, uint32_t count, P value) {
  constexpr uint32_t K = sizeof(P) / 8;
  __shared__ uint64_t pattern[K];
  if (threadIdx.x == 0) memcpy(pattern, &value, sizeof(P));
  __syncthreads();
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) words[i] = pattern[i % K];
}
template <class P>
void launch_fill(P* points, size_t count, const P& value, cudaStream_t s) {
  static_assert(sizeof(P) % 8 == 0, "points of 64-bit words");
  const uint64_t words = uint64_t(count) * (sizeof(P) / 8);
  if (words == 0) return;
  if (words >= (uint64_t(1) << 32)) throw EngineError("ERR_CUDA", "fill_kernel: too many words");
  fill_kernel<P><<<blocks_for(words, kFillBlock), kFillBlock, 0, s>>>(reinterpret_cast<uint64_t*>(points),
                                                                     uint32_t(words), value);
  MSM_LAUNCH_CHECK("fill_kernel");
}
template <class P>
void launch_fill_infinity(P* points, size_t count, cudaStream_t s) {
  launch_fill(points, count, P::infinity(), s);
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { MSM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s) cudaStreamDestroy(s);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

struct Event {
  cudaEvent_t e = nullptr;
  Event() { MSM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// MSM_CUDA_PROFILE (any value): per-stage times of every MSM on stderr: the device's (timing events
// between stages; with =host none, and no figure printed) and, in brackets, the host's since the
// previous mark (for the stages of one piece, the time its launches took).
class Profiler {
 public:
  Profiler() : on_(environment().cuda_profile), events_(!environment().cuda_profile_host) {}
  void mark(const char* name, cudaStream_t s) {
    if (!on_ || count_ == kMax) return;
    if (events_) {
      if (!ev_[count_]) MSM_CUDA_CHECK(cudaEventCreate(&ev_[count_]));
      MSM_CUDA_CHECK(cudaEventRecord(ev_[count_], s));
    }
    host_[count_] = std::chrono::steady_clock::now();
    names_[count_++] = name;
  }
  // Prints the stages marked since the last report, once the last of them is done.
  void report(size_t n, double host_ms) {
    if (!on_ || count_ < 2) return void(count_ = 0);
    if (events_) MSM_CUDA_CHECK(cudaEventSynchronize(ev_[count_ - 1]));
    std::fprintf(stderr, "[msm-cuda profile] n=%zu", n);
    for (int i = 1; i < count_; ++i) {
      std::fprintf(stderr, " %s", names_[i]);
      if (events_) {  // =host has no device times: the host's alone, not a device time of 0
        float ms = 0;
        MSM_CUDA_CHECK(cudaEventElapsedTime(&ms, ev_[i - 1], ev_[i]));
        std::fprintf(stderr, " %.3f", ms);
      }
      std::fprintf(stderr, " (%.3f)", std::chrono::duration<double, std::milli>(host_[i] - host_[i - 1]).count());
    }
    std::fprintf(stderr, " | host total %.3f ms\n", host_ms);
    count_ = 0;
  }
  ~Profiler() {
    for (auto e : ev_)
      if (e) cudaEventDestroy(e);
  }

 private:
  static constexpr int kMax = 64;  // marks per report: a call in Plan::kMaxPieces pieces
  bool on_, events_;
  int count_ = 0;
  cudaEvent_t ev_[kMax] = {};
  std::chrono::steady_clock::time_point host_[kMax];
  const char* names_[kMax] = {};
};

// MSM_CUDA_PROFILE (any value): the call-time copy's phases (engine.cu copy_uploading) on the host
// clock, printed by print() with the time the copy threads spent in their cudaMemcpyAsync calls,
// summed.
class HostLaps {
 public:
  using Clock = std::chrono::steady_clock;
  HostLaps() : on_(environment().cuda_profile), start_(Clock::now()), last_(start_) {}
  void lap(const char* name) {
    if (!on_ || count_ == kMax) return;
    const auto t = Clock::now();
    ms_[count_] = std::chrono::duration<double, std::milli>(t - last_).count();
    names_[count_++] = name;
    last_ = t;
  }
  void print(size_t n, double dma_queue_ms) const {
    if (!on_) return;
    std::fprintf(stderr, "[msm-cuda profile] call-time copy n=%zu", n);
    for (int i = 0; i < count_; ++i) std::fprintf(stderr, " %s %.3f", names_[i], ms_[i]);
    std::fprintf(stderr, " | DMA calls %.3f (all threads)", dma_queue_ms);
    std::fprintf(stderr, " | total %.3f ms\n", std::chrono::duration<double, std::milli>(last_ - start_).count());
  }

 private:
  static constexpr int kMax = 8;
  bool on_;
  Clock::time_point start_, last_;
  int count_ = 0;
  double ms_[kMax] = {};
  const char* names_[kMax] = {};
};

// Throws ERR_CUDA_UNAVAILABLE when the addon carries no kernel image the device can run (a GPU
// older or newer than the fatbin and its PTX), instead of failing at the first launch (device.cu).
void require_kernel_image(int device);

}  // namespace msm::gpu
