// Device Montgomery multiplication and squaring, and modular addition and subtraction, over 32-bit
// limbs with PTX carry chains.
//
// field.hpp includes this file under nvcc and, seeing MSM_FF_HAVE_PTX, routes Fp::operator*,
// Fp::sqr, + and − on the device here. The field element's memory is the little-endian uint64_t limb[N]
// array, viewed as n = 2N little-endian 32-bit words.
//
// Multiplication: coarsely integrated operand scanning (CIOS; Koç, Acar, Kaliski, IEEE Micro 1996)
// with 32-bit words: each outer step i adds a_i·b and m·p (m = t_0·(−p⁻¹) mod 2^32) to the running
// sum t and shifts it down one word; 4n² + O(n) multiply-adds. The products are laid out so that
// ptxas issues each 32×32→64 multiply-add as a single IMAD.WIDE.U32(.X) (see device_mont_mul_eo).
// Squaring runs the same steps over the square's symmetric rows, n(n+1)/2 word products for a² in
// place of n² (device_mont_sqr_eo).
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
// is ~460 SASS instructions at every use, and a G2 addition's body outgrows the instruction cache
// (ncu: 32 % of the accumulation's G1 stall cycles and 41 % of G2's are instruction fetches,
// bench/gpu-notes.md). MSM_FF_OUTLINE_PRODUCTS=L (set per source file by CMakeLists.txt) makes
// each product kind of a field of L or more 64-bit limbs one function that every use calls, at the
// cost of the call's argument moves; the other fields' products stay inline.
namespace msm::ff {
#if defined(MSM_FF_OUTLINE_PRODUCTS)
inline constexpr int kOutlineFromLimbs = MSM_FF_OUTLINE_PRODUCTS;
#else
inline constexpr int kOutlineFromLimbs = 1 << 30;
#endif

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

// m's factor −p⁻¹ mod 2^32. Where p ≡ 1 mod 2^32 (BLS12-377's base field: −p⁻¹ = 2^32 − 1) the
// immediate let ptxas write m as −t_0 and then issue each m·p_j as IMAD.X plus IMAD.HI.U32.X in
// place of one IMAD.WIDE.U32.X: BLS12-377's product took 553 SASS instructions in Alg. 4 against
// BLS12-381's 408. Read from constant memory, which ptxas cannot see into, it takes 421, and
// BLS12-377's MSMs run 15 % faster (bench/gpu-notes.md). The other fields keep the immediate:
// with the constant-bank operand ptxas allocates their kernels' registers differently (BN254's
// Alg. 4 spilled 18 → 38 B), for nothing to gain.
template <class P>
__constant__ uint32_t kInv32 = P::inv32;
template <class P>
__device__ __forceinline__ uint32_t mont_factor() {
  if constexpr (P::inv32 == 0xffffffffu) return kInv32<P>;
  else return P::inv32;
}

// The running sum of device_mont_mul_eo's CIOS as two sums and a carry (see there).
template <class P>
struct TwoSums {
  static constexpr int n = 2 * P::N;
  static_assert(n % 2 == 0 && P::modulus::at32(n - 1) < (1u << 30), "ptx.cuh needs p < 2^(32n-2)");
  uint32_t X[n + 1] = {}, Y[n + 1] = {}, carry = 0;

  // E += x·Σ y_j·2^(32j) over the even j ≥ from (from even): words from … n−1, the carry into E_n.
  static __device__ __forceinline__ void add_even(uint32_t* E, uint32_t x, const uint32_t* y, int from = 0) {
    E[from] = mad_lo_cc(x, y[from], E[from]);
    E[from + 1] = madc_hi_cc(x, y[from], E[from + 1]);
#pragma unroll
    for (int j = from + 2; j < n; j += 2) {
      E[j] = madc_lo_cc(x, y[j], E[j]);
      E[j + 1] = madc_hi_cc(x, y[j], E[j + 1]);
    }
    E[n] = addc(E[n], 0);
  }
  // O += x·Σ y_j·2^(32j) over the odd j ≥ from (from odd): words from … n; O < 2^(32(n+1)), so the
  // last high half carries out nothing.
  static __device__ __forceinline__ void add_odd(uint32_t* O, uint32_t x, const uint32_t* y, int from = 1) {
    O[from] = mad_lo_cc(x, y[from], O[from]);
#pragma unroll
    for (int j = from; j < n - 2; j += 2) {
      O[j + 1] = madc_hi_cc(x, y[j], O[j + 1]);
      O[j + 2] = madc_lo_cc(x, y[j + 2], O[j + 2]);
    }
    O[n] = madc_hi(x, y[n - 1], O[n]);
  }
  // m·p into the step's sums, then the word-0 carry and the shift. After the shift E's word pairs
  // (0, 1), (2, 3), … are O's (1, 2), (3, 4), … and the other way round, so the next step swaps
  // the roles: each pair stays in the aligned register pair that IMAD.WIDE reads and writes (kept
  // in place, the shift costs a move per word).
  __device__ __forceinline__ void reduce_shift(uint32_t* E, uint32_t* O) {
    uint32_t pp[n];
#pragma unroll
    for (int j = 0; j < n; ++j) pp[j] = P::modulus::at32(j);
    const uint32_t m = (E[0] + O[0] + carry) * mont_factor<P>();
    add_even(E, m, pp);
    add_odd(O, m, pp);
    // E_0 + O_0 + c is now 0 or 2^32: its carry, then the shift (the words renamed).
    carry = (E[0] | O[0] | carry) != 0;
#pragma unroll
    for (int j = 0; j < n; ++j) E[j] = E[j + 1], O[j] = O[j + 1];
    E[n] = 0;
    O[n] = 0;
  }
  // r = X + Y + c (the two sums, in whichever role each ended) < (K+1)·p < 2^(32n), brought to [0, p).
  template <int K>
  __device__ __forceinline__ void finish(uint32_t* r) {
    uint32_t A[n];
    add_cc(carry, 0xffffffffu);  // the carry flag = c
#pragma unroll
    for (int j = 0; j < n; ++j) A[j] = addc_cc(X[j], Y[j]);
#pragma unroll
    for (int k = 1; k < K; ++k) final_sub<P, n>(A, A);
    final_sub<P, n>(r, A);
  }
};

}  // namespace ptx

// r = a·b·2^(−32n) mod p by CIOS (see the header) in the "even/odd" form: each 32×32 product's
// low and high halves go into adjacent words of one carry chain (mad.lo.cc then madc.hi.cc on the
// same operands), which ptxas issues as one IMAD.WIDE.U32(.X) instead of an IMAD plus an IADD3.X.
// A row x·y of word products then splits into two chains, the even y_j (words j, j+1 for j = 0, 2,
// …) and the odd y_j (words 1, 2, 3, …). The running sum of CIOS is kept as two such sums E, O and
// a carry, t = E + O + c (E and O both indexed from word 0), E taking the even chains, O the odd:
//   E += a_i·b_even;  O += a_i·b_odd                                 (and c_i·d, … for K > 1)
//   m = (E_0 + O_0 + c)·(−p⁻¹) mod 2^32;  E += m·p_even;  O += m·p_odd
//   c = (E_0 + O_0 + c) / 2^32 ∈ {0, 1} (the word-0 sum is now 0 mod 2^32);  E >>= 32;  O >>= 32
// and r = E + O + c once at the end. Merging the two at every step instead (n + 1 additions with
// carry) is what this layout saves: 464 SASS instructions per BLS12-381 product against 560, 256
// against 288 for BN254 (test/gpu/fieldbench.cu's chains, sm_90). The throughput of independent
// products barely moves (the IMAD pipe, where each IMAD.WIDE takes two issue slots, bounds both);
// the dependent chain per step is shorter and the code smaller. Both sums stay below t, so below
// (K+1)·2^32·p ≤ 2^(32(n+1)) (bound below): E's carries end in E_n and none leaves O_n.
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
  static_assert(K == 1 || K == 2 || K == 4, "device_mont_mul_eo: 1, 2 or 4 products");
  static_assert(K <= 2 || uint64_t(K + 1) * (uint64_t(P::modulus::at32(2 * P::N - 1)) + 1) <= (uint64_t(1) << 32),
                "device_mont_mul_eo: (K+1)·p must fit in 32n bits");
  constexpr int n = 2 * P::N;
  constexpr bool kSum = K >= 2;
  uint32_t bb[n], dd[kSum ? n : 1], fv[K == 4 ? n : 1], hv[K == 4 ? n : 1];
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
  ptx::TwoSums<P> t;
  auto step = [&](uint32_t* E, uint32_t* O, int i) {
    t.add_even(E, a[i], bb);
    t.add_odd(O, a[i], bb);
    if constexpr (kSum) {
      t.add_even(E, c[i], dd);
      t.add_odd(O, c[i], dd);
    }
    if constexpr (K == 4) {
      t.add_even(E, e[i], fv);
      t.add_odd(O, e[i], fv);
      t.add_even(E, g[i], hv);
      t.add_odd(O, g[i], hv);
    }
    t.reduce_shift(E, O);
  };
#pragma unroll
  for (int i = 0; i < n; i += 2) {
    step(t.X, t.Y, i);
    step(t.Y, t.X, i + 1);
  }
  t.template finish<K>(r);
}

// r = a²·2^(−32n) mod p: the same steps with the square's rows. a² = Σ_i 2^(32i)·a_i·(a_i·2^(32i) +
// 2·Σ_(j>i) a_j·2^(32j)), so step i adds a_i times the row y with y_i = a_i, y_(i+1) = 2·a_(i+1) mod
// 2^32 and y_j = word j of 2a above (a < 2^(32n−2): 2a has n words): n − i word products, n(n+1)/2 in
// all against n² (with the n² of the reduction, 3/4 of a product's IMAD.WIDE). Step i's addend is
// below 2·2^(32)·p (against 2^32·p for a product), so t < 3p between steps and < 4·2^32·p ≤
// 2^(32(n+1)) within one: the two sums' bounds hold. Every word product stays an IMAD.WIDE in an
// even or odd chain (an earlier squaring with separate low and high chains took two instructions
// per product and lost to the plain product); test/gpu/fieldbench.cu on the H100: 495 IMAD issue
// slots per BLS12-381 square against 625 per product, 233 against 287 for BN254.
template <class P>
__device__ __forceinline__ void device_mont_sqr_eo(uint32_t* r, const uint32_t* a) {
  constexpr int n = 2 * P::N;
  uint32_t aa[n], d[n];  // d = 2a
#pragma unroll
  for (int j = 0; j < n; ++j) aa[j] = a[j];
  d[0] = aa[0] << 1;
#pragma unroll
  for (int j = 1; j < n; ++j) d[j] = __funnelshift_l(aa[j - 1], aa[j], 1);
  ptx::TwoSums<P> t;
  auto step = [&](uint32_t* E, uint32_t* O, int i) {
    uint32_t y[n];
#pragma unroll
    for (int j = 0; j < n; ++j) y[j] = j == i ? aa[i] : j == i + 1 ? aa[j] << 1 : d[j];
    if (i % 2 == 0) {
      t.add_even(E, aa[i], y, i);
      if (i + 1 < n) t.add_odd(O, aa[i], y, i + 1);
    } else {
      t.add_odd(O, aa[i], y, i);
      if (i + 1 < n - 1) t.add_even(E, aa[i], y, i + 1);
    }
    t.reduce_shift(E, O);
  };
#pragma unroll
  for (int i = 0; i < n; i += 2) {
    step(t.X, t.Y, i);
    step(t.Y, t.X, i + 1);
  }
  t.template finish<1>(r);
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
// r = a²·2^(−32n) mod p (device_mont_sqr_eo).
template <class P>
__device__ __forceinline__ void device_mont_sqr(uint32_t* r, const uint32_t* a) {
  device_mont_sqr_eo<P>(r, a);
}

// r = a + b mod p for a, b < p: one carry chain and final_sub (a + b < 2p < 2^(32n), so nothing
// carries out of the top word), 3n + 1 instructions. The portable path of field.hpp (64-bit limbs,
// carries recovered by comparisons) took ~10 per 64-bit limb and step; ncu counted ~1,300 such
// instructions per complete addition (RCB Alg. 8) in the constant-time accumulation.
template <class P>
__device__ __forceinline__ void device_add_mod(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  constexpr int n = 2 * P::N;
  static_assert(P::modulus::at32(n - 1) < (1u << 31), "device_add_mod needs 2p < 2^(32n)");
  uint32_t t[n];
  t[0] = ptx::add_cc(a[0], b[0]);
#pragma unroll
  for (int j = 1; j < n; ++j) t[j] = ptx::addc_cc(a[j], b[j]);
  ptx::final_sub<P, n>(r, t);
}
// r = a + b, not reduced (a + b < 2^(32n): the caller's bound), for a product's operand: one carry
// chain of n instructions against device_add_mod's 3n + 1 (Fp::sum_unreduced says where it is safe).
template <class P>
__device__ __forceinline__ void device_add_unreduced(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  constexpr int n = 2 * P::N;
  r[0] = ptx::add_cc(a[0], b[0]);
#pragma unroll
  for (int j = 1; j < n - 1; ++j) r[j] = ptx::addc_cc(a[j], b[j]);
  r[n - 1] = ptx::addc(a[n - 1], b[n - 1]);
}
// r = a − b mod p for a, b < p: one borrow chain, then p masked by the borrow added back.
template <class P>
__device__ __forceinline__ void device_sub_mod(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  constexpr int n = 2 * P::N;
  uint32_t t[n], q[n];
  t[0] = ptx::sub_cc(a[0], b[0]);
#pragma unroll
  for (int j = 1; j < n; ++j) t[j] = ptx::subc_cc(a[j], b[j]);
  const uint32_t borrow = ptx::subc(0, 0);  // 0xffffffff when a < b
#pragma unroll
  for (int j = 0; j < n; ++j) q[j] = P::modulus::at32(j) & borrow;
  r[0] = ptx::add_cc(t[0], q[0]);
#pragma unroll
  for (int j = 1; j < n; ++j) r[j] = ptx::addc_cc(t[j], q[j]);
}

}  // namespace msm::ff

#endif  // __CUDACC__
