// Scalar recoding, Chen et al. §3.1, Alg. 3: signed c-bit digits in the "float" form
// k̃ = (−1)^s · ODD · 2^EXP with ODD odd and < 2^(c−1), so a window needs only 2^(c−2) buckets
// (bucket b = (ODD+1)/2 ∈ [1, 2^(c−2)]) and the point added is ±2^EXP·P, read from the 2^h·P table.
//
// The digits, with carry s_{j−1} from the window below (Alg. 3 lines 3–7):
//   t = k_j + s_{j−1} ∈ [0, 2^c];  s_j = (t ≥ 2^(c−1));  k̃_j = s_j ? 2^c − t : t;
//   EXP = ctz(k̃_j), ODD = k̃_j >> EXP;  k_j·2^(jc) sums to k with the signs.
// (Alg. 3 line 5 writes s = (t>>c) | (t>>(c−1)), which is 3, not 1, for t = 2^c; we use t ≥ 2^(c−1).
// For t = 2^c the digit is 0 with a carry out: k̂ = 0 cannot carry it, so the carry is computed
// from t, never read back from k̂.)
//
// k̂ packs the digit as in Fig. 3: ODD in the high c−1 bits, EXP in the middle exp_bits(c) bits,
// SIGN in bit 0; k̂ = 0 for a zero digit. The mapping table holds k̂ for every t ∈ [0, 2^c]
// (2^c + 1 words, built once per c; §3.1 "Create a scalar mapping table", c ≤ kMaxWindowBits).
//
// The top window: with W0 = ⌈λ/c⌉ windows, the carry out of window W0−1 is 0 only if its t can
// never reach 2^(c−1). We read the bound off r − 1 (the largest scalar), t ≤ ((r−1) >> (W0−1)c) + 1,
// and add a window when it can (footnote 2 of §3.1 is not assumed): the extra window's digit is
// the carry alone.
//
// Everything here is __host__ __device__ and compiles with plain g++ (the host tests in
// test/native/stages.cpp run this same code).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../ff/common.hpp"

namespace msm::gpu {

// The mapping table (2^c + 1 words: 16 MiB at c = 22) and the 32-bit sort values bound c: the value
// holds EXP in exp_bits(c) bits and the point index above it (sort_value), so the index has 27 bits
// up to c = 16 and 26 bits above (window_points_limit).
constexpr int kMaxWindowBits = 22;
constexpr int kMinWindowBits = 2;
constexpr int kScalarWords = 8;  // 32-byte scalars as 8 little-endian 32-bit words
constexpr uint32_t kMaxPoints = 1u << 27;  // sort value = i << 5 | EXP << 1 | SIGN for c ≤ 16

// Bits of the EXP field: enough to hold c − 1 (and, for the levels, D·c − 1).
MSM_HD MSM_INLINE int exp_bits(int c) {
  int b = 0;
  while ((1 << b) < c) ++b;
  return b;
}

MSM_HD MSM_INLINE int ctz32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __ffs(v) - 1;
#else
  return __builtin_ctz(v);
#endif
}

// Alg. 3 lines 5–7 for one t = k_j + s_{j−1} ∈ [0, 2^c]: k̂ (0 for a zero digit).
MSM_HD MSM_INLINE uint32_t recode_digit(uint32_t t, int c) {
  const uint32_t s = t >= (1u << (c - 1));
  const uint32_t kt = s ? (1u << c) - t : t;
  if (kt == 0) return 0;
  const int h = ctz32(kt);
  const uint32_t odd = kt >> h;
  return (odd << (exp_bits(c) + 1)) | (uint32_t(h) << 1) | s;
}
MSM_HD MSM_INLINE uint32_t recode_carry(uint32_t t, int c) { return t >= (1u << (c - 1)); }

MSM_HD MSM_INLINE uint32_t khat_odd(uint32_t khat, int c) { return khat >> (exp_bits(c) + 1); }
MSM_HD MSM_INLINE uint32_t khat_exp(uint32_t khat, int c) { return (khat >> 1) & ((1u << exp_bits(c)) - 1); }
MSM_HD MSM_INLINE uint32_t khat_sign(uint32_t khat) { return khat & 1; }
// Bucket of a digit: (ODD + 1) / 2 ∈ [1, 2^(c−2)], 0 for a zero digit.
MSM_HD MSM_INLINE uint32_t khat_bucket(uint32_t khat, int c) { return (khat_odd(khat, c) + 1) >> 1; }

// The mapping table: table[t] = recode_digit(t, c) for t ∈ [0, 2^c].
MSM_HD MSM_INLINE uint32_t table_size(int c) { return (1u << c) + 1; }
inline void build_recode_table(int c, uint32_t* table) {
  for (uint32_t t = 0; t < table_size(c); ++t) table[t] = recode_digit(t, c);
}

// Bits [pos, pos + c) of a little-endian scalar of `words` 32-bit words (0 above its top).
MSM_HD MSM_INLINE uint32_t scalar_bits(const uint32_t* w, int words, int pos, int c) {
  const int lo = pos >> 5, sh = pos & 31;
  if (lo >= words) return 0;
  uint64_t v = w[lo];
  if (lo + 1 < words) v |= uint64_t(w[lo + 1]) << 32;
  return uint32_t(v >> sh) & ((1u << c) - 1);
}

// Windows needed for scalars ≤ r − 1 (given as `words` little-endian words, `nbits` its bit length).
MSM_HD MSM_INLINE int num_windows(const uint32_t* rm1, int words, int nbits, int c) {
  const int w0 = (nbits + c - 1) / c;
  // Top window's largest raw digit; bits above nbits are 0.
  const uint32_t top = scalar_bits(rm1, words, (w0 - 1) * c, c);
  return (top + 1 >= (1u << (c - 1))) ? w0 + 1 : w0;
}

// Entries for the per-window sort (§3.3 step 1): key = bucket (0 for a zero digit; log_m + 1 bits),
// value = i << (e + 1) | EXP << 1 | SIGN with e = exp_bits(c): 4 bits and i < 2^27 for c ≤ 16,
// 5 bits and i < 2^26 for 16 < c ≤ 32.
MSM_HD MSM_INLINE int value_shift(int c) { return exp_bits(c) + 1; }
MSM_HD MSM_INLINE uint64_t window_points_limit(int c) { return uint64_t(1) << (32 - value_shift(c)); }
MSM_HD MSM_INLINE uint32_t sort_value(uint32_t khat, uint32_t i, int c) {
  return (i << value_shift(c)) | (khat_exp(khat, c) << 1) | khat_sign(khat);
}
MSM_HD MSM_INLINE uint32_t value_point(uint32_t v, int shift) { return v >> shift; }
MSM_HD MSM_INLINE uint32_t value_exp(uint32_t v, int shift) { return (v >> 1) & ((1u << (shift - 1)) - 1); }
MSM_HD MSM_INLINE uint32_t value_sign(uint32_t v) { return v & 1; }
// Buckets per window: 2^(c−2) for §3.1's odd digits; 2^(c−1) where every window shares one set of
// buckets indexed by the plain digit |k̃| (`plain`: shared_* below). Keys run over [0, 2^log_m],
// zero first.
MSM_HD MSM_INLINE int log2_buckets(int c, bool plain = false) { return plain ? c - 1 : c - 2; }
MSM_HD MSM_INLINE int key_bits(int log_m) { return log_m + 1; }

// One radix sort may cover g consecutive windows (plan.cpp sort_group_for: at small n the per-sort
// launches cost more than the entries). The key then carries the window's place in its group
// above the bucket, so the stable sort orders the group window-major with each window's entries
// exactly where a sort of its own would put them; the stages after the sort read the bucket back
// through bucket_mask (accumulate.cuh WindowKeys). g = 1 leaves the key the bucket.
MSM_HD MSM_INLINE int group_bits(int g) {
  int b = 0;
  while ((1 << b) < g) ++b;
  return b;
}
MSM_HD MSM_INLINE int sort_key_bits(int log_m, int g) { return key_bits(log_m) + group_bits(g); }
MSM_HD MSM_INLINE uint32_t sort_key(uint32_t bucket, int j, int g, int log_m) {
  return bucket | (uint32_t(j % g) << key_bits(log_m));
}
MSM_HD MSM_INLINE uint32_t bucket_mask(int log_m) { return (1u << key_bits(log_m)) - 1; }

// One bucket set for all windows (issue 12, lever 1; Plan::shared_buckets). Window j's digit k̃_j of
// point i adds k̃_j·2^(jc)·P_i, so with the table holding 2^(jc)·P_i at level j (precompute.cu,
// step c) every window's entries go into the same buckets and one reduction serves them all: the
// windows' W reductions and Horner's rule go, and a larger c costs 2^(c−1) buckets once instead of
// W·2^(c−2). §3.1's odd digits do not compose with it (±2^e·ODD of window j would need level
// e + jc, every level up to λ), so the digit stays plain: bucket |k̃_j| ∈ [1, 2^(c−1)] with the
// weight |k̃_j| (reduce.cuh, odd = false), the value's EXP field holding j, the carry as in Alg. 3.
MSM_HD MSM_INLINE uint32_t shared_bucket(uint32_t t, int c) { return recode_carry(t, c) ? (1u << c) - t : t; }
MSM_HD MSM_INLINE uint32_t shared_value(uint32_t t, uint32_t i, int j, int c) {
  return (i << value_shift(c)) | (uint32_t(j) << 1) | recode_carry(t, c);
}
// The levels a shared table needs (W) must fit the EXP field.
MSM_HD MSM_INLINE bool shared_fits(int c, int W) { return W <= (1 << exp_bits(c)); }

// One bucket set for all windows with §3.1's odd digits (Plan::levels): where the table can hold
// every level 2^e·P_i, e < D·c (D·c affine points a base: 16.3 GiB at BN254 2^20), window j's digit
// ±2^EXP·ODD adds ±ODD·2^(jc+EXP)·P_i, so the windows share 2^(c−2) buckets of odd weights, half the
// plain digits' 2^(c−1), and the reduction after Alg. 4 halves with them. The value's EXP field
// holds the level jc + EXP: levels_value_shift(D, c) − 1 bits (9 for D·c ≤ 512).
MSM_HD MSM_INLINE int levels_value_shift(int D, int c) { return exp_bits(D * c) + 1; }
MSM_HD MSM_INLINE uint32_t levels_key(uint32_t t, int c) { return khat_bucket(recode_digit(t, c), c); }
MSM_HD MSM_INLINE uint32_t levels_level(uint32_t exp, int j, int c) { return uint32_t(j * c) + exp; }
MSM_HD MSM_INLINE uint32_t levels_value(uint32_t t, uint32_t i, int j, int c, int shift) {
  const uint32_t khat = recode_digit(t, c);
  return (i << shift) | (levels_level(khat_exp(khat, c), j, c) << 1) | khat_sign(khat);
}
// Points the values can name with the levels' EXP field.
MSM_HD MSM_INLINE uint64_t levels_points_limit(int D, int c) {
  return uint64_t(1) << (32 - levels_value_shift(D, c));
}

// The radix sort's first digit, taken by the recode where the windows share one bucket set
// (recode.cu partition_kernel): the recode writes the entries grouped by the key's low f bits, and
// the sort, stable, orders them by bits [f, key_bits) only, so the entries end fully sorted with one
// pass of CUB's onesweep less (a pass reads and writes every key and value: 3.2 GB at 2^24 points
// with 12 digits). f = key_bits − 8·(⌈key_bits/8⌉ − 1), the smallest f that saves the pass, for the
// fewest groups to scatter into: 22-bit keys give 6 bits, 64 groups, and two passes of 8. At most
// kPartitionMaxBits, so that a block's 256 scalars put ≥ 48 entries in a group on average, which
// the writes need to stay whole sectors (16-bit keys would take 8 bits, 256 groups).
// 0 where the recode keeps the scalar order: per-window bucket sets, wider groups, more digits per
// scalar than the kernel holds in registers, and keys below kPartitionMinKeyBits (the kernels are
// compiled for c = 17 … kMaxWindowBits; at most 17 digits of a ≥ 253-bit scalar need c ≥ 15, and
// 15- and 16-bit keys would take 7 and 8 bits).
constexpr int kPartitionMaxDigits = 17;
constexpr int kPartitionMaxBits = 6;
constexpr int kPartitionMinKeyBits = 17;
MSM_HD MSM_INLINE int partition_bits(int key_bits, int digits, bool shared) {
  const int f = key_bits - 8 * ((key_bits + 7) / 8 - 1);
  return shared && digits <= kPartitionMaxDigits && key_bits >= kPartitionMinKeyBits && f <= kPartitionMaxBits ? f
                                                                                                               : 0;
}
// The recode's group counts (two words per group), kept in the sort's temporary storage.
MSM_HD MSM_INLINE size_t partition_count_bytes(int f) { return f > 0 ? size_t(8) << f : 0; }

// Alg. 3's loop (lines 2–8) over one scalar's `windows` digits: f(j, t) with t = k_j + s_{j−1}
// ∈ [0, 2^c], the carry taken from t. The kernel (recode.cu) and the host hooks run this same loop.
// kMaxWindows > 0 unrolls the loop to that bound, so that f may keep the digits in registers
// (windows ≤ kMaxWindows).
template <int kMaxWindows = 0, class Fn>
MSM_HD MSM_INLINE void for_each_digit(const uint32_t* k, int c, int windows, Fn&& f) {
  uint32_t carry = 0;
  const auto step = [&](int j) {
    const uint32_t t = scalar_bits(k, kScalarWords, j * c, c) + carry;  // lines 3–4
    f(j, t);
    carry = recode_carry(t, c);
  };
  if constexpr (kMaxWindows > 0) {
    MSM_UNROLL
    for (int j = 0; j < kMaxWindows; ++j)
      if (j < windows) step(j);
  } else {
    for (int j = 0; j < windows; ++j) step(j);
  }
}

// Recodes one scalar into `windows` k̂ digits through the table (lines 5–7 by table).
// `table` may be null (then recode_digit computes the digit directly).
MSM_HD MSM_INLINE void recode_scalar(const uint32_t* k, int c, int windows, const uint32_t* table, uint32_t* khat_out) {
  for_each_digit(k, c, windows, [&](int j, uint32_t t) { khat_out[j] = table ? table[t] : recode_digit(t, c); });
}

}  // namespace msm::gpu
