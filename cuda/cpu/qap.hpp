// The quotient polynomial of a Groth16 proof from snarkjs's proving key, on all cores: what
// snarkjs's groth16_prove.js does in buildABC1 and joinABC (single-threaded JavaScript and WASM
// there), around the transforms of cpu/ntt.hpp.
//
// Section 4 of a snarkjs .zkey (zkey_new.js processConstraints, zkey_utils.js writeZKey) lists the
// nonzero entries of the R1CS matrices A and B, each 12 + 32 bytes: u32 matrix (0: A, 1: B),
// u32 constraint, u32 signal, then the coefficient k as k·R² mod r (Montgomery form of its
// Montgomery form), little-endian. The witness (.wtns section 2) is in standard form, so the
// Montgomery product k·R²·w·R⁻¹ = (k·w)·R is the term in Montgomery form, as in buildABC1's
// Fr.mul(coef, witness): A and B (and C = A∘B) are evaluations on the domain of size n in
// Montgomery form. zkey_new.js writes the entries constraint by constraint; entries in any order
// are accepted (slower: see build_abc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "../common/parallel.hpp"
#include "ntt.hpp"

namespace msm::cpu {

constexpr size_t kCoefHeader = 12;  // matrix, constraint, signal: u32 each

inline uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // little-endian hosts only (x86-64, aarch64), as the rest of the addon
  return v;
}

// The first entry of section 4 that cannot be used, and why; index -1 when all can.
struct CoefProblem {
  int64_t index = -1;
  std::string why;
};

template <class F>
CoefProblem check_coefs(const uint8_t* coefs, size_t n_coefs, size_t domain, size_t n_vars, int threads) {
  constexpr size_t stride = kCoefHeader + F::BYTES;
  std::mutex m;
  CoefProblem first;
  parallel_ranges(n_coefs, threads, 1 << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      const uint8_t* e = coefs + i * stride;
      const uint32_t mat = read_u32(e), c = read_u32(e + 4), s = read_u32(e + 8);
      F k;
      std::string why;
      if (mat > 1)
        why = "matrix " + std::to_string(mat) + " is neither 0 (A) nor 1 (B)";
      else if (c >= domain)
        why = "constraint " + std::to_string(c) + " is not below the domain size " + std::to_string(domain);
      else if (s >= n_vars)
        why = "signal " + std::to_string(s) + " is not below the number of signals " + std::to_string(n_vars);
      else if (!F::load_le(e + kCoefHeader, k))
        why = "the coefficient is not below r";
      if (why.empty()) continue;
      std::lock_guard<std::mutex> lock(m);
      if (first.index < 0 || int64_t(i) < first.index) first = CoefProblem{int64_t(i), std::move(why)};
      return;
    }
  });
  return first;
}

// Whether the entries come in nondecreasing constraint order.
inline bool coefs_sorted(const uint8_t* coefs, size_t n_coefs, size_t stride, int threads) {
  bool sorted = true;  // only ever set to false, by any thread
  std::mutex m;
  parallel_ranges(n_coefs > 0 ? n_coefs - 1 : 0, threads, 1 << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i)
      if (read_u32(coefs + (i + 1) * stride + 4) < read_u32(coefs + i * stride + 4)) {
        std::lock_guard<std::mutex> lock(m);
        sorted = false;
        return;
      }
  });
  return sorted;
}

// a, b ← Σ k·w[signal] over the entries of matrix A, B (buildABC1's loop), c ← a∘b; a, b, c hold
// `domain` elements, the entries are checked (check_coefs) and the witness below r. Threads
// never share an output element: with the entries in constraint order, each takes a run of
// about n_coefs/threads entries cut at constraint boundaries; otherwise each owns a range of
// constraints and reads every entry, keeping its own.
template <class F>
void build_abc(const uint8_t* coefs, size_t n_coefs, const F* witness, F* a, F* b, F* c, size_t domain, int threads) {
  constexpr size_t stride = kCoefHeader + F::BYTES;
  const auto constraint = [&](size_t i) { return read_u32(coefs + i * stride + 4); };
  const auto add = [&](size_t i) {
    const uint8_t* e = coefs + i * stride;
    F k;
    F::load_le(e + kCoefHeader, k);
    F* out = read_u32(e) == 0 ? a : b;
    const uint32_t at = read_u32(e + 4);
    out[at] = out[at] + k * witness[read_u32(e + 8)];
  };
  parallel_ranges(domain, threads, 1 << 14, [&](size_t lo, size_t hi) {
    std::fill(a + lo, a + hi, F::zero());
    std::fill(b + lo, b + hi, F::zero());
  });
  const int t_used = std::max(1, std::min<int>(threads, int(std::max<size_t>(1, n_coefs >> 12))));
  if (coefs_sorted(coefs, n_coefs, stride, threads)) {
    // cut t starts at the first entry of a constraint, at or after t·n_coefs/t_used
    const auto cut = [&](int t) {
      size_t i = n_coefs * size_t(t) / size_t(t_used);
      while (i > 0 && i < n_coefs && constraint(i) == constraint(i - 1)) ++i;
      return i;
    };
    parallel(t_used, [&](int t) {
      for (size_t i = cut(t), end = cut(t + 1); i < end; ++i) add(i);
    });
  } else {
    parallel(t_used, [&](int t) {
      const size_t lo = domain * size_t(t) / size_t(t_used), hi = domain * size_t(t + 1) / size_t(t_used);
      for (size_t i = 0; i < n_coefs; ++i) {
        const size_t at = constraint(i);
        if (at >= lo && at < hi) add(i);
      }
    });
  }
  parallel_ranges(domain, threads, 1 << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) c[i] = a[i] * b[i];
  });
}

// out[i] ← a[i]·b[i] − c[i] out of Montgomery form, little-endian (joinABC: qap_joinABC, then
// frm_batchFromMontgomery): the scalars of the MSM over zkey section 9. out may alias a.
template <class F>
void join_abc(const F* a, const F* b, const F* c, uint8_t* out, size_t n, int threads) {
  parallel_ranges(n, threads, 1 << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) F::from_mont(a[i] * b[i] - c[i]).store_le(out + i * F::BYTES);
  });
}

// The roots groth16_prove.js uses, in Montgomery form: w = Fr.w[log n] (order n), w⁻¹, 1/n, and
// inc = Fr.w[log n + 1] (Fr.shift where n is the largest power of two dividing r − 1).
template <class F>
struct QapRoots {
  F w, w_inv, inv_n, inc;
};

// p ← the evaluations of the polynomial of p's evaluations on the domain, on the coset inc·domain
// (snarkjs: Fr.ifft, Fr.batchApplyKey(·, 1, inc), Fr.fft); the 1/n of the inverse transform is
// folded into the coset factors.
template <class F>
void to_coset(F* p, int log_n, const QapRoots<F>& r, int threads) {
  ntt(p, log_n, r.w_inv, static_cast<const F*>(nullptr), threads);
  pow_mul(p, size_t(1) << log_n, r.inv_n, r.inc, threads);
  ntt(p, log_n, r.w, static_cast<const F*>(nullptr), threads);
}

// buildABC1, the three transforms and joinABC: out (n·F::BYTES bytes, may alias a) ← the scalars
// of the H multiexponentiation. a, b, c are scratch of n elements each.
template <class F>
void quotient(const uint8_t* coefs, size_t n_coefs, const F* witness, F* a, F* b, F* c, int log_n,
              const QapRoots<F>& roots, uint8_t* out, int threads) {
  const size_t n = size_t(1) << log_n;
  build_abc(coefs, n_coefs, witness, a, b, c, n, threads);
  for (F* p : {a, b, c}) to_coset(p, log_n, roots, threads);
  join_abc(a, b, c, out, n, threads);
}

}  // namespace msm::cpu
