// Device Montgomery multiplication and squaring over 32-bit limbs with PTX carry chains.
//
// field.hpp includes this file under nvcc and, seeing MSM_FF_HAVE_PTX, routes Fp::operator* and
// Fp::sqr on the device here. The field element's memory is the little-endian uint64_t limb[N]
// array, viewed as n = 2N little-endian 32-bit words.
//
// Multiplication: coarsely integrated operand scanning (CIOS; Koç, Acar, Kaliski, IEEE Micro 1996)
// with 32-bit words. Each outer step i adds a_i·b and m·p (m = t_0·(−p⁻¹) mod 2^32) to the running
// sum t, each product as two carry chains, one over the low halves (mad.lo.cc / madc.lo.cc into
// t_j) and one over the high halves (mad.hi.cc / madc.hi.cc into t_{j+1}), then shifts t down one
// word. 4n² + O(n) multiply-adds.
//
// Squaring: separated operand scanning. The off-diagonal products a_i·a_j (i < j) once, the sum
// doubled by a shift chain, the diagonal a_i² added, then a Montgomery reduction of the 2n-word
// square with one pending carry per row. ≈ 3n² + O(n) multiply-adds (vs 4n²).
//
// Both need the top 32-bit word of p below 2^30 (BN254, BLS12-381, BLS12-377 all qualify):
// then the running sums never exceed n+1 words (CIOS) and the result is < 2p before the final
// conditional subtraction, which brings it to [0, p) as field.hpp expects.
//
// Carry chains: each instruction is its own `asm volatile`; the carry flag is not an asm operand,
// so this relies on nvcc keeping volatile asm in order and emitting no carry-using instruction
// between them, the usual practice for PTX bignum code. The GPU self test (cuda/msm/selftest.cu,
// test/gpu/field.test.ts) checks the result against the portable path on random vectors.
#pragma once

#if defined(__CUDACC__)

#include <cstdint>

#define MSM_FF_HAVE_PTX 1

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

// r = a·b·2^(−32n) mod p. r may alias a or b.
template <class P>
__device__ __forceinline__ void device_mont_mul(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  constexpr int n = 2 * P::N;
  static_assert(P::modulus::at32(n - 1) < (1u << 30), "ptx.cuh needs p < 2^(32n-2)");
  using namespace ptx;
  uint32_t t[n + 1];
  uint32_t bb[n];
#pragma unroll
  for (int j = 0; j < n; ++j) bb[j] = b[j];

  // Step 0: t = a_0·b (no previous sum).
  {
    const uint32_t ai = a[0];
    t[0] = mad_lo_cc(ai, bb[0], 0);
#pragma unroll
    for (int j = 1; j < n; ++j) t[j] = madc_lo_cc(ai, bb[j], 0);
    t[n] = addc(0, 0);
    t[1] = mad_hi_cc(ai, bb[0], t[1]);
#pragma unroll
    for (int j = 1; j < n - 1; ++j) t[j + 1] = madc_hi_cc(ai, bb[j], t[j + 1]);
    t[n] = madc_hi(ai, bb[n - 1], t[n]);
  }
#pragma unroll
  for (int i = 0; i < n; ++i) {
    if (i > 0) {
      // t += a_i·b: low halves into t_j, high halves into t_{j+1}.
      const uint32_t ai = a[i];
      t[0] = mad_lo_cc(ai, bb[0], t[0]);
#pragma unroll
      for (int j = 1; j < n; ++j) t[j] = madc_lo_cc(ai, bb[j], t[j]);
      t[n] = addc(t[n], 0);
      t[1] = mad_hi_cc(ai, bb[0], t[1]);
#pragma unroll
      for (int j = 1; j < n - 1; ++j) t[j + 1] = madc_hi_cc(ai, bb[j], t[j + 1]);
      t[n] = madc_hi(ai, bb[n - 1], t[n]);
    }
    // t += m·p with m = t_0·(−p⁻¹): t_0 becomes 0, then t >>= 32.
    const uint32_t m = t[0] * P::inv32;
    t[0] = mad_lo_cc(m, P::modulus::at32(0), t[0]);
#pragma unroll
    for (int j = 1; j < n; ++j) t[j] = madc_lo_cc(m, P::modulus::at32(j), t[j]);
    t[n] = addc(t[n], 0);
    t[1] = mad_hi_cc(m, P::modulus::at32(0), t[1]);
#pragma unroll
    for (int j = 1; j < n - 1; ++j) t[j + 1] = madc_hi_cc(m, P::modulus::at32(j), t[j + 1]);
    t[n] = madc_hi(m, P::modulus::at32(n - 1), t[n]);
#pragma unroll
    for (int j = 0; j < n; ++j) t[j] = t[j + 1];
    t[n] = 0;
  }
  final_sub<P, n>(r, t);
}

// r = a²·2^(−32n) mod p. r may alias a.
template <class P>
__device__ __forceinline__ void device_mont_sqr(uint32_t* r, const uint32_t* a) {
  constexpr int n = 2 * P::N;
  static_assert(P::modulus::at32(n - 1) < (1u << 30), "ptx.cuh needs p < 2^(32n-2)");
  using namespace ptx;
  uint32_t x[n];
#pragma unroll
  for (int j = 0; j < n; ++j) x[j] = a[j];
  uint32_t t[2 * n];

  // Off-diagonal products Σ_{i<j} a_i·a_j·2^(32(i+j)). Row i writes t[2i+1 .. i+n+1].
  // Row 0 initialises t[1..n+1]; t[0] and t[2n-1] are set below.
  {
    t[1] = mad_lo_cc(x[0], x[1], 0);
#pragma unroll
    for (int j = 2; j < n; ++j) t[j] = madc_lo_cc(x[0], x[j], 0);
    t[n] = addc(0, 0);
    t[2] = mad_hi_cc(x[0], x[1], t[2]);
#pragma unroll
    for (int j = 2; j < n - 1; ++j) t[j + 1] = madc_hi_cc(x[0], x[j], t[j + 1]);
    t[n] = madc_hi(x[0], x[n - 1], t[n]);
  }
#pragma unroll
  for (int i = 1; i < n - 1; ++i) {
    // Low halves into t[2i+1 .. i+n-1], carry into t[i+n] (fresh word).
    t[2 * i + 1] = mad_lo_cc(x[i], x[i + 1], t[2 * i + 1]);
#pragma unroll
    for (int j = i + 2; j < n; ++j) t[i + j] = madc_lo_cc(x[i], x[j], t[i + j]);
    t[i + n] = addc(0, 0);
    // High halves into t[2i+2 .. i+n].
    if (i + 1 < n - 1) {
      t[2 * i + 2] = mad_hi_cc(x[i], x[i + 1], t[2 * i + 2]);
#pragma unroll
      for (int j = i + 2; j < n - 1; ++j) t[i + j + 1] = madc_hi_cc(x[i], x[j], t[i + j + 1]);
      t[i + n] = madc_hi(x[i], x[n - 1], t[i + n]);
    } else {
      // Last row (i = n−2) has the single product a_{n−2}·a_{n−1}.
      t[i + n] = mad_hi_cc(x[i], x[n - 1], t[i + n]);
    }
  }
  // Double: t[1..2n−2] <<= 1, the bit shifted out lands in t[2n−1].
  t[2 * n - 1] = t[2 * n - 2] >> 31;
#pragma unroll
  for (int k = 2 * n - 2; k > 1; --k) t[k] = (t[k] << 1) | (t[k - 1] >> 31);
  t[1] = t[1] << 1;
  // Add the diagonal a_i² at word 2i (low) and 2i+1 (high); t[0] starts at a_0² low.
  t[0] = mad_lo_cc(x[0], x[0], 0);
  t[1] = madc_hi_cc(x[0], x[0], t[1]);
#pragma unroll
  for (int i = 1; i < n - 1; ++i) {
    t[2 * i] = madc_lo_cc(x[i], x[i], t[2 * i]);
    t[2 * i + 1] = madc_hi_cc(x[i], x[i], t[2 * i + 1]);
  }
  t[2 * n - 2] = madc_lo_cc(x[n - 1], x[n - 1], t[2 * n - 2]);
  t[2 * n - 1] = madc_hi(x[n - 1], x[n - 1], t[2 * n - 1]);

  // Montgomery reduction (REDC) row by row; `pend` is the carry destined for word i+n+1.
  uint32_t pend = 0;
#pragma unroll
  for (int i = 0; i < n; ++i) {
    const uint32_t m = t[i] * P::inv32;
    t[i] = mad_lo_cc(m, P::modulus::at32(0), t[i]);
#pragma unroll
    for (int j = 1; j < n; ++j) t[i + j] = madc_lo_cc(m, P::modulus::at32(j), t[i + j]);
    uint32_t c1;
    if (i + n < 2 * n) {
      t[i + n] = addc_cc(t[i + n], pend);
      c1 = addc(0, 0);
    } else {
      c1 = addc(pend, 0);
    }
    t[i + 1] = mad_hi_cc(m, P::modulus::at32(0), t[i + 1]);
#pragma unroll
    for (int j = 1; j < n - 1; ++j) t[i + j + 1] = madc_hi_cc(m, P::modulus::at32(j), t[i + j + 1]);
    if (i + n < 2 * n - 1) {
      t[i + n] = madc_hi_cc(m, P::modulus::at32(n - 1), t[i + n]);
      pend = addc(c1, 0);
    } else {
      t[i + n] = madc_hi(m, P::modulus::at32(n - 1), t[i + n]);
      pend = 0;
    }
  }
  final_sub<P, n>(r, t + n);
}

}  // namespace msm::ff

#endif  // __CUDACC__
