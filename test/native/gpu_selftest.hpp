// GPU self tests reachable from the test addon (test/gpu/*.test.ts) and from the standalone driver
// (test/gpu/driver.cu). Declared for plain C++; defined in gpu_selftest.cu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine.hpp"

namespace msm::gpu {

struct FieldSelftest {
  size_t checked = 0;     // products and squares compared
  size_t mismatches = 0;  // device PTX result ≠ host portable result
  std::string first;      // description of the first mismatch
};

// `count` random pairs (plus edge values 0, 1, p−1, R mod p …) of the curve's base field:
// device_mont_mul, device_mont_sqr, device_mont_mul_add and device_mont_mul_add4 (ptx.cuh), the
// portable CIOS on the device, +, − and negation, and products and two-product sums of unreduced
// sums (Fp::sum_unreduced, at the bounds Homogeneous's formulas take), each compared with the
// host's Fp::mont_mul and reduced arithmetic.
FieldSelftest field_selftest(CurveId curve, size_t count, uint64_t seed);

// The same for G2's field Fp2 (ff/fp2.hpp) on the device, for a curve with a G2: `count` random
// triples (a, b, c) and every pair of the edge elements, whose coordinates are 0, 1, 2, 2^32, 2^64,
// p − 1, p − 2, p − 2^32, p − 2^64, (p ± 1)/2, 2^(bits−1), R mod p and R² mod p as raw limbs (so
// that the lazily reduced sums of ptx.cuh's device_mont_mul_add meet their largest values). Each of
// mul, sqr, mul_add (a·b + c·a), +, −, negation, dbl, mul by F, conjugate, the curve's mul_b3
// (ec/homogeneous.hpp) and, on a share of the elements, the inverse, compared with the host's Fp2.
FieldSelftest fp2_selftest(CurveId curve, size_t count, uint64_t seed);

// G1's point additions by a quad of lanes (ec/quad.cuh) against the host's serial ones, coordinate
// for coordinate: add_to_by_quad on XYZZ points (the bucket reduction's rounds) and on homogeneous
// ones (RCB Alg. 7 by add_by_quad, §5's tree and the constant-time rounds), each on `count` pairs
// of a random walk of points with ZZ ≠ 1 (Z ≠ 1), and for four points P (and P' = P with
// ZZ = ZZZ = 1) the special cases P + P, P + P', P − P, P − P', O + P, P + O, O + O. `checked`
// counts pairs, both formulas'.
FieldSelftest quad_selftest(CurveId curve, size_t count, uint64_t seed);

// Takes all but leave_free bytes of the device's free memory (so that a test can make one
// device of a split context run out); release_device(handle) gives it back. Throws EngineError.
uint64_t occupy_device(int device, size_t leave_free);
void release_device(uint64_t handle);

}  // namespace msm::gpu
