// The eight-lane field code (ff/ifma.hpp) and batch-affine additions (affine_simd.hpp) against
// the scalar field and XYZZ formulas, on seeded random values mixed with edge values (0, 1, p − 1,
// p − 2, limbs of all ones, powers of two), each also fed in unreduced (+p) where the lazy bounds
// allow. Run through the test addon (test/cpu-simd.test.ts).
#pragma once

#include "cpu/affine_buckets.hpp"

#if defined(MSM_HAVE_IFMA)
#include <cstdint>
#include <string>
#include <vector>

#include "ec/xyzz.hpp"

namespace msm::cpu {

struct SimdSelftest {
  uint64_t checked = 0, mismatches = 0;
  std::string first;  // what the first mismatch was
  void note(bool ok, const char* what, uint64_t case_no) {
    ++checked;
    if (ok) return;
    if (!mismatches) first = std::string(what) + " case " + std::to_string(case_no);
    ++mismatches;
  }
};

template <class G>
class SimdFieldCheck {
  using F = typename G::field;
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;
  using Ar = ff::ifma::Arith<typename F::params>;
  using V = typename Ar::V;
  static constexpr int N = F::N, S = Ar::S;

 public:
  explicit SimdFieldCheck(uint64_t seed) : state_(seed) {}

  // count rounds of eight lanes of every operation, then batch additions of awkward sizes.
  MSM_IFMA_TARGET SimdSelftest run(uint32_t count) {
    SimdSelftest r;
    for (uint32_t k = 0; k < count; ++k) {
      F a[8], b[8], c[8], ab[8], aa[8], abc[8];
      for (int l = 0; l < 8; ++l) a[l] = value(k, l), b[l] = value(k + 1, l + 3), c[l] = value(k + 2, l + 5);
      expected(a, b, c, ab, aa, abc);
      const V va = load(a), vb = load(b), vc = load(c), p1 = Ar::constant(1), zero = Ar::constant(0);
      // Products in the forms the affine code uses, fully reduced and lazy (+p) inputs.
      const V m1 = Ar::mul(Ar::shl(va, S / 2), Ar::shl(vb, S / 2));
      const V m2 = Ar::mul(Ar::shl(Ar::add(va, p1), S / 2), Ar::shl(Ar::add(vb, p1), S / 2));
      const V m3 = Ar::mul(Ar::shl(Ar::add(va, p1), S), Ar::add(vb, p1));
      const V q1 = Ar::sqr(Ar::shl(va, S / 2)), q2 = Ar::sqr(Ar::shl(Ar::add(va, p1), S / 2));
      // a + 2p − (b + c) ∈ [0, 4p) through reduce4; a·2^k through shl.
      const V s1 = Ar::reduce4(Ar::add_sub(va, Ar::constant(2), zero, Ar::add(vb, vc)));
      for (int l = 0; l < 8; ++l) {
        r.note(lane(Ar::sub_if_ge(m1, p1), l) == ab[l], "mul", k);
        r.note(lane(Ar::sub_if_ge(m2, p1), l) == ab[l], "mul of unreduced inputs", k);
        r.note(lane(Ar::sub_if_ge(m3, p1), l) == ab[l], "mul in form 52K", k);
        r.note(lane(Ar::sub_if_ge(q1, p1), l) == aa[l], "sqr", k);
        r.note(lane(Ar::sub_if_ge(q2, p1), l) == aa[l], "sqr of unreduced inputs", k);
        r.note(lane(s1, l) == abc[l], "add_sub + reduce4", k);
        r.note(lane(va, l) == a[l], "radix 2^52 round trip", k);
      }
    }
    for (size_t n : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(61), size_t(200)}) check_apply(n, r);
    return r;
  }

 private:
  uint64_t next() {  // splitmix64
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  F random_element() {
    F r;
    do {
      for (int i = 0; i < N; ++i) r.limb[i] = next();
      r.limb[N - 1] &= (uint64_t(1) << (F::params::BITS - 64 * (N - 1))) - 1;
    } while (!r.is_reduced());
    return r;
  }
  // Edge values for the first rounds' lanes, then random ones.
  F value(uint32_t round, int lane) {
    F v{};
    switch ((round * 8 + uint32_t(lane)) % 64) {
      case 0: return v;
      case 1: v.limb[0] = 1; return v;
      case 2: v = F::modulus(), v.limb[0] -= 1; return v;  // p − 1 (p is odd)
      case 3: v = F::modulus(), v.limb[0] -= 2; return v;
      case 4: return F::one();
      case 5:  // 2^(BITS−1) − 1: every radix-2^52 limb all ones but the top
        for (int i = 0; i < N; ++i) v.limb[i] = ~uint64_t(0);
        v.limb[N - 1] >>= 64 * N - F::params::BITS + 1;
        return v;
      case 6: v.limb[N - 1] = uint64_t(1) << (F::params::BITS - 64 * (N - 1) - 2); return v;
      default: return random_element();
    }
  }
  // The scalar results, out of line (see AffineSimd::invert8).
  __attribute__((noinline)) static void expected(const F* a, const F* b, const F* c, F* ab, F* aa, F* abc) {
    for (int l = 0; l < 8; ++l) ab[l] = a[l] * b[l], aa[l] = a[l].sqr(), abc[l] = a[l] - b[l] - c[l];
  }
  MSM_IFMA_INLINE static V load(const F* x) {
    __m512i w[N];
    for (int i = 0; i < N; ++i) {
      alignas(64) uint64_t t[8];
      for (int l = 0; l < 8; ++l) t[l] = x[l].limb[i];
      w[i] = _mm512_load_si512(static_cast<const void*>(t));
    }
    return Ar::from_words(w);
  }
  MSM_IFMA_INLINE static F lane(const V& v, int l) {
    __m512i w[N];
    Ar::to_words(v, w);
    F r;
    for (int i = 0; i < N; ++i) {
      alignas(64) uint64_t t[8];
      _mm512_store_si512(static_cast<void*>(t), w[i]);
      r.limb[i] = t[l];
    }
    return r;
  }

  // dst_i ± src_i on random multiples of the generator, every fifth a doubling, every third
  // other one a subtraction, against XYZZ.
  void check_apply(size_t n, SimdSelftest& r) {
    const A g{F::to_mont(F::template from_table<typename G::gen_x>()), F::to_mont(F::template from_table<typename G::gen_y>())};
    std::vector<A> dst(n), src(n), want(n);
    std::vector<A*> dp(n);
    std::vector<const A*> sp(n);
    std::vector<uint8_t> dbl(n), neg(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k1[1] = {next() | 1}, k2[1] = {next() | 2};
      dst[i] = ec::scalar_mul(g, k1, 1).to_affine();
      dbl[i] = i % 5 == 4;
      neg[i] = !dbl[i] && i % 3 == 1;
      src[i] = dbl[i] ? dst[i] : ec::scalar_mul(g, k2, 1).to_affine();
      want[i] = (dbl[i] ? X::from_affine(dst[i]).dbl() : X::from_affine(dst[i]).add(neg[i] ? -src[i] : src[i])).to_affine();
      dp[i] = &dst[i], sp[i] = &src[i];
    }
    AffineSimd<F> simd;
    simd.apply(
        n, [&](size_t i) -> A& { return *dp[i]; }, [&](size_t i) { return PointRef<A>{sp[i], neg[i] != 0}; }, [&](size_t i) { return dbl[i] != 0; });
    for (size_t i = 0; i < n; ++i) r.note(dst[i] == want[i], "batch affine addition", n * 1000 + i);
  }

  uint64_t state_;
};

template <class G>
SimdSelftest simd_selftest(uint32_t count, uint64_t seed) {
  return SimdFieldCheck<G>(seed).run(count);
}

}  // namespace msm::cpu
#endif
