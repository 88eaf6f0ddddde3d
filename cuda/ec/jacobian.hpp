// Jacobian coordinates (X, Y, Z) for y² = x³ + b (a = 0): (X/Z², Y/Z³), O is Z = 0. Cheaper
// doubling than XYZZ (2M + 5S against 6M + 3S), so long double-and-add chains with few additions
// (the G1 membership test) use it. Formulas from the Explicit-Formulas Database,
// hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html.
#pragma once

#include "affine.hpp"

namespace msm::ec {

template <class F>
struct Jacobian {
  using field = F;
  F X, Y, Z;

  MSM_HD static Jacobian infinity() { return Jacobian{F::one(), F::one(), F::zero()}; }
  MSM_HD bool is_inf() const { return Z.is_zero(); }
  MSM_HD static Jacobian from_affine(const Affine<F>& a) {
    return a.is_inf() ? infinity() : Jacobian{a.x, a.y, F::one()};
  }

  // dbl-2009-l (Lange 2009): 2M + 5S.
  MSM_HD Jacobian dbl() const {
    if (is_inf()) return *this;
    const F A = X.sqr();
    const F B = Y.sqr();
    const F C = B.sqr();
    const F D = ((X + B).sqr() - A - C).dbl();
    const F E = A.dbl() + A;
    const F Fv = E.sqr();
    Jacobian r;
    r.X = Fv - D.dbl();
    r.Y = E * (D - r.X) - C.dbl().dbl().dbl();
    r.Z = (Y * Z).dbl();  // Y = 0 (2-torsion) gives Z3 = 0: O
    return r;
  }

  // madd-2007-bl (Bernstein–Lange 2007, Z2 = 1): 7M + 4S.
  MSM_HD Jacobian add(const Affine<F>& q) const {
    if (q.is_inf()) return *this;
    if (is_inf()) return from_affine(q);
    const F Z1Z1 = Z.sqr();
    const F U2 = q.x * Z1Z1;
    const F S2 = q.y * Z * Z1Z1;
    const F H = U2 - X;
    const F R = (S2 - Y).dbl();
    if (H.is_zero()) return R.is_zero() ? from_affine(q).dbl() : infinity();
    const F HH = H.sqr();
    const F I = HH.dbl().dbl();
    const F J = H * I;
    const F V = X * I;
    Jacobian r;
    r.X = R.sqr() - J - V.dbl();
    r.Y = R * (V - r.X) - (Y * J).dbl();
    r.Z = (Z + H).sqr() - Z1Z1 - HH;
    return r;
  }

  // Same point as the affine q: X = x·Z², Y = y·Z³.
  MSM_HD bool equals(const Affine<F>& q) const {
    if (is_inf() || q.is_inf()) return is_inf() && q.is_inf();
    const F ZZ = Z.sqr();
    return X == q.x * ZZ && Y == q.y * ZZ * Z;
  }
};

}  // namespace msm::ec
