// BLS12-381 (Bowe 2017; the pairing curve of Zcash, Ethereum consensus and many SNARKs):
// y² = x³ + 4 over Fp, p and r from the BLS12 polynomials at u = −0xd201000000010000.
// G1 = E(Fp)[r] has cofactor h = (u − 1)²/3; membership uses the GLV endomorphism
// φ(x, y) = (βx, y), which acts on G1 as multiplication by λ = −u² mod r (Scott, "A note on group
// membership tests for G1, G2 and GT on BLS pairing-friendly curves", ePrint 2021/1130, §4):
// P ∈ G1 ⇔ φ(P) = −u²·P. Constants derived and checked by scripts/curve_constants.py.
#pragma once

#include "../ff/field.hpp"

namespace msm::curves::bls12_381 {

struct fp_params {
  static constexpr int N = 6;
  static constexpr unsigned BITS = 381;
  using modulus = ff::limbs<0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624, 0x64774b84f38512bf,
                            0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a>;
  using one = ff::limbs<0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745,
                        0x5c071a97a256ec6d, 0x15f65ec3fa80e493>;
  using r2 = ff::limbs<0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5, 0x67eb88a9939d83c0,
                       0x9a793e85b519952d, 0x11988fe592cae3aa>;
  static constexpr uint64_t inv = 0x89f3fffcfffcfffd;
  static constexpr uint32_t inv32 = 0xfffcfffd;
};

struct fr_params {
  static constexpr int N = 4;
  static constexpr unsigned BITS = 255;
  using modulus = ff::limbs<0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48>;
  using one = ff::limbs<0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f>;
  using r2 = ff::limbs<0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11>;
  static constexpr uint64_t inv = 0xfffffffeffffffff;
  static constexpr uint32_t inv32 = 0xffffffff;
};

using fp = ff::Fp<fp_params>;
using fr = ff::Fp<fr_params>;

struct g1 {
  using field = fp;
  using scalar = fr;
  static constexpr const char* name = "bls12-381";
  // b = 4, in Montgomery form (a = 0).
  static constexpr unsigned b_int = 4;  // b as an integer (complete formulas multiply by 3b)
  using b_mont = ff::limbs<0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f, 0xb1d37ebee6ba24d7,
                           0x8ec9733bbf78ab2f, 0x09d645513d83de7e>;
  // Standard generator (IETF draft-irtf-cfrg-pairing-friendly-curves §4.2.1), canonical.
  using gen_x = ff::limbs<0xfb3af00adb22c6bb, 0x6c55e83ff97a1aef, 0xa14e3a3f171bac58, 0xc3688c4f9774b905,
                          0x2695638c4fa9ac0f, 0x17f1d3a73197d794>;
  using gen_y = ff::limbs<0x0caa232946c5e7e1, 0xd03cc744a2888ae4, 0x00db18cb2c04b3ed, 0xfcf5e095d5d00af6,
                          0xa09e30ed741d8ae4, 0x08b3f481e3aaa0f1>;
  static constexpr bool cofactor_one = false;
  // h = (u − 1)²/3 = 0x396c8c005555e1568c00aaab0000aaab.
  using cofactor = ff::limbs<0x8c00aaab0000aaab, 0x396c8c005555e156>;
  // β: the primitive cube root of unity mod p with φ(G) = (−u²)·G; Montgomery form.
  using beta_mont = ff::limbs<0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b,
                              0x3636b76660701c6e, 0x051ba4ab241b6160>;
  // k = u² = 0xac45a4010001a4020000000100000000 of the membership test φ(P) = −k·P (ec/subgroup.hpp).
  using subgroup_k = ff::limbs<0x0000000100000000, 0xac45a4010001a402>;
};

}  // namespace msm::curves::bls12_381
