// The call-time copy of 2^24 scalars (512 MiB) into pinned memory, alone and with its range scan
// folded in (the top limb of each scalar read after each piece is copied, "scan-after", as
// cuda/common/bytes.hpp + UnreducedScan do; or read from the source first, "scan-src"), with and
// without the chunked DMA to the device, by thread count and piece size; best of 4.
// On a CUDA host: nvcc -O2 -arch=sm_90 -o /tmp/copy-scan bench/native/copy-scan.cu && /tmp/copy-scan
#include <cuda_runtime.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include <cstdint>
static const uint64_t TOP = 0x30644e72e131a029ull;  // BN254 r's top limb
static size_t scan(const uint8_t* p, size_t len) { size_t bad = 0; for (size_t i = 0; i < len; i += 32) { uint64_t w; memcpy(&w, p + i + 24, 8); bad += w >= TOP; } return bad; }
int main() {
  const size_t B = size_t(512) << 20;
  std::vector<uint8_t> src(B); for (size_t i = 0; i < B; ++i) src[i] = uint8_t(i * 131 + 7); for (size_t i = 24+7; i < B; i += 32) src[i] = 0x10;
  uint8_t* dst; cudaHostAlloc((void**)&dst, B, cudaHostAllocPortable);
  uint8_t* d; cudaMalloc(&d, B); cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  memset(dst, 0, B);
  for (int threads : {8, 16}) for (size_t piece : {size_t(256) << 10, size_t(1) << 20, size_t(4) << 20}) for (int mode = 0; mode < 3; ++mode) for (int dma = 0; dma < 2; ++dma) {
    double best = 1e9;
    for (int rep = 0; rep < 4; ++rep) {
      std::atomic<size_t> bad{0};
      auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> th;
      for (int t = 0; t < threads; ++t) th.emplace_back([&, t] {
        cudaSetDevice(0);
        size_t lo = B / threads * t, hi = B / threads * (t + 1);
        for (size_t c = lo; c < hi; c += (size_t(4) << 20)) {
          size_t ce = std::min(hi, c + (size_t(4) << 20));
          for (size_t a = c; a < ce; a += piece) { size_t b = std::min(ce, a + piece);
            if (mode == 2) bad += scan(src.data() + a, b - a);
            memcpy(dst + a, src.data() + a, b - a);
            if (mode == 1) bad += scan(dst + a, b - a); }
          if (dma) cudaMemcpyAsync(d + c, dst + c, ce - c, cudaMemcpyHostToDevice, s);
        }
      });
      for (auto& x : th) x.join();
      cudaStreamSynchronize(s);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (ms < best) best = ms;
    }
    printf("threads %2d piece %5zu KiB mode %s dma %d: %.2f ms\n", threads, piece >> 10, mode == 0 ? "copy      " : mode == 1 ? "scan-after" : "scan-src  ", dma, best);
  }
  return 0;
}
