// Affine points (x, y) on a short-Weierstrass curve y² = x³ + b (a = 0), coordinates in
// Montgomery form. The point at infinity is (0, 0): (0, 0) is on the curve only when b = 0, which
// none of these curves has, so the encoding is free to mean O (the snarkjs convention too).
#pragma once

#include "../ff/common.hpp"

namespace msm::ec {

template <class F>
struct Affine {
  using field = F;
  F x, y;

  MSM_HD static Affine infinity() { return Affine{F::zero(), F::zero()}; }
  MSM_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  MSM_HD Affine operator-() const { return is_inf() ? *this : Affine{x, -y}; }
  MSM_HD friend bool operator==(const Affine& a, const Affine& b) { return a.x == b.x && a.y == b.y; }
  MSM_HD friend bool operator!=(const Affine& a, const Affine& b) { return !(a == b); }
};

// y² = x³ + b with b given in Montgomery form by the curve struct. O counts as on the curve.
template <class Curve>
MSM_HD bool on_curve(const Affine<typename Curve::field>& p) {
  using F = typename Curve::field;
  if (p.is_inf()) return true;
  const F b = F::template from_table<typename Curve::b_mont>();
  return p.y.sqr() == p.x.sqr() * p.x + b;
}

// k·P in the coordinates Point (XYZZ, Jacobian: whatever has infinity(), dbl() and a mixed add),
// for k given as little-endian 64-bit limbs: left-to-right double-and-add, variable time in k
// (validation, tests and table set-up; never the MSM).
template <class Point, class F>
MSM_HD Point double_and_add(const Affine<F>& p, const uint64_t* k, int k_limbs) {
  Point acc = Point::infinity();
  for (int i = k_limbs - 1; i >= 0; --i)
    for (int bit = 63; bit >= 0; --bit) {
      acc = acc.dbl();
      if ((k[i] >> bit) & 1) acc = acc.add(p);
    }
  return acc;
}

}  // namespace msm::ec
