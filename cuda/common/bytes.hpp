// HostBytes: a byte buffer the native side owns, and the copy that fills it from the caller's
// memory at call time (issue 10: inputs are taken when the call is made, so nothing the caller
// does afterwards — mutate, resize, transfer, drop — reaches the worker that reads them).
//
// The copy runs on the event loop, so its cost is the point. On a fresh allocation it is
// dominated by page faults, not by memcpy: measured on a 2-core EPYC VM, 512 MiB took 350 ms
// with 4 KiB pages (1.5 GB/s) and 75 ms with transparent huge pages (7 GB/s). Large buffers are
// therefore 2 MiB-aligned and marked MADV_HUGEPAGE (honoured with THP 'madvise' or 'always'),
// and copied by several threads (the faults of different huge pages proceed in parallel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "parallel.hpp"

namespace msm {

class HostBytes {
 public:
  HostBytes() = default;

  // Uninitialised; throws std::bad_alloc.
  static HostBytes allocate(size_t size) {
    HostBytes b;
    b.size_ = size;
    if (size == 0) return b;
#if defined(__linux__)
    if (size >= kHugeFrom) {
      void* p = nullptr;
      const size_t rounded = (size + kHuge - 1) / kHuge * kHuge;
      if (posix_memalign(&p, kHuge, rounded) != 0) throw std::bad_alloc();
      madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a kernel without THP ignores it
      b.data_.reset(static_cast<uint8_t*>(p));
      return b;
    }
#endif
    void* p = std::malloc(size);
    if (!p) throw std::bad_alloc();
    b.data_.reset(static_cast<uint8_t*>(p));
    return b;
  }

  // A copy of [src, src + size); throws std::bad_alloc.
  static HostBytes copy_of(const uint8_t* src, size_t size) {
    HostBytes b = allocate(size);
    copy(b.data(), src, size);
    return b;
  }

  // Below kSlice per thread, starting a thread costs more than it saves.
  static void copy(uint8_t* dst, const uint8_t* src, size_t size) {
    const unsigned hc = std::thread::hardware_concurrency();
    parallel_ranges(size, int(std::min(hc ? hc : 1u, kMaxThreads)), kSlice,
                    [&](size_t lo, size_t hi) { std::memcpy(dst + lo, src + lo, hi - lo); });
  }

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  void reset() {
    data_.reset();
    size_ = 0;
  }
  // Ownership of the memory, to be released with std::free (an external ArrayBuffer's finalizer).
  uint8_t* release() {
    size_ = 0;
    return data_.release();
  }

 private:
  static constexpr size_t kHuge = size_t(2) << 20, kHugeFrom = size_t(4) << 20, kSlice = size_t(2) << 20;
  static constexpr unsigned kMaxThreads = 8;  // memory bandwidth saturates well before the cores do
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t size_ = 0;
};

}  // namespace msm
