// Tools for the tests and the development bench: the point generator (P_i = (s + i·t)·G on all
// cores), the CUDA engine timed alone, the call-time copy of scalars (streamScalars), and the native
// self-tests of the device field arithmetic and of the CPU backend's AVX-512 IFMA path.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "args.hpp"
#include "common/codec.hpp"
#include "common/parallel.hpp"
#include "curves/all.hpp"
#include "ec/xyzz.hpp"
#include "engine.hpp"
#include "hooks.hpp"
#include "simd_selftest.hpp"
#include "addon/errors.hpp"
#if defined(MSM_WITH_CUDA)
#include "gpu_selftest.hpp"
#endif

namespace msm::testing {
namespace {

// Points xs[k] (XYZZ) to at(lo + k) as affine x‖y, little-endian, canonical or in Montgomery form,
// with one inversion for all of them (Montgomery's trick over ZZ·ZZZ). O is left as the caller's
// zeros.
template <class F, class At>
void store_affine(const std::vector<ec::XYZZ<F>>& xs, size_t lo, bool montgomery, const At& at) {
  std::vector<F> pre(xs.size());
  F run = F::one();
  for (size_t k = 0; k < xs.size(); ++k) {
    if (!xs[k].is_inf()) run = run * (xs[k].ZZ * xs[k].ZZZ);
    pre[k] = run;
  }
  const auto put = [&](const F& v, uint8_t* to) { (montgomery ? v : F::from_mont(v)).store_le(to); };
  F inv = run.inverse();
  for (size_t k = xs.size(); k-- > 0;) {
    const ec::XYZZ<F>& x = xs[k];
    if (x.is_inf()) continue;
    const F d = inv * (k > 0 ? pre[k - 1] : F::one());  // (ZZ·ZZZ)⁻¹
    inv = inv * (x.ZZ * x.ZZZ);
    uint8_t* out = at(lo + k);
    put(x.X * (x.ZZZ * d), out);
    put(x.Y * (x.ZZ * d), out + F::BYTES);
  }
}

// P_i = (s + i·t)·G for i < n, canonical little-endian x‖y (all zeros for O), on all cores:
// each thread walks its range by mixed additions of t·G and normalises it with one inversion.
// Point i goes to at(i), which the caller zero-filled (O is written by leaving it so).
template <class G, class At>
void generate_points(size_t n, const uint64_t* s, const uint64_t* t, const At& at) {
  using F = typename G::field;
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;
  const A g{F::to_mont(F::template from_table<typename G::gen_x>()), F::to_mont(F::template from_table<typename G::gen_y>())};
  const A S = ec::scalar_mul(g, s, 4).to_affine(), Tp = ec::scalar_mul(g, t, 4).to_affine();
  parallel_ranges(n, default_threads(0), 1024, [&](size_t lo, size_t hi) {
    const uint64_t idx[1] = {uint64_t(lo)};
    X acc = ec::scalar_mul(Tp, idx, 1).add(S);
    std::vector<X> xs(hi - lo);
    for (size_t i = lo; i < hi; ++i, acc = acc.add(Tp)) xs[i - lo] = acc;
    store_affine(xs, lo, false, at);
  });
}

// k_i·G for 32-byte little-endian scalars k_i (any 256-bit value; 0 gives O, left as zeros), on
// all cores: a fixed-base comb of 32 byte-wide windows (table[j][d] = d·2^(8j)·G, affine), so a
// product is at most 32 mixed additions (madd-2008-s, 8M + 2S) where double-and-add takes 256
// doublings; each thread's range is normalised with one inversion (store_affine). Point i goes to
// out + i·2·F::BYTES (zero-filled by the caller), x‖y, canonical or in Montgomery form (snarkjs's
// LEM layout).
template <class G>
void fixed_base_mul(const uint8_t* scalars, size_t n, bool montgomery, uint8_t* out) {
  using F = typename G::field;
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;
  constexpr size_t kWindows = 32, kDigits = 256;
  const A g{F::to_mont(F::template from_table<typename G::gen_x>()), F::to_mont(F::template from_table<typename G::gen_y>())};
  std::vector<A> table(kWindows * kDigits, A::infinity());
  parallel_ranges(kWindows, default_threads(0), 1, [&](size_t lo, size_t hi) {
    for (size_t j = lo; j < hi; ++j) {
      X base = X::from_affine(g);
      for (size_t k = 0; k < 8 * j; ++k) base = base.dbl();
      const A b = base.to_affine();
      X acc = X::infinity();
      for (size_t d = 1; d < kDigits; ++d) table[j * kDigits + d] = (acc = acc.add(b)).to_affine();
    }
  });
  parallel_ranges(n, default_threads(0), 1024, [&](size_t lo, size_t hi) {
    std::vector<X> xs(hi - lo, X::infinity());
    for (size_t i = lo; i < hi; ++i)
      for (size_t j = 0; j < kWindows; ++j) xs[i - lo] = xs[i - lo].add(table[j * kDigits + scalars[32 * i + j]]);
    store_affine(xs, lo, montgomery, [&](size_t i) { return out + i * 2 * F::BYTES; });
  });
}

// fixedBaseMul(curve, scalars: Uint8Array (32 bytes each), group?, montgomery?) → Uint8Array of the
// points k_i·G of the group, affine x‖y (G2: x.c0‖x.c1‖y.c0‖y.c1), canonical or Montgomery: the
// known-τ Groth16 setup of bench/groth16-setup.ts.
Napi::Value fixed_base_mul_js(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
  if (cb.Length() < 1 || !cb[0].IsString()) fail(env, "expected a curve");
  const CurveId id = curve_arg(env, cb[0].As<Napi::String>());
  auto sc = typed_arg<Napi::Uint8Array>(cb, 1, "scalars");
  if (sc.ByteLength() % 32) fail(env, "scalars must be 32 bytes each");
  const Group group = group_arg(cb, 2);
  const bool montgomery = cb.Length() > 3 && cb[3].ToBoolean();
  const size_t n = sc.ByteLength() / 32;
  auto out = Napi::Uint8Array::New(env, n * 2 * curve_shape(id, group).field_bytes);
  try {
    visit_group(id, group, [&](auto g) { fixed_base_mul<decltype(g)>(sc.Data(), n, montgomery, out.Data()); });
  } catch (const EngineError& e) {
    fail(env, e.what());
  }
  return out;
}

// generatePoints(curve, n, s: Uint8Array(32), t: Uint8Array(32), group?, partPoints?) → Uint8Array
// (canonical x‖y; G2: x.c0‖x.c1‖y.c0‖y.c1), the points of `group` (default G1) from its generator;
// with partPoints the same bytes as Uint8Array[] of partPoints points each (the last one fewer):
// bases larger than one typed array (the bench's 2^26), written straight into the arrays returned.
Napi::Value generate_points_js(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
  if (cb.Length() < 1 || !cb[0].IsString()) fail(env, "expected a curve");
  const std::string name = cb[0].As<Napi::String>();
  const uint32_t n = u32_arg(cb, 1, "n");
  auto sb = typed_arg<Napi::Uint8Array>(cb, 2, "s");
  auto tb = typed_arg<Napi::Uint8Array>(cb, 3, "t");
  if (sb.ByteLength() != 32 || tb.ByteLength() != 32) fail(env, "s and t are 32 bytes");
  const Group group = group_arg(cb, 4);
  const bool in_parts = cb.Length() > 5 && !cb[5].IsUndefined();
  const size_t per = in_parts ? u32_arg(cb, 5, "partPoints") : std::max<size_t>(n, 1);
  if (per == 0) fail(env, "partPoints must be at least 1");
  uint64_t s[4] = {}, t[4] = {};
  for (int i = 0; i < 32; ++i) s[i / 8] |= uint64_t(sb[i]) << (8 * (i % 8)), t[i / 8] |= uint64_t(tb[i]) << (8 * (i % 8));
  const CurveId id = curve_arg(env, name);
  const size_t point_bytes = 2 * curve_shape(id, group).field_bytes;
  std::vector<Napi::Uint8Array> parts;
  std::vector<uint8_t*> data;
  for (size_t lo = 0; lo < n || parts.empty(); lo += per) {
    parts.push_back(Napi::Uint8Array::New(env, (std::min<size_t>(n, lo + per) - lo) * point_bytes));  // zeroed
    data.push_back(parts.back().Data());
  }
  try {
    visit_group(id, group, [&](auto g) {
      generate_points<decltype(g)>(n, s, t, [&](size_t i) { return data[i / per] + (i % per) * point_bytes; });
    });
  } catch (const EngineError& e) {
    fail(env, e.what());
  }
  if (!in_parts) return parts[0];
  auto list = Napi::Array::New(env, n ? parts.size() : 0);
  for (size_t k = 0; n && k < parts.size(); ++k) list.Set(uint32_t(k), parts[k]);
  return list;
}

// The (curve, count, seed) arguments of the field self-tests.
struct SelftestArgs {
  std::string curve;
  uint32_t count, seed;
};
[[maybe_unused]] SelftestArgs selftest_args(const Napi::CallbackInfo& cb) {
  if (cb.Length() < 1 || !cb[0].IsString()) fail(cb.Env(), "expected a curve");
  return SelftestArgs{cb[0].As<Napi::String>(), u32_arg(cb, 1, "count"), u32_arg(cb, 2, "seed")};
}

// The device self-tests of gpu_selftest.hpp, as hooks (CUDA builds only; undefined otherwise):
//   gpuFieldSelftest(curve, count, seed) → { checked, mismatches, first }: the curve's base field;
//   gpuFp2Selftest(curve, count, seed) → the same for G2's Fp2 (curves with a G2);
//   gpuQuadSelftest(curve, count, seed) → G1's additions by a quad of lanes, XYZZ and RCB (pairs checked).
enum class GpuSelftest { field, fp2, quad };
Napi::Value gpu_selftest_js(const Napi::CallbackInfo& cb, GpuSelftest which) {
  Napi::Env env = cb.Env();
#if defined(MSM_WITH_CUDA)
  const SelftestArgs a = selftest_args(cb);
  const CurveId id = curve_arg(env, a.curve);
  try {
    const gpu::FieldSelftest r = which == GpuSelftest::fp2    ? gpu::fp2_selftest(id, a.count, a.seed)
                                 : which == GpuSelftest::quad ? gpu::quad_selftest(id, a.count, a.seed)
                                                              : gpu::field_selftest(id, a.count, a.seed);
    return selftest_result(env, double(r.checked), double(r.mismatches), r.first);
  } catch (const EngineError&) {
    throw Napi::Error(env, addon::Failure::from_current_exception().to_js(env));
  }
#else
  (void)which;
  return env.Undefined();
#endif
}
Napi::Value gpu_field_selftest(const Napi::CallbackInfo& cb) { return gpu_selftest_js(cb, GpuSelftest::field); }
Napi::Value gpu_fp2_selftest(const Napi::CallbackInfo& cb) { return gpu_selftest_js(cb, GpuSelftest::fp2); }
Napi::Value gpu_quad_selftest(const Napi::CallbackInfo& cb) { return gpu_selftest_js(cb, GpuSelftest::quad); }

// occupyDevice(device, leaveFreeBytes) → handle; releaseDevice(handle) (CUDA builds only).
Napi::Value occupy_device_js(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
#if defined(MSM_WITH_CUDA)
  const int device = int(u32_arg(cb, 0, "device"));
  const double leave = cb.Length() > 1 && cb[1].IsNumber() ? cb[1].As<Napi::Number>().DoubleValue() : 0;
  try {
    return Napi::Number::New(env, double(gpu::occupy_device(device, size_t(leave))));
  } catch (const EngineError&) {
    throw Napi::Error(env, addon::Failure::from_current_exception().to_js(env));
  }
#else
  return env.Undefined();
#endif
}
Napi::Value release_device_js(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
#if defined(MSM_WITH_CUDA)
  try {
    gpu::release_device(uint64_t(u32_arg(cb, 0, "handle")));
  } catch (const EngineError&) {
    throw Napi::Error(env, addon::Failure::from_current_exception().to_js(env));
  }
#endif
  return env.Undefined();
}

// streamScalars(curve, bytes, srcOffset, dstOffset, scan) → { copy: Uint8Array, first, looked }
// The call-time copy into memory a DMA reads (HostBytes::stream: non-temporal stores on the copy
// threads) of bytes[srcOffset …] to a buffer at dstOffset bytes past a 64-byte boundary, with the
// scalars' range scan (first: UnreducedScan's lowest index of a value ≥ r, or -1) when scan, and the
// number of pieces the copy showed it (looked).
Napi::Value stream_scalars(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
  if (cb.Length() < 1 || !cb[0].IsString()) fail(env, "expected a curve");
  const CurveId id = curve_arg(env, cb[0].As<Napi::String>());
  auto in = typed_arg<Napi::Uint8Array>(cb, 1, "bytes");
  const uint32_t src_off = u32_arg(cb, 2, "srcOffset"), dst_off = u32_arg(cb, 3, "dstOffset");
  const bool scan = cb.Length() > 4 && cb[4].ToBoolean();
  if (src_off > in.ByteLength() || dst_off >= 64) fail(env, "offsets out of range");
  const size_t len = in.ByteLength() - src_off;
  HostBytes buf = HostBytes::allocate(len + 128);
  uint8_t* dst = buf.data() + (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64 + dst_off;
  UnreducedScan ranges(id);
  std::atomic<uint32_t> looked{0};
  HostBytes::Inspect inspect;
  if (scan)
    inspect = HostBytes::Inspect(
        [&](const uint8_t* piece, size_t offset, size_t n) {
          ++looked;
          ranges(piece, offset, n);
        },
        ranges.top());
  HostBytes::stream(dst, in.Data() + src_off, len, inspect);
  auto o = Napi::Object::New(env);
  auto copy = Napi::Uint8Array::New(env, len);
  std::memcpy(copy.Data(), dst, len);
  o.Set("copy", copy);
  o.Set("first", double(ranges.first()));
  o.Set("looked", looked.load());
  return o;
}

// engineBench(curve, points: Uint8Array or Uint8Array[] (canonical x‖y, G2 x.c0‖x.c1‖y.c0‖y.c1;
//             parts concatenated), scalars: Uint8Array, runs, windowBits, tau, group?)
//   → { setupMs, runsMs: number[], deviceMemory, windowBits, tau, result: Uint8Array }
// The CUDA engine alone (no N-API argument copies): context creation (upload + table) timed
// apart; each run uploads the scalars, computes and downloads the result. CUDA builds only.
Napi::Value engine_bench(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
#if defined(MSM_WITH_CUDA)
  if (cb.Length() < 1 || !cb[0].IsString()) fail(env, "expected a curve");
  const std::string name = cb[0].As<Napi::String>();
  HostBytes pts = bytes_arg(cb, 1, "points");
  auto sc = typed_arg<Napi::Uint8Array>(cb, 2, "scalars");
  const uint32_t runs = u32_arg(cb, 3, "runs");
  EngineOptions opt;
  opt.window_bits = int(u32_arg(cb, 4, "windowBits"));
  opt.tau = cb.Length() > 5 && cb[5].IsNumber() ? cb[5].As<Napi::Number>().Int32Value() : -1;
  opt.group = group_arg(cb, 6);
  const CurveId id = curve_arg(env, name);
  try {
    const size_t fb = curve_shape(id, opt.group).field_bytes, n = pts.size() / (2 * fb);
    if (sc.ByteLength() != 32 * n) fail(env, "scalars must be 32 bytes per point");
    AffineBuffer buf = decode_points(id, opt.group, pts.data(), n, PointFormat::Canonical, Validation::None, 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto eng = make_cuda_engine(id, std::move(buf), opt);
    const double setup = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::vector<uint8_t> out(2 * fb);
    eng->msm(sc.Data(), n, out.data());  // warm-up
    auto times = Napi::Array::New(env, runs);
    for (uint32_t r = 0; r < runs; ++r) {
      const auto a = std::chrono::steady_clock::now();
      eng->msm(sc.Data(), n, out.data());
      times.Set(r, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    auto o = Napi::Object::New(env);
    o.Set("setupMs", setup);
    o.Set("runsMs", times);
    o.Set("deviceMemory", double(eng->device_memory()));
    o.Set("windowBits", eng->window_bits());
    o.Set("tau", eng->tau());
    auto res = Napi::Uint8Array::New(env, out.size());
    std::memcpy(res.Data(), out.data(), out.size());
    o.Set("result", res);
    return o;
  } catch (const EngineError&) {
    throw Napi::Error(env, addon::Failure::from_current_exception().to_js(env));
  }
#else
  (void)cb;
  return env.Undefined();
#endif
}

// cpuSimdSelftest(curve, count, seed) → { checked, mismatches, first }, or undefined where the
// host has no IFMA path (cuda/cpu/simd_selftest.hpp).
Napi::Value cpu_simd_selftest(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
#if defined(MSM_HAVE_IFMA)
  const SelftestArgs a = selftest_args(cb);
  if (!ff::ifma::host_has_ifma) return env.Undefined();
  const cpu::SimdSelftest r =
      visit_curve(curve_arg(env, a.curve), [&](auto g) { return cpu::simd_selftest<decltype(g)>(a.count, a.seed); });
  return selftest_result(env, double(r.checked), double(r.mismatches), r.first);
#else
  (void)cb;
  return env.Undefined();
#endif
}

}  // namespace

void register_tools(Napi::Object t) {
  Napi::Env env = t.Env();
  t.Set("generatePoints", Napi::Function::New(env, generate_points_js, "generatePoints"));
  t.Set("fixedBaseMul", Napi::Function::New(env, fixed_base_mul_js, "fixedBaseMul"));
  t.Set("engineBench", Napi::Function::New(env, engine_bench, "engineBench"));
  t.Set("streamScalars", Napi::Function::New(env, stream_scalars, "streamScalars"));
  t.Set("gpuFieldSelftest", Napi::Function::New(env, gpu_field_selftest, "gpuFieldSelftest"));
  t.Set("gpuFp2Selftest", Napi::Function::New(env, gpu_fp2_selftest, "gpuFp2Selftest"));
  t.Set("gpuQuadSelftest", Napi::Function::New(env, gpu_quad_selftest, "gpuQuadSelftest"));
  t.Set("occupyDevice", Napi::Function::New(env, occupy_device_js, "occupyDevice"));
  t.Set("releaseDevice", Napi::Function::New(env, release_device_js, "releaseDevice"));
  t.Set("cpuSimdSelftest", Napi::Function::New(env, cpu_simd_selftest, "cpuSimdSelftest"));
#if defined(MSM_HAVE_IFMA)
  t.Set("cpuSimdAvailable", ff::ifma::host_has_ifma);
  t.Set("cpuSimdEnabled", cpu::cpu_simd_enabled());  // available and not turned off by MSM_CPU_SIMD=0
#else
  t.Set("cpuSimdAvailable", false);
  t.Set("cpuSimdEnabled", false);
#endif
#if defined(MSM_WITH_CUDA)
  t.Set("cudaCompiled", true);
#else
  t.Set("cudaCompiled", false);
#endif
}

}  // namespace msm::testing
