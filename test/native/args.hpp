// Argument readers and result builders shared by the test addon's hooks: a bad argument throws a
// JS Error with code ERR_INVALID_ARGUMENT.
#pragma once

#include <napi.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/bytes.hpp"
#include "engine.hpp"

namespace msm::testing {

[[noreturn]] inline void fail(Napi::Env env, const std::string& msg) {
  Napi::Error e = Napi::Error::New(env, msg);
  e.Set("code", Napi::String::New(env, "ERR_INVALID_ARGUMENT"));
  throw e;
}

inline CurveId curve_arg(Napi::Env env, const std::string& name) {
  CurveId id;
  if (!curve_by_name(name, id)) fail(env, "unknown curve " + name);
  return id;
}

// The optional group argument i ('g1' or 'g2'; absent or undefined: G1).
inline Group group_arg(const Napi::CallbackInfo& cb, size_t i) {
  if (cb.Length() <= i || cb[i].IsUndefined()) return Group::g1;
  if (cb[i].IsString()) {
    const std::string name = cb[i].As<Napi::String>();
    for (int g = 0; g < kGroupCount; ++g)
      if (name == kGroupNames[g]) return Group(g);
  }
  fail(cb.Env(), "expected a group, 'g1' or 'g2'");
}

inline uint32_t u32_arg(const Napi::CallbackInfo& cb, size_t i, const char* what) {
  if (cb.Length() <= i || !cb[i].IsNumber()) fail(cb.Env(), std::string("expected ") + what);
  const double v = cb[i].As<Napi::Number>().DoubleValue();
  if (!(v >= 0 && v <= 4294967295.0) || v != double(uint64_t(v))) fail(cb.Env(), std::string("bad ") + what);
  return uint32_t(v);
}

// A Uint8Array, or an array of them (generatePoints' parts), copied into one buffer.
inline HostBytes bytes_arg(const Napi::CallbackInfo& cb, size_t i, const char* what) {
  std::vector<HostBytes::Part> parts;
  const auto take = [&](const Napi::Value& v) {
    if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      fail(cb.Env(), std::string("expected a Uint8Array or an array of them: ") + what);
    auto a = v.As<Napi::Uint8Array>();
    parts.push_back(HostBytes::Part{a.Data(), a.ByteLength()});
  };
  if (cb.Length() > i && cb[i].IsArray()) {
    auto arr = cb[i].As<Napi::Array>();
    for (uint32_t k = 0; k < arr.Length(); ++k) take(arr.Get(k));
  } else {
    take(cb.Length() > i ? cb[i] : cb.Env().Undefined());
  }
  return HostBytes::copy_of_parts(parts);
}

template <class T>
T typed_arg(const Napi::CallbackInfo& cb, size_t i, const char* what) {
  if (cb.Length() <= i || !cb[i].IsTypedArray()) fail(cb.Env(), std::string("expected typed array ") + what);
  return cb[i].As<T>();
}

// { checked, mismatches, first }: the result of every native self-test (test/support/testing.ts
// SelftestResult).
inline Napi::Object selftest_result(Napi::Env env, double checked, double mismatches, const std::string& first) {
  auto o = Napi::Object::New(env);
  o.Set("checked", checked);
  o.Set("mismatches", mismatches);
  o.Set("first", first);
  return o;
}

inline Napi::Uint32Array u32_array(Napi::Env env, const std::vector<uint32_t>& v) {
  auto a = Napi::Uint32Array::New(env, v.size());
  if (!v.empty()) std::memcpy(a.Data(), v.data(), v.size() * 4);
  return a;
}
inline Napi::BigUint64Array u64_array(Napi::Env env, const std::vector<uint64_t>& v) {
  auto a = Napi::BigUint64Array::New(env, v.size());
  if (!v.empty()) std::memcpy(a.Data(), v.data(), v.size() * 8);
  return a;
}

}  // namespace msm::testing
