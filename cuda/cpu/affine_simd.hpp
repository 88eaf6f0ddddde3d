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

#include "../ff/ifma.hpp"

#if defined(MSM_HAVE_IFMA)
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../ec/affine.hpp"
#include "inverse.hpp"

namespace msm::cpu {

// MSM_CPU_SIMD=0 in the environment turns the vector path off; testing.setCpuSimd switches it at
// run time (both paths must give the same bits).
inline std::atomic<bool>& cpu_simd_switch() {
  static std::atomic<bool> on{[] {
    const char* e = std::getenv("MSM_CPU_SIMD");
    return !(e && std::strcmp(e, "0") == 0);
  }()};
  return on;
}
inline bool cpu_simd_enabled() { return ff::ifma::host_has_ifma && cpu_simd_switch().load(std::memory_order_relaxed); }

template <class F>
class AffineSimd {
  using A = ec::Affine<F>;
  using Ar = ff::ifma::Arith<typename F::params>;
  using V = typename Ar::V;
  static constexpr int N = Ar::N, S = Ar::S;

 public:
  // dst[i] ← dst[i] + src[i] for i < n under the conditions of AffineBuckets::apply; dbl[i] marks a
  // doubling (src[i] = dst[i]).
  MSM_IFMA_TARGET void apply(size_t n, A* const* dst, const A* const* src, const uint8_t* dbl) {
    if (n == 0) return;
    const size_t groups = (n + 7) / 8;
    dst_.resize(groups * 8), src_.resize(groups * 8), dbl_.resize(groups * 8);
    den_.resize(groups), prefix_.resize(groups);
    std::memcpy(dst_.data(), dst, n * sizeof(A*));
    std::memcpy(src_.data(), src, n * sizeof(A*));
    std::memcpy(dbl_.data(), dbl, n);
    // Idle lanes add (1, 0) to (0, 0) in a scratch point: a non-zero denominator, stored nowhere.
    for (size_t i = n; i < groups * 8; ++i) {
      pad_dst_[i - n] = A{F::zero(), F::zero()};
      dst_[i] = &pad_dst_[i - n];
      src_[i] = &pad_src_;
      dbl_[i] = 0;
    }
    pad_src_ = A{F::one(), F::zero()};

    const V p1 = Ar::constant(1), p2 = Ar::constant(2);
    V acc = one52();
    for (size_t g = 0; g < groups; ++g) {
      const __m512i id = load_ptrs(&dst_[8 * g]), is = load_ptrs(&src_[8 * g]);
      const __mmask8 dm = dbl_mask(g);
      V d = Ar::add_sub(gather(is, 0), p1, Ar::constant(0), gather(id, 0));
      if (dm) d = blend(dm, d, twice(gather(id, 1)));
      d = Ar::shl(d, S);
      den_[g] = d;
      prefix_[g] = acc;
      acc = Ar::mul(acc, d);
    }
    V inv = invert_lanes(acc);
    for (size_t g = groups; g-- > 0;) {
      const __m512i id = load_ptrs(&dst_[8 * g]), is = load_ptrs(&src_[8 * g]);
      const __mmask8 dm = dbl_mask(g);
      const V di = Ar::mul(inv, prefix_[g]);  // 1/d, form 52K
      inv = Ar::mul(inv, den_[g]);
      const V xb = gather(id, 0), yb = gather(id, 1), xp = gather(is, 0), yp = gather(is, 1);
      V num = Ar::add_sub(yp, p1, Ar::constant(0), yb);
      if (dm) {  // 3x_B² (form e) for the doublings
        const V xh = Ar::shl(xb, S / 2);
        const V x2 = Ar::mul(xh, xh);
        num = blend(dm, num, Ar::add_sub(x2, x2, x2, Ar::constant(0)));
      }
      const V lambda = Ar::mul(Ar::shl(num, S / 2), di);
      const V l2 = Ar::mul(lambda, lambda);
      // x₃ = λ² + 2p − x_B − x_P ∈ [0, 4p); y₃ = λ·(x_B + p − x₃) + p − y_B ∈ [0, 3p).
      V x3 = Ar::add_sub(l2, p2, Ar::constant(0), Ar::add(xb, xp));
      x3 = Ar::reduce4(x3);
      const V t = Ar::shl(Ar::add_sub(xb, p1, Ar::constant(0), x3), S / 2);
      const V y3 = Ar::reduce4(Ar::add_sub(Ar::mul(lambda, t), p1, Ar::constant(0), yb));
      scatter(id, 0, x3);
      scatter(id, 1, y3);
    }
  }

 private:
  MSM_IFMA_INLINE static __m512i load_ptrs(A* const* p) { return _mm512_loadu_si512(static_cast<const void*>(p)); }
  MSM_IFMA_INLINE static __m512i load_ptrs(const A* const* p) { return _mm512_loadu_si512(static_cast<const void*>(p)); }
  MSM_IFMA_INLINE __mmask8 dbl_mask(size_t g) const {
    uint64_t bytes;
    std::memcpy(&bytes, &dbl_[8 * g], 8);
    return __mmask8(_mm512_cmpneq_epi64_mask(_mm512_maskz_cvtepu8_epi64(__mmask8(0xff), _mm_cvtsi64_si128((long long)bytes)), _mm512_setzero_si512()));
  }
  // Coordinate c (0 = x, 1 = y) of the eight points at addresses ptrs.
  MSM_IFMA_INLINE static V gather(__m512i ptrs, int c) {
    __m512i w[N];
    for (int i = 0; i < N; ++i)
      w[i] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), __mmask8(0xff),
                                         _mm512_add_epi64(ptrs, _mm512_set1_epi64(8 * (c * N + i))), nullptr, 1);
    return Ar::from_words(w);
  }
  MSM_IFMA_INLINE static void scatter(__m512i ptrs, int c, const V& v) {
    __m512i w[N];
    Ar::to_words(v, w);
    for (int i = 0; i < N; ++i) _mm512_i64scatter_epi64(nullptr, _mm512_add_epi64(ptrs, _mm512_set1_epi64(8 * (c * N + i))), w[i], 1);
  }
  MSM_IFMA_INLINE static V blend(__mmask8 m, const V& a, const V& b) {
    V r;
    for (int j = 0; j < Ar::K; ++j) r.l[j] = _mm512_mask_blend_epi64(m, a.l[j], b.l[j]);
    return r;
  }
  MSM_IFMA_INLINE static V twice(const V& a) { return Ar::add(a, a); }

  // 1 in form 52K, i.e. 2^S·R mod p as the scalar code writes it.
  MSM_IFMA_INLINE static V one52() {
    __m512i w[N];
    const F o = form_shift();
    for (int i = 0; i < N; ++i) w[i] = _mm512_set1_epi64((long long)o.limb[i]);
    return Ar::from_words(w);
  }
  static F form_shift() {  // 2^S in form e
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
    for (int i = 0; i < N; ++i) wv[i] = _mm512_load_si512(static_cast<const void*>(w[i]));
    return Ar::from_words(wv);
  }

  std::vector<A*> dst_;
  std::vector<const A*> src_;
  std::vector<uint8_t> dbl_;
  std::vector<V> den_, prefix_;
  A pad_dst_[8];
  A pad_src_;
};

}  // namespace msm::cpu
#endif
