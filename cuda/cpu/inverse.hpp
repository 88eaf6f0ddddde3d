// Field inversion for the host's batch-affine additions: Fermat, a⁻¹ = a^(p−2), with a fixed 4-bit
// window (Handbook of Applied Cryptography, Alg. 14.82: 14 products for the table, then per window
// 4 squarings and at most one product): ≈ 252 squarings + 63 products for 256-bit p, against
// ≈ 253 + 127 for the bitwise square-and-multiply of Fp::inverse(). Same value; 0 maps to 0.
// In Fp2 (G2) through the norm: one such inversion in the base field, 1 mul_add and 2M (ff/fp2.hpp).
#pragma once

#include <cstdint>

#include "../ff/fp2.hpp"

namespace msm::cpu {

template <class F>
F fast_inverse(const F& a) {
  if constexpr (ff::is_fp2<F>) {
    return a.inverse_from_norm(fast_inverse(a.norm()));
  } else {
    constexpr int N = F::N;
    uint64_t e[N];
    uint64_t borrow = 0;
    for (int i = 0; i < N; ++i) e[i] = ff::sbb(F::params::modulus::at(i), i == 0 ? 2 : 0, borrow);
    F table[16];
    table[0] = F::one();
    table[1] = a;
    for (int i = 2; i < 16; ++i) table[i] = table[i - 1] * a;
    F r = F::one();
    bool started = false;
    for (int i = N - 1; i >= 0; --i)
      for (int sh = 60; sh >= 0; sh -= 4) {
        const unsigned d = unsigned(e[i] >> sh) & 15u;
        if (started) r = r.sqr().sqr().sqr().sqr();
        if (d) r = started ? r * table[d] : table[d], started = true;
      }
    return r;
  }
}

}  // namespace msm::cpu
