// A curve's sizes as plan.hpp needs them, read off its types (plain C++: the engine and the test
// addon's planContext hook share it).
#pragma once

#include "../ec/affine.hpp"
#include "../ec/homogeneous.hpp"
#include "../ec/xyzz.hpp"
#include "plan.hpp"

namespace msm::gpu {

template <class G>
CurveSizes curve_sizes() {
  using F = typename G::field;
  using Fr = typename G::scalar;
  CurveSizes s;
  s.affine = sizeof(ec::Affine<F>);
  s.xyzz = sizeof(ec::XYZZ<F>);
  s.homogeneous = sizeof(ec::HomogeneousOf<G>);
  for (int i = 0; i < kScalarWords; ++i) s.rm1[i] = i < 2 * Fr::N ? Fr::params::modulus::at32(i) : 0;
  s.rm1[0] -= 1;  // r is odd
  s.scalar_bits = int(Fr::params::BITS);
  return s;
}

}  // namespace msm::gpu
