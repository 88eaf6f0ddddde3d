// Field multiplication throughput on the device (the msm_fieldbench target of CMakeLists.txt):
// dependent chains x ← x·y in every thread of a grid filled to the occupancy limit.
#include <cuda_runtime.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../../cuda/curves/bls12_381.hpp"
#include "../../cuda/curves/bn254.hpp"
#include "../../cuda/ec/xyzz.hpp"

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

// Two independent products, their CIOS steps interleaved chain by chain (each carry chain whole,
// as the carry flag is one): does the warp overlap them?
template <class P>
__device__ __forceinline__ void mul_x2(uint32_t* r1, const uint32_t* a1, const uint32_t* b1, uint32_t* r2,
                                       const uint32_t* a2, const uint32_t* b2) {
  constexpr int n = 2 * P::N;
  uint32_t bb1[n], bb2[n], pp[n];
#pragma unroll
  for (int j = 0; j < n; ++j) bb1[j] = b1[j], bb2[j] = b2[j], pp[j] = P::modulus::at32(j);
  using T = msm::ff::ptx::TwoSums<P>;
  T t1, t2;
  auto step = [&](uint32_t* E1, uint32_t* O1, uint32_t* E2, uint32_t* O2, int i) {
    T::add_even(E1, a1[i], bb1);
    T::add_even(E2, a2[i], bb2);
    T::add_odd(O1, a1[i], bb1);
    T::add_odd(O2, a2[i], bb2);
    const uint32_t m1 = (E1[0] + O1[0] + t1.carry) * P::inv32, m2 = (E2[0] + O2[0] + t2.carry) * P::inv32;
    T::add_even(E1, m1, pp);
    T::add_even(E2, m2, pp);
    T::add_odd(O1, m1, pp);
    T::add_odd(O2, m2, pp);
    t1.carry = (E1[0] | O1[0] | t1.carry) != 0;
    t2.carry = (E2[0] | O2[0] | t2.carry) != 0;
#pragma unroll
    for (int j = 0; j < n; ++j) E1[j] = E1[j + 1], O1[j] = O1[j + 1], E2[j] = E2[j + 1], O2[j] = O2[j + 1];
    E1[n] = O1[n] = E2[n] = O2[n] = 0;
  };
#pragma unroll
  for (int i = 0; i < n; i += 2) {
    step(t1.X, t1.Y, t2.X, t2.Y, i);
    step(t1.Y, t1.X, t2.Y, t2.X, i + 1);
  }
  t1.template finish<1>(r1);
  t2.template finish<1>(r2);
}

// add-2008-s on a pair of lanes (2k, 2k + 1), both holding p and q and both ending with p + q: each
// lane computes about half of the products, the same instruction stream with operands selected by
// the lane's parity, exchanging by shuffles after each level, so that the critical path is ~7.5
// products instead of 14 (a warp overlaps no two products, so one addition's latency is the sum of
// its products'). O, P + P and P + (−P) fall back to the one-lane formula (the pair agrees on them).
template <class F>
__device__ __forceinline__ F from_partner(const F& x) {
  F r;
#pragma unroll
  for (int i = 0; i < F::N; ++i) r.limb[i] = __shfl_xor_sync(0xffffffffu, x.limb[i], 1);
  return r;
}
template <class F>
__device__ __forceinline__ ec::XYZZ<F> add_pair(const ec::XYZZ<F>& p, const ec::XYZZ<F>& q) {
  const bool odd = threadIdx.x & 1;
  const F a = (odd ? q.X : p.X) * (odd ? p.ZZ : q.ZZ);      // U1 | U2
  const F b = (odd ? q.Y : p.Y) * (odd ? p.ZZZ : q.ZZZ);    // S1 | S2
  const F z = (odd ? p.ZZZ : p.ZZ) * (odd ? q.ZZZ : q.ZZ);  // ZZ1·ZZ2 | ZZZ1·ZZZ2
  const F a2 = from_partner(a), b2 = from_partner(b);
  const F U1 = odd ? a2 : a, U2 = odd ? a : a2, S1 = odd ? b2 : b, S2 = odd ? b : b2;
  const F P = U2 - U1, R = S2 - S1;
  if (p.is_inf() || q.is_inf() || P.is_zero()) return p.add(q);
  const F sq = (odd ? R : P).sqr();  // PP | R²
  const F sq2 = from_partner(sq);
  const F PP = odd ? sq2 : sq, RR = odd ? sq : sq2;
  const F c = (odd ? U1 : P) * PP;  // PPP | Q
  const F e = z * PP;               // ZZ3 | (unused)
  const F c2 = from_partner(c);
  const F PPP = odd ? c2 : c, Q = odd ? c : c2;
  ec::XYZZ<F> r;
  r.X = RR - PPP - Q.dbl();
  // Y3 = R·(Q − X3) − S1·PPP | ZZZ3 = ZZZ1·ZZZ2·PPP
  const F d = F::mul_add(odd ? z : R, odd ? PPP : Q - r.X, odd ? F::zero() : S1, odd ? F::zero() : -PPP);
  const F d2 = from_partner(d), e2 = from_partner(e);
  r.Y = odd ? d2 : d;
  r.ZZZ = odd ? d : d2;
  r.ZZ = odd ? e2 : e;
  return r;
}

// Latency on one warp (the latency-bound stages at small n: Alg. 5's chains, §3.4's rounds): clock
// cycles per step of a dependent chain. V = 0: x ← x·y; 1: two independent products per step
// (x ← x·y, z ← z·w: does ptxas overlap them?); 2: x ← x²; 3: the XYZZ addition add-2008-s;
// 4: the mixed addition madd-2008-s.
template <class G, int V>
__global__ void latency_chain(typename G::field* io, int iters, long long* cycles) {
  using F = typename G::field;
  using X = ec::XYZZ<F>;
  const int t = threadIdx.x, u = t & ~1;  // a lane pair shares its inputs (V = 9)
  F x = io[u], y = io[32 + u], z = io[64 + u], w = io[96 + u];
  X acc{x, y, z, w};
  const X q{w, z, y, x};
  const ec::Affine<F> a{z, w};
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    if constexpr (V == 0) x = x * y;
    else if constexpr (V == 1) x = x * y, z = z * w;
    else if constexpr (V == 2) x = x.sqr();
    else if constexpr (V == 3) acc = acc.add(q);
    else if constexpr (V == 4) acc = acc.add(a);
    else if constexpr (V == 9) acc = add_pair(acc, q);
    else {
      F x2, z2;
      mul_x2<typename F::params>(reinterpret_cast<uint32_t*>(x2.limb), reinterpret_cast<const uint32_t*>(x.limb),
                                 reinterpret_cast<const uint32_t*>(y.limb), reinterpret_cast<uint32_t*>(z2.limb),
                                 reinterpret_cast<const uint32_t*>(z.limb), reinterpret_cast<const uint32_t*>(w.limb));
      x = x2, z = z2;
    }
  }
  const long long t1 = clock64();
  io[t] = x + z + acc.X + acc.ZZ;
  if (t == 0) *cycles = t1 - t0;
}

template <class G, int V>
void bench_latency(const char* what) {
  using F = typename G::field;
  std::vector<F> h(128);
  std::mt19937_64 rng(2);
  for (auto& x : h) {
    for (int i = 0; i < F::N; ++i) x.limb[i] = rng();
    x.limb[F::N - 1] >>= 8;
  }
  F* io = nullptr;
  long long* cycles = nullptr;
  cudaMalloc(&io, h.size() * sizeof(F));
  cudaMalloc(&cycles, sizeof(long long));
  cudaMemcpy(io, h.data(), h.size() * sizeof(F), cudaMemcpyHostToDevice);
  const int iters = 1000;
  latency_chain<G, V><<<1, 32>>>(io, 10, cycles);
  latency_chain<G, V><<<1, 32>>>(io, iters, cycles);
  long long c = 0;
  cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost);
  cudaFuncAttributes fa;
  cudaFuncGetAttributes(&fa, latency_chain<G, V>);
  // V = 5 must give V = 1's outputs (same inputs, same chains).
  std::vector<F>& two = reference<F>();
  std::vector<F> out(32);
  cudaMemcpy(io, h.data(), h.size() * sizeof(F), cudaMemcpyHostToDevice);
  latency_chain<G, V><<<1, 32>>>(io, 7, cycles);
  cudaMemcpy(out.data(), io, 32 * sizeof(F), cudaMemcpyDeviceToHost);
  if (V == 1 || V == 3) two = out;
  const char* same = V != 5 && V != 9 ? "" : out == two ? ", matches the reference" : ", DIFFERS from the reference";
  std::printf("latency %-9s %-12s regs=%3d  %.0f cycles per step (%s%s)\n", G::name, what, fa.numRegs,
              double(c) / iters, cudaGetErrorString(cudaGetLastError()), same);
  std::fflush(stdout);
  cudaFree(io);
  cudaFree(cycles);
}

int main() {
  bench_latency<curves::bn254::g1, 0>("mul");
  bench_latency<curves::bn254::g1, 1>("two muls");
  bench_latency<curves::bn254::g1, 5>("two muls x2");
  bench_latency<curves::bn254::g1, 2>("sqr");
  bench_latency<curves::bn254::g1, 3>("add-2008-s");
  bench_latency<curves::bn254::g1, 9>("add on 2 lanes");
  bench_latency<curves::bn254::g1, 4>("madd-2008-s");
  bench_latency<curves::bls12_381::g1, 0>("mul");
  bench_latency<curves::bls12_381::g1, 1>("two muls");
  bench_latency<curves::bls12_381::g1, 5>("two muls x2");
  bench_latency<curves::bls12_381::g1, 2>("sqr");
  bench_latency<curves::bls12_381::g1, 3>("add-2008-s");
  bench_latency<curves::bls12_381::g1, 9>("add on 2 lanes");
  bench_latency<curves::bls12_381::g1, 4>("madd-2008-s");
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
