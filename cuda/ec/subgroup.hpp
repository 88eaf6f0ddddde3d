// Prime-order subgroup membership for G1.
#pragma once

#include "jacobian.hpp"

namespace msm::ec {

// Curve::cofactor_one: every curve point is in G1 (BN254). Otherwise the GLV test of Scott,
// "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves" (ePrint
// 2021/1130, §4): P ∈ G1 ⇔ φ(P) = −k·P with φ(x, y) = (βx, y) and Curve::subgroup_k = k, the
// integer k = u² on BLS12 and x⁴ on BLS24 (a 128-bit scalar multiplication, Jacobian: 127
// doublings at 2M + 5S, few additions, instead of the 253–255-bit r·P = O). Sound on all of
// E(Fp) because k² − k + 1 = r as integers: φ + k then has degree r, so its kernel is G1 alone.
// scripts/curve_constants.py checks that identity, that β is the cube root of unity matching
// λ = −k mod r, and that points off G1 fail the test.
template <class Curve>
MSM_HD bool in_subgroup(const Affine<typename Curve::field>& p) {
  using F = typename Curve::field;
  if constexpr (Curve::cofactor_one) {
    return true;
  } else {
    if (p.is_inf()) return true;
    using K = typename Curve::subgroup_k;
    uint64_t k[K::n];
    for (int i = 0; i < K::n; ++i) k[i] = K::at(i);
    const Jacobian<F> kp = double_and_add<Jacobian<F>>(p, k, K::n);
    const F beta = F::template from_table<typename Curve::beta_mont>();
    // φ(P) = −k·P ⇔ k·P = −φ(P) = (βx, −y).
    return kp.equals(Affine<F>{beta * p.x, -p.y});
  }
}

}  // namespace msm::ec
