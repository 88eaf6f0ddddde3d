// Prime-field arithmetic in Montgomery form, templated over a field-parameters struct:
//
//   struct Params {
//     static constexpr int N;            // number of 64-bit limbs
//     static constexpr unsigned BITS;    // bit length of the modulus
//     using modulus = limbs<...>;        // p, little-endian 64-bit limbs
//     using one = limbs<...>;            // R mod p, R = 2^(64N) (1 in Montgomery form)
//     using r2 = limbs<...>;             // R² mod p (to_mont multiplies by it)
//     static constexpr uint64_t inv;     // −p⁻¹ mod 2^64
//     static constexpr uint32_t inv32;   // −p⁻¹ mod 2^32 (the device's 32-bit limbs)
//   };
//
// Storage is the bare limb array (little-endian), so the device may view the same memory as 2N
// 32-bit limbs. Every operation takes and returns values fully reduced to [0, p).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common.hpp"

// The assembly needs every general register but rsp: builds that keep a frame pointer must not
// take it (binding.gyp and CMakeLists.txt pass -fomit-frame-pointer; -O0 builds use the C++ path).
#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__)
#include <utility>

#include "x86_mont.hpp"
#define MSM_X86_ASM 1
namespace msm::ff {
inline bool detect_adx() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
}
// MULX/ADCX/ADOX present (checked once at load; the assembly path is taken only then).
inline const bool host_has_adx = detect_adx();
// p[0..N−1] then −p⁻¹ mod 2^64, the table the assembly reads.
template <class P, class Seq = std::make_index_sequence<P::N + 1>>
struct x86_table;
template <class P, size_t... I>
struct x86_table<P, std::index_sequence<I...>> {
  static constexpr uint64_t v[] = {(I < size_t(P::N) ? P::modulus::at(int(I)) : P::inv)...};
};
inline constexpr uint64_t x86_zero[6] = {};  // what add_mod / sub_mod add back when nothing is due
}  // namespace msm::ff
#endif

#if defined(__CUDACC__) && defined(__has_include)
#if __has_include("ptx.cuh")
#include "ptx.cuh"  // may define MSM_FF_HAVE_PTX and msm::ff::device_mont_mul / device_mont_sqr
#endif
#endif

namespace msm::ff {

// Field parameters P whose device products are inline wherever MSM_FF_OUTLINE_PRODUCTS would make
// them calls: Fp<InlineProducts<P>> is Fp<P> limb for limb, for code that runs rarely beside a hot
// path of calls (cuda/msm/accumulate.cu says why).
template <class P>
struct InlineProducts : P {};
template <class P>
inline constexpr bool inline_products_v = false;
template <class P>
inline constexpr bool inline_products_v<InlineProducts<P>> = true;

// 16-byte aligned when that adds no padding (even N: 128-bit device loads); odd N (BLS24-315's
// five limbs) stays at 8 so that an element is its 8N bytes and points keep the x‖y layout.
template <class P>
struct alignas(P::N % 2 == 0 ? 16 : 8) Fp {
  static constexpr int N = P::N;
  using params = P;
  uint64_t limb[N];

  // ---- constants -------------------------------------------------------------------------------
  MSM_HD static constexpr Fp zero() { return Fp{}; }
  MSM_HD static Fp one() { return from_table<typename P::one>(); }
  MSM_HD static Fp modulus() { return from_table<typename P::modulus>(); }
  template <class T>
  MSM_HD static Fp from_table() {
    Fp r;
    MSM_UNROLL for (int i = 0; i < N; ++i) r.limb[i] = T::at(i);
    return r;
  }

  // ---- comparisons -----------------------------------------------------------------------------
  MSM_HD MSM_INLINE bool is_zero() const {
    uint64_t acc = 0;
    MSM_UNROLL for (int i = 0; i < N; ++i) acc |= limb[i];
    return acc == 0;
  }
  MSM_HD MSM_INLINE friend bool operator==(const Fp& a, const Fp& b) {
    uint64_t acc = 0;
    MSM_UNROLL for (int i = 0; i < N; ++i) acc |= a.limb[i] ^ b.limb[i];
    return acc == 0;
  }
  MSM_HD friend bool operator!=(const Fp& a, const Fp& b) { return !(a == b); }
  // The raw limbs as an integer are < p (a canonical or Montgomery representative).
  MSM_HD bool is_reduced() const {
    uint64_t borrow = 0;
    MSM_UNROLL for (int i = 0; i < N; ++i) sbb(limb[i], P::modulus::at(i), borrow);
    return borrow != 0;
  }
  // cond ? a : b without a data-dependent branch.
  MSM_HD MSM_INLINE static Fp select(bool cond, const Fp& a, const Fp& b) {
    const uint64_t m = uint64_t(0) - uint64_t(cond);
    Fp r;
    MSM_UNROLL for (int i = 0; i < N; ++i) r.limb[i] = (a.limb[i] & m) | (b.limb[i] & ~m);
    return r;
  }

  // ---- additive group ------------------------------------------------------------------------
  // r − p if r ≥ p (or if the top limb carried out), else r.
  MSM_HD MSM_INLINE static Fp reduce_once(const Fp& r, uint64_t carry) {
    Fp t;
    uint64_t borrow = 0;
    MSM_UNROLL for (int i = 0; i < N; ++i) t.limb[i] = sbb(r.limb[i], P::modulus::at(i), borrow);
    // Keep t when the subtraction did not borrow, or when the sum had overflowed 64N bits.
    return select(carry != 0 || borrow == 0, t, r);
  }
  MSM_HD MSM_INLINE friend Fp operator+(const Fp& a, const Fp& b) {
#if defined(__CUDA_ARCH__) && defined(MSM_FF_HAVE_PTX)
    Fp r;
    device_add_mod<P>(w32(r), w32(a), w32(b));
    return r;
#else
#if defined(MSM_X86_ASM)
    if constexpr ((N == 4 || N == 6) && P::modulus::at(N - 1) < (1ull << 62)) {
      Fp r;
      if constexpr (N == 4)
        x86::add_mod_4(r.limb, a.limb, b.limb, x86_table<P>::v, x86_zero);
      else
        x86::add_mod_6(r.limb, a.limb, b.limb, x86_table<P>::v, x86_zero);
      return r;
    }
#endif
    Fp r;
    uint64_t carry = 0;
    MSM_UNROLL for (int i = 0; i < N; ++i) r.limb[i] = adc(a.limb[i], b.limb[i], carry);
    return reduce_once(r, carry);
#endif
  }
  MSM_HD MSM_INLINE friend Fp operator-(const Fp& a, const Fp& b) {
#if defined(__CUDA_ARCH__) && defined(MSM_FF_HAVE_PTX)
    Fp r;
    device_sub_mod<P>(w32(r), w32(a), w32(b));
    return r;
#else
#if defined(MSM_X86_ASM)
    if constexpr ((N == 4 || N == 6) && P::modulus::at(N - 1) < (1ull << 62)) {
      Fp r;
      if constexpr (N == 4)
        x86::sub_mod_4(r.limb, a.limb, b.limb, x86_table<P>::v, x86_zero);
      else
        x86::sub_mod_6(r.limb, a.limb, b.limb, x86_table<P>::v, x86_zero);
      return r;
    }
#endif
    Fp r;
    uint64_t borrow = 0;
    MSM_UNROLL for (int i = 0; i < N; ++i) r.limb[i] = sbb(a.limb[i], b.limb[i], borrow);
    const uint64_t m = uint64_t(0) - borrow;  // add p back when a < b
    uint64_t carry = 0;
    MSM_UNROLL for (int i = 0; i < N; ++i) r.limb[i] = adc(r.limb[i], P::modulus::at(i) & m, carry);
    return r;
#endif
  }
  MSM_HD MSM_INLINE Fp operator-() const { return zero() - *this; }
  MSM_HD MSM_INLINE Fp dbl() const { return *this + *this; }

  // a + b left unreduced on the device (one carry chain, ptx.cuh device_add_unreduced), for the
  // operands of products alone; on the host a + b mod p, the same value to every product. A device
  // product a·b or two-product sum a·b + c·d (ptx.cuh device_mont_mul_eo) of operands below A·p,
  // B·p, C·p, D·p (b and d: the operands whose every word each step adds) is exact and reduced to
  // [0, p) while B + D + 1 ≤ kRoom (the running sum stays in n + 1 words) and A·B + C·D ≤ kRoom (it
  // ends below 2p): kRoom = ⌊(2^32 − 2^16) / (top 32-bit word of p + 1)⌋ < R/p, with room for the
  // running sum's carries (5 for BN254, 9 for BLS12-381).
  static constexpr uint64_t kRoom =
      ((uint64_t(1) << 32) - (uint64_t(1) << 16)) / (uint64_t(P::modulus::at32(2 * N - 1)) + 1);
  MSM_HD MSM_INLINE static Fp sum_unreduced(const Fp& a, const Fp& b) {
#if defined(__CUDA_ARCH__) && defined(MSM_FF_HAVE_PTX)
    Fp r;
    device_add_unreduced<P>(w32(r), w32(a), w32(b));
    return r;
#else
    return a + b;
#endif
  }
  MSM_HD Fp& operator+=(const Fp& b) { return *this = *this + b; }
  MSM_HD Fp& operator-=(const Fp& b) { return *this = *this - b; }
  MSM_HD Fp& operator*=(const Fp& b) { return *this = *this * b; }

  // ---- multiplication --------------------------------------------------------------------------
  MSM_HD MSM_INLINE friend Fp operator*(const Fp& a, const Fp& b) {
#if defined(__CUDA_ARCH__) && defined(MSM_FF_HAVE_PTX)
    return device_product(a, b);
#else
    return mont_mul(a, b);
#endif
  }
  MSM_HD MSM_INLINE Fp sqr() const {
#if defined(__CUDA_ARCH__) && defined(MSM_FF_HAVE_PTX)
    return device_square(*this);
#else
#if defined(MSM_X86_ASM)
    if constexpr (N == 4 && P::modulus::at(N - 1) < (1ull << 62)) {
      if (host_has_adx) {
        Fp r;
        x86::mont_sqr_adx_4_red(r.limb, limb, x86_table<P>::v);
        return r;
      }
    }
#endif
    return mont_mul(*this, *this);
#endif
  }

  // a·b + c·d. On the device with one Montgomery reduction for both products (lazy reduction,
  // ptx.cuh device_mont_mul_add: 3n² word products against 4n²); the formulas call it where a
  // coordinate is a sum or difference of two products (a·b − c·d = a·b + c·(−d)).
  MSM_HD MSM_INLINE static Fp mul_add(const Fp& a, const Fp& b, const Fp& c, const Fp& d) {
#if defined(__CUDA_ARCH__) && defined(MSM_FF_HAVE_PTX)
    return device_product2(a, b, c, d);
#else
    return a * b + c * d;
#endif
  }

  // a·b + c·d + e·f + g·h, on the device with one Montgomery reduction for the four products
  // (ptx.cuh device_mont_mul_add4: 5n² word products against 8n²): a coordinate of Fp2's a·b + c·d.
  MSM_HD MSM_INLINE static Fp mul_add4(const Fp& a, const Fp& b, const Fp& c, const Fp& d, const Fp& e, const Fp& f,
                                       const Fp& g, const Fp& h) {
#if defined(__CUDA_ARCH__) && defined(MSM_FF_HAVE_PTX)
    return device_product4(a, b, c, d, e, f, g, h);
#else
    return a * b + c * d + e * f + g * h;
#endif
  }

#if defined(__CUDACC__) && defined(MSM_FF_HAVE_PTX)
  // The device products (ptx.cuh), operands by value so that an out-of-line body keeps them in
  // registers: calls (the *_call functions) for fields of kOutlineFromLimbs or more limbs, where
  // MSM_FF_OUTLINE_PRODUCTS sets that per source file (ptx.cuh says why), unless P is
  // InlineProducts; inline elsewhere.
  static constexpr bool kOutline = N >= kOutlineFromLimbs && !inline_products_v<P>;
  __device__ __forceinline__ static Fp device_product(Fp a, Fp b) {
    if constexpr (kOutline) return device_product_call(a, b);
    else return product_body(a, b);
  }
  __device__ __forceinline__ static Fp device_square(Fp a) {
    if constexpr (kOutline) return device_square_call(a);
    else return square_body(a);
  }
  __device__ __forceinline__ static Fp device_product2(Fp a, Fp b, Fp c, Fp d) {
    if constexpr (kOutline) return device_product2_call(a, b, c, d);
    else return product2_body(a, b, c, d);
  }
  __device__ __forceinline__ static Fp device_product4(Fp a, Fp b, Fp c, Fp d, Fp e, Fp f, Fp g, Fp h) {
    if constexpr (kOutline) return device_product4_call(a, b, c, d, e, f, g, h);
    else return product4_body(a, b, c, d, e, f, g, h);
  }
  __device__ __noinline__ static Fp device_product_call(Fp a, Fp b) { return product_body(a, b); }
  __device__ __noinline__ static Fp device_square_call(Fp a) { return square_body(a); }
  __device__ __noinline__ static Fp device_product2_call(Fp a, Fp b, Fp c, Fp d) { return product2_body(a, b, c, d); }
  __device__ __noinline__ static Fp device_product4_call(Fp a, Fp b, Fp c, Fp d, Fp e, Fp f, Fp g, Fp h) {
    return product4_body(a, b, c, d, e, f, g, h);
  }
  __device__ __forceinline__ static Fp product_body(const Fp& a, const Fp& b) {
    Fp r;
    device_mont_mul<P>(w32(r), w32(a), w32(b));
    return r;
  }
  __device__ __forceinline__ static Fp square_body(const Fp& a) {
    Fp r;
    device_mont_sqr<P>(w32(r), w32(a));
    return r;
  }
  __device__ __forceinline__ static Fp product2_body(const Fp& a, const Fp& b, const Fp& c, const Fp& d) {
    Fp r;
    device_mont_mul_add<P>(w32(r), w32(a), w32(b), w32(c), w32(d));
    return r;
  }
  __device__ __forceinline__ static Fp product4_body(const Fp& a, const Fp& b, const Fp& c, const Fp& d, const Fp& e,
                                                     const Fp& f, const Fp& g, const Fp& h) {
    Fp r;
    device_mont_mul_add4<P>(w32(r), w32(a), w32(b), w32(c), w32(d), w32(e), w32(f), w32(g), w32(h));
    return r;
  }
  __device__ __forceinline__ static uint32_t* w32(Fp& x) { return reinterpret_cast<uint32_t*>(x.limb); }
  __device__ __forceinline__ static const uint32_t* w32(const Fp& x) { return reinterpret_cast<const uint32_t*>(x.limb); }
#endif

  // Montgomery product a·b·R⁻¹ mod p by coarsely integrated operand scanning (CIOS; Koç, Acar,
  // Kaliski, "Analyzing and comparing Montgomery multiplication algorithms", IEEE Micro 1996).
  // When the top limb of p is < 2^63 − 1 (all curves here) the running sum never needs the extra
  // (N+1)th and (N+2)th words, which saves two additions per outer step (the "no-carry"
  // observation of the gnark-crypto authors, hackmd.io/@gnark/modular_multiplication).
  MSM_HD MSM_INLINE static Fp mont_mul(const Fp& a, const Fp& b) {
#if defined(MSM_X86_ASM)
    if constexpr ((N == 4 || N == 6) && P::modulus::at(N - 1) < (1ull << 62)) {
      if (host_has_adx) {
        Fp r;
        if constexpr (N == 4) {
          x86::mont_mul_adx_4_red(r.limb, a.limb, b.limb, x86_table<P>::v);
          return r;
        } else {
          x86::mont_mul_adx_6(r.limb, a.limb, b.limb, x86_table<P>::v);
          return reduce_once(r, 0);
        }
      }
    }
#endif
    constexpr bool no_carry = P::modulus::at(N - 1) < 0x7fffffffffffffffull;
    uint64_t t[N + 2] = {};
    if constexpr (no_carry) {
      MSM_UNROLL for (int i = 0; i < N; ++i) {
        uint64_t A = 0, C = 0;
        t[0] = mac(a.limb[0], b.limb[i], t[0], A);
        const uint64_t m = t[0] * P::inv;
        mac(m, P::modulus::at(0), t[0], C);
        MSM_UNROLL for (int j = 1; j < N; ++j) {
          t[j] = mac(a.limb[j], b.limb[i], t[j], A);
          t[j - 1] = mac(m, P::modulus::at(j), t[j], C);
        }
        t[N - 1] = C + A;
      }
      Fp r;
      MSM_UNROLL for (int i = 0; i < N; ++i) r.limb[i] = t[i];
      return reduce_once(r, 0);
    } else {
      MSM_UNROLL for (int i = 0; i < N; ++i) {
        uint64_t C = 0;
        MSM_UNROLL for (int j = 0; j < N; ++j) t[j] = mac(a.limb[j], b.limb[i], t[j], C);
        uint64_t c2 = 0;
        t[N] = adc(t[N], C, c2);
        t[N + 1] = c2;
        const uint64_t m = t[0] * P::inv;
        C = 0;
        mac(m, P::modulus::at(0), t[0], C);
        MSM_UNROLL for (int j = 1; j < N; ++j) t[j - 1] = mac(m, P::modulus::at(j), t[j], C);
        c2 = 0;
        t[N - 1] = adc(t[N], C, c2);
        t[N] = t[N + 1] + c2;
      }
      Fp r;
      MSM_UNROLL for (int i = 0; i < N; ++i) r.limb[i] = t[i];
      return reduce_once(r, t[N]);
    }
  }

  // ---- Montgomery conversion -------------------------------------------------------------------
  MSM_HD static Fp to_mont(const Fp& canonical) { return canonical * from_table<typename P::r2>(); }
  MSM_HD static Fp from_mont(const Fp& m) {
    Fp one_raw{};
    one_raw.limb[0] = 1;
    return m * one_raw;
  }
  MSM_HD static Fp from_u64(uint64_t v) {
    Fp r{};
    r.limb[0] = v;
    return to_mont(r);
  }

  // ---- exponentiation and inversion ----------------------------------------------------------
  // this^e for e given as little-endian 64-bit limbs (square-and-multiply, variable time in e).
  MSM_HD Fp pow(const uint64_t* e, int e_limbs) const {
    Fp r = one();
    for (int i = e_limbs - 1; i >= 0; --i)
      for (int bit = 63; bit >= 0; --bit) {
        r = r.sqr();
        if ((e[i] >> bit) & 1) r = r * *this;
      }
    return r;
  }
  // a⁻¹ = a^(p−2) (Fermat); 0 maps to 0.
  MSM_HD Fp inverse() const {
    uint64_t e[N];
    uint64_t borrow = 0;
    for (int i = 0; i < N; ++i) e[i] = sbb(P::modulus::at(i), i == 0 ? 2 : 0, borrow);
    return pow(e, N);
  }

  // ---- bytes -----------------------------------------------------------------------------------
  static constexpr size_t BYTES = 8 * N;
  // Reads 8N little-endian bytes as raw limbs (no Montgomery conversion). False when ≥ p.
  MSM_HD static bool load_le(const uint8_t* in, Fp& out) {
    for (int i = 0; i < N; ++i) {
      uint64_t w = 0;
      for (int k = 7; k >= 0; --k) w = (w << 8) | in[8 * i + k];
      out.limb[i] = w;
    }
    return out.is_reduced();
  }
  MSM_HD void store_le(uint8_t* out) const {
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < 8; ++k) out[8 * i + k] = uint8_t(limb[i] >> (8 * k));
  }
};

// F with its device products inline (InlineProducts), limb for limb the same. Any other field stays
// as it is, Fp2 among them: G2's per-pair addition in the homogeneous mode is the same out-of-line
// function as its rare additions (cuda/msm/accumulate.cu add_complete), and its formulas inline are
// several times G1's.
template <class F>
struct with_inline_products {
  using type = F;
};
template <class P>
struct with_inline_products<Fp<P>> {
  using type = Fp<InlineProducts<P>>;
};
template <class F>
using inline_products_t = typename with_inline_products<F>::type;

}  // namespace msm::ff
