#include "combine.hpp"

// The point and field routines are inline templates that engine.cu's host pass also emits, in its
// portable arithmetic, under the same symbols; the linker keeps one of each. Flattening inlines them
// here, so these two functions always run this file's x86-64 path.
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

template <class G>
std::vector<ec::HomogeneousOf<G>> heads_table(const ec::Affine<typename G::field>& r, int digits) {
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
                                                  const ec::XYZZ<typename G::field>& unblind,
                                                  const ec::HomogeneousOf<G>* table, int digits, const uint64_t* counts,
                                                  int W, int c) {
  using H = ec::HomogeneousOf<G>;
  std::vector<ec::XYZZ<typename G::field>> each(static_cast<size_t>(W));
  for (int j = 0; j < W; ++j) {
    H acc = H::infinity();
    for (int i = 0; i < digits; ++i) {
      const uint64_t digit = (counts[j] >> (4 * i)) & 15;
      const H* const row = table + size_t(i) * 16;
      H e = row[0];
      for (uint64_t v = 1; v < 16; ++v) e = H::select(digit == v, row[v], e);
      acc = acc.add(e);
    }
    each[size_t(j)] = acc.to_xyzz();
  }
  return q.add(unblind).add(-combine_windows<G>(each.data(), W, c));
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
  template std::vector<ec::HomogeneousOf<G>> heads_table<G>(const ec::Affine<G::field>&, int);                   \
  template ec::XYZZ<G::field> unblinded<G>(const ec::XYZZ<G::field>&, const ec::XYZZ<G::field>&,                  \
                                           const ec::HomogeneousOf<G>*, int, const uint64_t*, int, int);          \
  template void write_affine<G>(const ec::XYZZ<G::field>&, uint8_t*);
MSM_FOR_EACH_CURVE(MSM_INSTANTIATE)
MSM_FOR_EACH_G2(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
