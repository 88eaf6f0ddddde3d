// The curves built into the addon, in CurveId order. Adding a curve: its header in this folder,
// one line here, one #include in all.hpp; and for its G2, a <ns>_g2.hpp, a line in MSM_G2_CURVES
// and an #include in all.hpp. Template-free, so engine.hpp (the glue's view) can
// name the curves without seeing their fields.
//
// MSM_CURVES(X, a) expands X(a, Id, ns) per curve: Id the CurveId enumerator, ns the namespace
// under msm::curves holding the curve's g1 struct. The pass-through a lets callers apply a macro
// of their own to each curve (see MSM_FOR_EACH_CURVE in all.hpp).
#pragma once

#define MSM_CURVES(X, a)         \
  X(a, BN254, bn254)             \
  X(a, BLS12_381, bls12_381)     \
  X(a, BLS12_377, bls12_377)     \
  X(a, BLS24_315, bls24_315)

// The curves whose G2 (the g2 struct of <ns>_g2.hpp) the addon runs, in the same X(a, Id, ns) form.
#define MSM_G2_CURVES(X, a)      \
  X(a, BN254, bn254)             \
  X(a, BLS12_381, bls12_381)
