// The blinding point of the constant-time accumulation (Chen et al. §5, papers/000; cuda/msm/
// accumulate.cu ConstantTimeAcc): R = k·G for the curve struct's generator G and a secret random
// k, so that a running sum started from R meets the exceptional cases of the incomplete mixed
// addition (ec/xyzz.hpp madd_blinded_into) only with negligible chance, whatever points and
// scalars the caller chose. Computed on the host once per context.
#pragma once

#include <cstdint>

#include "homogeneous.hpp"

namespace msm::ec {

// k·G for k given as four little-endian 64-bit words, by a ladder of complete additions (RCB
// Algorithms 7 and 9) with a select per bit: the same steps whatever k is. k ≡ 0 (mod r) would
// give O, which cannot blind; G is returned then (a chance of 2^−254 for a random k).
template <class G>
Affine<typename G::field> blinding_point(const uint64_t (&k)[4]) {
  using F = typename G::field;
  using H = HomogeneousOf<G>;
  const Affine<F> g{F::to_mont(F::template from_table<typename G::gen_x>()),
                    F::to_mont(F::template from_table<typename G::gen_y>())};
  const H gh = H::from_affine(g);
  H acc = H::infinity();
  for (int i = 3; i >= 0; --i)
    for (int bit = 63; bit >= 0; --bit) {
      acc = acc.dbl();
      acc = H::select(((k[i] >> bit) & 1) != 0, acc.add(gh), acc);
    }
  return acc.is_inf() ? g : acc.to_affine();
}

}  // namespace msm::ec
