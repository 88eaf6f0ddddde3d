// The MSM's last step, on the host: Q = Σ_j 2^(jc)·Q_j over the window sums by Horner's rule (top
// window first: c doublings and one addition per window), and Q as canonical affine bytes. In a
// C++ file of its own (combine.cpp) so that its field arithmetic takes the x86-64 assembly path of
// ff/field.hpp, which nvcc's host pass does not: 26 windows of 10 bits over BLS12-381 took 0.87 ms
// in engine.cu's portable arithmetic and 0.16 ms here (this development host), a third of the
// engine at 2^16 points. Built without CUDA too, so that the test addon checks it on any host.
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
// point R its window sums hold. Window j's sum holds s_j·R: f, the public multiple every window's
// buckets leave (each bucket starts as R: reduce.cuh bucket_weights), plus count_j, what the head
// pieces add (ct_open.cuh), read with the sums. So Q holds S·R, S = Σ_j 2^(jc)·s_j, one
// integer: unblinded takes it as words and subtracts S·R by one complete addition (RCB Alg. 7,
// 12M + 2m_3b) a hex digit of S, of the entry the digit picks in unblind_table(R, digits) (once
// per context: t[16·i + v] = v·16^i·R), found by selects over all 16: the same steps whatever the
// counts are (they depend on the scalars). unblind_digits(top, W, c): the hex digits of the largest
// S when each s_j ≤ top. BN254, this development host: 0.3 µs a digit.
int unblind_digits(uint64_t top, int W, int c);
template <class G>
std::vector<ec::HomogeneousOf<G>> unblind_table(const ec::Affine<typename G::field>& r, int digits);
template <class G>
ec::XYZZ<typename G::field> unblinded(const ec::XYZZ<typename G::field>& q,
                                      const std::vector<ec::HomogeneousOf<G>>& table, const uint64_t* counts,
                                      uint64_t f, int W, int c);

// x‖y little-endian, canonical (2·field bytes); O as zeros (ec::Affine's encoding).
template <class G>
void write_affine(const ec::XYZZ<typename G::field>& q, uint8_t* out);

}  // namespace msm::gpu
