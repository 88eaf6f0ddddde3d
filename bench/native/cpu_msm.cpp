// Standalone timing and cross-check of the CPU Pippenger (no Node): multiples of the generator as
// bases, random or adversarial scalars, the result checked against the XYZZ-bucket path (c = 8).
// Build: g++ -O3 -std=c++17 -pthread bench/native/cpu_msm.cpp -o /tmp/cpu_msm
// Run:   /tmp/cpu_msm CURVE(0 bn254, 1 bls12-381) LOG2_N THREADS RUNS [C (0 auto) [CHECK [MODE]]]
// MODE: 0 random, 1 all scalars equal, 2 all in one low bucket, 3 all r − 1, 4 repeated points,
//       5 pairs P, −P with equal scalars (everything cancels).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <ctime>
static double cpu_ms(){timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec*1e-6;}
#include "../../cuda/curves/bn254.hpp"
#include "../../cuda/curves/bls12_381.hpp"
#include "../../cuda/cpu/pippenger.hpp"
using namespace msm;
template <class Curve>
int go(int logn, int threads, int runs, int c, bool check, int mode) {
  using F = typename Curve::field; using A = ec::Affine<F>; using X = ec::XYZZ<F>;
  constexpr unsigned bits = Curve::scalar::params::BITS;
  size_t n = size_t(1) << logn;
  A g{F::template from_table<typename Curve::gen_x>(), F::template from_table<typename Curve::gen_y>()};
  g.x = F::to_mont(g.x); g.y = F::to_mont(g.y);
  // points: multiples of g, converted with a batch inversion
  std::vector<X> xs(n); X acc = X::from_affine(g);
  A g3 = X::dbl(g).add(g).to_affine();
  for (size_t i = 0; i < n; ++i) { xs[i] = acc; acc = acc.add(g3); }
  std::vector<F> zz(n), pre(n); F a = F::one();
  for (size_t i = 0; i < n; ++i) { pre[i] = a; zz[i] = xs[i].ZZ * xs[i].ZZZ; a = a * zz[i]; }
  F inv = a.inverse(); std::vector<A> pts(n);
  for (size_t i = n; i-- > 0;) { F t = inv * pre[i]; inv = inv * zz[i];
    pts[i] = A{xs[i].X * (xs[i].ZZZ * t), xs[i].Y * (xs[i].ZZ * t)}; }
  std::mt19937_64 rng(42);
  std::vector<uint8_t> sc(n * 32);
  const uint64_t top = Curve::scalar::params::modulus::at(3);
  for (size_t i = 0; i < n; ++i) { uint64_t l[4] = {rng(), rng(), rng(), rng() % top};
    if (mode == 1) { l[0]=0x1234; l[1]=l[2]=l[3]=7; }           // all identical
    if (mode == 2) { l[0]=l[1]=l[2]=l[3]=0; l[0] = 5; }           // all one bucket, low window
    if (mode == 3) { for (int j=0;j<4;++j) l[j]=Curve::scalar::params::modulus::at(j); l[0]-=1; } // r-1
    if (mode == 4 && (i & 1)) { pts[i] = pts[i-1]; }                 // duplicate points
    if (mode == 5 && (i & 1)) { pts[i] = -pts[i-1]; std::memcpy(l, &sc[(i-1)*32], 32);} // P and -P same scalar -> cancels
    std::memcpy(&sc[i * 32], l, 32); }
  if (c == 0) c = cpu::choose_window(n, bits);
  double best = 1e9, bestc = 1e9;
  X r;
  for (int k = 0; k < runs; ++k) {
    double c0 = cpu_ms(); auto t0 = std::chrono::steady_clock::now();
    r = cpu::Pippenger<F>::run(pts.data(), nullptr, sc.data(), 32, n, bits, c, threads);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ms); bestc = std::min(bestc, cpu_ms() - c0);
  }
  std::printf("logn=%d c=%d threads=%d best %.1f ms cpu %.1f ms\n", logn, c, threads, best, bestc);
  if (check) {
    // Reference: c = 8, small enough that every window takes the XYZZ bucket path.
    X o = cpu::Pippenger<F>::run(pts.data(), nullptr, sc.data(), 32, n, bits, 8, threads);
    A ra = r.to_affine(), oa = o.to_affine();
    bool ok = ra == oa;
    std::printf("check vs c = 8 (XYZZ buckets): %s\n", ok ? "OK" : "MISMATCH");
    if (!ok) return 1;
  }
  return 0;
}
int main(int argc, char** argv) {
  int curve = atoi(argv[1]), logn = atoi(argv[2]), threads = atoi(argv[3]), runs = atoi(argv[4]);
  int c = argc > 5 ? atoi(argv[5]) : 0; int check = argc > 6 ? atoi(argv[6]) : 0; int mode = argc > 7 ? atoi(argv[7]) : 0;
  return curve == 0 ? go<curves::bn254::g1>(logn, threads, runs, c, check, mode) : go<curves::bls12_381::g1>(logn, threads, runs, c, check, mode);
}
