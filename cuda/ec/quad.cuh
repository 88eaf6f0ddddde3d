// Point additions by the four lanes of an aligned quad of a warp, for the bucket reduction's
// rounds (reduce.cu), which run one addition per task for log2 K rounds at a few warps an SM and so
// wait on each addition's chain of products (ncu: 10.7 % of issue slots busy at 6 % of the warps,
// bench/gpu-notes.md). A formula's products go in stages of independent ones, one a lane, each
// stage's results broadcast in the quad by shuffles. Every lane of the quad passes the same
// operands and gets the same sum; the branches depend on the operands only, so they are uniform
// over the quad, whose lanes must all call it. Squares are taken as products, so that the lanes
// run one code path.
//
// add-2008-s (xyzz.hpp XYZZ::add, 12M + 2S), critical path 4 products instead of 14:
//   1: U1 = X1·ZZ2,  U2 = X2·ZZ1,  S1 = Y1·ZZZ2,  S2 = Y2·ZZZ1;        P = U2 − U1,  R = S2 − S1
//   2: PP = P²,      RR = R²,      ZZ12 = ZZ1·ZZ2,  ZZZ12 = ZZZ1·ZZZ2
//   3: PPP = P·PP,   Q = U1·PP,    ZZ3 = ZZ12·PP;                      X3 = RR − PPP − 2Q
//   4: A = R·(Q − X3),  T = S1·PPP,  ZZZ3 = ZZZ12·PPP;                 Y3 = A − T
#pragma once

#if defined(__CUDACC__)

#include "xyzz.hpp"

namespace msm::ec {

// The lanes of the calling thread's quad, for __shfl_sync's mask.
__device__ __forceinline__ unsigned quad_mask() { return 0xFu << ((threadIdx.x & 31u) & ~3u); }

// v of lane `src` (0 … 3) of the quad.
template <class F>
__device__ __forceinline__ F quad_shfl(const F& v, unsigned src, unsigned mask) {
  static_assert(sizeof(F) % sizeof(unsigned long long) == 0, "a field element is whole 64-bit words");
  constexpr int kWords = sizeof(F) / sizeof(unsigned long long);
  F r;
  const auto* in = reinterpret_cast<const unsigned long long*>(&v);
  auto* out = reinterpret_cast<unsigned long long*>(&r);
#pragma unroll
  for (int i = 0; i < kWords; ++i) out[i] = __shfl_sync(mask, in[i], int(src), 4);
  return r;
}

// One of four values by the lane's place q in the quad, selected word by word (a choice between
// references would give the values addresses, in local memory).
template <class F>
__device__ __forceinline__ F by_lane(unsigned q, const F& v0, const F& v1, const F& v2, const F& v3) {
  constexpr int kWords = sizeof(F) / sizeof(unsigned long long);
  F r;
  auto* out = reinterpret_cast<unsigned long long*>(&r);
  const auto* w0 = reinterpret_cast<const unsigned long long*>(&v0);
  const auto* w1 = reinterpret_cast<const unsigned long long*>(&v1);
  const auto* w2 = reinterpret_cast<const unsigned long long*>(&v2);
  const auto* w3 = reinterpret_cast<const unsigned long long*>(&v3);
#pragma unroll
  for (int i = 0; i < kWords; ++i) out[i] = q == 0 ? w0[i] : q == 1 ? w1[i] : q == 2 ? w2[i] : w3[i];
  return r;
}

template <class F>
__device__ XYZZ<F> add_by_quad(const XYZZ<F>& a, const XYZZ<F>& b) {
  if (b.is_inf()) return a;
  if (a.is_inf()) return b;
  const unsigned mask = quad_mask(), q = threadIdx.x & 3u;
  const F m1 = by_lane(q, a.X, b.X, a.Y, b.Y) * by_lane(q, b.ZZ, a.ZZ, b.ZZZ, a.ZZZ);
  const F U1 = quad_shfl(m1, 0, mask), U2 = quad_shfl(m1, 1, mask);
  const F S1 = quad_shfl(m1, 2, mask), S2 = quad_shfl(m1, 3, mask);
  const F P = U2 - U1;
  const F R = S2 - S1;
  if (P.is_zero()) return R.is_zero() ? a.dbl() : XYZZ<F>::infinity();
  const F m2 = by_lane(q, P, R, a.ZZ, a.ZZZ) * by_lane(q, P, R, b.ZZ, b.ZZZ);
  const F PP = quad_shfl(m2, 0, mask), RR = quad_shfl(m2, 1, mask);
  const F ZZ12 = quad_shfl(m2, 2, mask), ZZZ12 = quad_shfl(m2, 3, mask);
  // Lane 3 repeats lane 2's product (nothing else is ready): one code path for the quad.
  const F m3 = by_lane(q, P, U1, ZZ12, ZZ12) * PP;
  const F PPP = quad_shfl(m3, 0, mask), Q = quad_shfl(m3, 1, mask);
  XYZZ<F> r;
  r.ZZ = quad_shfl(m3, 2, mask);
  r.X = RR - PPP - Q.dbl();
  const F m4 = by_lane(q, R, S1, ZZZ12, ZZZ12) * by_lane(q, Q - r.X, PPP, PPP, PPP);
  r.Y = quad_shfl(m4, 0, mask) - quad_shfl(m4, 1, mask);
  r.ZZZ = quad_shfl(m4, 2, mask);
  return r;
}

}  // namespace msm::ec

#endif
