// Point additions by the four lanes of an aligned quad of a warp, for the bucket reduction's
// rounds (reduce.cu), the heavy buckets' sums (aggregate.cu) and the constant-time mode's §5 tree
// (ct_aggregate.cu), which run one addition per task a round or level at a few warps an SM and so
// wait on each addition's chain of products (ncu: 10.7 % of issue slots busy at 6 % of the warps,
// bench/gpu-notes.md). A formula's products go in stages of independent ones, one a lane, and a
// product's result goes by shuffle to the lanes that need it next. The branches depend on the
// operands only, so they are uniform over the quad, whose lanes must all call it. Squares are
// taken as products, so that the lanes run one code path.
//
// add-2008-s (xyzz.hpp XYZZ::add, 12M + 2S), critical path 4 products instead of 14; lane 0 … 3:
//   1: U1 = X1·ZZ2,  U2 = X2·ZZ1,  S1 = Y1·ZZZ2,  S2 = Y2·ZZZ1;   P = U2 − U1 (lanes 0, 1), R = S2 − S1 (2, 3)
//   2: PP = P²,  ZZ12 = ZZ1·ZZ2,  RR = R²,  ZZZ12 = ZZZ1·ZZZ2
//   3: PPP = P·PP,  ZZ3 = ZZ12·PP,  Q = U1·PP,  ZZZ12·P;          X3 = RR − PPP − 2Q (lane 2)
//   4: ZZZ3 = (ZZZ12·P)·PP,  —,  R·(Q − X3),  S1·PPP;            Y3 = R·(Q − X3) − S1·PPP (lane 2)
//
// RCB Algorithm 7 (homogeneous.hpp Homogeneous::add, complete, 12M + 2m_3b), for the constant-time
// mode's §5 tree (ct_aggregate.cu), whose levels wait on one addition each, and the bucket
// reduction's rounds after its chunk level (reduce.cu, every mode); critical path 2 products and 1
// two-product sum instead of 6 and 3:
//   1: X1·X2,  Y1·Y2,  Z1·Z2,  (X1 + Y1)·(X2 + Y2)
//   2: (Y1 + Z1)·(Y2 + Z2),  (X1 + Z1)·(X2 + Z2)  (lanes 2, 3 repeat lanes 0, 1)
//   3: X3,  Y3,  Z3,  Z3 again  (Homogeneous::finish's three sums of two products)
// Between 2 and 3 each lane takes both m_3b (3b·Z1Z2, 3b·y3), additions for G1 and BLS12-381's G2;
// where m_3b is a product (BN254's G2: an Fp2 product by 3b' = 9/(9 + u)) even lanes take the first
// and odd ones the second, passed round by shuffle: 4 Fp2 products a lane instead of 5, one shuffle
// deeper. One H200, G2's reduce step (MSM_CUDA_PROFILE, two rounds): BN254 2^16 0.569 → 0.517 ms,
// 2^18 0.672 → 0.607, 2^20 1.245 → 1.175, 2^22 1.908 → 1.839 (bench/gpu-notes.md).
#pragma once

#if defined(__CUDACC__)

#include "homogeneous.hpp"
#include "xyzz.hpp"

namespace msm::ec {

template <class X>
inline constexpr bool is_homogeneous = false;
template <class G>
inline constexpr bool is_homogeneous<Homogeneous<G>> = true;

// log2 of the threads per addition in the stages that add by quads (the reduction's rounds, the
// heavy buckets' sums): G1's additions by a quad of lanes, XYZZ in the default mode, RCB Alg. 7 in
// the constant-time one and after the chunk level; G2's homogeneous ones (RCB) by quads too, its
// XYZZ ones (heavy_kernel, the rounds without a chunk level) one thread each: add_to_by_quad's
// lanes read only their own products' operands, so G2's RCB by quads holds fewer registers than
// one thread's (ptxas, sm_90: reduce_kernel<G2, Homogeneous> BLS12-381 255 registers and 1,360 B
// of spill stores → none; BN254 236 → 199, 196 with m_3b shared), while G2's XYZZ by quads spilled
// more (heavy_kernel BLS12-381 676 → 1,280 B). RCB by a quad with every lane holding both points and
// getting the whole sum measured slower than one thread (ncu, H100, reduce_kernel: BLS12-381 2^16
// 528 → 563 µs, 2^20 671 → 737; BN254 278 → 288, 361 → 365; bench/gpu-notes.md).
template <class X>
constexpr int quad_log_lanes() {
  return is_homogeneous<X> || !ff::is_fp2<typename X::field> ? 2 : 0;
}

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

// *a = 2·*a by the quad (dbl-2008-s-1, 6M + 3S with a = 0: xyzz.hpp XYZZ::dbl's values), for
// add_to_by_quad's P = Q, with *a not O: critical path 3 products instead of 9. The reduction's
// summation tree meets it wherever a bucket is O (B̂_k + B̂_(k+1) = 2·B̂_(k+1)): with 32 distinct
// scalars most of its first rounds' additions, which the quad then waited on a lane's serial
// doubling for. Lane 0 … 3 (U = 2Y1, M = 3X1², X3 = M² − 2S):
//   1: V = U²,  X1²,  U² again,  U² again
//   2: W = U·V,  S = X1·V,  M²,  ZZ3 = V·ZZ1
//   3: ZZZ3 = W·ZZZ1 + 0·0,  the same,  Y3 = M·(S − X3) − W·Y1,  the same as lane 0
// (one two-product sum a lane at step 3, F::mul_add, so that the lanes run one path; its results,
// like a product's, are reduced to [0, p)).
template <class F>
__device__ __noinline__ void dbl_to_by_quad(XYZZ<F>* a) {
  const unsigned mask = quad_mask(), q = threadIdx.x & 3u;
  const F X = a->X, Y = a->Y;
  const F U = Y.dbl();
  const F m1 = F::select(q == 1, X, U).sqr();
  const F V = quad_shfl(m1, 0, mask), X2 = quad_shfl(m1, 1, mask);
  const F M = X2.dbl() + X2;
  const F m2 = by_lane(q, U, X, M, V) * by_lane(q, V, V, M, a->ZZ);
  const F W = quad_shfl(m2, 0, mask), S = quad_shfl(m2, 1, mask), MM = quad_shfl(m2, 2, mask);
  const F X3 = MM - S.dbl();
  const bool y = q == 2;
  const F m3 = F::mul_add(F::select(y, M, W), F::select(y, S - X3, a->ZZZ), F::select(y, W, F::zero()),
                          F::select(y, -Y, F::zero()));
  __syncwarp(mask);  // the quad has read a
  if (q == 2) a->X = X3, a->Y = m3;
  else if (q == 3) a->ZZ = m2;
  else if (q == 0) a->ZZZ = m3;
}

// *a += *b (a ≠ b, both in memory the quad reads). Each lane holds only its own products'
// operands, and the sum's coordinates are stored by the lanes that computed them (X3, Y3 lane 2,
// ZZ3 lane 1, ZZZ3 lane 0), so that a lane loads, selects and shuffles a few field elements, not
// both points: reduce_kernel 9 % less time at BLS12-381 and 3 % at BN254 than with every lane
// passing both points and getting the whole sum (ncu, H200, bench/gpu-notes.md).
template <class F>
__device__ void add_to_by_quad(XYZZ<F>* a, const XYZZ<F>* b) {
  const unsigned mask = quad_mask(), q = threadIdx.x & 3u;
  if (b->is_inf()) return;
  if (a->is_inf()) {
    __syncwarp(mask);  // the quad has read a
    if (q == 0) *a = *b;
    return;
  }
  const XYZZ<F>* first = (q & 1u) ? b : a;
  const XYZZ<F>* second = (q & 1u) ? a : b;
  const F m1 = (q < 2 ? first->X : first->Y) * (q < 2 ? second->ZZ : second->ZZZ);
  const F v = quad_shfl(m1, q ^ 1u, mask);  // U2, U1, S2, S1
  const F d = (q & 1u) ? m1 - v : v - m1;   // P on lanes 0, 1; R on lanes 2, 3
  const unsigned zero = __ballot_sync(mask, d.is_zero()) >> ((threadIdx.x & 31u) & ~3u);
  if (zero & 1u) {  // P = 0: a = b (R = 0) or a = −b
    if (zero & 4u) return dbl_to_by_quad(a);
    __syncwarp(mask);  // the quad has read a
    if (q == 0) *a = XYZZ<F>::infinity();
    return;
  }
  const bool square = !(q & 1u);
  const F m2 = F::select(square, d, q == 1 ? a->ZZ : a->ZZZ) * F::select(square, d, q == 1 ? b->ZZ : b->ZZZ);
  const F u1 = quad_shfl(m1, 0, mask);
  const F pp_or_p = quad_shfl(F::select(q == 1, d, m2), q == 3 ? 1u : 0u, mask);  // P to lane 3, PP to the rest
  const F m3 = by_lane(q, d, m2, u1, m2) * F::select(q == 0, m2, pp_or_p);
  const F ppp = quad_shfl(m3, 0, mask);
  const F zzz12p = quad_shfl(m3, 3, mask);
  const F x3 = m2 - ppp - m3.dbl();  // lane 2's is X3
  // Lane 1 has no fourth product; it squares ZZ3 to keep the quad on one path.
  const F m4 = by_lane(q, zzz12p, m3, d, v) * by_lane(q, m2, m3, F(m3 - x3), ppp);
  const F t = quad_shfl(m4, 3, mask);
  __syncwarp(mask);  // the quad has read a
  if (q == 2) a->X = x3, a->Y = m4 - t;
  else if (q == 1) a->ZZ = m3;
  else if (q == 0) a->ZZZ = m4;
}

// Coordinate e = min(lane, 2) of *a + *b (X3, Y3, Z3 on lanes 0, 1, 2; Z3 again on lane 3): RCB
// Alg. 7's values, the serial Homogeneous::add's coordinate for coordinate, with no branch, as §5
// requires. Each lane reads only its own products' operands.
template <class G>
__device__ typename G::field add_by_quad(const Homogeneous<G>* a, const Homogeneous<G>* b) {
  using H = Homogeneous<G>;
  using F = typename G::field;
  static_assert(sizeof(H) == 3 * sizeof(F), "X, Y, Z in a row");
  const unsigned mask = quad_mask(), q = threadIdx.x & 3u;
  const F* A = &a->X;
  const F* B = &b->X;
  // 1: lanes 0 … 2 coordinate q of each point, lane 3 X + Y; 2: (Y + Z) on even lanes, (X + Z) on odd
  const unsigned c = q == 3 ? 0u : q, o = q & 1u ? 0u : 1u;
  const F m1 = F(A[c] + F::select(q == 3, A[1], F::zero())) * F(B[c] + F::select(q == 3, B[1], F::zero()));
  const F m2 = F(A[o] + A[2]) * F(B[o] + B[2]);
  const F t0 = quad_shfl(m1, 0, mask), t1 = quad_shfl(m1, 1, mask), t2 = quad_shfl(m1, 2, mask);
  const F t3 = quad_shfl(m1, 3, mask) - (t0 + t1);
  const F t4 = quad_shfl(m2, 0, mask) - (t1 + t2);
  const F y3 = quad_shfl(m2, 1, mask) - (t0 + t2);
  // Homogeneous::finish, a coordinate's sum of two products a lane. Where m_3b is a product (BN254's
  // G2), even lanes take 3b·Z1Z2 and odd ones 3b·y3, and pass them round: one product a lane, not two.
  const typename H::Tail u = [&] {
    if constexpr (mul_b3_is_product<G>) {
      const F m = H::mul_b3(F::select(q & 1u, y3, t2));
      return H::tail_b3(t0, t1, quad_shfl(m, 0, mask), quad_shfl(m, 1, mask));
    } else {
      return H::tail(t0, t1, t2, y3);
    }
  }();
  const F r = F::mul_add(by_lane(q, t3, u.t1, u.z3, u.z3), by_lane(q, u.t1, u.z3, t4, t4),
                         by_lane(q, t4, u.y3, u.t0, u.t0), by_lane(q, F(-u.y3), u.t0, t3, t3));
  __syncwarp(mask);  // the quad has read *a and *b: a lane may now store over them
  return r;
}

// *a += *b in place by the quad, lanes 0 … 2 storing the coordinate add_by_quad gave them: the
// bucket reduction's rounds on homogeneous points (reduce.cu), as add_to_by_quad's XYZZ. a = b
// doubles (add_by_quad reads both before any lane stores).
template <class G>
__device__ void add_to_by_quad(Homogeneous<G>* a, const Homogeneous<G>* b) {
  const typename G::field c = add_by_quad(a, b);
  const unsigned lane = threadIdx.x & 3u;
  if (lane < 3) (&a->X)[lane] = c;
}

// *a = *p in homogeneous form by the quad (Homogeneous::from_xyzz: X·ZZZ, Y·ZZ, ZZ·ZZZ, O to
// (0 : 1 : 0)), one product a lane (lane 3 repeats lane 2's), each lane reading its two operands and
// storing its coordinate. No lane reads *a, so *a may be what the quad last added from.
template <class G>
__device__ __forceinline__ void from_xyzz_by_quad(Homogeneous<G>* a, const XYZZ<typename G::field>* p) {
  using F = typename G::field;
  static_assert(sizeof(XYZZ<F>) == 4 * sizeof(F), "X, Y, ZZ, ZZZ in a row");
  const unsigned q = threadIdx.x & 3u;
  const F* P = &p->X;
  const F v = P[q == 1 ? 2 : 3];
  const F r = F::select(q == 1 && v.is_zero(), F::one(), P[q == 3 ? 2 : q] * v);
  if (q < 3) (&a->X)[q] = r;
}

// *a += *b by the calling thread (q = 0) or by its quad (q = 2, every lane calling it with the same
// a and b: add_to_by_quad), for the stages that take q from quad_log_lanes.
template <int q, class X>
__device__ __forceinline__ void add_to(X* a, const X* b) {
  if constexpr (q == 2) add_to_by_quad(a, b);
  else *a = a->add(*b);
}

// *a = 2·*a by the calling thread (q = 0) or by its quad (q = 2, every lane calling it with the same
// a): XYZZ by dbl_to_by_quad (O stays O), the constant-time mode's homogeneous points as *a + *a
// by RCB Alg. 7, which is complete and whose lanes read both operands before any stores.
template <class F>
__device__ __forceinline__ void dbl_to_by_quad_any(XYZZ<F>* a) {
  if (!a->is_inf()) dbl_to_by_quad(a);
}
template <class G>
__device__ __forceinline__ void dbl_to_by_quad_any(Homogeneous<G>* a) {
  add_to_by_quad(a, a);
}
template <int q, class X>
__device__ __forceinline__ void dbl_to(X* a) {
  if constexpr (q == 2) dbl_to_by_quad_any(a);
  else *a = a->dbl();
}

}  // namespace msm::ec

#endif
