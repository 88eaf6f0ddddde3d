// BN254 (alt_bn128 of EIP-196, the curve of snarkjs/circom Groth16): y² = x³ + 3 over Fp,
// p and r from the BN family polynomials at u = 4965661367192848881 (Barreto–Naehrig 2005).
// G1 has cofactor 1, so every point on the curve is in the prime-order group.
// Constants derived and checked by scripts/curve_constants.py.
#pragma once

#include "../ff/field.hpp"

namespace msm::curves::bn254 {

struct fp_params {
  static constexpr int N = 4;
  static constexpr unsigned BITS = 254;
  using modulus = ff::limbs<0x3c208c16d87cfd47, 0x97816a916871ca8d, 0xb85045b68181585d, 0x30644e72e131a029>;
  using one = ff::limbs<0xd35d438dc58f0d9d, 0x0a78eb28f5c70b3d, 0x666ea36f7879462c, 0x0e0a77c19a07df2f>;
  using r2 = ff::limbs<0xf32cfc5b538afa89, 0xb5e71911d44501fb, 0x47ab1eff0a417ff6, 0x06d89f71cab8351f>;
  static constexpr uint64_t inv = 0x87d20782e4866389;
  static constexpr uint32_t inv32 = 0xe4866389;
};

struct fr_params {
  static constexpr int N = 4;
  static constexpr unsigned BITS = 254;
  using modulus = ff::limbs<0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029>;
  using one = ff::limbs<0xac96341c4ffffffb, 0x36fc76959f60cd29, 0x666ea36f7879462e, 0x0e0a77c19a07df2f>;
  using r2 = ff::limbs<0x1bb8e645ae216da7, 0x53fe3ab1e35c59e3, 0x8c49833d53bb8085, 0x0216d0b17f4e44a5>;
  static constexpr uint64_t inv = 0xc2e1f593efffffff;
  static constexpr uint32_t inv32 = 0xefffffff;
};

using fp = ff::Fp<fp_params>;
using fr = ff::Fp<fr_params>;

struct g1 {
  using field = fp;
  using scalar = fr;
  static constexpr const char* name = "bn254";
  // b = 3, in Montgomery form (a = 0).
  static constexpr unsigned b_int = 3;  // b as an integer (complete formulas multiply by 3b)
  using b_mont = ff::limbs<0x7a17caa950ad28d7, 0x1f6ac17ae15521b9, 0x334bea4e696bd284, 0x2a1f6744ce179d8e>;
  // Generator (1, 2), canonical.
  using gen_x = ff::limbs<1, 0, 0, 0>;
  using gen_y = ff::limbs<2, 0, 0, 0>;
  static constexpr bool cofactor_one = true;
};

}  // namespace msm::curves::bn254
