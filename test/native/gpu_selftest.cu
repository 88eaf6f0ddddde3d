// Device field arithmetic checked against the host path (see selftest.hpp).
#include <map>
#include <mutex>
#include <random>
#include <vector>

#include "gpu_selftest.hpp"
#include "msm/device.cuh"
#include "msm/stages.cuh"

namespace msm::gpu {
namespace {

template <class F>
__global__ void field_kernel(const F* a, const F* b, F* mul, F* sqr, F* portable, F* mul_add, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  mul[i] = a[i] * b[i];               // ptx.cuh device_mont_mul
  sqr[i] = a[i].sqr();                // ptx.cuh device_mont_sqr
  portable[i] = F::mont_mul(a[i], b[i]);  // the 64-bit CIOS of field.hpp, on the device
  const size_t k = (i + 1) % n;
  mul_add[i] = F::mul_add(a[i], b[i], b[k], a[k]);  // ptx.cuh device_mont_mul_add
}

template <class F>
F random_element(std::mt19937_64& rng) {
  F x;
  for (;;) {
    for (int i = 0; i < F::N; ++i) x.limb[i] = rng();
    const unsigned top = F::params::BITS - 64 * (F::N - 1);
    if (top < 64) x.limb[F::N - 1] &= (uint64_t(1) << top) - 1;
    if (x.is_reduced()) return x;
  }
}

template <class F>
std::string hex(const F& x) {
  static const char* d = "0123456789abcdef";
  std::string s = "0x";
  for (int i = F::N - 1; i >= 0; --i)
    for (int k = 60; k >= 0; k -= 4) s += d[(x.limb[i] >> k) & 15];
  return s;
}

template <class G>
FieldSelftest run(size_t count, uint64_t seed) {
  using F = typename G::field;
  std::mt19937_64 rng(seed);
  std::vector<F> a, b;
  // Edge values: 0, 1, 2, p−1, p−2, R mod p (Montgomery one), 2^(64N−1) mod p-ish high words.
  F pm1 = F::modulus();
  pm1.limb[0] -= 1;
  F pm2 = pm1;
  pm2.limb[0] -= 1;
  F small1{}, small2{};
  small1.limb[0] = 1, small2.limb[0] = 2;
  const F edges[] = {F::zero(), small1, small2, pm1, pm2, F::one()};
  for (const F& x : edges)
    for (const F& y : edges) a.push_back(x), b.push_back(y);
  while (a.size() < count) a.push_back(random_element<F>(rng)), b.push_back(random_element<F>(rng));
  const size_t n = a.size();

  DeviceBuffer<F> da(n), db(n), dm(n), ds(n), dp(n), dma(n);
  MSM_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  MSM_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  field_kernel<F><<<blocks_for(n, 128), 128>>>(da.get(), db.get(), dm.get(), ds.get(), dp.get(), dma.get(), n);
  MSM_LAUNCH_CHECK("field_kernel");
  MSM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<F> m(n), s(n), p(n), ma(n);
  MSM_CUDA_CHECK(cudaMemcpy(m.data(), dm.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(s.data(), ds.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(p.data(), dp.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(ma.data(), dma.get(), n * sizeof(F), cudaMemcpyDeviceToHost));

  FieldSelftest r;
  for (size_t i = 0; i < n; ++i) {
    const size_t k = (i + 1) % n;
    const F want_m = F::mont_mul(a[i], b[i]), want_s = F::mont_mul(a[i], a[i]);
    const F want_ma = want_m + F::mont_mul(b[k], a[k]);
    const struct {
      const char* what;
      const F& got;
      const F& want;
    } checks[] = {{"mul", m[i], want_m}, {"sqr", s[i], want_s}, {"portable", p[i], want_m}, {"mul_add", ma[i], want_ma}};
    for (const auto& c : checks) {
      ++r.checked;
      if (c.got != c.want) {
        if (r.mismatches++ == 0)
          r.first = std::string(G::name) + " " + c.what + " a=" + hex(a[i]) + " b=" + hex(b[i]) + " got " + hex(c.got) +
                    " want " + hex(c.want);
      }
    }
  }
  return r;
}

}  // namespace

FieldSelftest field_selftest(CurveId curve, size_t count, uint64_t seed) {
  return visit_curve(curve, [&](auto g) { return run<decltype(g)>(count, seed); });
}

namespace {
std::mutex& hog_mutex() {
  static std::mutex m;
  return m;
}
std::map<uint64_t, std::pair<int, void*>>& hogs() {
  static std::map<uint64_t, std::pair<int, void*>> h;
  return h;
}
}  // namespace

uint64_t occupy_device(int device, size_t leave_free) {
  MSM_CUDA_CHECK(cudaSetDevice(device));
  size_t free = 0, total = 0;
  MSM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  void* p = nullptr;
  if (free > leave_free) MSM_CUDA_CHECK(cudaMalloc(&p, free - leave_free));
  std::lock_guard<std::mutex> lock(hog_mutex());
  static uint64_t last = 0;
  hogs()[++last] = {device, p};
  return last;
}

void release_device(uint64_t handle) {
  std::lock_guard<std::mutex> lock(hog_mutex());
  auto it = hogs().find(handle);
  if (it == hogs().end()) return;
  MSM_CUDA_CHECK(cudaSetDevice(it->second.first));
  if (it->second.second) MSM_CUDA_CHECK(cudaFree(it->second.second));
  hogs().erase(it);
}

}  // namespace msm::gpu
