#include "combine.hpp"

#include "../engine.hpp"

// The point and field routines are inline templates that engine.cu's host pass also emits, in its
// portable arithmetic, under the same symbols; the linker keeps one of each. Flattening inlines them
// here, so the functions below always run this file's x86-64 path.
#if defined(__GNUC__)
#define MSM_FLATTEN __attribute__((flatten))
#else
#define MSM_FLATTEN
#endif

namespace msm::gpu {

template <class G>
MSM_FLATTEN ec::XYZZ<typename G::field> combine_windows(const ec::XYZZ<typename G::field>* sums, int W, int c) {
  auto acc = sums[W - 1];
  for (int j = W - 2; j >= 0; --j) {
    for (int k = 0; k < c; ++k) acc = acc.dbl();
    acc = acc.add(sums[j]);
  }
  return acc;
}

int unblind_digits(uint64_t top, int W, int c) {
  // S ≤ top·Σ_j 2^(jc) < top·2^((W−1)c + 1)
  int bits = 1 + (W - 1) * c;
  for (uint64_t t = top; t != 0; t >>= 1) ++bits;
  return (bits + 3) / 4;
}

template <class G>
std::vector<ec::HomogeneousOf<G>> unblind_table(const ec::Affine<typename G::field>& r, int digits) {
  using H = ec::HomogeneousOf<G>;
  std::vector<H> t(size_t(digits) * 16, H::infinity());
  H base = H::from_affine(r);  // 16^i·R
  for (int i = 0; i < digits; ++i) {
    H* const row = &t[size_t(i) * 16];
    for (int v = 1; v < 16; ++v) row[v] = row[v - 1].add(base);
    base = row[15].add(base);
  }
  return t;
}

template <class G>
MSM_FLATTEN ec::XYZZ<typename G::field> unblinded(const ec::XYZZ<typename G::field>& q,
                                                  const std::vector<ec::HomogeneousOf<G>>& table,
                                                  const uint64_t* counts, uint64_t f, int W, int c) {
  using H = ec::HomogeneousOf<G>;
  const size_t digits = table.size() / 16;
  // S = Σ_j 2^(jc)·(f + count_j) in words, each carry taken to the top word whatever its value; one
  // word beyond the digits, so that a count over the table's bound shows instead of wrapping
  std::vector<uint64_t> s((4 * digits + 63) / 64 + 1, 0);
  for (int j = 0; j < W; ++j) {
    const uint64_t v = f + counts[j];
    const size_t at = size_t(j) * size_t(c), w = at / 64;
    const unsigned sh = unsigned(at % 64);
    uint64_t carry = 0;
    for (size_t k = w; k < s.size(); ++k) {
      const uint64_t add = k == w ? v << sh : k == w + 1 && sh ? v >> (64 - sh) : 0;
      const uint64_t t = s[k] + add, u = t + carry;
      carry = uint64_t(t < add) + uint64_t(u < carry);
      s[k] = u;
    }
  }
  uint64_t beyond = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    const size_t from = 4 * digits > 64 * k ? 4 * digits - 64 * k : 0;  // S's bits ≥ 4·digits in word k
    beyond |= from >= 64 ? 0 : s[k] >> from;
  }
  if (beyond != 0) throw EngineError("ERR_INTERNAL", "constant-time unblinding: a head count beyond its bound");
  H acc = H::infinity();
  for (size_t i = 0; i < digits; ++i) {
    const uint64_t digit = (s[i / 16] >> (4 * (i % 16))) & 15;
    const H* const row = table.data() + i * 16;
    H e = row[0];
    for (uint64_t v = 1; v < 16; ++v) e = H::select(digit == v, row[v], e);
    acc = acc.add(e);
  }
  return q.add(-acc.to_xyzz());
}

template <class G>
MSM_FLATTEN void write_affine(const ec::XYZZ<typename G::field>& q, uint8_t* out) {
  using F = typename G::field;
  const auto a = q.to_affine();
  F::from_mont(a.x).store_le(out);
  F::from_mont(a.y).store_le(out + F::BYTES);
}

#define MSM_INSTANTIATE(G)                                                                                      \
  template ec::XYZZ<G::field> combine_windows<G>(const ec::XYZZ<G::field>*, int, int);                           \
  template std::vector<ec::HomogeneousOf<G>> unblind_table<G>(const ec::Affine<G::field>&, int);                  \
  template ec::XYZZ<G::field> unblinded<G>(const ec::XYZZ<G::field>&, const std::vector<ec::HomogeneousOf<G>>&,   \
                                           const uint64_t*, uint64_t, int, int);                                  \
  template void write_affine<G>(const ec::XYZZ<G::field>&, uint8_t*);
MSM_FOR_EACH_CURVE(MSM_INSTANTIATE)
MSM_FOR_EACH_G2(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
