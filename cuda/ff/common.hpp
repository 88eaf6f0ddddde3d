// Portability layer shared by the field, curve and MSM code: the host/device qualifiers, forced
// inlining, compile-time limb tables and the 64-bit multiply-accumulate primitive.
#pragma once

#include <cstdint>

#if !defined(__CUDA_ARCH__) && defined(__x86_64__)
#include <x86intrin.h>  // _addcarry_u64 / _subborrow_u64: GCC turns __int128 carry chains into poor code
#define MSM_X86_CARRY 1
#endif

#if defined(__CUDACC__)
#define MSM_HD __host__ __device__
#define MSM_INLINE __forceinline__
#else
#define MSM_HD
#define MSM_INLINE inline __attribute__((always_inline))
#endif

#if defined(__CUDACC__)
#define MSM_UNROLL _Pragma("unroll")
#else
#define MSM_UNROLL _Pragma("GCC unroll 16")
#endif

namespace msm::ff {

// A multi-limb constant (little-endian 64-bit limbs) carried in the type. Template arguments are
// scalars, so device code may read them at run time; a static constexpr array member could only be
// read on the device inside constant expressions.
template <uint64_t... V>
struct limbs {
  static constexpr int n = sizeof...(V);
  MSM_HD static constexpr uint64_t at(int i) {
    constexpr uint64_t a[] = {V...};
    return a[i];
  }
  // The same value as 2n little-endian 32-bit words (the device's view of the same memory).
  MSM_HD static constexpr uint32_t at32(int i) { return uint32_t(at(i / 2) >> (32 * (i & 1))); }
};

// lo(a·b + c + carry), carry ← hi(...). Cannot overflow: (2^64−1)² + 2(2^64−1) = 2^128 − 1.
MSM_HD MSM_INLINE uint64_t mac(uint64_t a, uint64_t b, uint64_t c, uint64_t& carry) {
#if defined(__CUDA_ARCH__)
  uint64_t lo = a * b, hi = __umul64hi(a, b);
  lo += c;
  hi += lo < c;
  lo += carry;
  hi += lo < carry;
  carry = hi;
  return lo;
#else
  unsigned __int128 t = (unsigned __int128)a * b + c + carry;
  carry = uint64_t(t >> 64);
  return uint64_t(t);
#endif
}

// lo(a + b + carry), carry ← the carry out (0 or 1).
MSM_HD MSM_INLINE uint64_t adc(uint64_t a, uint64_t b, uint64_t& carry) {
#if defined(__CUDA_ARCH__)
  uint64_t s = a + b;
  uint64_t c1 = s < a;
  s += carry;
  carry = c1 | (s < carry);
  return s;
#elif defined(MSM_X86_CARRY)
  unsigned long long s;
  carry = _addcarry_u64((unsigned char)carry, a, b, &s);
  return s;
#else
  unsigned __int128 t = (unsigned __int128)a + b + carry;
  carry = uint64_t(t >> 64);
  return uint64_t(t);
#endif
}

// lo(a − b − borrow), borrow ← the borrow out (0 or 1).
MSM_HD MSM_INLINE uint64_t sbb(uint64_t a, uint64_t b, uint64_t& borrow) {
#if defined(__CUDA_ARCH__)
  uint64_t d = a - b;
  uint64_t b1 = a < b;
  uint64_t r = d - borrow;
  borrow = b1 | (d < borrow);
  return r;
#elif defined(MSM_X86_CARRY)
  unsigned long long d;
  borrow = _subborrow_u64((unsigned char)borrow, a, b, &d);
  return d;
#else
  unsigned __int128 t = (unsigned __int128)a - b - borrow;
  borrow = uint64_t(t >> 64) & 1;
  return uint64_t(t);
#endif
}

// ⌊log2 k⌋ for k ≥ 1.
constexpr int top_bit(unsigned k) {
  int top = 0;
  while (k >>= 1) ++top;
  return top;
}

// t·K for a constant K ≥ 1 by a fixed addition chain (left-to-right binary: ⌊log2 K⌋ doublings and
// popcount(K) − 1 additions, no data-dependent step), for any field type with dbl() and +: the
// complete formulas' multiplications by 3b (ec/homogeneous.hpp, curves/bls12_381_g2.hpp).
template <unsigned K, class F>
MSM_HD MSM_INLINE F mul_small(const F& t) {
  static_assert(K >= 1, "mul_small: K must be at least 1");
  constexpr int top = top_bit(K);
  F acc = t;
  MSM_UNROLL for (int bit = top - 1; bit >= 0; --bit) {
    acc = acc.dbl();
    if ((K >> bit) & 1) acc = acc + t;
  }
  return acc;
}

}  // namespace msm::ff
