// Standalone GPU check without Node (the msm_gpu_driver target of CMakeLists.txt, run on the CUDA host):
// the PTX field self tests (Fp of every curve, Fp2 of the G2 curves), then GPU MSM = CPU Pippenger
// (cuda/cpu/pippenger.hpp) for every curve's G1 and every G2 over sizes, scalar distributions,
// point sets and (c, τ) settings. Prints one line per case and exits non-zero on any mismatch.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../cuda/cpu/pippenger.hpp"
#include "../../cuda/engine.hpp"
#include "../native/gpu_selftest.hpp"
#include "../../cuda/msm/stages.cuh"

using namespace msm;

static int failures = 0;

template <class G>
struct Case {
  using F = typename G::field;
  using Fr = typename G::scalar;
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;
  static constexpr Group kGroup = ff::is_fp2<F> ? Group::g2 : Group::g1;

  // P_i = (i+1)·G, normalised by one batch inversion.
  static std::vector<A> points(size_t n) {
    const A g{F::to_mont(F::template from_table<typename G::gen_x>()),
              F::to_mont(F::template from_table<typename G::gen_y>())};
    std::vector<X> xs(n);
    X acc = X::from_affine(g);
    for (size_t i = 0; i < n; ++i) {
      xs[i] = acc;
      acc = acc.add(g);
    }
    std::vector<F> pre(n);
    F run = F::one();
    for (size_t i = 0; i < n; ++i) pre[i] = run = run * (xs[i].ZZ * xs[i].ZZZ);
    F inv = run.inverse();
    std::vector<A> out(n);
    for (size_t i = n; i-- > 0;) {
      const F d = i ? inv * pre[i - 1] : inv;  // (ZZ·ZZZ)⁻¹
      inv = inv * (xs[i].ZZ * xs[i].ZZZ);
      const F izz = xs[i].ZZZ * d, izzz = xs[i].ZZ * d;
      out[i] = A{xs[i].X * izz, xs[i].Y * izzz};
    }
    return out;
  }

  static void random_scalar(std::mt19937_64& rng, uint8_t* out) {
    Fr x;
    for (;;) {
      for (int i = 0; i < Fr::N; ++i) x.limb[i] = rng();
      const unsigned top = Fr::params::BITS - 64 * (Fr::N - 1);
      if (top < 64) x.limb[Fr::N - 1] &= (uint64_t(1) << top) - 1;
      if (x.is_reduced()) break;
    }
    x.store_le(out);
  }

  static std::vector<uint8_t> scalars(size_t n, const std::string& kind, std::mt19937_64& rng) {
    std::vector<uint8_t> s(n * 32, 0);
    std::vector<uint8_t> one(32);
    random_scalar(rng, one.data());
    std::vector<std::vector<uint8_t>> distinct(32, std::vector<uint8_t>(32));
    for (auto& d : distinct) random_scalar(rng, d.data());
    Fr rm1 = Fr::modulus();
    rm1.limb[0] -= 1;
    for (size_t i = 0; i < n; ++i) {
      uint8_t* o = &s[i * 32];
      if (kind == "random") random_scalar(rng, o);
      else if (kind == "identical") std::memcpy(o, one.data(), 32);
      else if (kind == "distinct32") std::memcpy(o, distinct[rng() % 32].data(), 32);
      else if (kind == "small") { uint64_t v = rng(); std::memcpy(o, &v, 8); }
      else if (kind == "mostlyzero") { if (rng() % 16 == 0) random_scalar(rng, o); }
      else if (kind == "rminus1") rm1.store_le(o);
      else if (kind == "mixed") {
        switch (rng() % 4) {
          case 0: rm1.store_le(o); break;
          case 1: break;
          case 2: o[0] = 1; break;
          default: random_scalar(rng, o);
        }
      }
    }
    return s;
  }

  static void run(CurveId id, size_t n, const std::string& kind, const std::string& pts_kind, int c, int tau,
                  uint64_t seed, int repeats = 1) {
    std::mt19937_64 rng(seed);
    std::vector<A> pts = points(n);
    if (pts_kind == "special") {
      for (size_t i = 0; i < n; ++i) {
        switch (i % 5) {
          case 1: pts[i] = A::infinity(); break;
          case 2: pts[i] = pts[i - 2]; break;    // duplicate
          case 3: pts[i] = -pts[i - 3]; break;   // P and −P
          default: break;
        }
      }
    }
    const std::vector<uint8_t> sc = scalars(n, kind, rng);
    const X want_x = cpu::Pippenger<F>::run(pts.data(), nullptr, sc.data(), 32, n, Fr::params::BITS,
                                            cpu::choose_window(n, Fr::params::BITS), 16);
    const A want = want_x.to_affine();
    AffineBuffer buf;
    buf.n = n;
    buf.limbs.resize(n * 2 * F::N);
    std::memcpy(buf.limbs.data(), pts.data(), n * sizeof(A));
    EngineOptions opt;
    opt.window_bits = c;
    opt.tau = tau;
    opt.group = kGroup;
    const auto t0 = std::chrono::steady_clock::now();
    auto eng = make_cuda_engine(id, std::move(buf), opt);
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<uint8_t> out(2 * F::BYTES), first;
    bool ok = true;
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
      const auto a = std::chrono::steady_clock::now();
      eng->msm(sc.data(), n, out.data());
      const auto b = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double, std::milli>(b - a).count());
      if (r == 0) first = out;
      else if (out != first) ok = false;
    }
    F gx, gy;
    F::load_le(out.data(), gx);
    F::load_le(out.data() + F::BYTES, gy);
    const A got{gx.is_zero() && gy.is_zero() ? F::zero() : F::to_mont(gx), gx.is_zero() && gy.is_zero() ? F::zero() : F::to_mont(gy)};
    ok = ok && got == want;
    if (!ok) ++failures;
    std::printf("%s %s %-10s n=%-8zu %-10s %-8s c=%-2d tau=%-2d W? dev=%.1fMB setup=%.1fms msm=%.2fms %s\n", G::name,
                kGroupNames[int(kGroup)], ok ? "ok" : "MISMATCH", n, kind.c_str(), pts_kind.c_str(), eng->window_bits(), eng->tau(),
                eng->device_memory() / 1e6, std::chrono::duration<double, std::milli>(t1 - t0).count(), best,
                repeats > 1 ? "(repeats identical)" : "");
    std::fflush(stdout);
  }
};

template <class G>
void curve_suite(CurveId id, bool big) {
  using C = Case<G>;
  const size_t sizes[] = {1, 2, 3, 31, 32, 33, 1000, 1024, 4097};
  for (size_t n : sizes) C::run(id, n, "random", "plain", 0, -1, n);
  for (const char* kind : {"random", "identical", "distinct32", "small", "mostlyzero", "rminus1", "mixed"})
    C::run(id, 5000, kind, "special", 0, -1, 7);
  for (int c : {4, 9, 13, 16})
    for (int tau : {0, 6, c - 1})
      if (tau <= c - 1) C::run(id, 3000, "random", "special", c, tau, 11 + c);
  C::run(id, 3000, "identical", "plain", 12, 0, 5);
  if (big) {
    C::run(id, 1 << 16, "random", "plain", 0, -1, 3, 5);
    C::run(id, (1 << 16) + 1, "identical", "plain", 0, -1, 3, 3);
  }
}

int main(int argc, char** argv) {
  const bool big = argc > 1 && std::string(argv[1]) == "big";
  for (CurveId id : kCurves) {
    const auto r = gpu::field_selftest(id, 200000, 42);
    std::printf("field %s checked=%zu mismatches=%zu %s\n", curve_shape(id).name, r.checked, r.mismatches,
                r.first.c_str());
    if (r.mismatches) ++failures;
  }
  for (CurveId id : kCurves) {
    const auto r = gpu::quad_selftest(id, 20000, 42);
    std::printf("quad %s checked=%zu mismatches=%zu %s\n", curve_shape(id).name, r.checked, r.mismatches,
                r.first.c_str());
    if (r.mismatches) ++failures;
  }
  for (CurveId id : kCurves) {
    if (!curve_has_group(id, Group::g2)) continue;
    const auto r = gpu::fp2_selftest(id, 50000, 42);
    std::printf("fp2 %s checked=%zu mismatches=%zu %s\n", curve_shape(id).name, r.checked, r.mismatches,
                r.first.c_str());
    if (r.mismatches) ++failures;
  }
  std::fflush(stdout);
  for (CurveId id : kCurves) visit_curve(id, [&](auto g) { curve_suite<decltype(g)>(id, big); });
  for (CurveId id : kCurves)
    if (curve_has_group(id, Group::g2)) visit_g2(id, [&](auto g) { curve_suite<decltype(g)>(id, big); });
  std::printf("driver: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
