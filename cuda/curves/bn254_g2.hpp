// G2 of BN254: the order-r subgroup of the D-type sextic twist E'(Fp2): y² = x³ + b', b' = 3/ξ,
// ξ = 9 + u, Fp2 = Fp[u]/(u² + 1) (EIP-197). #E'(Fp2) = h2·r with h2 = 2p − r. Listed in
// list.hpp's MSM_G2_CURVES (the CPU engine runs it; ec/G2.md). Every constant is derived and
// checked by scripts/curve_constants.py (--headers compares this file).
#pragma once

#include "../ff/fp2.hpp"
#include "bn254.hpp"

namespace msm::curves::bn254 {

struct fp2_params {
  using base = fp;
  static constexpr int beta = -1;  // u² = −1
};
using fp2 = ff::Fp2<fp2_params>;

// Fp2 tables hold c0's four limbs, then c1's.
struct g2 {
  using field = fp2;
  using scalar = fr;
  static constexpr const char* name = "bn254";
  // b' = 3/(9 + u), in Montgomery form.
  using b_mont = ff::limbs<0x3bf938e377b802a8, 0x020b1b273633535d, 0x26b7edf049755260, 0x2514c6324384a86d,
                           0x38e7ecccd1dcff67, 0x65f0b37d93ce0d3e, 0xd749d0dd22ac00aa, 0x0141b9ce4a688d4d>;
  // 3b' = 9/(9 + u) = (81 − 9u)/82, in Montgomery form: the complete formulas (ec/homogeneous.hpp,
  // the constant-time and homogeneous accumulation modes) multiply by it, one Fp2 product.
  using b3_mont = ff::limbs<0x3baa927cb62e0d6a, 0xd71e7c52d1b664fd, 0x03873e63d95d4664, 0x0e75b5b1082ab8f4,
                            0xaab7c6667596fe35, 0x31d21a78bb6a27ba, 0x85dd7297680401ff, 0x03c52d6adf39a7e9>;
  MSM_HD MSM_INLINE static field mul_b3(const field& t) { return t * field::from_table<b3_mont>(); }
  static constexpr bool mul_b3_is_product = true;  // ec/quad.cuh shares RCB's two m_3b over a quad's lanes
  // The EIP-197 generator, canonical.
  using gen_x = ff::limbs<0x46debd5cd992f6ed, 0x674322d4f75edadd, 0x426a00665e5c4479, 0x1800deef121f1e76,
                          0x97e485b7aef312c2, 0xf1aa493335a9e712, 0x7260bfb731fb5d25, 0x198e9393920d483a>;
  using gen_y = ff::limbs<0x4ce6cc0166fa7daa, 0xe3d1e7690c43d37b, 0x4aab71808dcb408f, 0x12c85ea5db8c6deb,
                          0x55acdadcd122975b, 0xbc4b313370b38ef3, 0xec9e99ad690c3395, 0x090689d0585ff075>;
  static constexpr bool cofactor_one = false;
  // h2 = 2p − r.
  using cofactor = ff::limbs<0x345f2299c0f9fa8d, 0x06ceecda572a2489, 0xb85045b68181585e, 0x30644e72e131a029>;
  // ψ(x, y) = (conj(x)·ψx, conj(y)·ψy), ψx = ξ^((p−1)/3), ψy = ξ^((p−1)/2); Montgomery form.
  using psi_x_mont = ff::limbs<0xb5773b104563ab30, 0x347f91c8a9aa6454, 0x7a007127242e0991, 0x1956bcd8118214ec,
                               0x6e849f1ea0aa4757, 0xaa1c7b6d89f89141, 0xb6e713cdfae0ca3a, 0x26694fbb4e82ebc3>;
  using psi_y_mont = ff::limbs<0xe4bbdd0c2936b629, 0xbb30f162e133bacb, 0x31a9d1b6f9645366, 0x253570bea500f8dd,
                               0xa1d77ce45ffe77c7, 0x07affd117826d1db, 0x6d16bd27bb7edc6b, 0x2c87200285defecc>;
  // Membership: P ∈ G2 ⇔ ψ(P) = [6x²]P, 6x² = t − 1 = 0x6f4d8248eeb859fbf83e9682e87cfd46 (El Housni,
  // Guillevic, Piellard, AFRICACRYPT 2022; ec/subgroup_g2.hpp).
  using subgroup_k = ff::limbs<0xf83e9682e87cfd46, 0x6f4d8248eeb859fb>;
  static constexpr bool subgroup_k_negative = false;
};

}  // namespace msm::curves::bn254
