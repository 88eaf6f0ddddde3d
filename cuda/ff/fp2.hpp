// The quadratic extension Fp2 = F[u]/(u² − β) of a Montgomery field F (field.hpp), the field of
// the G2 twists of BN254 and BLS12-381, templated over an extension-parameters struct:
//
//   struct Params {
//     using base = ff::Fp<...>;          // F
//     static constexpr int beta = -1;    // u² = β; only −1 is implemented (static_assert)
//   };
//
// An element is c0 + c1·u with both coordinates in F's Montgomery form; storage is c0 then c1
// (F's limb arrays back to back, the zkey/snarkjs and noble order), so a point is x.c0‖x.c1‖y.c0‖y.c1.
// The interface is the one the point formulas (ec/*.hpp) ask of a field: zero, one, is_zero, ==,
// +, −, dbl, *, sqr, mul_add, inverse, select, from_table, to_mont/from_mont, load_le/store_le.
// Costs below count F operations: M multiplication, S squaring, R a Montgomery reduction alone.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common.hpp"

namespace msm::ff {

template <class X>
struct Fp2 {
  using F = typename X::base;
  using params = X;
  using base = F;
  // u² = −1 (both curves have p ≡ 3 mod 4, so −1 is a non-square). Another β would change the
  // real parts of mul, sqr and inverse; refuse it instead of computing in the wrong field.
  static_assert(X::beta == -1, "Fp2: only u^2 = -1 is implemented");
  static constexpr int N = 2 * F::N;  // limbs of the whole element
  F c0, c1;

  // ---- constants -------------------------------------------------------------------------------
  MSM_HD static constexpr Fp2 zero() { return Fp2{F::zero(), F::zero()}; }
  MSM_HD static Fp2 one() { return Fp2{F::one(), F::zero()}; }
  // T holds 2·F::N limbs: c0's, then c1's (the curve headers' Fp2 tables).
  template <class T>
  MSM_HD static Fp2 from_table() {
    static_assert(T::n == 2 * F::N, "Fp2::from_table: the table must hold c0 then c1");
    Fp2 r;
    MSM_UNROLL for (int i = 0; i < F::N; ++i) {
      r.c0.limb[i] = T::at(i);
      r.c1.limb[i] = T::at(F::N + i);
    }
    return r;
  }

  // ---- comparisons -----------------------------------------------------------------------------
  MSM_HD MSM_INLINE bool is_zero() const { return c0.is_zero() & c1.is_zero(); }
  MSM_HD MSM_INLINE friend bool operator==(const Fp2& a, const Fp2& b) { return (a.c0 == b.c0) & (a.c1 == b.c1); }
  MSM_HD friend bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }
  MSM_HD bool is_reduced() const { return c0.is_reduced() && c1.is_reduced(); }
  MSM_HD MSM_INLINE static Fp2 select(bool cond, const Fp2& a, const Fp2& b) {
    return Fp2{F::select(cond, a.c0, b.c0), F::select(cond, a.c1, b.c1)};
  }

  // ---- additive group (coordinate-wise) --------------------------------------------------------
  MSM_HD MSM_INLINE friend Fp2 operator+(const Fp2& a, const Fp2& b) { return Fp2{a.c0 + b.c0, a.c1 + b.c1}; }
  // Fp::sum_unreduced's interface, reduced: Fp2's products (four-product sums) keep their operands below p.
  static constexpr uint64_t kRoom = ~uint64_t(0);
  MSM_HD MSM_INLINE static Fp2 sum_unreduced(const Fp2& a, const Fp2& b) { return a + b; }
  MSM_HD MSM_INLINE friend Fp2 operator-(const Fp2& a, const Fp2& b) { return Fp2{a.c0 - b.c0, a.c1 - b.c1}; }
  MSM_HD MSM_INLINE Fp2 operator-() const { return Fp2{-c0, -c1}; }
  MSM_HD MSM_INLINE Fp2 dbl() const { return Fp2{c0.dbl(), c1.dbl()}; }
  MSM_HD Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  MSM_HD Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  MSM_HD Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  // c0 − c1·u: the p-power Frobenius of Fp2 (u^p = −u for p ≡ 3 mod 4), used by ψ on G2.
  MSM_HD MSM_INLINE Fp2 conjugate() const { return Fp2{c0, -c1}; }

  // ---- multiplication --------------------------------------------------------------------------
  // (a0 + a1u)(b0 + b1u) = (a0b0 − a1b1) + (a0b1 + a1b0)u, each coordinate a sum of two products
  // taken with ONE Montgomery reduction (F::mul_add; lazy reduction, Aranha, Karabina, Longa,
  // Gebotys, López, "Faster explicit formulas for computing pairings over ordinary curves",
  // EUROCRYPT 2011, §3.1): 4 F products and 2 reductions. In n-word terms on the device a
  // mul_add is 3n² word products (ptx.cuh), so 6n², as many as Karatsuba's 3M (3·2n²) but with 2
  // reductions instead of 3 and no pre- or post-additions. Aranha et al.'s Karatsuba on unreduced
  // double-width products (3n² + 2 reductions = 5n²) needs a double-width F product F does not
  // expose. On the host F::mul_add is two full products, so mul costs 4M there.
  MSM_HD MSM_INLINE friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    return Fp2{F::mul_add(a.c0, b.c0, a.c1, -b.c1), F::mul_add(a.c0, b.c1, a.c1, b.c0)};
  }
  // Multiplication by an element s of F: (a0·s, a1·s), 2M.
  MSM_HD MSM_INLINE friend Fp2 operator*(const Fp2& a, const F& s) { return Fp2{a.c0 * s, a.c1 * s}; }
  MSM_HD MSM_INLINE friend Fp2 operator*(const F& s, const Fp2& a) { return a * s; }
  // Complex squaring: (a0 + a1u)² = (a0 + a1)(a0 − a1) + 2a0a1·u, 2M (Aranha et al. 2011, §3.1).
  MSM_HD MSM_INLINE Fp2 sqr() const { return Fp2{(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }

  // a·b + c·d, each coordinate a sum of four F products with one reduction (F::mul_add4; lazy
  // reduction as above): 2 reductions where two Fp2 products and a sum take 4, and no Fp2 product
  // held while the other is formed. The XYZZ formulas call this once per addition (their Y).
  //   c0 = a0b0 − a1b1 + c0d0 − c1d1,  c1 = a0b1 + a1b0 + c0d1 + c1d0
  MSM_HD MSM_INLINE static Fp2 mul_add(const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d) {
    return Fp2{F::mul_add4(a.c0, b.c0, a.c1, -b.c1, c.c0, d.c0, c.c1, -d.c1),
               F::mul_add4(a.c0, b.c1, a.c1, b.c0, c.c0, d.c1, c.c1, d.c0)};
  }

  // (a0 + a1u)⁻¹ = (a0 − a1u)/(a0² + a1²): the norm to F by one mul_add, one F inversion, 2M.
  // 0 maps to 0 (F::inverse does).
  MSM_HD Fp2 inverse() const { return inverse_from_norm(norm().inverse()); }
  // a0² + a1² = a·conj(a), in F.
  MSM_HD F norm() const { return F::mul_add(c0, c0, c1, c1); }
  // a⁻¹ given t = norm()⁻¹ (inverted by the caller's choice of F inversion: cpu/inverse.hpp).
  MSM_HD Fp2 inverse_from_norm(const F& t) const { return Fp2{c0 * t, -(c1 * t)}; }

  // ---- Montgomery conversion (coordinate-wise) -------------------------------------------------
  MSM_HD static Fp2 to_mont(const Fp2& canonical) { return Fp2{F::to_mont(canonical.c0), F::to_mont(canonical.c1)}; }
  MSM_HD static Fp2 from_mont(const Fp2& m) { return Fp2{F::from_mont(m.c0), F::from_mont(m.c1)}; }

  // ---- bytes: c0 then c1, each F::BYTES little-endian (raw limbs, no Montgomery conversion) ---
  static constexpr size_t BYTES = 2 * F::BYTES;
  // False when a coordinate is ≥ p.
  MSM_HD static bool load_le(const uint8_t* in, Fp2& out) {
    const bool ok0 = F::load_le(in, out.c0);
    const bool ok1 = F::load_le(in + F::BYTES, out.c1);
    return ok0 && ok1;
  }
  MSM_HD void store_le(uint8_t* out) const {
    c0.store_le(out);
    c1.store_le(out + F::BYTES);
  }
};

// Whether F is an Fp2 (the G2 field): code written for prime fields (ff/ifma.hpp's lanes, the
// inversion by Fermat's little theorem over F::params::modulus) tests it.
template <class F>
inline constexpr bool is_fp2 = false;
template <class X>
inline constexpr bool is_fp2<Fp2<X>> = true;

}  // namespace msm::ff
