// BLS24-315 (El Housni, Guillevic, "Families of SNARK-friendly 2-chains of elliptic curves",
// Eurocrypt 2022, ePrint 2021/1359; gnark-crypto ecc/bls24-315): y² = x³ + 1 over Fp,
// r = x⁸ − x⁴ + 1 (253 bits) and p = (x − 1)²·r/3 + x (315 bits, five 64-bit limbs) at the seed
// x = −0xbfcfffff. G1 = E(Fp)[r] has cofactor h = (x − 1)²/3 = #E/r. Membership by
// φ(P) = −x⁴·P: x⁴ is a primitive sixth root of unity mod r (r = Φ₂₄(x) = Φ₆(x⁴)), so −x⁴ is
// the GLV eigenvalue λ, and (x⁴)² − x⁴ + 1 = r makes the test sound as on BLS12 (ec/subgroup.hpp).
// Constants derived and checked by scripts/curve_constants.py.
#pragma once

#include "../ff/field.hpp"

namespace msm::curves::bls24_315 {

struct fp_params {
  static constexpr int N = 5;
  static constexpr unsigned BITS = 315;
  using modulus = ff::limbs<0x6fe802ff40300001, 0x421ee5da52bde502, 0xdec1d01aa27a1ae0, 0xd3f7498be97c5eaf,
                            0x04c23a02b586d650>;
  using one = ff::limbs<0xd4f76127b60fffcb, 0x4f9a69ccdeaf967e, 0xe1dfea7c5cb86f92, 0x1dcdc608a9406596,
                        0x03c9fd706b15a144>;
  using r2 = ff::limbs<0x6b817891fe329c16, 0x599ce86eec6e2c35, 0xc338890f540d5ad6, 0xcc160f6924c81f32,
                       0x0215d8d4607a88d5>;
  static constexpr uint64_t inv = 0x702ff9ff402fffff;
  static constexpr uint32_t inv32 = 0x402fffff;
};

struct fr_params {
  static constexpr int N = 4;
  static constexpr unsigned BITS = 253;
  using modulus = ff::limbs<0x19d0c5fd00c00001, 0xc8c480ece644e364, 0x25fc7ec9cf927a98, 0x196deac24a9da12b>;
  using one = ff::limbs<0xfdd8441df87ffff6, 0x2852f6bf014f1e16, 0x84230c1de4473608, 0x01b4d46915d7b450>;
  using r2 = ff::limbs<0x56a1ff2e50fc8851, 0xeb3f198d55a12c3f, 0x9799359271b08283, 0x081d245007d35a5a>;
  static constexpr uint64_t inv = 0x1e5035fd00bfffff;
  static constexpr uint32_t inv32 = 0x00bfffff;
};

using fp = ff::Fp<fp_params>;
using fr = ff::Fp<fr_params>;

struct g1 {
  using field = fp;
  using scalar = fr;
  static constexpr const char* name = "bls24-315";
  static constexpr unsigned b_int = 1;  // b as an integer (complete formulas multiply by 3b)
  // b = 1, in Montgomery form (= R mod p; a = 0).
  using b_mont = fp_params::one;
  // Generator of gnark-crypto's ecc/bls24-315 G1 (g1Gen), canonical.
  using gen_x = ff::limbs<0xbf4b721710866097, 0x983603a832cb638d, 0xf54b344cc46dde3c, 0xa1b2b117076ef6e4,
                          0x041a0a424393988d>;
  using gen_y = ff::limbs<0x6f2922d5da4e4e5f, 0xd3cce9059e83dfb9, 0xb5d72c8a29010871, 0x227ecdf0db2bb2eb,
                          0x02e6f83c55deff20>;
  static constexpr bool cofactor_one = false;
  // h = (x − 1)²/3 = 0x2fe8030000000000.
  using cofactor = ff::limbs<0x2fe8030000000000>;
  // β: the primitive cube root of unity mod p with φ(G) = (−x⁴)·G; Montgomery form. (gnark-crypto's
  // thirdRootOneG1 is β², for its eigenvalue x⁸ ≡ x⁴ − 1, the other cube root of unity mod r.)
  using beta_mont = ff::limbs<0x8e29f673b0d95bb3, 0x11f850f53e23787c, 0xc97ed342942dc18c, 0xe424aa3c0539b481,
                              0x01c9dfbe427b58f9>;
  // k = x⁴ = 0x50af1e594194af0a1e5035fd00c00001 of the membership test φ(P) = −k·P (ec/subgroup.hpp).
  using subgroup_k = ff::limbs<0x1e5035fd00c00001, 0x50af1e594194af0a>;
};

}  // namespace msm::curves::bls24_315
