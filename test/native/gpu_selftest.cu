// Device field arithmetic, Fp and G2's Fp2, and the quad-lane point additions, checked against the
// host path (see gpu_selftest.hpp).
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <vector>

#include "ec/quad.cuh"
#include "gpu_selftest.hpp"
#include "msm/device.cuh"
#include "msm/stages.cuh"

namespace msm::gpu {
namespace {

// 3x left unreduced (below 3p), as Homogeneous::tail's 3·X1X2.
template <class F>
__device__ F triple_unreduced(const F& x) {
  return F::sum_unreduced(F::sum_unreduced(x, x), x);
}

template <class F>
__global__ void field_kernel(const F* a, const F* b, F* mul, F* sqr, F* portable, F* mul_add, F* mul_add4, F* add,
                             F* sub, F* neg, F* lazy, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  mul[i] = a[i] * b[i];               // ptx.cuh device_mont_mul
  sqr[i] = a[i].sqr();                // ptx.cuh device_mont_sqr
  portable[i] = F::mont_mul(a[i], b[i]);  // the 64-bit CIOS of field.hpp, on the device
  const size_t k = (i + 1) % n;
  mul_add[i] = F::mul_add(a[i], b[i], b[k], a[k]);  // ptx.cuh device_mont_mul_add
  mul_add4[i] = F::mul_add4(a[i], b[i], b[k], a[k], a[k], a[k], b[i], b[k]);  // device_mont_mul_add4
  add[i] = a[i] + b[i];  // ptx.cuh device_add_mod
  sub[i] = a[i] - b[i];  // ptx.cuh device_sub_mod
  neg[i] = -a[i];
  // Products of unreduced sums (F::sum_unreduced) at the bounds homogeneous.hpp relies on, kRoom ≥ 5:
  // (2p)·(2p); a·b + c·(3p) (B + D + 1 = 5); (2p)·b + (3p)·d (A·B + C·D = 5).
  lazy[3 * i] = F::sum_unreduced(a[i], b[i]) * F::sum_unreduced(b[k], a[k]);
  lazy[3 * i + 1] = F::mul_add(a[i], b[i], b[k], triple_unreduced(a[k]));
  lazy[3 * i + 2] = F::mul_add(F::sum_unreduced(a[i], b[i]), b[k], triple_unreduced(a[k]), b[i]);
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

  DeviceBuffer<F> da(n), db(n), dm(n), ds(n), dp(n), dma(n), dma4(n), dadd(n), dsub(n), dneg(n), dlazy(3 * n);
  MSM_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  MSM_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  field_kernel<F><<<blocks_for(n, 128), 128>>>(da.get(), db.get(), dm.get(), ds.get(), dp.get(), dma.get(), dma4.get(),
                                                dadd.get(), dsub.get(), dneg.get(), dlazy.get(), n);
  MSM_LAUNCH_CHECK("field_kernel");
  MSM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<F> m(n), s(n), p(n), ma(n), ma4(n), ad(n), su(n), ne(n), lz(3 * n);
  MSM_CUDA_CHECK(cudaMemcpy(m.data(), dm.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(s.data(), ds.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(p.data(), dp.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(ma.data(), dma.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(ma4.data(), dma4.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(ad.data(), dadd.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(su.data(), dsub.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(ne.data(), dneg.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
  MSM_CUDA_CHECK(cudaMemcpy(lz.data(), dlazy.get(), 3 * n * sizeof(F), cudaMemcpyDeviceToHost));

  FieldSelftest r;
  for (size_t i = 0; i < n; ++i) {
    const size_t k = (i + 1) % n;
    const F want_m = F::mont_mul(a[i], b[i]), want_s = F::mont_mul(a[i], a[i]);
    const F want_ma = want_m + F::mont_mul(b[k], a[k]);
    const F want_ma4 = want_ma + F::mont_mul(a[k], a[k]) + F::mont_mul(b[i], b[k]);
    const F want_add = a[i] + b[i], want_sub = a[i] - b[i], want_neg = -a[i];
    const F three_ak = a[k] + a[k] + a[k];
    const F want_lazy0 = F::mont_mul(want_add, b[k] + a[k]);
    const F want_lazy1 = want_m + F::mont_mul(b[k], three_ak);
    const F want_lazy2 = F::mont_mul(want_add, b[k]) + F::mont_mul(three_ak, b[i]);
    const struct {
      const char* what;
      const F& got;
      const F& want;
    } checks[] = {{"mul", m[i], want_m},
                  {"sqr", s[i], want_s},
                  {"portable", p[i], want_m},
                  {"mul_add", ma[i], want_ma},
                  {"mul_add4", ma4[i], want_ma4},
                  {"add", ad[i], want_add},
                  {"sub", su[i], want_sub},
                  {"neg", ne[i], want_neg},
                  {"unreduced (2p)(2p)", lz[3 * i], want_lazy0},
                  {"unreduced ab + c(3p)", lz[3 * i + 1], want_lazy1},
                  {"unreduced (2p)b + (3p)d", lz[3 * i + 2], want_lazy2}};
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

// ---- Fp2 ------------------------------------------------------------------------------------------
constexpr int kFp2Ops = 11;
constexpr const char* kFp2OpNames[kFp2Ops] = {"mul", "sqr", "mul_add", "add", "sub", "neg", "dbl", "mul by F",
                                              "conjugate", "mul_b3", "inverse"};
constexpr size_t kFp2InverseEvery = 16;  // the inverse (an F exponentiation) on every 16th element

// The kFp2Ops results for element i, in kFp2OpNames' order, on the device or the host: the same
// source, F's PTX paths on the device (field.hpp) and its host path (x86 assembly or portable C++).
template <class G>
MSM_HD void fp2_ops(const typename G::field* a, const typename G::field* b, const typename G::field* c, size_t i,
                    typename G::field* out) {
  using F = typename G::field;
  out[0] = a[i] * b[i];
  out[1] = a[i].sqr();
  out[2] = F::mul_add(a[i], b[i], c[i], a[i]);
  out[3] = a[i] + b[i];
  out[4] = a[i] - b[i];
  out[5] = -a[i];
  out[6] = a[i].dbl();
  out[7] = a[i] * b[i].c1;
  out[8] = a[i].conjugate();
  out[9] = ec::HomogeneousOf<G>::mul_b3(a[i]);
  out[10] = i % kFp2InverseEvery == 0 ? a[i].inverse() : F::zero();
}

template <class G>
__global__ void fp2_kernel(const typename G::field* a, const typename G::field* b, const typename G::field* c,
                           typename G::field* out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  typename G::field r[kFp2Ops];
  fp2_ops<G>(a, b, c, i, r);
  for (int k = 0; k < kFp2Ops; ++k) out[i * kFp2Ops + k] = r[k];
}

template <class G>
FieldSelftest run_fp2(size_t count, uint64_t seed) {
  using F = typename G::field;
  using B = typename F::base;
  using P = typename B::params;
  std::mt19937_64 rng(seed);
  // Coordinates at the edges, as raw limbs (Montgomery representatives).
  const B p = B::modulus();
  auto word = [](int k) {  // 2^(32k)
    B x{};
    x.limb[k / 2] = uint64_t(1) << (32 * (k % 2));
    return x;
  };
  auto minus = [&](const B& x, const B& y) {  // x − y as integers (x ≥ y)
    B r;
    uint64_t borrow = 0;
    for (int i = 0; i < B::N; ++i) r.limb[i] = ff::sbb(x.limb[i], y.limb[i], borrow);
    return r;
  };
  auto half = [](const B& x) {  // ⌊x/2⌋
    B r;
    for (int i = 0; i < B::N; ++i) r.limb[i] = (x.limb[i] >> 1) | (i + 1 < B::N ? x.limb[i + 1] << 63 : 0);
    return r;
  };
  B top{};
  top.limb[(P::BITS - 1) / 64] = uint64_t(1) << ((P::BITS - 1) % 64);
  const B edges[] = {B::zero(),           word(0),           word(0) + word(0),  word(1),
                     word(2),             minus(p, word(0)), minus(p, word(0) + word(0)),
                     minus(p, word(1)),   minus(p, word(2)), half(p),          half(p) + word(0),
                     top,                 B::one(),          B::template from_table<typename P::r2>()};
  std::vector<F> edge2;
  for (const B& x : edges)
    for (const B& y : edges) edge2.push_back(F{x, y});
  std::vector<F> a, b, c;
  for (size_t i = 0; i < edge2.size(); ++i)
    for (size_t j = 0; j < edge2.size(); ++j)
      a.push_back(edge2[i]), b.push_back(edge2[j]), c.push_back(edge2[(i + j + 1) % edge2.size()]);
  auto random_f2 = [&] { return F{random_element<B>(rng), random_element<B>(rng)}; };
  for (size_t k = 0; k < count; ++k) a.push_back(random_f2()), b.push_back(random_f2()), c.push_back(random_f2());
  const size_t n = a.size();
  for (const F& x : a)
    if (!x.is_reduced()) throw EngineError("ERR_INVALID_ARGUMENT", "fp2_selftest: an edge value is not below p");

  DeviceBuffer<F> da(n), db(n), dc(n), dout(n * kFp2Ops);
  MSM_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  MSM_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  MSM_CUDA_CHECK(cudaMemcpy(dc.get(), c.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  fp2_kernel<G><<<blocks_for(n, 128), 128>>>(da.get(), db.get(), dc.get(), dout.get(), n);
  MSM_LAUNCH_CHECK("fp2_kernel");
  MSM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<F> got(n * kFp2Ops);
  MSM_CUDA_CHECK(cudaMemcpy(got.data(), dout.get(), got.size() * sizeof(F), cudaMemcpyDeviceToHost));

  FieldSelftest r;
  F want[kFp2Ops];
  for (size_t i = 0; i < n; ++i) {
    fp2_ops<G>(a.data(), b.data(), c.data(), i, want);
    for (int k = 0; k < kFp2Ops; ++k) {
      if (k == kFp2Ops - 1 && i % kFp2InverseEvery != 0) continue;
      ++r.checked;
      const F& g = got[i * kFp2Ops + k];
      if (g != want[k] && r.mismatches++ == 0)
        r.first = std::string(G::name) + " fp2 " + kFp2OpNames[k] + " a=(" + hex(a[i].c0) + ", " + hex(a[i].c1) +
                  ") b=(" + hex(b[i].c0) + ", " + hex(b[i].c1) + ") c=(" + hex(c[i].c0) + ", " + hex(c[i].c1) +
                  ") got (" + hex(g.c0) + ", " + hex(g.c1) + ") want (" + hex(want[k].c0) + ", " + hex(want[k].c1) + ")";
    }
  }
  return r;
}

// ---- G1 addition by a quad of lanes (ec/quad.cuh) -------------------------------------------------
// out[i] = a[i] + b[i] by the quad of threads 4i … 4i+3 (blocks of whole quads, so the quad
// exits together): lane 0 copies a[i] to out[i], which the quad then adds b[i] to in place
// (add_to_by_quad: XYZZ, or homogeneous by RCB Alg. 7 through add_by_quad).
template <class P>
__global__ void quad_kernel(const P* a, const P* b, P* out, size_t n) {
  const size_t i = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 2;
  if (i >= n) return;
  if ((threadIdx.x & 3u) == 0) out[i] = a[i];
  __syncwarp(ec::quad_mask());
  ec::add_to_by_quad(out + i, b + i);
}

template <class F>
std::string hex(const ec::XYZZ<F>& p) {
  return "(" + hex(p.X) + ", " + hex(p.Y) + ", " + hex(p.ZZ) + ", " + hex(p.ZZZ) + ")";
}

template <class G>
std::string hex(const ec::Homogeneous<G>& p) {
  return "(" + hex(p.X) + ", " + hex(p.Y) + ", " + hex(p.Z) + ")";
}

// XYZZ (X, Y, ZZ, ZZZ) as homogeneous (X·ZZZ : Y·ZZ : ZZ·ZZZ), the same Z ≠ 1 that the walk gives;
// O as (0 : 1 : 0).
template <class G>
ec::Homogeneous<G> homogeneous_of(const ec::XYZZ<typename G::field>& p) {
  if (p.is_inf()) return ec::Homogeneous<G>::infinity();
  return ec::Homogeneous<G>{p.X * p.ZZZ, p.Y * p.ZZ, p.ZZ * p.ZZZ};
}

// got[i] = a[i] + b[i] by quad_kernel on the device against the host's a[i].add(b[i]), every
// coordinate (canonical field elements: equal words); counted into r, the first mismatch described.
template <class P>
void check_quad_sums(FieldSelftest& r, const std::string& what, const std::vector<P>& a, const std::vector<P>& b) {
  const size_t n = a.size();
  DeviceBuffer<P> da(n), db(n), dout(n);
  MSM_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), n * sizeof(P), cudaMemcpyHostToDevice));
  MSM_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), n * sizeof(P), cudaMemcpyHostToDevice));
  quad_kernel<P><<<blocks_for(4 * n, 128), 128>>>(da.get(), db.get(), dout.get(), n);
  MSM_LAUNCH_CHECK("quad_kernel");
  MSM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<P> got(n);
  MSM_CUDA_CHECK(cudaMemcpy(got.data(), dout.get(), n * sizeof(P), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) {
    const P want = a[i].add(b[i]);
    ++r.checked;
    if (std::memcmp(&got[i], &want, sizeof(P)) != 0 && r.mismatches++ == 0)
      r.first = what + ", pair " + std::to_string(i) + ": a=" + hex(a[i]) + " b=" + hex(b[i]) + " got " + hex(got[i]) +
                " want " + hex(want);
  }
}

template <class G>
FieldSelftest run_quad(size_t count, uint64_t seed) {
  using F = typename G::field;
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;
  std::mt19937_64 rng(seed);
  const A g{F::to_mont(F::template from_table<typename G::gen_x>()), F::to_mont(F::template from_table<typename G::gen_y>())};
  const uint64_t s[4] = {rng(), rng(), rng(), rng() >> 4}, t[4] = {rng(), rng(), rng(), rng() >> 4};
  // A walk P_{k+1} = P_k + T from S (both k·G by double-and-add, so their ZZ, ZZZ are not 1).
  const X T = ec::scalar_mul(g, t, 4);
  std::vector<X> pts{ec::scalar_mul(g, s, 4)};
  while (pts.size() < count + 8) pts.push_back(pts.back().add(T));
  std::vector<X> a, b;
  const X O = X::infinity();
  for (size_t k = 0; k < 4; ++k) {
    const X& p = pts[k];
    const X q = X::from_affine(p.to_affine());  // the same point, ZZ = ZZZ = 1
    const X pairs[][2] = {{p, p}, {p, q}, {q, p}, {p, -p}, {p, -q}, {-q, p}, {O, p}, {p, O}, {O, O}, {q, q}};
    for (const auto& pr : pairs) a.push_back(pr[0]), b.push_back(pr[1]);
  }
  for (size_t k = 0; k < count; ++k) a.push_back(pts[k]), b.push_back(pts[(k * 7 + 5) % pts.size()]);
  const size_t n = a.size();

  // The quad computes add-2008-s's values (its ZZZ3 as (ZZZ1·ZZZ2·P)·PP), so its sum is the serial
  // one coordinate for coordinate; so does RCB Alg. 7's, on the same pairs in homogeneous coordinates.
  FieldSelftest r;
  check_quad_sums(r, std::string(G::name) + " quad add", a, b);
  using H = ec::Homogeneous<G>;
  std::vector<H> ha(n), hb(n);
  for (size_t i = 0; i < n; ++i) ha[i] = homogeneous_of<G>(a[i]), hb[i] = homogeneous_of<G>(b[i]);
  check_quad_sums(r, std::string(G::name) + " quad homogeneous add", ha, hb);
  return r;
}

}  // namespace

FieldSelftest quad_selftest(CurveId curve, size_t count, uint64_t seed) {
  return visit_curve(curve, [&](auto g) { return run_quad<decltype(g)>(count, seed); });
}

FieldSelftest field_selftest(CurveId curve, size_t count, uint64_t seed) {
  return visit_curve(curve, [&](auto g) { return run<decltype(g)>(count, seed); });
}

FieldSelftest fp2_selftest(CurveId curve, size_t count, uint64_t seed) {
  return visit_g2(curve, [&](auto g) { return run_fp2<decltype(g)>(count, seed); });
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
