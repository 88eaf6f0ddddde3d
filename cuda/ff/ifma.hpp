// Eight-lane prime-field arithmetic with AVX-512 IFMA (VPMADD52LUQ / VPMADD52HUQ: the low or high
// 52 bits of a 52×52-bit product added to a 64-bit lane; Intel SDM vol. 2, and AMD Zen 4 onwards),
// in radix 2^52 with K = ⌈64N/52⌉ limbs: 5 for 254-bit p, 8 for 377- and 381-bit p. Each lane holds
// its own field element (structure of arrays), so one vector operation serves eight independent
// multiplications; the layout and the operand-scanning Montgomery product follow Gueron and
// Krasnov, "Accelerating big integer arithmetic using Intel IFMA extensions" (ARITH 2016), and
// Drucker and Gueron, "Fast modular squaring with AVX512IFMA" (ITNG 2019).
//
// Montgomery radix here is R' = 2^(52K), not the scalar code's R = 2^(64N); S = 52K − 64N bits
// apart (4 for BN254, 32 for BLS12). A value "in form e" stands for a·2^e mod p. The scalar code's
// values are in form 64N; mul() takes forms e, f to e + f − 52K. The callers pick the forms so that
// no conversion multiplication is needed (see affine_simd.hpp); shl() moves a value up by k bits.
//
// Bounds: with p < 2^(52K−6) (static_assert) and inputs a, b < 2^(52K) with a·b < 2^(52K)·p,
// mul() and sqr() return (ab + mp)/R' < 2p (no final subtraction: lazy reduction). Values leave
// through reduce4() / sub_if_ge() fully reduced, as the scalar code stores them.
//
// Compiled for the host's x86-64 only, with function target attributes, so the rest of the build
// needs no AVX-512 flags; callers check host_has_ifma (CPUID, and the OS's saving of the ZMM
// state, which __builtin_cpu_supports includes) before calling in.
#pragma once

#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GNUC__)
#define MSM_HAVE_IFMA 1

#include <immintrin.h>

#include <cstdint>

#define MSM_IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))
#define MSM_IFMA_INLINE inline __attribute__((always_inline, target("avx512f,avx512ifma")))

namespace msm::ff::ifma {

inline bool detect() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
}
inline const bool host_has_ifma = detect();

constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;

// Bits [52j, 52j + 52) of the little-endian 64-bit word array w[0..n).
constexpr uint64_t radix52_limb(const uint64_t* w, int n, int j) {
  const int bit = 52 * j, i = bit / 64, sh = bit % 64;
  if (i >= n) return 0;
  uint64_t v = w[i] >> sh;
  if (sh > 12 && i + 1 < n) v |= w[i + 1] << (64 - sh);
  return v & kMask52;
}

// Eight field elements, limb j of lane l in l[j][l].
template <int K>
struct alignas(64) Vec {
  __m512i l[K];
};

// The constants of P's field for K-limb vectors.
template <class P>
struct Params {
  static constexpr int N = P::N;
  static constexpr int K = (64 * N + 51) / 52;
  static constexpr int S = 52 * K - 64 * N;  // forms apart (R'/R = 2^S)
  static_assert(S % 2 == 0, "the affine formulas shift by S/2");
  static_assert(P::BITS + 6 <= 52 * K, "lazy reduction needs p < 2^(52K − 6)");

  struct Words {
    uint64_t w[N + 1];
  };
  static constexpr Words multiple(uint64_t k) {  // k·p, k < 2^32, as N + 1 words
    Words r{};
    unsigned __int128 carry = 0;
    for (int i = 0; i < N; ++i) {
      const unsigned __int128 t = (unsigned __int128)P::modulus::at(i) * k + carry;
      r.w[i] = uint64_t(t);
      carry = t >> 64;
    }
    r.w[N] = uint64_t(carry);
    return r;
  }
  static constexpr uint64_t limb(uint64_t k, int j) {
    const Words m = multiple(k);
    return radix52_limb(m.w, N + 1, j);
  }
  static constexpr uint64_t pinv = P::inv & kMask52;  // −p⁻¹ mod 2^52
};

template <class P>
class Arith {
 public:
  using C = Params<P>;
  static constexpr int N = C::N, K = C::K, S = C::S;
  using V = Vec<K>;

  MSM_IFMA_INLINE static __m512i bcast(uint64_t v) { return _mm512_set1_epi64((long long)v); }
  // Shifts by immediates through the zero-masking forms: GCC 12's unmasked ones start from an
  // undefined vector that -Wall reports as uninitialized (a false positive; same instructions).
  MSM_IFMA_INLINE static __m512i srl(__m512i a, unsigned k) { return _mm512_maskz_srli_epi64(__mmask8(0xff), a, k); }
  MSM_IFMA_INLINE static __m512i sll(__m512i a, unsigned k) { return _mm512_maskz_slli_epi64(__mmask8(0xff), a, k); }
  MSM_IFMA_INLINE static __m512i sra(__m512i a, unsigned k) { return _mm512_maskz_srai_epi64(__mmask8(0xff), a, k); }
  MSM_IFMA_INLINE static V constant(uint64_t k) {  // k·p, unreduced (the lazy offsets)
    V r;
    for (int j = 0; j < K; ++j) r.l[j] = bcast(C::limb(k, j));
    return r;
  }

  // Montgomery product a·b/R' mod p (< 2p under the bounds above), operand scanning: per limb
  // b_i, t += a·b_i, then t += m·p with m = t_0·(−p⁻¹) mod 2^52, which clears t_0's low 52 bits,
  // and a shift by one limb. The lanes' 64-bit accumulators take ≤ 4K terms < 2^52 each before the
  // final carry pass (< 2^57 for K = 8), so no carry moves inside the loop but t_0's. 4K² + K IFMA.
  MSM_IFMA_INLINE static V mul(const V& a, const V& b) {
    const __m512i zero = _mm512_setzero_si512(), pinv = bcast(C::pinv), mask = bcast(kMask52);
    __m512i t[K + 1];
    for (int j = 0; j <= K; ++j) t[j] = zero;
    for (int i = 0; i < K; ++i) {
      for (int j = 0; j < K; ++j) {
        t[j] = _mm512_madd52lo_epu64(t[j], a.l[j], b.l[i]);
        t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.l[j], b.l[i]);
      }
      const __m512i m = _mm512_madd52lo_epu64(zero, t[0], pinv);
      for (int j = 0; j < K; ++j) {
        const __m512i pj = bcast(C::limb(1, j));
        t[j] = _mm512_madd52lo_epu64(t[j], m, pj);
        t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, pj);
      }
      t[1] = _mm512_add_epi64(t[1], srl(t[0], 52));
      for (int j = 0; j < K; ++j) t[j] = t[j + 1];
      t[K] = zero;
    }
    V r;
    for (int j = 0; j + 1 < K; ++j) {
      t[j + 1] = _mm512_add_epi64(t[j + 1], srl(t[j], 52));
      r.l[j] = _mm512_and_si512(t[j], mask);
    }
    r.l[K - 1] = t[K - 1];
    return r;
  }

  // a²/R' mod p (< 2p, bounds as mul): the square's cross products once and doubled, then the
  // diagonal, then the same reduction limb by limb (product scanning split from reduction, as in
  // Drucker–Gueron §3): K² + K IFMA for the square and 2K² + K for the reduction, against 4K² + K.
  MSM_IFMA_INLINE static V sqr(const V& a) {
    const __m512i zero = _mm512_setzero_si512(), pinv = bcast(C::pinv), mask = bcast(kMask52);
    __m512i t[2 * K + 1];
    for (int j = 0; j <= 2 * K; ++j) t[j] = zero;
    for (int i = 0; i < K; ++i)
      for (int j = i + 1; j < K; ++j) {
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[i], a.l[j]);
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[i], a.l[j]);
      }
    for (int j = 1; j < 2 * K; ++j) t[j] = _mm512_add_epi64(t[j], t[j]);
    for (int i = 0; i < K; ++i) {
      t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.l[i], a.l[i]);
      t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.l[i], a.l[i]);
    }
    for (int i = 0; i < K; ++i) {
      const __m512i m = _mm512_madd52lo_epu64(zero, t[i], pinv);
      for (int j = 0; j < K; ++j) {
        const __m512i pj = bcast(C::limb(1, j));
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, pj);
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, pj);
      }
      t[i + 1] = _mm512_add_epi64(t[i + 1], srl(t[i], 52));
    }
    V r;
    for (int j = 0; j + 1 < K; ++j) {
      t[K + j + 1] = _mm512_add_epi64(t[K + j + 1], srl(t[K + j], 52));
      r.l[j] = _mm512_and_si512(t[K + j], mask);
    }
    r.l[K - 1] = t[2 * K - 1];
    return r;
  }

  // Limbs back to [0, 2^52) after limb-wise additions and subtractions (signed: a limb may be
  // negative where the value is not). The value must be in [0, 2^(52K)).
  MSM_IFMA_INLINE static V normalize(V a) {
    const __m512i mask = bcast(kMask52);
    for (int j = 0; j + 1 < K; ++j) {
      a.l[j + 1] = _mm512_add_epi64(a.l[j + 1], sra(a.l[j], 52));
      a.l[j] = _mm512_and_si512(a.l[j], mask);
    }
    return a;
  }
  // a + b + c − d (normalized), c a multiple of p making the result non-negative.
  MSM_IFMA_INLINE static V add_sub(const V& a, const V& b, const V& c, const V& d) {
    V r;
    for (int j = 0; j < K; ++j)
      r.l[j] = _mm512_sub_epi64(_mm512_add_epi64(_mm512_add_epi64(a.l[j], b.l[j]), c.l[j]), d.l[j]);
    return normalize(r);
  }
  // a + kp − b (normalized), kp a multiple of p ≥ b.
  MSM_IFMA_INLINE static V sub(const V& a, const V& b, const V& kp) {
    V r;
    for (int j = 0; j < K; ++j) r.l[j] = _mm512_sub_epi64(_mm512_add_epi64(a.l[j], kp.l[j]), b.l[j]);
    return normalize(r);
  }
  MSM_IFMA_INLINE static V add(const V& a, const V& b) {
    V r;
    for (int j = 0; j < K; ++j) r.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
    return normalize(r);
  }
  // a·2^k (form + k), 0 < k < 52, for a < 2^(52K − k).
  MSM_IFMA_INLINE static V shl(const V& a, int k) {
    const __m512i mask = bcast(kMask52);
    V r;
    r.l[0] = _mm512_and_si512(sll(a.l[0], unsigned(k)), mask);
    for (int j = 1; j < K; ++j)
      r.l[j] = _mm512_and_si512(
          _mm512_or_si512(sll(a.l[j], unsigned(k)), srl(a.l[j - 1], unsigned(52 - k))), mask);
    return r;
  }
  // a − q where a ≥ q, else a (normalized a, q).
  MSM_IFMA_INLINE static V sub_if_ge(const V& a, const V& q) {
    V t;
    for (int j = 0; j < K; ++j) t.l[j] = _mm512_sub_epi64(a.l[j], q.l[j]);
    t = normalize(t);
    const __mmask8 neg = _mm512_cmplt_epi64_mask(t.l[K - 1], _mm512_setzero_si512());
    for (int j = 0; j < K; ++j) t.l[j] = _mm512_mask_blend_epi64(neg, t.l[j], a.l[j]);
    return t;
  }
  // [0, 4p) → [0, p).
  MSM_IFMA_INLINE static V reduce4(const V& a) { return sub_if_ge(sub_if_ge(a, constant(2)), constant(1)); }

  // Between the scalar code's N 64-bit words (per lane, one vector per word) and K radix-2^52
  // limbs: the same integer, the same form. from_words needs a < 2^(64N); to_words a < 2^(64N)
  // with normalized limbs.
  MSM_IFMA_INLINE static V from_words(const __m512i* w) {
    const __m512i mask = bcast(kMask52);
    V r;
    for (int j = 0; j < K; ++j) {
      const int bit = 52 * j, i = bit / 64, sh = bit % 64;
      __m512i v = srl(w[i], unsigned(sh));
      if (sh > 12 && i + 1 < N) v = _mm512_or_si512(v, sll(w[i + 1], unsigned(64 - sh)));
      r.l[j] = _mm512_and_si512(v, mask);
    }
    return r;
  }
  MSM_IFMA_INLINE static void to_words(const V& a, __m512i* w) {
    for (int i = 0; i < N; ++i) {
      __m512i v = _mm512_setzero_si512();
      for (int j = 0; j < K; ++j) {
        const int off = 52 * j - 64 * i;  // where limb j's bit 0 lands in word i
        if (off <= -52 || off >= 64) continue;
        v = _mm512_or_si512(v, off >= 0 ? sll(a.l[j], unsigned(off)) : srl(a.l[j], unsigned(-off)));
      }
      w[i] = v;
    }
  }
};

}  // namespace msm::ff::ifma

#endif
