// Homogeneous projective coordinates (X : Y : Z) for y² = x³ + b (a = 0): (X/Z, Y/Z), O = (0 : 1 : 0).
// Two uses (Chen et al. §3.2 and §5, papers/000):
//  - the complete formulas of Renes, Costello, Batina, "Complete addition formulas for prime order
//    elliptic curves", EUROCRYPT 2016 (ePrint 2015/1060), Algorithms 7, 8, 9 for a = 0: one
//    straight-line sequence for every input pair, O and P = ±Q included, so the constant-time
//    accumulation (§5) runs the same instructions whatever the points are;
//  - the affine + affine → projective addition mmadd-1998-cmo (Cohen, Miyaji, Ono 1998; EFD
//    g1p/auto-shortw-projective.html), 5M + 2S, for the double-point accumulation of §3.2.
// The one curve constant of the formulas is 3b (m_3b below): for G1, b is the small integer
// G::b_int and t·3b an addition chain; a curve struct may instead define mul_b3 (G2, whose b' is
// an element of Fp2: curves/*_g2.hpp says how it multiplies).
#pragma once

#include <type_traits>

#include "affine.hpp"
#include "xyzz.hpp"

namespace msm::ec {

// Whether the curve struct G defines its own multiplication by 3b (static F mul_b3(const F&)).
template <class G, class = void>
inline constexpr bool has_mul_b3 = false;
template <class G>
inline constexpr bool has_mul_b3<G, std::void_t<decltype(&G::mul_b3)>> = true;
// Whether that multiplication is a field product (G::mul_b3_is_product; BN254's G2, whose 3b' is a
// general Fp2 element), not a few additions.
template <class G, class = void>
inline constexpr bool mul_b3_is_product = false;
template <class G>
inline constexpr bool mul_b3_is_product<G, std::void_t<decltype(G::mul_b3_is_product)>> = G::mul_b3_is_product;

// G: the curve struct (cuda/curves), whose field the coordinates are in and whose b the formulas use.
template <class G>
struct Homogeneous {
  using curve = G;
  using F = typename G::field;
  using field = F;
  F X, Y, Z;

  MSM_HD static Homogeneous infinity() { return Homogeneous{F::zero(), F::one(), F::zero()}; }
  MSM_HD bool is_inf() const { return Z.is_zero(); }
  // O for the affine (0, 0) encoding, without a branch.
  MSM_HD static Homogeneous from_affine(const Affine<F>& a) {
    const bool inf = a.is_inf();
    return Homogeneous{a.x, F::select(inf, F::one(), a.y), F::select(inf, F::zero(), F::one())};
  }
  MSM_HD Homogeneous operator-() const { return Homogeneous{X, -Y, Z}; }
  MSM_HD static Homogeneous select(bool cond, const Homogeneous& a, const Homogeneous& b) {
    return Homogeneous{F::select(cond, a.X, b.X), F::select(cond, a.Y, b.Y), F::select(cond, a.Z, b.Z)};
  }

  // t·3b with no data-dependent step: the curve's mul_b3, else the addition chain of 3·b_int.
  MSM_HD MSM_INLINE static F mul_b3(const F& t) {
    if constexpr (has_mul_b3<G>) return G::mul_b3(t);
    else return ff::mul_small<3 * G::b_int>(t);
  }

  // RCB Algorithm 7 (complete addition, a = 0): 12M + 2m_3b.
  MSM_HD Homogeneous add(const Homogeneous& q) const {
    const F t0 = X * q.X, t1 = Y * q.Y, t2 = Z * q.Z;
    const F t3 = (X + Y) * (q.X + q.Y) - (t0 + t1);
    const F t4 = (Y + Z) * (q.Y + q.Z) - (t1 + t2);
    const F y3 = (X + Z) * (q.X + q.Z) - (t0 + t2);
    return finish(t0, t1, t2, t3, t4, y3);
  }

  // The sum add_into works on, reached by coordinate (as XYZZ::madd_into's): Homogeneous itself, or
  // accumulate.cu's SharedSum.
  enum Coord { kX, kY, kZ };
  MSM_HD F coord(int e) const { return e == kX ? X : e == kY ? Y : Z; }
  MSM_HD void set_coord(int e, const F& f) {
    if (e == kX) X = f;
    else if (e == kY) Y = f;
    else Z = f;
  }
  MSM_HD void set(const Homogeneous& p) { *this = p; }

  // RCB Algorithm 7 in place on s (12M + 2m_3b), each old coordinate read where it is used, so
  // that a sum in shared memory (§3.2's homogeneous accumulation) is not held in registers. add()
  // keeps its own copy of the formula: written through this one, ptxas (sm_90, CUDA 13.0) gave
  // BLS12-381's ct_rounds_kernel 170 registers instead of 154 and the register-sum homogeneous
  // Alg. 4 140 B of spills instead of none.
  //
  // The six sums that only products take are left unreduced on the device (F::sum_unreduced, below
  // 2p; a product of two: A·B = 4), as in Alg. 8 below: one carry chain each instead of an addition
  // and a conditional subtraction, in §3.2's accumulation loop, whose code outgrows the instruction
  // cache (bench/gpu-notes.md).
  template <class S>
  MSM_HD static void add_into(S& s, const Homogeneous& q) {
    const F t0 = s.coord(kX) * q.X, t1 = s.coord(kY) * q.Y, t2 = s.coord(kZ) * q.Z;
    const F t3 = F::sum_unreduced(s.coord(kX), s.coord(kY)) * F::sum_unreduced(q.X, q.Y) - (t0 + t1);
    const F t4 = F::sum_unreduced(s.coord(kY), s.coord(kZ)) * F::sum_unreduced(q.Y, q.Z) - (t1 + t2);
    const F y3 = F::sum_unreduced(s.coord(kX), s.coord(kZ)) * F::sum_unreduced(q.X, q.Z) - (t0 + t2);
    s.set(finish(t0, t1, t2, t3, t4, y3));
  }

  // RCB Algorithm 8 (mixed, Z2 = 1; complete for every affine q ≠ O): 11M + 2m_3b, in place on s,
  // each old coordinate read where it is used. The affine O (0, 0) has no Z2 = 1 form, so the
  // formula runs on it anyway and each new coordinate is selected against the old one, as it is
  // when `keep` (the constant-time accumulation's entries of bucket 0, §5): the same instructions
  // whatever q and keep are.
  //
  // The sums that only products take are left unreduced on the device (F::sum_unreduced, below 2p):
  // x2 + y2 and X1 + Y1 (a product: A·B = 4), and t4 (< 2p into finish's sums: bounds there).
  template <class S>
  MSM_HD static void add_into(S& s, const Affine<F>& q, bool keep) {
    keep = keep | q.is_inf();
    const F t0 = s.coord(kX) * q.x, t1 = s.coord(kY) * q.y;
    const F t3 = F::sum_unreduced(q.x, q.y) * F::sum_unreduced(s.coord(kX), s.coord(kY)) - (t0 + t1);
    const F t4 = F::sum_unreduced(q.y * s.coord(kZ), s.coord(kY));
    const F y3 = q.x * s.coord(kZ) + s.coord(kX);
    const Homogeneous r = finish(t0, t1, s.coord(kZ), t3, t4, y3);
    s.set_coord(kX, F::select(keep, s.coord(kX), r.X));
    s.set_coord(kY, F::select(keep, s.coord(kY), r.Y));
    s.set_coord(kZ, F::select(keep, s.coord(kZ), r.Z));
  }
  MSM_HD Homogeneous add(const Affine<F>& q) const {
    Homogeneous r = *this;
    add_into(r, q, false);
    return r;
  }

  // RCB Algorithm 9 (doubling, a = 0): 6M + 2S + 1m_3b.
  MSM_HD Homogeneous dbl() const {
    F t0 = Y.sqr();
    F z3 = t0.dbl().dbl().dbl();
    F t1 = Y * Z;
    F t2 = mul_b3(Z.sqr());
    F x3 = t2 * z3;
    F y3 = t0 + t2;
    z3 = t1 * z3;
    t1 = t2 + t2;
    t2 = t1 + t2;
    t0 = t0 - t2;
    y3 = t0 * y3;
    y3 = x3 + y3;
    t1 = X * Y;
    x3 = t0 * t1;
    x3 = x3.dbl();
    return Homogeneous{x3, y3, z3};
  }

  // The common tail of RCB Algorithms 7 and 8 (their steps 19–33 and 12–26): 6M + 2m_3b, from
  // t0 = X1X2, t1 = Y1Y2, t2 = Z1Z2, t3 = X1Y2 + X2Y1, t4 = Y1Z2 + Y2Z1, y3 = X1Z2 + X2Z1, each
  // below p but t4, below 2p. 3·X1X2 goes unreduced (< 3p) into the sums that take it: in the
  // bounds of F::sum_unreduced, X: A·B + C·D = 1 + 2, B + D + 1 = 3; Y: 1 + 3, 1 + 3 + 1 = 5; Z:
  // 2 + 3, 2 + 1 + 1; so kRoom ≥ 5.
  static_assert(F::kRoom >= 5, "Homogeneous::finish: 3·X1X2 and t4 unreduced need R/p above 5");
  MSM_HD MSM_INLINE static Homogeneous finish(const F& x1x2, const F& t1_in, const F& z1z2, const F& t3, const F& t4,
                                              const F& y3_in) {
    const Tail u = tail(x1x2, t1_in, z1z2, y3_in);
    // Each coordinate a sum of two products: one reduction each (lazy reduction, §3.2).
    return Homogeneous{F::mul_add(t3, u.t1, t4, -u.y3), F::mul_add(u.t1, u.z3, u.y3, u.t0), F::mul_add(u.z3, t4, u.t0, t3)};
  }
  // finish's values before its three sums (X3 = t3·t1 − t4·y3, Y3 = t1·z3 + y3·t0, Z3 = z3·t4 +
  // t0·t3), for ec/quad.cuh, whose lanes take a sum each.
  struct Tail {
    F t0, t1, z3, y3;
  };
  MSM_HD MSM_INLINE static Tail tail(const F& x1x2, const F& t1_in, const F& z1z2, const F& y3_in) {
    const F t2 = mul_b3(z1z2);
    return Tail{F::sum_unreduced(F::sum_unreduced(x1x2, x1x2), x1x2), t1_in - t2, t1_in + t2, mul_b3(y3_in)};
  }
  // tail from t2 = 3b·Z1Z2 and y3_b3 = 3b·y3 taken elsewhere (ec/quad.cuh: one a lane where m_3b is
  // a product). tail keeps its own copy of these sums so that its evaluation order stays as it was.
  MSM_HD MSM_INLINE static Tail tail_b3(const F& x1x2, const F& t1_in, const F& t2, const F& y3_b3) {
    return Tail{F::sum_unreduced(F::sum_unreduced(x1x2, x1x2), x1x2), t1_in - t2, t1_in + t2, y3_b3};
  }

  // mmadd-1998-cmo: p + q for affine p, q with x_p ≠ x_q (the caller checks): 5M + 2S.
  //   u = y_q − y_p, v = x_q − x_p, R = v²·x_p, A = u² − v³ − 2R,
  //   X = v·A, Y = u·(R − A) − v³·y_p, Z = v³.
  MSM_HD static Homogeneous add_distinct(const Affine<F>& p, const Affine<F>& q) {
    const F u = q.y - p.y, v = q.x - p.x;
    const F vv = v.sqr();
    const F vvv = v * vv;
    const F R = vv * p.x;
    const F A = u.sqr() - vvv - R.dbl();
    return Homogeneous{v * A, F::mul_add(u, R - A, vvv, -p.y), vvv};
  }

  // The same point in XYZZ: (X·Z, Y·Z², Z², Z³) = (x·ZZ, y·ZZZ, ZZ, ZZZ); 3M + 1S. O maps to O.
  MSM_HD XYZZ<F> to_xyzz() const {
    const F zz = Z.sqr();
    return XYZZ<F>{X * Z, Y * zz, zz, zz * Z};
  }
  // An XYZZ point in homogeneous form: (X·ZZZ, Y·ZZ, ZZ·ZZZ), x = X/ZZ and y = Y/ZZZ; 3M. O (ZZ = ZZZ =
  // 0) gives (0, 0, 0), so its Y is set to 1: RCB's formulas take O as (0 : 1 : 0).
  MSM_HD static Homogeneous from_xyzz(const XYZZ<F>& p) {
    return Homogeneous{p.X * p.ZZZ, F::select(p.is_inf(), F::one(), p.Y * p.ZZ), p.ZZ * p.ZZZ};
  }
  // x = X/Z, y = Y/Z (one inversion; tests and the host).
  MSM_HD Affine<F> to_affine() const {
    if (is_inf()) return Affine<F>::infinity();
    const F zi = Z.inverse();
    return Affine<F>{X * zi, Y * zi};
  }
};

// The homogeneous point type of a curve struct (cuda/curves): its field and b.
template <class G>
using HomogeneousOf = Homogeneous<G>;

}  // namespace msm::ec
