// The MSM's last step, on the host: Q = Σ_j 2^(jc)·Q_j over the window sums by Horner's rule (top
// window first: c doublings and one addition per window), and Q as canonical affine bytes. In a
// C++ file of its own (combine.cpp) so that its field arithmetic takes the x86-64 assembly path of
// ff/field.hpp, which nvcc's host pass does not: 26 windows of 10 bits over BLS12-381 took 0.87 ms
// in engine.cu's portable arithmetic and 0.16 ms here (this development host), a third of the
// engine at 2^16 points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../curves/all.hpp"
#include "../ec/homogeneous.hpp"
#include "../ec/xyzz.hpp"

namespace msm::gpu {

template <class G>
ec::XYZZ<typename G::field> combine_windows(const ec::XYZZ<typename G::field>* sums, int W, int c);

// The constant-time mode's result: q (combine_windows' sum) less the multiples of the blinding
// point R its window sums hold. `unblind` is −(the public multiple)·R (engine.cu unblinding); the
// head pieces (ct_aggregate.cu ct_open) add count_j·R more to window j's, count_j read with it.
// heads_table(R, digits), once per context: t[16·i + v] = v·16^i·R for the `digits` hex digits of
// a count (head_digits: as many as the largest count the context can reach needs). unblinded: q +
// unblind − Σ_j 2^(jc)·count_j·R, each count_j·R as one complete addition (RCB Alg. 7, 12M + 2m_3b)
// a digit, of the entry the digit picks, found by selects over all 16: the same steps whatever the
// counts are (they depend on the scalars). BN254, this development host: 0.3 µs a digit.
template <class G>
std::vector<ec::HomogeneousOf<G>> heads_table(const ec::Affine<typename G::field>& r, int digits);
template <class G>
ec::XYZZ<typename G::field> unblinded(const ec::XYZZ<typename G::field>& q, const ec::XYZZ<typename G::field>& unblind,
                                      const ec::HomogeneousOf<G>* table, int digits, const uint64_t* counts, int W,
                                      int c);
// Hex digits of a count below `top` (≥ 1).
inline int head_digits(uint64_t top) {
  int d = 1;
  while (d < 16 && (top >> (4 * d)) != 0) ++d;
  return d;
}

// x‖y little-endian, canonical (2·field bytes); O as zeros (ec::Affine's encoding).
template <class G>
void write_affine(const ec::XYZZ<typename G::field>& q, uint8_t* out);

}  // namespace msm::gpu
