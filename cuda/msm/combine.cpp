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
MSM_FLATTEN void write_affine(const ec::XYZZ<typename G::field>& q, uint8_t* out) {
  using F = typename G::field;
  const auto a = q.to_affine();
  F::from_mont(a.x).store_le(out);
  F::from_mont(a.y).store_le(out + F::BYTES);
}

#define MSM_INSTANTIATE(G)                                                                            \
  template ec::XYZZ<G::field> combine_windows<G>(const ec::XYZZ<G::field>*, int, int); \
  template void write_affine<G>(const ec::XYZZ<G::field>&, uint8_t*);
MSM_FOR_EACH_CURVE(MSM_INSTANTIATE)
MSM_FOR_EACH_G2(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
