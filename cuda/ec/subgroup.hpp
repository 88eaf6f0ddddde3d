// Prime-order subgroup membership for G1.
#pragma once

#include "jacobian.hpp"

namespace msm::ec {

// Curve::cofactor_one: every curve point is in G1 (BN254). Otherwise the GLV test of Scott,
// "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves" (ePrint
// 2021/1130, §4): P ∈ G1 ⇔ φ(P) = −u²·P with φ(x, y) = (βx, y), a 128-bit scalar multiplication
// (Jacobian: 127 doublings at 2M + 5S, few additions) instead of the 255-bit r·P = O.
// scripts/curve_constants.py checks that β is the cube root of unity matching λ = −u² and that
// points off G1 fail the test.
template <class Curve>
MSM_HD bool in_subgroup(const Affine<typename Curve::field>& p) {
  using F = typename Curve::field;
  if constexpr (Curve::cofactor_one) {
    return true;
  } else {
    if (p.is_inf()) return true;
    uint64_t k[Curve::u_squared::n];
    for (int i = 0; i < Curve::u_squared::n; ++i) k[i] = Curve::u_squared::at(i);
    const Jacobian<F> u2p = scalar_mul_jacobian(p, k, Curve::u_squared::n);
    const F beta = F::template from_table<typename Curve::beta_mont>();
    // φ(P) = −u²·P ⇔ u²·P = −φ(P) = (βx, −y).
    return u2p.equals(Affine<F>{beta * p.x, -p.y});
  }
}

}  // namespace msm::ec
