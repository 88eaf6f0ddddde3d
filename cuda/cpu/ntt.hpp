// Transforms over a prime field in Montgomery form on all cores, for the FFTs of a Groth16 prover
// (snarkjs's Fr.fft / Fr.ifft / Fr.batchApplyKey, hooked by lib/snarkjs-field.ts): the number-
// theoretic transform of a power-of-two length and the multiplication by a geometric sequence.
// The roots and factors are the caller's, so a result equals that of the code it replaces for the
// same root; every operation is an exact field operation, so nothing depends on the threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../common/parallel.hpp"

namespace msm::cpu {

// x^e for a machine-word exponent.
template <class F>
F pow_u64(const F& x, uint64_t e) {
  return x.pow(&e, 1);
}

// fn(i, first · inc^i) for i < n, over the threads: each starts its range at first · inc^lo.
template <class F, class Fn>
void for_powers(size_t n, const F& first, const F& inc, int threads, Fn&& fn) {
  parallel_ranges(n, threads, 1 << 12, [&](size_t lo, size_t hi) {
    F w = first * pow_u64(inc, lo);
    for (size_t i = lo; i < hi; ++i, w = w * inc) fn(i, w);
  });
}

// a[i] ← a[i] · first · inc^i for i < n.
template <class F>
void pow_mul(F* a, size_t n, const F& first, const F& inc, int threads) {
  for_powers(n, first, inc, threads, [a](size_t i, const F& w) { a[i] = a[i] * w; });
}

// In place, natural order in and out: a_k ← scale · Σ_j a_j · root^(j·k), for n = 2^log_n and root
// of order n (the inverse transform is root⁻¹ with scale = 1/n). Iterative radix-2
// decimation in time: the bit-reversal permutation, then log_n rounds of n/2 butterflies
// (u, v) → (u + w·v, u − w·v) over the threads; the twiddles root^k, k < n/2, are tabulated
// once. scale = nullptr multiplies by nothing.
template <class F>
void ntt(F* a, int log_n, const F& root, const F* scale, int threads) {
  const size_t n = size_t(1) << log_n;
  if (n == 1) {
    if (scale) a[0] = a[0] * *scale;
    return;
  }
  const auto rev = [log_n](size_t i) {
    size_t r = 0;
    for (int b = 0; b < log_n; ++b) r |= ((i >> b) & 1) << (log_n - 1 - b);
    return r;
  };
  parallel_ranges(n, threads, 1 << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      const size_t j = rev(i);
      if (i < j) std::swap(a[i], a[j]);
    }
  });
  const size_t half = n / 2;
  std::vector<F> tw(half);
  for_powers(half, F::one(), root, threads, [&tw](size_t k, const F& w) { tw[k] = w; });
  // Round s joins blocks of len = 2^s: butterfly b is j = b mod len/2 of block b / (len/2), and
  // takes root^(j·n/len), the twiddle of order len.
  const auto round = [&](int s, size_t lo, size_t hi) {
    const size_t len_half = size_t(1) << (s - 1), stride = half >> (s - 1);
    for (size_t b = lo; b < hi; ++b) {
      const size_t j = b & (len_half - 1), i = ((b >> (s - 1)) << s) | j;
      const F v = a[i + len_half] * tw[j * stride];
      a[i + len_half] = a[i] - v;
      a[i] = a[i] + v;
    }
  };
  // The first kLocal rounds stay inside blocks of 2^kLocal elements (128 KiB: in L2), so each
  // thread runs them all on a block while it is cached, then the wider rounds stream the array.
  constexpr int kLocal = 12;
  const int local = log_n < kLocal ? log_n : kLocal;
  const size_t block = size_t(1) << local, blocks = n >> local;
  parallel_ranges(blocks, threads, 1, [&](size_t lo, size_t hi) {
    for (size_t k = lo; k < hi; ++k)
      for (int s = 1; s <= local; ++s) round(s, (k * block) / 2, ((k + 1) * block) / 2);
  });
  for (int s = local + 1; s <= log_n; ++s)
    parallel_ranges(half, threads, 1 << 12, [&](size_t lo, size_t hi) { round(s, lo, hi); });
  if (scale)
    parallel_ranges(n, threads, 1 << 12, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) a[i] = a[i] * *scale;
    });
}

}  // namespace msm::cpu
