// BLS12-377 (Bowe, Chiesa, Green, Miers, Mishra, Wu, "Zexe", 2018; Aleo, Celo, Linea):
// y² = x³ + 1 over Fp, p and r from the BLS12 polynomials at u = 0x8508c00000000001.
// G1 = E(Fp)[r] has cofactor h = (u − 1)²/3; membership by φ(P) = −u²·P as for BLS12-381
// (Scott, ePrint 2021/1130, §4). Constants derived and checked by scripts/curve_constants.py.
#pragma once

#include "../ff/field.hpp"

namespace msm::curves::bls12_377 {

struct fp_params {
  static constexpr int N = 6;
  static constexpr unsigned BITS = 377;
  using modulus = ff::limbs<0x8508c00000000001, 0x170b5d4430000000, 0x1ef3622fba094800, 0x1a22d9f300f5138f,
                            0xc63b05c06ca1493b, 0x01ae3a4617c510ea>;
  using one = ff::limbs<0x02cdffffffffff68, 0x51409f837fffffb1, 0x9f7db3a98a7d3ff2, 0x7b4e97b76e7c6305,
                        0x4cf495bf803c84e8, 0x008d6661e2fdf49a>;
  using r2 = ff::limbs<0xb786686c9400cd22, 0x0329fcaab00431b1, 0x22a5f11162d6b46d, 0xbfdf7d03827dc3ac,
                       0x837e92f041790bf9, 0x006dfccb1e914b88>;
  static constexpr uint64_t inv = 0x8508bfffffffffff;
  static constexpr uint32_t inv32 = 0xffffffff;
};

struct fr_params {
  static constexpr int N = 4;
  static constexpr unsigned BITS = 253;
  using modulus = ff::limbs<0x0a11800000000001, 0x59aa76fed0000001, 0x60b44d1e5c37b001, 0x12ab655e9a2ca556>;
  using one = ff::limbs<0x7d1c7ffffffffff3, 0x7257f50f6ffffff2, 0x16d81575512c0fee, 0x0d4bda322bbb9a9d>;
  using r2 = ff::limbs<0x25d577bab861857b, 0xcc2c27b58860591f, 0xa7cc008fe5dc8593, 0x011fdae7eff1c939>;
  static constexpr uint64_t inv = 0x0a117fffffffffff;
  static constexpr uint32_t inv32 = 0xffffffff;
};

using fp = ff::Fp<fp_params>;
using fr = ff::Fp<fr_params>;

struct g1 {
  using field = fp;
  using scalar = fr;
  static constexpr const char* name = "bls12-377";
  // b = 1, in Montgomery form (= R mod p; a = 0).
  static constexpr unsigned b_int = 1;  // b as an integer (complete formulas multiply by 3b)
  using b_mont = fp_params::one;
  // Generator of arkworks' ark-bls12-377 G1, canonical.
  using gen_x = ff::limbs<0xeab9b16eb21be9ef, 0xd5481512ffcd394e, 0x188282c8bd37cb5c, 0x85951e2caa9d41bb,
                          0xc8fc6225bf87ff54, 0x008848defe740a67>;
  using gen_y = ff::limbs<0xfd82de55559c8ea6, 0xc2fe3d3634a9591a, 0x6d182ad44fb82305, 0xbd7fb348ca3e52d9,
                          0x1f674f5d30afeec4, 0x01914a69c5102eff>;
  static constexpr bool cofactor_one = false;
  // h = (u − 1)²/3 = 0x170b5d44300000000000000000000000.
  using cofactor = ff::limbs<0x0000000000000000, 0x170b5d4430000000>;
  // β: the primitive cube root of unity mod p with φ(G) = (−u²)·G; Montgomery form.
  using beta_mont = ff::limbs<0x2c766f925a7b8727, 0x03d7f6b0253d58b5, 0x838ec0deec122131, 0xbd5eb3e9f658bb10,
                              0x6942bd126ed3e52e, 0x01673786dd04ed6a>;
  // k = u² = 0x452217cc900000010a11800000000001 of the membership test φ(P) = −k·P (ec/subgroup.hpp).
  using subgroup_k = ff::limbs<0x0a11800000000001, 0x452217cc90000001>;
};

}  // namespace msm::curves::bls12_377
