// The product addon's entry point: info(), createContext(), copyBytes(), fieldTransform() and
// groth16Qap()
// (lib/native.ts), nothing else.
#include <napi.h>

#include <iterator>
#include <thread>

#include "../engine.hpp"
#include "../options.hpp"
#include "context.hpp"
#include "field.hpp"

// MSM_VERSION_RAW is the bare package version (e.g. 0.1.0) from the build; quoted here so
// that no build system has to pass a string literal through a shell.
#define MSM_STR2(x) #x
#define MSM_STR(x) MSM_STR2(x)
#ifdef MSM_VERSION_RAW
#define MSM_VERSION MSM_STR(MSM_VERSION_RAW)
#else
#define MSM_VERSION "0.0.0"
#endif

namespace msm::addon {
namespace {

// [lo, hi], or null for an option the backend does not use.
Napi::Value range_js(Napi::Env env, const IntRange& r) {
  if (r.empty()) return env.Null();
  auto a = Napi::Array::New(env, 2);
  a.Set(0u, double(r.lo));
  a.Set(1u, double(r.hi));
  return a;
}

// One backend's row of the limits table (options.hpp), the table lib/validate.ts checks against.
Napi::Object limits_js(Napi::Env env, Backend b) {
  const BackendLimits& l = backend_limits(b);
  auto o = Napi::Object::New(env);
  o.Set("windowBits", range_js(env, l.window_bits));
  o.Set("tau", range_js(env, l.tau));
  o.Set("threads", range_js(env, l.threads));
  o.Set("maxPoints", double(l.max_points));
  auto modes = Napi::Array::New(env);
  for (int m = 0; m < kAccumulationCount; ++m)
    if (l.accumulation[m]) modes.Set(modes.Length(), kAccumulationNames[m]);
  o.Set("accumulation", modes);
  auto groups = Napi::Array::New(env);
  for (int g = 0; g < kGroupCount; ++g)
    if (l.groups[g]) groups.Set(groups.Length(), kGroupNames[g]);
  o.Set("groups", groups);
  return o;
}

Napi::Value info(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("version", MSM_VERSION);
  auto curves = Napi::Array::New(env, std::size(kCurves));
  uint32_t i = 0;
  auto groups = Napi::Object::New(env);  // curve name → the groups it runs here
  for (CurveId c : kCurves) {
    curves.Set(i++, curve_shape(c).name);
    auto list = Napi::Array::New(env);
    for (int g = 0; g < kGroupCount; ++g)
      if (curve_has_group(c, Group(g))) list.Set(list.Length(), kGroupNames[g]);
    groups.Set(curve_shape(c).name, list);
  }
  o.Set("curves", curves);
  o.Set("groups", groups);
  auto cpu = Napi::Object::New(env);
  const unsigned hc = std::thread::hardware_concurrency();
  cpu.Set("threads", double(hc ? hc : 1));
  o.Set("cpu", cpu);

  CudaStatus s;
  try {
    s = cuda_status();
  } catch (const std::exception& e) {
    s.reason = e.what();
  }
  auto cuda = Napi::Object::New(env);
  cuda.Set("compiled", s.compiled);
  cuda.Set("available", s.available);
  cuda.Set("reason", s.available ? env.Null() : Napi::String::New(env, s.reason.empty() ? "unknown" : s.reason));
  cuda.Set("runtimeVersion", double(s.runtime_version));
  cuda.Set("driverVersion", double(s.driver_version));
  auto devs = Napi::Array::New(env, s.devices.size());
  for (size_t k = 0; k < s.devices.size(); ++k) {
    const CudaDevice& d = s.devices[k];
    auto dv = Napi::Object::New(env);
    dv.Set("index", double(d.index));
    dv.Set("name", d.name);
    dv.Set("computeCapability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
    dv.Set("totalMemory", double(d.total_memory));
    dv.Set("multiProcessors", double(d.multiprocessors));
    devs.Set(uint32_t(k), dv);
  }
  cuda.Set("devices", devs);
  o.Set("cuda", cuda);

  // Static (the build's table), so reported whether or not CUDA is compiled in or usable.
  auto limits = Napi::Object::New(env);
  limits.Set("cpu", limits_js(env, Backend::cpu));
  limits.Set("cuda", limits_js(env, Backend::cuda));
  o.Set("limits", limits);
  return o;
}

Napi::Object init(Napi::Env env, Napi::Object exports) {
  init_context_class(env);
  exports.Set("info", Napi::Function::New(env, info, "info"));
  exports.Set("createContext", Napi::Function::New(env, create_context, "createContext"));
  exports.Set("copyBytes", Napi::Function::New(env, copy_bytes, "copyBytes"));
  exports.Set("fieldTransform", Napi::Function::New(env, field_transform, "fieldTransform"));
  exports.Set("groth16Qap", Napi::Function::New(env, groth16_qap, "groth16Qap"));
  return exports;
}

}  // namespace
}  // namespace msm::addon

static Napi::Object Init(Napi::Env env, Napi::Object exports) { return msm::addon::init(env, exports); }
NODE_API_MODULE(msm_cuda, Init)
