// Device Montgomery multiplication and squaring over 32-bit limbs with PTX carry chains.
//
// field.hpp includes this file under nvcc and, seeing MSM_FF_HAVE_PTX, routes Fp::operator* and
// Fp::sqr on the device here. The field element's memory is the little-endian uint64_t limb[N]
// array, viewed as n = 2N little-endian 32-bit words.
//
// Multiplication: coarsely integrated operand scanning (CIOS; Koç, Acar, Kaliski, IEEE Micro 1996)
// with 32-bit words: each outer step i adds a_i·b and m·p (m = t_0·(−p⁻¹) mod 2^32) to the running
// sum t and shifts it down one word; 4n² + O(n) multiply-adds. The products are laid out so that
// ptxas issues each 32×32→64 multiply-add as a single IMAD.WIDE.U32(.X) (see device_mont_mul_eo).
// Squaring uses the same routine (b = a): faster here than a separate squaring whose halved
// multiplications each cost two instructions.
//
// The top 32-bit word of p must be below 2^30 (BN254, BLS12-381, BLS12-377 and BLS24-315, with
// n = 8, 12, 12 and 10 words, all qualify): then the
// running sum never exceeds n+1 words and the result is < 2p before the final conditional
// subtraction, which brings it to [0, p) as field.hpp expects.
//
// Carry chains: each instruction is its own `asm volatile`; the carry flag is not an asm operand,
// so this relies on nvcc keeping volatile asm in order and emitting no carry-using instruction
// between them, the usual practice for PTX bignum code. The GPU self tests (test/native/gpu_selftest.cu,
// test/gpu/msm.test.ts; Fp2, whose mul_add is device_mont_mul_add4: test/gpu/g2.test.ts) check the
// results against the host path on random and edge vectors.
#pragma once

#if defined(__CUDACC__)

#include <cstdint>

#define MSM_FF_HAVE_PTX 1

// Where the products are compiled (field.hpp's device_product*). Inlined, each BLS12-381 product
// is ~560 SASS instructions at every use, and a G2 addition's body outgrows the instruction cache
// (ncu: 32 % of the accumulation's G1 stall cycles and 41 % of G2's are instruction fetches,
// bench/gpu-notes.md). MSM_FF_OUTLINE_PRODUCTS (set per source file by CMakeLists.txt) makes each
// product kind one function that every use calls, at the cost of the call's argument moves.
#if defined(MSM_FF_OUTLINE_PRODUCTS)
#define MSM_FF_DEVICE_PRODUCT __device__ __noinline__
#else
#define MSM_FF_DEVICE_PRODUCT __device__ __forceinline__
#endif

namespace msm::ff {
namespace ptx {

__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}

// r = t − p if t ≥ p else t (t < 2p, n words). One borrow chain, then a branch-free select.
template <class P, int n>
__device__ __forceinline__ void final_sub(uint32_t* r, const uint32_t* t) {
  uint32_t d[n];
  d[0] = sub_cc(t[0], P::modulus::at32(0));
#pragma unroll
  for (int j = 1; j < n; ++j) d[j] = subc_cc(t[j], P::modulus::at32(j));
  const uint32_t borrow = subc(0, 0);  // 0xffffffff when t < p
#pragma unroll
  for (int j = 0; j < n; ++j) r[j] = (t[j] & borrow) | (d[j] & ~borrow);
}

}  // namespace ptx

// r = a·b·2^(−32n) mod p by CIOS (see the header) in the "even/odd" form: each 32×32 product's
// low and high halves go into
// adjacent words of one carry chain (mad.lo.cc then madc.hi.cc on the same operands), which ptxas
// can issue as one IMAD.WIDE.U32(.X) instead of an IMAD plus an IADD3.X. Per outer step i:
//   A += a_i·b_j (j even, words j, j+1)            one chain
//   O  = a_i·b_j (j odd, words j, j+1)             no carries: the pairs are disjoint
//   m  = A_0·(−p⁻¹);  A += m·p_j (j even);  O += m·p_j (j odd)
//   A += O (words 1 … n+1), then A >>= 32 (A_0 = 0)
// — the running sum of plain CIOS (so its bounds: t < 2p before the final subtraction).
// ptxas fuses each pair into one IMAD.WIDE.U32(.X): 560 SASS instructions per BLS12-381
// product (288 for BN254) against 1,280 (600) for one chain of low halves and one of high halves.
//
// With K = 2 products, r = (a·b + c·d)·2^(−32n) mod p with one Montgomery reduction for both
// ("lazy reduction": Scott, "Implementing cryptographic pairings", 2007; Aranha, Karabina, Longa,
// Gebotys, López, EUROCRYPT 2011): both products enter each step before its m·p, 3n² word products
// instead of 4n². With K = 4, a·b + c·d + e·f + g·h likewise, 5n² against 8n² (Fp2's a·b + c·d,
// one coordinate at a time: ff/fp2.hpp). The running sum stays below (K+1)·p (t_(i+1) < (t_i +
// (K+1)·2^32·p)/2^32), in n + 1 words while (K+1)·p ≤ 2^(32n) (a bound on p's top word, asserted;
// K ≤ 2 needs only p < 2^(32n−2)), and K conditional subtractions bring it to [0, p).
template <class P, int K>
__device__ __forceinline__ void device_mont_mul_eo(uint32_t* r, const uint32_t* a, const uint32_t* b,
                                                   const uint32_t* c, const uint32_t* d, const uint32_t* e = nullptr,
                                                   const uint32_t* f = nullptr, const uint32_t* g = nullptr,
                                                   const uint32_t* h = nullptr) {
  constexpr int n = 2 * P::N;
  static_assert(n % 2 == 0 && P::modulus::at32(n - 1) < (1u << 30), "ptx.cuh needs p < 2^(32n-2)");
  static_assert(K == 1 || K == 2 || K == 4, "device_mont_mul_eo: 1, 2 or 4 products");
  static_assert(K <= 2 || uint64_t(K + 1) * (uint64_t(P::modulus::at32(n - 1)) + 1) <= (uint64_t(1) << 32),
                "device_mont_mul_eo: (K+1)·p must fit in 32n bits");
  constexpr bool kSum = K >= 2;
  using namespace ptx;
  uint32_t A[n + 2], O[n + 2], bb[n], dd[kSum ? n : 1], fv[K == 4 ? n : 1], hv[K == 4 ? n : 1];
#pragma unroll
  for (int j = 0; j < n; ++j) bb[j] = b[j];
  if constexpr (kSum) {
#pragma unroll
    for (int j = 0; j < n; ++j) dd[j] = d[j];
  }
  if constexpr (K == 4) {
#pragma unroll
    for (int j = 0; j < n; ++j) fv[j] = f[j], hv[j] = h[j];
  }
#pragma unroll
  for (int j = 0; j < n + 2; ++j) A[j] = 0;
  // A += x·y_even (words 0 … n), one carry chain.
  auto add_even = [&](uint32_t x, const uint32_t* y) {
    A[0] = mad_lo_cc(x, y[0], A[0]);
    A[1] = madc_hi_cc(x, y[0], A[1]);
#pragma unroll
    for (int j = 2; j < n; j += 2) {
      A[j] = madc_lo_cc(x, y[j], A[j]);
      A[j + 1] = madc_hi_cc(x, y[j], A[j + 1]);
    }
    A[n] = addc(A[n], 0);
  };
#pragma unroll
  for (int i = 0; i < n; ++i) {
    const uint32_t ai = a[i];
    add_even(ai, bb);
    // O = a_i·b_odd (words 1 … n)
#pragma unroll
    for (int j = 1; j < n; j += 2) {
      O[j] = ai * bb[j];
      O[j + 1] = __umulhi(ai, bb[j]);
    }
    O[n + 1] = 0;
    // O += x·y_odd (words 1 … n+1), one carry chain; the first into O[n + 1] = 0 sets it.
    auto add_odd = [&](uint32_t x, const uint32_t* y, bool first) {
      O[1] = mad_lo_cc(x, y[1], O[1]);
      O[2] = madc_hi_cc(x, y[1], O[2]);
#pragma unroll
      for (int j = 3; j < n; j += 2) {
        O[j] = madc_lo_cc(x, y[j], O[j]);
        O[j + 1] = madc_hi_cc(x, y[j], O[j + 1]);
      }
      O[n + 1] = first ? addc(0, 0) : addc(O[n + 1], 0);
    };
    if constexpr (kSum) {  // A += c_i·d_even; O += c_i·d_odd
      const uint32_t ci = c[i];
      add_even(ci, dd);
      add_odd(ci, dd, true);
    }
    if constexpr (K == 4) {  // the same for e_i·f and g_i·h
      const uint32_t ei = e[i], gi = g[i];
      add_even(ei, fv);
      add_odd(ei, fv, false);
      add_even(gi, hv);
      add_odd(gi, hv, false);
    }
    const uint32_t m = A[0] * P::inv32;
    // A += m·p_even
    A[0] = mad_lo_cc(m, P::modulus::at32(0), A[0]);
    A[1] = madc_hi_cc(m, P::modulus::at32(0), A[1]);
#pragma unroll
    for (int j = 2; j < n; j += 2) {
      A[j] = madc_lo_cc(m, P::modulus::at32(j), A[j]);
      A[j + 1] = madc_hi_cc(m, P::modulus::at32(j), A[j + 1]);
    }
    A[n] = addc(A[n], 0);
    // O += m·p_odd
    O[1] = mad_lo_cc(m, P::modulus::at32(1), O[1]);
    O[2] = madc_hi_cc(m, P::modulus::at32(1), O[2]);
#pragma unroll
    for (int j = 3; j < n; j += 2) {
      O[j] = madc_lo_cc(m, P::modulus::at32(j), O[j]);
      O[j + 1] = madc_hi_cc(m, P::modulus::at32(j), O[j + 1]);
    }
    O[n + 1] = addc(O[n + 1], 0);
    // A += O, then shift (A_0 = 0 by the choice of m)
    A[1] = add_cc(A[1], O[1]);
#pragma unroll
    for (int j = 2; j <= n; ++j) A[j] = addc_cc(A[j], O[j]);
    A[n + 1] = addc(A[n + 1], O[n + 1]);
#pragma unroll
    for (int j = 0; j <= n; ++j) A[j] = A[j + 1];
    A[n + 1] = 0;
  }
#pragma unroll
  for (int k = 1; k < K; ++k) final_sub<P, n>(A, A);
  final_sub<P, n>(r, A);
}

// r = a·b·2^(−32n) mod p (r may alias a or b).
template <class P>
__device__ __forceinline__ void device_mont_mul(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  device_mont_mul_eo<P, 1>(r, a, b, nullptr, nullptr);
}
// r = (a·b + c·d)·2^(−32n) mod p, one reduction (see device_mont_mul_eo).
template <class P>
__device__ __forceinline__ void device_mont_mul_add(uint32_t* r, const uint32_t* a, const uint32_t* b,
                                                    const uint32_t* c, const uint32_t* d) {
  device_mont_mul_eo<P, 2>(r, a, b, c, d);
}
// r = (a·b + c·d + e·f + g·h)·2^(−32n) mod p, one reduction (see device_mont_mul_eo).
template <class P>
__device__ __forceinline__ void device_mont_mul_add4(uint32_t* r, const uint32_t* a, const uint32_t* b,
                                                     const uint32_t* c, const uint32_t* d, const uint32_t* e,
                                                     const uint32_t* f, const uint32_t* g, const uint32_t* h) {
  device_mont_mul_eo<P, 4>(r, a, b, c, d, e, f, g, h);
}
// r = a²·2^(−32n) mod p. The product form above with b = a: 560 SASS instructions for
// BLS12-381 against 1,008 for a separated-operand squaring with low/high chains (fewer
// multiplications, but every one of them an IMAD plus an IADD3.X), measured with
// test/gpu/fieldbench.cu; see bench/gpu-notes.md.
template <class P>
__device__ __forceinline__ void device_mont_sqr(uint32_t* r, const uint32_t* a) {
  device_mont_mul_eo<P, 1>(r, a, a, nullptr, nullptr);
}

}  // namespace msm::ff

#endif  // __CUDACC__
