// The call-time copy into pinned memory as cuda/common/bytes.hpp makes it (HostBytes::stream_range: SSE2
// non-temporal stores, the top limb tested on the stored values) against memcpy with the scan after each
// piece (HostBytes::copy_range), 16 threads in 256 KiB pieces, each thread's chunks DMA'd as copied (or
// the DMAs queued by one thread as chunks complete: "queuer"), by chunk size; and the DMA alone and the
// copy without DMA. 512, 128 and 32 MiB; best of 5.
// On a CUDA host: nvcc -O2 -arch=sm_90 -o /tmp/copy-stream bench/native/copy-stream.cu && /tmp/copy-stream
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <immintrin.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include <cstdint>
static const uint64_t TOP = 0x30644e72e131a029ull;
static size_t scan(const uint8_t* p, size_t len) { size_t bad = 0; for (size_t i = 0; i < len; i += 32) { uint64_t w; memcpy(&w, p + i + 24, 8); bad += w >= TOP; } return bad; }
static size_t nt_copy(uint8_t* d, const uint8_t* s, size_t len) {
  size_t bad = 0;
  for (size_t i = 0; i < len; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i*)(s + i)), b = _mm_loadu_si128((const __m128i*)(s + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i*)(s + i + 32)), e = _mm_loadu_si128((const __m128i*)(s + i + 48));
    uint64_t w0 = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(b, b));
    uint64_t w1 = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(e, e));
    bad += (w0 >= TOP) + (w1 >= TOP);
    _mm_stream_si128((__m128i*)(d + i), a); _mm_stream_si128((__m128i*)(d + i + 16), b);
    _mm_stream_si128((__m128i*)(d + i + 32), c); _mm_stream_si128((__m128i*)(d + i + 48), e);
  }
  _mm_sfence();
  return bad;
}
int main() {
  const size_t B = size_t(512) << 20;
  std::vector<uint8_t> src(B + 64); for (size_t i = 0; i < B; ++i) src[i] = uint8_t(i * 131 + 7); for (size_t i = 24+7; i < B; i += 32) src[i] = 0x10;
  uint8_t* dst; cudaHostAlloc((void**)&dst, B, cudaHostAllocPortable);
  uint8_t* d; cudaMalloc(&d, B); cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  memset(dst, 0, B);
  for (size_t bytes : {B, B / 4}) {
    double best = 1e9;
    for (int rep = 0; rep < 5; ++rep) { auto t0 = std::chrono::steady_clock::now(); cudaMemcpyAsync(d, dst, bytes, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); if (ms < best) best = ms; }
    printf("%4zu MiB DMA alone (pinned): %.2f ms (%.1f GB/s)\n", bytes >> 20, best, bytes / best / 1e6);
  }
  for (size_t bytes : {B, B / 4, B / 16})
  for (int qmode = 0; qmode < 3; ++qmode)  // 2: no DMA
  for (size_t chunk : {size_t(2) << 20, size_t(4) << 20, size_t(8) << 20, size_t(16) << 20}) for (int mode = 0; mode < 2; ++mode) {
    const int threads = 16;
    const size_t piece = size_t(256) << 10;
    double best = 1e9, callms = 0;
    for (int rep = 0; rep < 5; ++rep) {
      std::atomic<size_t> bad{0};
      std::atomic<long> callns{0};
      const size_t nchunks = (bytes + chunk - 1) / chunk;
      std::vector<std::atomic<int>> ready(nchunks);
      for (auto& r : ready) r = 0;
      auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> th;
      // chunks dealt round-robin-contiguous: thread t takes chunks [t*nchunks/threads, (t+1)*nchunks/threads)
      for (int t = 0; t < threads; ++t) th.emplace_back([&, t] {
        cudaSetDevice(0);
        size_t c0 = nchunks * t / threads, c1 = nchunks * (t + 1) / threads;
        size_t bb = 0;
        for (size_t ci = c0; ci < c1; ++ci) {
          size_t c = ci * chunk, ce = std::min(bytes, c + chunk);
          for (size_t a = c; a < ce; a += piece) { size_t b = std::min(ce, a + piece);
            if (mode == 0) { memcpy(dst + a, src.data() + a, b - a); bb += scan(dst + a, b - a); }
            else bb += nt_copy(dst + a, src.data() + a, b - a); }
          if (qmode == 2) continue;
          if (qmode == 0) { auto q0 = std::chrono::steady_clock::now(); cudaMemcpyAsync(d + c, dst + c, ce - c, cudaMemcpyHostToDevice, s);
            callns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - q0).count(); }
          else ready[ci].store(1, std::memory_order_release);
        }
        bad += bb;
      });
      if (qmode == 1) {  // the calling thread queues the DMAs as chunks complete (any order)
        std::vector<char> done(nchunks, 0); size_t left = nchunks;
        while (left) for (size_t ci = 0; ci < nchunks; ++ci) if (!done[ci] && ready[ci].load(std::memory_order_acquire)) {
          size_t c = ci * chunk, ce = std::min(bytes, c + chunk);
          cudaMemcpyAsync(d + c, dst + c, ce - c, cudaMemcpyHostToDevice, s); done[ci] = 1; --left; }
      }
      for (auto& x : th) x.join();
      cudaStreamSynchronize(s);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (ms < best) best = ms, callms = callns.load() * 1e-6;
    }
    printf("%4zu MiB %s %s chunk %2zu MiB: %.2f ms (%.1f GB/s) calls %.2f ms\n", bytes >> 20, qmode == 2 ? "no DMA " : qmode ? "queuer " : "threads", mode == 0 ? "memcpy+scan" : "nt fused   ", chunk >> 20, best, bytes / best / 1e6, callms);
  }
  return 0;
}
