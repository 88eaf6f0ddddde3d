// G2 of BLS12-381: the order-r subgroup of the M-type sextic twist E'(Fp2): y² = x³ + b',
// b' = 4ξ = 4(1 + u), Fp2 = Fp[u]/(u² + 1). #E'(Fp2) = h2·r, h2 of Budroni, Pintore (ePrint
// 2017/419). Listed in list.hpp's MSM_G2_CURVES (the CPU engine runs it; ec/G2.md). Every
// constant is derived and checked by scripts/curve_constants.py (--headers compares this file).
#pragma once

#include "../ff/fp2.hpp"
#include "bls12_381.hpp"

namespace msm::curves::bls12_381 {

struct fp2_params {
  using base = fp;
  static constexpr int beta = -1;  // u² = −1
};
using fp2 = ff::Fp2<fp2_params>;

// Fp2 tables hold c0's six limbs, then c1's.
struct g2 {
  using field = fp2;
  using scalar = fr;
  static constexpr const char* name = "bls12-381";
  // b' = 4 + 4u, in Montgomery form.
  using b_mont = ff::limbs<0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f, 0xb1d37ebee6ba24d7,
                           0x8ec9733bbf78ab2f, 0x09d645513d83de7e, 0xaa270000000cfff3, 0x53cc0032fc34000a,
                           0x478fe97a6b0a807f, 0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e>;
  // 3b' = b3_xi·ξ = 12(1 + u): the complete formulas (ec/homogeneous.hpp, the constant-time and
  // homogeneous accumulation modes) multiply by it with additions only,
  // t·3b' = 12·((t0 − t1) + (t0 + t1)u): 2 + 2·4 F additions (ff::mul_small).
  static constexpr unsigned b3_xi = 12;
  MSM_HD MSM_INLINE static field mul_b3(const field& t) {
    return field{ff::mul_small<b3_xi>(t.c0 - t.c1), ff::mul_small<b3_xi>(t.c0 + t.c1)};
  }
  // Standard generator (IETF draft-irtf-cfrg-pairing-friendly-curves §4.2.1), canonical.
  using gen_x = ff::limbs<0xd48056c8c121bdb8, 0x0bac0326a805bbef, 0xb4510b647ae3d177, 0xc6e47ad4fa403b02,
                          0x260805272dc51051, 0x024aa2b2f08f0a91, 0xe5ac7d055d042b7e, 0x334cf11213945d57,
                          0xb5da61bbdc7f5049, 0x596bd0d09920b61a, 0x7dacd3a088274f65, 0x13e02b6052719f60>;
  using gen_y = ff::limbs<0xe193548608b82801, 0x923ac9cc3baca289, 0x6d429a695160d12c, 0xadfd9baa8cbdd3a7,
                          0x8cc9cdc6da2e351a, 0x0ce5d527727d6e11, 0xaaa9075ff05f79be, 0x3f370d275cec1da1,
                          0x267492ab572e99ab, 0xcb3e287e85a763af, 0x32acd2b02bc28b99, 0x0606c4a02ea734cc>;
  static constexpr bool cofactor_one = false;
  // h2 = (u⁸ − 4u⁷ + 5u⁶ − 4u⁴ + 6u³ − 4u² − 4u + 13)/9 (507 bits).
  using cofactor = ff::limbs<0xcf1c38e31c7238e5, 0x1616ec6e786f0c70, 0x21537e293a6691ae, 0xa628f1cb4d9e82ef,
                             0xa68a205b2e5a7ddf, 0xcd91de4547085aba, 0x091d50792876a202, 0x05d543a95414e7f1>;
  // ψ(x, y) = (conj(x)·ψx, conj(y)·ψy), ψx = ξ^−((p−1)/3), ψy = ξ^−((p−1)/2) (M-type: the inverse
  // of the D-type constants); Montgomery form. ψx is purely imaginary.
  using psi_x_mont = ff::limbs<0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
                               0x0000000000000000, 0x0000000000000000, 0x890dc9e4867545c3, 0x2af322533285a5d5,
                               0x50880866309b7e2c, 0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a>;
  using psi_y_mont = ff::limbs<0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18,
                               0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8, 0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c,
                               0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2>;
  // Membership: P ∈ G2 ⇔ ψ(P) = [u]P, u = −0xd201000000010000 (Scott, ePrint 2021/1130, §5;
  // ec/subgroup_g2.hpp): k = |u|, negated.
  using subgroup_k = ff::limbs<0xd201000000010000, 0x0000000000000000>;
  static constexpr bool subgroup_k_negative = true;
};

}  // namespace msm::curves::bls12_381
