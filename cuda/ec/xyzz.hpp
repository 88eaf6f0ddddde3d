// Extended Jacobian "XYZZ" coordinates for short-Weierstrass curves with a = 0: (X, Y, ZZ, ZZZ)
// represents (X/ZZ, Y/ZZZ) with ZZ³ = ZZZ². Formulas from the Explicit-Formulas Database,
// hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html (Bernstein–Lange; the 2008 formulas are
// Sutherland's). Costs are M (multiplication), S (squaring), with a = 0 substituted. Each Y is a
// difference of two products, computed with one Montgomery reduction (F::mul_add; in Fp2 apart:
// kShortLived below).
// O is ZZ = ZZZ = 0. Every routine handles O inputs, P + P and P + (−P).
#pragma once

#include "../ff/fp2.hpp"
#include "affine.hpp"

namespace msm::ec {

template <class F>
struct XYZZ {
  using field = F;
  F X, Y, ZZ, ZZZ;

  // Fp2 (G2), whose points take twice the registers of G1's: the same formulas in an order that
  // ends each value's life early (the new ZZ, ZZZ and the products of old coordinates first;
  // Y3 as M·(S − X3) − T with T formed early, 2 Fp2 products where the lazy two-product sum,
  // F::mul_add, would keep its four operands live to the end). On the device this holds
  // BLS12-381 G2's accumulation hot path and its XYZZ additions (Alg. 5, §3.4) in 255 registers
  // without spilling (ec/G2.md has ptxas's figures); G1 keeps its order and lazy sums.
  static constexpr bool kShortLived = ff::is_fp2<F>;

  MSM_HD static XYZZ infinity() { return XYZZ{F::one(), F::one(), F::zero(), F::zero()}; }
  MSM_HD bool is_inf() const { return ZZ.is_zero(); }
  MSM_HD static XYZZ from_affine(const Affine<F>& a) {
    return a.is_inf() ? infinity() : XYZZ{a.x, a.y, F::one(), F::one()};
  }
  MSM_HD XYZZ operator-() const { return XYZZ{X, -Y, ZZ, ZZZ}; }
  // a where cond, else b, coordinate by coordinate without a branch (the constant-time mode).
  MSM_HD static XYZZ select(bool cond, const XYZZ& a, const XYZZ& b) {
    return XYZZ{F::select(cond, a.X, b.X), F::select(cond, a.Y, b.Y), F::select(cond, a.ZZ, b.ZZ),
                F::select(cond, a.ZZZ, b.ZZZ)};
  }

  // dbl-2008-s-1, 6M + 4S + 1·a in general; with a = 0 (no ZZ1² term) 6M + 3S.
  MSM_HD XYZZ dbl() const {
    if (is_inf()) return *this;
    if constexpr (kShortLived) {
      const F U = Y.dbl();
      const F V = U.sqr();
      const F W = U * V;
      XYZZ r;
      r.ZZ = V * ZZ;
      const F X2 = X.sqr();
      const F M = X2.dbl() + X2;
      const F S = X * V;
      r.ZZZ = W * ZZZ;
      const F T = W * Y;
      r.X = M.sqr() - S.dbl();
      r.Y = M * (S - r.X) - T;
      return r;
    }
    const F U = Y.dbl();
    const F V = U.sqr();
    const F W = U * V;
    const F S = X * V;
    const F X2 = X.sqr();
    const F M = X2.dbl() + X2;
    XYZZ r;
    r.X = M.sqr() - S.dbl();
    r.Y = F::mul_add(M, S - r.X, W, -Y);  // one reduction for both products (lazy)
    r.ZZ = V * ZZ;  // Y = 0 (a 2-torsion point) gives V = W = 0: O, as it should
    r.ZZZ = W * ZZZ;
    return r;
  }

  // mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1): 4M + 3S with a = 0.
  MSM_HD static XYZZ dbl(const Affine<F>& a) {
    if (a.is_inf()) return infinity();
    const F U = a.y.dbl();
    const F V = U.sqr();
    const F W = U * V;
    const F S = a.x * V;
    const F X2 = a.x.sqr();
    const F M = X2.dbl() + X2;
    XYZZ r;
    r.X = M.sqr() - S.dbl();
    r.Y = F::mul_add(M, S - r.X, W, -a.y);
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // The sum madd_into works on, reached by coordinate: XYZZ itself (registers), or accumulate.cu's
  // SharedSum (Alg. 4's running sums in shared memory, re-read at each use instead of held).
  enum Coord { kX, kY, kZZ, kZZZ };
  MSM_HD F coord(int e) const { return e == kX ? X : e == kY ? Y : e == kZZ ? ZZ : ZZZ; }
  MSM_HD void set_coord(int e, const F& f) {
    if (e == kX) X = f;
    else if (e == kY) Y = f;
    else if (e == kZZ) ZZ = f;
    else ZZZ = f;
  }
  MSM_HD void set(const XYZZ& p) { *this = p; }

  // madd-2008-s (mixed: ZZ2 = ZZZ2 = 1), 8M + 2S, in place on s: each old coordinate is read where
  // it is used and replaced as soon as it is dead, so none stays live across the products: the new
  // ZZ and ZZZ first, Q = X1·PP in X's place until X3 replaces it, and for G2 (kShortLived) W =
  // Y1·PPP in Y's place, subtracted at the end; G1 takes Y3 = R·(Q − X3) − Y1·PPP with one reduction
  // (F::mul_add). With the sum in shared memory only R and PPP then stay in registers across R²
  // (G1's shared-memory kernels: ptxas figures in bench/gpu-notes.md, "One in-place madd-2008-s").
  template <class S>
  MSM_HD static void madd_into(S& s, const Affine<F>& q) {
    if (q.is_inf()) return;
    const F ZZ1 = s.coord(kZZ);
    if (ZZ1.is_zero()) return s.set(from_affine(q));
    const F P = q.x * ZZ1 - s.coord(kX);
    const F R = q.y * s.coord(kZZZ) - s.coord(kY);
    if (P.is_zero()) return s.set(R.is_zero() ? dbl(q) : infinity());
    const F PP = P.sqr();
    const F PPP = P * PP;
    s.set_coord(kZZ, s.coord(kZZ) * PP);
    s.set_coord(kX, s.coord(kX) * PP);  // Q
    s.set_coord(kZZZ, s.coord(kZZZ) * PPP);
    if constexpr (kShortLived) s.set_coord(kY, s.coord(kY) * PPP);  // W
    const F X3 = R.sqr() - PPP - s.coord(kX).dbl();
    const F T = s.coord(kX) - X3;
    s.set_coord(kX, X3);
    if constexpr (kShortLived) s.set_coord(kY, R * T - s.coord(kY));
    else s.set_coord(kY, F::mul_add(R, T, s.coord(kY), -PPP));
  }
  // madd-2008-s in place on s as madd_into, for the constant-time accumulation (§5), whose running
  // sum starts from a secret random point R (cuda/msm/accumulate.cu ConstantTimeAcc): the same
  // instructions whatever q and keep are, the result dropped coordinate by coordinate when keep (a
  // zero digit, or q = O). While s is R plus points the caller chose, s = O or s = ±q (where
  // madd-2008-s's P = 0 and the formula fails) means R = ±q − (the partial sum): a chance of about
  // 2/r an addition, R being unknown to whoever chose the points. If it happens anyway
  // (exceptional), nothing is written and true is returned: the caller adds by a complete formula.
  // When keep, X's slot holds X1 (not Q) and Y's (G2) Y1 throughout, so X3 and Y3 are formed from
  // garbage and each select then keeps the old coordinate.
  template <class S>
  MSM_HD static bool madd_blinded_into(S& s, const Affine<F>& q, bool keep) {
    const F ZZ1 = s.coord(kZZ);
    const F P = q.x * ZZ1 - s.coord(kX);
    const F R = q.y * s.coord(kZZZ) - s.coord(kY);
    if (!keep && (ZZ1.is_zero() | P.is_zero())) return true;
    const F PP = P.sqr();
    const F PPP = P * PP;
    s.set_coord(kZZ, F::select(keep, s.coord(kZZ), s.coord(kZZ) * PP));
    s.set_coord(kX, F::select(keep, s.coord(kX), s.coord(kX) * PP));  // Q
    s.set_coord(kZZZ, F::select(keep, s.coord(kZZZ), s.coord(kZZZ) * PPP));
    if constexpr (kShortLived) s.set_coord(kY, F::select(keep, s.coord(kY), s.coord(kY) * PPP));  // W
    const F X3 = R.sqr() - PPP - s.coord(kX).dbl();
    const F T = s.coord(kX) - X3;
    s.set_coord(kX, F::select(keep, s.coord(kX), X3));
    if constexpr (kShortLived) s.set_coord(kY, F::select(keep, s.coord(kY), R * T - s.coord(kY)));
    else s.set_coord(kY, F::select(keep, s.coord(kY), F::mul_add(R, T, s.coord(kY), -PPP)));
    return false;
  }
  MSM_HD XYZZ add(const Affine<F>& q) const {
    XYZZ r = *this;
    madd_into(r, q);
    return r;
  }
  MSM_HD XYZZ sub(const Affine<F>& q) const { return add(-q); }

  // add-2008-s: 12M + 2S.
  MSM_HD XYZZ add(const XYZZ& q) const {
    if (q.is_inf()) return *this;
    if (is_inf()) return q;
    if constexpr (kShortLived) {
      // The inputs are consumed first: (U1, S1, ZZ1·ZZ2, ZZZ1·ZZZ2) is the first point again, which
      // the doubling case doubles.
      const F U1 = X * q.ZZ;
      const F U2 = q.X * ZZ;
      const F ZZ12 = ZZ * q.ZZ;
      const F S1 = Y * q.ZZZ;
      const F S2 = q.Y * ZZZ;
      const F ZZZ12 = ZZZ * q.ZZZ;
      const F P = U2 - U1;
      const F R = S2 - S1;
      if (P.is_zero()) return R.is_zero() ? XYZZ{U1, S1, ZZ12, ZZZ12}.dbl() : infinity();
      const F PP = P.sqr();
      const F PPP = P * PP;
      XYZZ r;
      r.ZZ = ZZ12 * PP;
      const F Q = U1 * PP;
      r.ZZZ = ZZZ12 * PPP;
      const F W = S1 * PPP;
      r.X = R.sqr() - PPP - Q.dbl();
      r.Y = R * (Q - r.X) - W;
      return r;
    }
    const F U1 = X * q.ZZ;
    const F U2 = q.X * ZZ;
    const F S1 = Y * q.ZZZ;
    const F S2 = q.Y * ZZZ;
    const F P = U2 - U1;
    const F R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl() : infinity();
    const F PP = P.sqr();
    const F PPP = P * PP;
    const F Q = U1 * PP;
    XYZZ r;
    r.X = R.sqr() - PPP - Q.dbl();
    r.Y = F::mul_add(R, Q - r.X, S1, -PPP);
    r.ZZ = ZZ * q.ZZ * PP;
    r.ZZZ = ZZZ * q.ZZZ * PPP;
    return r;
  }

  // x = X/ZZ, y = Y/ZZZ with one inversion: t = (ZZ·ZZZ)⁻¹, 1/ZZ = ZZZ·t, 1/ZZZ = ZZ·t.
  MSM_HD Affine<F> to_affine() const {
    if (is_inf()) return Affine<F>::infinity();
    const F t = (ZZ * ZZZ).inverse();
    return Affine<F>{X * (ZZZ * t), Y * (ZZ * t)};
  }

  // Same point as the affine q (no inversion: X = x·ZZ and Y = y·ZZZ).
  MSM_HD bool equals(const Affine<F>& q) const {
    if (is_inf() || q.is_inf()) return is_inf() && q.is_inf();
    return X == q.x * ZZ && Y == q.y * ZZZ;
  }
};

// k·P in XYZZ (double_and_add, affine.hpp).
template <class F>
MSM_HD XYZZ<F> scalar_mul(const Affine<F>& p, const uint64_t* k, int k_limbs) {
  return double_and_add<XYZZ<F>>(p, k, k_limbs);
}

}  // namespace msm::ec
