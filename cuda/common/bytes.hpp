// HostBytes: a byte buffer the native side owns, and the copy that fills it from the caller's
// memory at call time (issue 10: inputs are taken when the call is made, so nothing the caller
// does afterwards — mutate, resize, transfer, drop — reaches the worker that reads them).
//
// The copy runs on the event loop, so its cost is the point, and on fresh memory it is page
// faults, not memcpy. Measured on a 2-core EPYC VM, 512 MiB: ~45 ms into memory already mapped,
// ~100 ms into fresh transparent huge pages, ~370 ms into fresh 4 KiB pages (and on that VM,
// whose host backs guest memory lazily, up to 1–2 s now and then). Hence:
//   - large buffers are recycled: provers call with the same sizes again and again, so a freed
//     buffer (at most kPoolBuffers of them, kPoolBytes in all) waits for the next call;
//   - fresh large buffers are 2 MiB-aligned and marked MADV_HUGEPAGE (honoured with THP 'madvise'
//     or 'always');
//   - the copy runs on several threads.
// An engine may lend its own buffers instead (the CUDA engine: pinned memory, so that the upload
// DMAs straight from the call-time copy); those go back to it (a BytesLender) when freed.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif

#include "parallel.hpp"

namespace msm {

// Owner of buffers that HostBytes::lend hands out; outlives them (HostBytes holds a reference).
struct BytesLender {
  virtual ~BytesLender() = default;
  virtual void give_back(uint8_t* p) noexcept = 0;
};

class HostBytes {
 public:
  HostBytes() = default;

  // Uninitialised; throws std::bad_alloc.
  static HostBytes allocate(size_t size) {
    HostBytes b;
    b.size_ = size;
    if (size == 0) return b;
    size_t capacity = size;
    if (size >= kLarge) {
      capacity = (size + kHuge - 1) / kHuge * kHuge;
      if (uint8_t* p = pool().take(size, capacity)) {
        b.own(p, capacity);
        return b;
      }
#if defined(__linux__)
      void* p = nullptr;
      if (posix_memalign(&p, kHuge, capacity) != 0) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
      madvise(p, capacity, MADV_HUGEPAGE);  // advice only: a kernel without THP ignores it
#endif
      b.own(static_cast<uint8_t*>(p), capacity);
      return b;
#endif
    }
    void* p = std::malloc(capacity);
    if (!p) throw std::bad_alloc();
    b.own(static_cast<uint8_t*>(p), capacity);
    return b;
  }

  // size bytes of lender's buffer p, handed back to it when this is freed.
  static HostBytes lend(uint8_t* p, size_t size, std::shared_ptr<BytesLender> lender) {
    HostBytes b;
    b.size_ = b.capacity_ = size;
    b.data_ = std::unique_ptr<uint8_t, Free>(p, Free{size, std::move(lender)});
    return b;
  }
  bool lent() const { return data_.get_deleter().lender != nullptr; }

  // Called by a copy with each piece of the destination it has just written, on the thread that
  // wrote it, while the piece is still in that core's cache: a look at the bytes that costs no
  // second pass over memory (the scalars' range check, issue 10). offset is the piece's place in
  // the whole copy, a multiple of kUnit; len is a multiple of kUnit but for the last piece.
  // Called from several threads at once. With `top` set, a streaming copy (stream_range) shows it
  // only the pieces that hold a 32-byte element whose last 8 bytes, read as a little-endian
  // integer, are ≥ top: it tests that on the values it stores, as it stores them, for a look that
  // needs the bytes only where such an element is (the scalars' range check: r's top limb).
  struct Inspect {
    std::function<void(const uint8_t* piece, size_t offset, size_t len)> look;
    uint64_t top = 0;  // 0: every piece is shown
    Inspect(std::nullptr_t = nullptr) {}
    Inspect(std::function<void(const uint8_t*, size_t, size_t)> f, uint64_t t = 0) : look(std::move(f)), top(t) {}
    explicit operator bool() const { return bool(look); }
    void operator()(const uint8_t* piece, size_t offset, size_t len) const { look(piece, offset, len); }
  };
  static constexpr size_t kUnit = 64, kPiece = size_t(256) << 10;  // kPiece: within L2

  // A copy of [src, src + size), inspected as it is made; throws std::bad_alloc.
  static HostBytes copy_of(const uint8_t* src, size_t size, const Inspect& inspect = nullptr) {
    HostBytes b = allocate(size);
    copy(b.data(), src, size, inspect);
    return b;
  }

  static void copy(uint8_t* dst, const uint8_t* src, size_t size, const Inspect& inspect = nullptr) {
    split(size, [&](size_t lo, size_t hi) { copy_range(dst, src, lo, hi, inspect); });
  }

  // copy() into memory a DMA reads next (stream_range).
  static void stream(uint8_t* dst, const uint8_t* src, size_t size, const Inspect& inspect = nullptr) {
    split(size, [&](size_t lo, size_t hi) { stream_range(dst, src, lo, hi, inspect); });
  }

  // The concatenation of parts (the caller checked that their sizes sum without overflow), copied
  // as one range split over the threads, so that many small parts start no more threads than one
  // large one; throws std::bad_alloc.
  struct Part {
    const uint8_t* data;
    size_t size;
  };
  static HostBytes copy_of_parts(const std::vector<Part>& parts) {
    std::vector<size_t> ends(parts.size());
    size_t total = 0;
    for (size_t i = 0; i < parts.size(); ++i) ends[i] = total += parts[i].size;
    HostBytes b = allocate(total);
    uint8_t* dst = b.data();
    split(total, [&](size_t lo, size_t hi) {
      // the first part that ends after lo (empty parts end where they start: skipped)
      for (size_t i = size_t(std::upper_bound(ends.begin(), ends.end(), lo) - ends.begin()); lo < hi; ++i) {
        const size_t to = std::min(hi, ends[i]);
        if (to > lo) std::memcpy(dst + lo, parts[i].data + (lo - (ends[i] - parts[i].size)), to - lo);
        lo = to;
      }
    });
    return b;
  }

  // fn(lo, hi) over [0, size) in one contiguous range per thread, on up to kMaxThreads kept
  // threads (KeptThreads: a wake-up, not a thread start), every boundary but size a multiple of
  // kUnit, at least kPiece per thread.
  template <class Fn>
  static void split(size_t size, Fn&& fn) {
    const unsigned hc = std::thread::hardware_concurrency();
    const size_t units = (size + kUnit - 1) / kUnit;
    kept_ranges(units, int(std::min(hc ? hc : 1u, kMaxThreads)), kPiece / kUnit,
                [&](size_t a, size_t b) { fn(a * kUnit, std::min(size, b * kUnit)); });
  }

  // fn(lo, hi) for each chunk [k·chunk, (k + 1)·chunk) ∩ [0, size) (chunk a multiple of kUnit),
  // the chunks claimed in ascending order by up to kMaxThreads kept threads: the copy's front moves
  // through the range in order, so a consumer that follows it (a DMA) can start on its first
  // chunks while the others are copied.
  template <class Fn>
  static void split_chunks(size_t size, size_t chunk, Fn&& fn) {
    const size_t chunks = (size + chunk - 1) / chunk;
    const unsigned hc = std::thread::hardware_concurrency();
    const int threads = int(std::min<size_t>(std::min<size_t>(hc ? hc : 1u, kMaxThreads), chunks));
    std::atomic<size_t> next{0};
    KeptThreads::run(threads, [&](int) {
      for (size_t k; (k = next.fetch_add(1)) < chunks;) fn(k * chunk, std::min(size, (k + 1) * chunk));
    });
  }

  // [lo, hi) of src into dst at the same offsets, kPiece by kPiece, each piece inspected once written.
  static void copy_range(uint8_t* dst, const uint8_t* src, size_t lo, size_t hi, const Inspect& inspect) {
    for (size_t a = lo; a < hi; a += kPiece) {
      const size_t b = std::min(hi, a + kPiece);
      std::memcpy(dst + a, src + a, b - a);
      if (inspect) inspect(dst + a, a, b - a);
    }
  }

  // copy_range for a destination that a DMA reads next, not this core: non-temporal stores, which
  // skip the read-for-ownership of each destination line (a third of a cached copy's memory
  // traffic), with inspect's `top` tested on the values as they are stored. On the GPU machines'
  // 16-core host, 16 threads beside the chunked DMA copied 512 MiB into pinned memory in 12.1 ms
  // against 13.5 and 32 MiB in 0.86–0.99 against 1.29–1.55 (bench/gpu-notes.md). x86-64 (SSE2, in
  // its baseline) with dst 16-byte aligned; else copy_range. Each piece's stores are fenced before
  // it is shown or the range returns, so a DMA queued after it reads them.
  static void stream_range(uint8_t* dst, const uint8_t* src, size_t lo, size_t hi, const Inspect& inspect) {
#if defined(__x86_64__) || defined(_M_X64)
    if (reinterpret_cast<uintptr_t>(dst + lo) % 16 == 0 && lo % 32 == 0) {
      const uint64_t top = inspect ? inspect.top : 0;
      for (size_t a = lo; a < hi; a += kPiece) {
        const size_t b = std::min(hi, a + kPiece), body = a + (b - a) / 64 * 64;
        bool seen = false;  // an element with its top word ≥ top
        for (size_t i = a; i < body; i += 64) {
          const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
          const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
          const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
          const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
          const uint64_t w0 = uint64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(v1, v1)));
          const uint64_t w1 = uint64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(v3, v3)));
          seen |= (w0 >= top) | (w1 >= top);
          _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), v0);
          _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), v1);
          _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), v2);
          _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), v3);
        }
        std::memcpy(dst + body, src + body, b - body);  // under 64 bytes, the copy's last
        for (size_t e = body; e < b; e += 32) {
          uint64_t w = ~uint64_t(0);  // a part of an element: shown
          if (e + 32 <= b) std::memcpy(&w, dst + e + 24, 8);
          seen |= w >= top;
        }
        _mm_sfence();
        if (inspect && seen) inspect(dst + a, a, b - a);
      }
      return;
    }
#endif
    copy_range(dst, src, lo, hi, inspect);
  }

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void reset() {
    data_.reset();
    size_ = capacity_ = 0;
  }
  // The memory, to be handed back with recycle(p, capacity) (an external ArrayBuffer's finalizer).
  // Not for lent buffers.
  uint8_t* release() {
    size_ = 0;
    return data_.release();
  }
  static void recycle(uint8_t* p, size_t capacity) { Free{capacity, nullptr}(p); }

 private:
  static constexpr size_t kHuge = size_t(2) << 20, kLarge = size_t(4) << 20;
  // The H100 host (16 cores) copied 512 MiB into pinned memory in 13 ms on 16 threads, 17 ms on 8
  // (bench/gpu-notes.md): one core's share of the bandwidth is the limit there, not the memory.
  static constexpr unsigned kMaxThreads = 16;
  static constexpr size_t kPoolBuffers = 2, kPoolBytes = size_t(1) << 30;

  // Freed large buffers kept for reuse, most recent last.
  class Pool {
   public:
    // A kept buffer of at least size bytes and not much more (capacity set to its own), or null.
    uint8_t* take(size_t size, size_t& capacity) {
      std::lock_guard<std::mutex> lock(m_);
      for (size_t i = kept_.size(); i-- > 0;) {
        if (kept_[i].second < size || kept_[i].second > size + size / 2) continue;
        uint8_t* p = kept_[i].first;
        capacity = kept_[i].second;
        bytes_ -= capacity;
        kept_.erase(kept_.begin() + ptrdiff_t(i));
        return p;
      }
      return nullptr;
    }
    // Keeps p (evicting the oldest) when it fits the bounds; false: the caller frees it.
    bool give(uint8_t* p, size_t capacity) {
      if (capacity < kLarge || capacity > kPoolBytes) return false;
      std::vector<uint8_t*> evicted;
      {
        std::lock_guard<std::mutex> lock(m_);
        while (!kept_.empty() && (kept_.size() >= kPoolBuffers || bytes_ + capacity > kPoolBytes)) {
          evicted.push_back(kept_.front().first);
          bytes_ -= kept_.front().second;
          kept_.erase(kept_.begin());
        }
        try {
          kept_.emplace_back(p, capacity);
        } catch (...) {
          evicted.push_back(p);
          capacity = 0;
        }
        bytes_ += capacity;
      }
      for (uint8_t* e : evicted) std::free(e);
      return true;
    }

   private:
    std::mutex m_;
    std::vector<std::pair<uint8_t*, size_t>> kept_;
    size_t bytes_ = 0;
  };
  // Never destroyed: worker threads may free buffers while the process exits.
  static Pool& pool() {
    static Pool* p = new Pool();
    return *p;
  }

  struct Free {
    size_t capacity = 0;
    std::shared_ptr<BytesLender> lender;
    void operator()(uint8_t* p) const {
      if (!p) return;
      if (lender)
        lender->give_back(p);
      else if (!pool().give(p, capacity))
        std::free(p);
    }
  };
  std::unique_ptr<uint8_t, Free> data_{nullptr, Free{}};
  size_t size_ = 0, capacity_ = 0;

  // data_'s deleter must know the capacity (the pool keeps buffers by it).
  void own(uint8_t* p, size_t capacity) {
    data_ = std::unique_ptr<uint8_t, Free>(p, Free{capacity, nullptr});
    capacity_ = capacity;
  }
};

}  // namespace msm
