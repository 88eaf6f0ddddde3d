// Prime-order subgroup membership for G2 (the order-r subgroup of the sextic twist E'(Fp2)), by
// the untwist-Frobenius-twist endomorphism ψ(x, y) = (conj(x)·ψx, conj(y)·ψy) (Galbraith, Scott,
// "Exponentiation in pairing-friendly groups using homomorphisms", Pairing 2008). ψ satisfies
// ψ² − tψ + p = 0 on E'(Fp2) and acts on G2 as multiplication by p ≡ t − 1 (mod r), so
//   P ∈ G2 ⇔ ψ(P) = [t − 1]P:  [u]P on BLS12 (Scott, "A note on group membership tests for G1,
//   G2 and GT on BLS pairing-friendly curves", ePrint 2021/1130, §5), [6x²]P on BN (El Housni,
//   Guillevic, Piellard, "Co-factor clearing and subgroup membership testing on pairing-friendly
//   curves", AFRICACRYPT 2022).
// Sound on all of E'(Fp2): ψ(Q) = [λ]Q forces (λ² − tλ + p)Q = O, and with λ = t − 1 that integer
// is #E(Fp) = h1·r, whose gcd with #E'(Fp2) is r (checked by scripts/curve_constants.py, which also
// derives ψx, ψy and runs points of small order through the test). Cost: one |λ|-bit scalar
// multiplication in Jacobian coordinates (64 doublings on BLS12-381, 127 on BN254, at 2M + 5S in
// Fp2 each) and 2 Fp2 M for ψ, against 255 doublings for [r]P = O.
// The caller checks that P is on the twist first (ec/affine.hpp on_curve).
#pragma once

#include "jacobian.hpp"

namespace msm::ec {

// ψ(P) for Curve a g2 struct (cuda/curves/*_g2.hpp); O maps to O.
template <class Curve>
MSM_HD Affine<typename Curve::field> psi(const Affine<typename Curve::field>& p) {
  using F = typename Curve::field;
  if (p.is_inf()) return p;
  const F cx = F::template from_table<typename Curve::psi_x_mont>();
  const F cy = F::template from_table<typename Curve::psi_y_mont>();
  return Affine<F>{p.x.conjugate() * cx, p.y.conjugate() * cy};
}

template <class Curve>
MSM_HD bool in_subgroup_g2(const Affine<typename Curve::field>& p) {
  using F = typename Curve::field;
  if (p.is_inf()) return true;
  using K = typename Curve::subgroup_k;
  uint64_t k[K::n];
  for (int i = 0; i < K::n; ++i) k[i] = K::at(i);
  const Jacobian<F> kp = double_and_add<Jacobian<F>>(p, k, K::n);  // [|λ|]P
  const Affine<F> q = psi<Curve>(p);
  // ψ(P) = [λ]P ⇔ [|λ|]P = ψ(P), or −ψ(P) when λ < 0 (BLS12-381's u).
  return kp.equals(Curve::subgroup_k_negative ? -q : q);
}

}  // namespace msm::ec
