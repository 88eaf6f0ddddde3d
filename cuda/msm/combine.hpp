// The MSM's last step, on the host: Q = Σ_j 2^(jc)·Q_j over the window sums by Horner's rule (top
// window first: c doublings and one addition per window), and Q as canonical affine bytes. In a
// C++ file of its own (combine.cpp) so that its field arithmetic takes the x86-64 assembly path of
// ff/field.hpp, which nvcc's host pass does not: 26 windows of 10 bits over BLS12-381 took 0.87 ms
// in engine.cu's portable arithmetic and 0.16 ms here (this development host), a third of the
// engine at 2^16 points.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../curves/all.hpp"
#include "../ec/xyzz.hpp"

namespace msm::gpu {

template <class G>
ec::XYZZ<typename G::field> combine_windows(const ec::XYZZ<typename G::field>* sums, int W, int c);

// x‖y little-endian, canonical (2·field bytes); O as zeros (ec::Affine's encoding).
template <class G>
void write_affine(const ec::XYZZ<typename G::field>& q, uint8_t* out);

}  // namespace msm::gpu
