// The batch-affine additions of affine_buckets.hpp on eight lanes (ff/ifma.hpp): entry i runs on
// lane i mod 8 of group ⌊i/8⌋, so the batch is eight interleaved simultaneous-inversion chains
// (Montgomery's trick) advanced by one vector product per group; the eight chain products are
// inverted together on the scalar side (one inversion, 3·8 products).
//
// Forms (ff/ifma.hpp; e = 64N is the scalar code's Montgomery form, S = 52K − 64N):
//   d  = x_P − x_B (form e) shifted by S → form 52K, so the chain's products stay in form 52K and
//        the inverses 1/d come back in form 52K;
//   λ  = (y_P − y_B)·2^(S/2) · 1/d → form e + S/2;
//   λ² → form e, x₃ = λ² − x_B − x_P in form e;  y₃ = λ·(x_B − x₃)·2^(S/2) − y_B in form e.
// So points go in and out in the scalar form with no conversion product, at 6 vector products per
// addition (3 for the inversion chain, λ, λ², y₃: 5M + 1S, as the scalar path).
#pragma once

#include "../common/env.hpp"
#include "../ff/ifma.hpp"

#if defined(MSM_HAVE_IFMA)
#include <vector>

#include "../ec/affine.hpp"
#include "inverse.hpp"

namespace msm::cpu {

// MSM_CPU_SIMD=0 (common/env.hpp) keeps the vector path off; both paths give the same bits.
inline bool cpu_simd_enabled() { return ff::ifma::host_has_ifma && environment().cpu_simd; }

template <class F>
class AffineSimd {
  using A = ec::Affine<F>;
  using Ar = ff::ifma::Arith<typename F::params>;
  using V = typename Ar::V;
  static constexpr int N = Ar::N, S = Ar::S;

 public:
  // dst(i) ← dst(i) + src(i) for i < n under the conditions of AffineBuckets::apply (the same
  // accessors: src(i) gives a point's address .p and .neg, whether to negate it); dbl(i) marks a
  // doubling (src(i) = dst(i)).
  // The forward pass reads the points once, keeping what the backward pass needs (x_B, x_B + x_P,
  // y_B and the numerator, 4·K vectors per group) next to the chain, so the backward pass only
  // writes points.
  template <class Dst, class Src, class Dbl>
  MSM_IFMA_TARGET void apply(size_t n, Dst dst, Src src, Dbl dbl) {
    if (n == 0) return;
    const size_t groups = (n + 7) / 8;
    dst_.resize(groups * 8), src_.resize(groups * 8), dbl_.resize(groups * 8), neg_.resize(groups * 8);
    stage_.resize(groups);
    for (size_t i = 0; i < n; ++i) {
      const auto s = src(i);
      dst_[i] = &dst(i), src_[i] = s.p, neg_[i] = s.neg, dbl_[i] = dbl(i);
    }
    // Idle lanes add (1, 0) to (0, 0) in a scratch point: a non-zero denominator, stored nowhere.
    pad_src_ = A{F::one(), F::zero()};
    for (size_t i = n; i < groups * 8; ++i) {
      pad_dst_[i - n] = A{F::zero(), F::zero()};
      dst_[i] = &pad_dst_[i - n];
      src_[i] = &pad_src_;
      dbl_[i] = neg_[i] = 0;
    }

    const V p1 = Ar::constant(1), p2 = Ar::constant(2);
    V acc = one52();
    for (size_t g = 0; g < groups; ++g) {
      Stage& st = stage_[g];
      const __mmask8 dm = byte_mask(dbl_, g), nm = byte_mask(neg_, g);
      V xb, yb, xp, yp;
      load(&dst_[8 * g], xb, yb);
      load(&src_[8 * g], xp, yp);
      if (nm) yp = blend(nm, yp, Ar::sub_if_ge(Ar::sub(Ar::constant(0), yp, p1), p1));  // p − y, 0 for y = 0
      V d = Ar::sub(xp, xb, p1);
      V num = Ar::sub(yp, yb, p1);
      if (dm) {  // doublings: d = 2y_B, num = 3x_B² (form e)
        d = blend(dm, d, Ar::add(yb, yb));
        const V xh = Ar::shl(xb, S / 2);
        const V x2 = Ar::sqr(xh);
        num = blend(dm, num, Ar::add_sub(x2, x2, x2, Ar::constant(0)));
      }
      st.xb = xb, st.yb = yb, st.xs = Ar::add(xb, xp), st.num = Ar::shl(num, S / 2);
      st.den = Ar::shl(d, S);
      st.prefix = acc;
      acc = Ar::mul(acc, st.den);
    }
    V inv = invert_lanes(acc);
    for (size_t g = groups; g-- > 0;) {
      const Stage& st = stage_[g];
      const V di = Ar::mul(inv, st.prefix);  // 1/d, form 52K
      inv = Ar::mul(inv, st.den);
      const V lambda = Ar::mul(st.num, di);
      const V l2 = Ar::sqr(lambda);
      // x₃ = λ² + 2p − x_B − x_P ∈ [0, 4p); y₃ = λ·(x_B + p − x₃) + p − y_B ∈ [0, 3p).
      const V x3 = Ar::reduce4(Ar::sub(l2, st.xs, p2));
      const V t = Ar::shl(Ar::sub(st.xb, x3, p1), S / 2);
      const V y3 = Ar::reduce4(Ar::sub(Ar::mul(lambda, t), st.yb, p1));
      store(&dst_[8 * g], x3, y3);
    }
  }

 private:
  struct Stage {
    V den, prefix, xb, yb, xs, num;
  };

  MSM_IFMA_INLINE static __mmask8 byte_mask(const std::vector<uint8_t>& flags, size_t g) {
    uint64_t bytes;
    std::memcpy(&bytes, &flags[8 * g], 8);
    return __mmask8(_mm512_cmpneq_epi64_mask(_mm512_maskz_cvtepu8_epi64(__mmask8(0xff), _mm_cvtsi64_si128((long long)bytes)), _mm512_setzero_si512()));
  }
  // The eight points at p[0..7] as coordinates x, y: per 64-byte chunk of the points, eight
  // (masked) loads and an 8×8 transpose of 64-bit words (24 shuffles, its own inverse), several
  // times cheaper than a gather per word on Zen 4. The stores mirror it.
  template <class Ptr>
  MSM_IFMA_INLINE static void load(Ptr const* p, V& x, V& y) {
    __m512i w[2 * N + 8];
    for (int c = 0; c < 2 * N; c += 8) {
      const __mmask8 m = chunk_mask(c);
      for (int l = 0; l < 8; ++l) w[c + l] = _mm512_maskz_loadu_epi64(m, reinterpret_cast<const uint64_t*>(p[l]) + c);
      transpose8(w + c);
    }
    x = Ar::from_words(w);
    y = Ar::from_words(w + N);
  }
  MSM_IFMA_INLINE static void store(A* const* p, const V& x, const V& y) {
    __m512i w[2 * N + 8];
    for (int i = 2 * N; i < 2 * N + 8; ++i) w[i] = _mm512_setzero_si512();  // a short last chunk's rows
    Ar::to_words(x, w);
    Ar::to_words(y, w + N);
    for (int c = 0; c < 2 * N; c += 8) {
      const __mmask8 m = chunk_mask(c);
      transpose8(w + c);
      for (int l = 0; l < 8; ++l) _mm512_mask_storeu_epi64(reinterpret_cast<uint64_t*>(p[l]) + c, m, w[c + l]);
    }
  }
  static constexpr __mmask8 chunk_mask(int c) { return __mmask8(2 * N - c >= 8 ? 0xff : (1u << (2 * N - c)) - 1); }
  // r[i][j] ↔ r[j][i] for an 8×8 matrix of 64-bit words, one row per vector: pairs of rows
  // interleaved, then 128-bit blocks, then 256-bit halves exchanged.
  MSM_IFMA_INLINE static void transpose8(__m512i* r) {
    constexpr __mmask8 kAll = 0xff;  // zero-masking forms: see Arith::srl
    __m512i t[8], u[8];
    for (int i = 0; i < 8; i += 2) t[i] = _mm512_maskz_unpacklo_epi64(kAll, r[i], r[i + 1]), t[i + 1] = _mm512_maskz_unpackhi_epi64(kAll, r[i], r[i + 1]);
    // t[2k] holds words 0,2,4,6 of rows 2k, 2k+1; t[2k+1] words 1,3,5,7.
    for (int h = 0; h < 8; h += 4)
      for (int o = 0; o < 2; ++o) {
        u[h + o] = _mm512_maskz_shuffle_i64x2(kAll, t[h + o], t[h + 2 + o], 0x88);      // words 0,4 (o=0) or 1,5
        u[h + 2 + o] = _mm512_maskz_shuffle_i64x2(kAll, t[h + o], t[h + 2 + o], 0xdd);  // words 2,6 or 3,7
      }
    // u[h + q]: words q and q + 4 of rows h..h+3.
    for (int q = 0; q < 4; ++q) {
      r[q] = _mm512_maskz_shuffle_i64x2(kAll, u[q], u[4 + q], 0x88);
      r[q + 4] = _mm512_maskz_shuffle_i64x2(kAll, u[q], u[4 + q], 0xdd);
    }
  }
  MSM_IFMA_INLINE static V blend(__mmask8 m, const V& a, const V& b) {
    V r;
    for (int j = 0; j < Ar::K; ++j) r.l[j] = _mm512_mask_blend_epi64(m, a.l[j], b.l[j]);
    return r;
  }

  // 1 in form 52K, i.e. 2^S·R mod p as the scalar code writes it.
  MSM_IFMA_INLINE static V one52() {
    __m512i w[N];
    const F o = form_shift();
    for (int i = 0; i < N; ++i) w[i] = _mm512_set1_epi64((long long)o.limb[i]);
    return Ar::from_words(w);
  }
  __attribute__((noinline)) static F form_shift() {  // 2^S in form e
    F r = F::one();
    for (int k = 0; k < S; ++k) r = r.dbl();
    return r;
  }

  // Per lane, a (form 52K, < 2p) → 1/a (form 52K). Read in form e the lane holds a' = a·2^S, and
  // the scalar inverse of a' in form e stands for 2^(−S)/a: times 2^(2S) gives 1/a in form 52K.
  MSM_IFMA_TARGET V invert_lanes(const V& a) {
    alignas(64) uint64_t w[N][8];
    __m512i wv[N];
    Ar::to_words(Ar::sub_if_ge(a, Ar::constant(1)), wv);
    for (int i = 0; i < N; ++i) _mm512_store_si512(static_cast<void*>(w[i]), wv[i]);
    invert8(w);
    for (int i = 0; i < N; ++i) wv[i] = _mm512_load_si512(static_cast<const void*>(w[i]));
    return Ar::from_words(wv);
  }
  // The scalar side, out of line: the 64-byte aligned frames of the vector code take a frame
  // pointer, and the scalar assembly (ff/x86_mont.hpp) needs every other general register.
  __attribute__((noinline)) static void invert8(uint64_t (*w)[8]) {
    F x[8], pre[8];
    F run = F::one();
    for (int l = 0; l < 8; ++l) {
      for (int i = 0; i < N; ++i) x[l].limb[i] = w[i][l];
      pre[l] = run;
      run = run * x[l];
    }
    const F s = form_shift();
    F inv = fast_inverse(run) * s.sqr();
    for (int l = 8; l-- > 0;) {
      const F r = inv * pre[l];
      inv = inv * x[l];
      for (int i = 0; i < N; ++i) w[i][l] = r.limb[i];
    }
  }

  std::vector<A*> dst_;
  std::vector<const A*> src_;
  std::vector<uint8_t> dbl_, neg_;
  std::vector<Stage> stage_;
  A pad_dst_[8];
  A pad_src_;
};

}  // namespace msm::cpu
#endif
