// Field multiplication throughput on the device (the msm_fieldbench target of CMakeLists.txt):
// dependent chains x ← x·y in every thread of a grid filled to the occupancy limit.
#include <cuda_runtime.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../../cuda/curves/bls12_381.hpp"
#include "../../cuda/curves/bn254.hpp"

using namespace msm;

// Throughput of the field multiplication variants: every thread runs `iters` dependent products
// (x ← x·y), the grid filled to the occupancy limit; reported as products per second and as
// 32-bit multiply-adds per product at the H100's IMAD peak (64/clock/SM).
template <class F, int V>
__global__ void mul_chain(F* io, int iters) {
  const size_t tid = size_t(blockIdx.x) * blockDim.x + threadIdx.x, g = size_t(gridDim.x) * blockDim.x;
  F x = io[tid], y = io[tid + g];
  for (int i = 0; i < iters; ++i) {
    if constexpr (V == 0) x = x * y;
    else if constexpr (V == 1) x = F::mont_mul(x, y);
    else if constexpr (V == 2) x = x.sqr();
    else if constexpr (V == 4) {
      F t;
      msm::ff::device_mont_mul_eo<typename F::params, 1>(reinterpret_cast<uint32_t*>(t.limb),
                                                         reinterpret_cast<const uint32_t*>(x.limb),
                                                         reinterpret_cast<const uint32_t*>(y.limb), nullptr, nullptr);
      x = t;
    }
    else x = x + y;
  }
  io[tid] = x;
}

template <class F>
std::vector<F>& reference() {
  static std::vector<F> r;
  return r;
}

template <class G, int V>
void bench_mul(const char* what) {
  using F = typename G::field;
  int dev = 0, sms = 0, blocks = 0, clock_khz = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, mul_chain<F, V>, 256, 0);
  cudaFuncAttributes fa;
  cudaFuncGetAttributes(&fa, mul_chain<F, V>);
  const size_t g = size_t(sms) * blocks * 256;
  F* io = nullptr;
  cudaMalloc(&io, 2 * g * sizeof(F));
  std::vector<F> h(2 * g);
  std::mt19937_64 rng(1);
  for (auto& x : h) {
    for (int i = 0; i < F::N; ++i) x.limb[i] = rng();
    x.limb[F::N - 1] >>= 8;
  }
  cudaMemcpy(io, h.data(), h.size() * sizeof(F), cudaMemcpyHostToDevice);
  const int iters = 2000;
  mul_chain<F, V><<<sms * blocks, 256>>>(io, 10);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  mul_chain<F, V><<<sms * blocks, 256>>>(io, iters);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  const double rate = double(g) * iters / (ms * 1e-3);
  const double imad_peak = double(sms) * 64 * clock_khz * 1e3;
  std::printf("fieldbench %-9s %-9s regs=%3d blocks/SM=%d  %.3g ops/s  = %.0f IMAD-slots per op\n", G::name, what,
              fa.numRegs, blocks, rate, imad_peak / rate);
  std::fflush(stdout);
  // Same inputs through every variant must give the same outputs (checked against variant 0).
  static std::vector<F>& ref = reference<F>();
  mul_chain<F, V><<<sms * blocks, 256>>>(io, 0);
  cudaMemcpy(io, h.data(), h.size() * sizeof(F), cudaMemcpyHostToDevice);
  const size_t g0 = 4096;
  mul_chain<F, V><<<16, 256>>>(io, 100);
  std::vector<F> out(g0);
  cudaMemcpy(out.data(), io, g0 * sizeof(F), cudaMemcpyDeviceToHost);
  if (V == 1) ref = out;
  else if (V == 0 || V == 4) {
    bool same = true;
    for (size_t i = 0; i < g0; ++i) same = same && out[i] == ref[i];
    std::printf("fieldbench %-9s %-9s matches cios64: %s\n", G::name, what, same ? "yes" : "NO");
  }
  cudaFree(io);
}

int main() {
    bench_mul<curves::bn254::g1, 1>("cios64");
  bench_mul<curves::bn254::g1, 0>("ptx-mul");
  bench_mul<curves::bn254::g1, 2>("ptx-sqr");
  bench_mul<curves::bn254::g1, 4>("ptx-eo");
  bench_mul<curves::bn254::g1, 3>("add");
  bench_mul<curves::bls12_381::g1, 1>("cios64");
  bench_mul<curves::bls12_381::g1, 0>("ptx-mul");
  bench_mul<curves::bls12_381::g1, 2>("ptx-sqr");
  bench_mul<curves::bls12_381::g1, 4>("ptx-eo");
  bench_mul<curves::bls12_381::g1, 3>("add");
  return 0;
}
