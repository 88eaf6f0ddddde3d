// Argument checks run on the JS thread before any work is queued. Each returns false and fills
// a Failure (ERR_INVALID_ARGUMENT, ERR_INVALID_OPTION for a member of the options object) when
// the value is not of the expected shape.
#pragma once

#include <napi.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"

namespace msm::addon {

inline bool invalid(Failure& f, const std::string& msg) {
  f = Failure{"ERR_INVALID_ARGUMENT", msg, -1};
  return false;
}

// A Uint8Array (Buffer included), held by a reference until the async work that reads it is
// deleted (on the JS thread). Nothing is copied on the event loop: a 2^24-point MSM hands over
// gigabytes, and copying them here would stall the loop for a second. The worker thread reads the
// bytes once, while decoding; like fs.write, the caller must not modify the array until the
// returned Promise settles.
struct HeldBytes {
  Napi::ObjectReference ref;
  const uint8_t* data = nullptr;
  size_t size = 0;
};

inline bool hold_bytes(const Napi::Value& v, const char* what, HeldBytes& out, Failure& f) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    return invalid(f, std::string(what) + " must be a Uint8Array");
  auto a = v.As<Napi::Uint8Array>();
  out.ref = Napi::Persistent(a.As<Napi::Object>());
  out.data = a.Data();
  out.size = a.ByteLength();
  return true;
}

// An integer in [lo, hi]; `undefined` gives dflt.
inline bool get_int(const Napi::Value& v, const char* what, int lo, int hi, int dflt, int& out, Failure& f) {
  if (v.IsUndefined()) {
    out = dflt;
    return true;
  }
  if (!v.IsNumber()) return invalid(f, std::string(what) + " must be an integer");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= lo && d <= hi) || std::floor(d) != d)
    return invalid(f, std::string(what) + " must be an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
  out = int(d);
  return true;
}

inline bool bad_option(Failure& f, const std::string& name, const std::string& expected) {
  f = Failure{"ERR_INVALID_OPTION", "option '" + name + "' must be " + expected, -1};
  return false;
}

// An option that is an integer; `undefined` gives dflt. Only its shape: the values a backend
// accepts are options.hpp's table, checked by check_options.
inline bool get_option_int(const Napi::Object& o, const char* name, int dflt, int& out, Failure& f) {
  const Napi::Value v = o.Get(name);
  if (v.IsUndefined()) {
    out = dflt;
    return true;
  }
  const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(d >= INT32_MIN && d <= INT32_MAX) || std::floor(d) != d) return bad_option(f, name, "a 32-bit integer");
  out = int(d);
  return true;
}

inline bool get_bool(const Napi::Value& v, const char* what, bool dflt, bool& out, Failure& f) {
  if (v.IsUndefined()) {
    out = dflt;
    return true;
  }
  if (!v.IsBoolean()) return invalid(f, std::string(what) + " must be a boolean");
  out = v.As<Napi::Boolean>().Value();
  return true;
}

}  // namespace msm::addon
