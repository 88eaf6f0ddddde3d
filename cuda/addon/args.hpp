// Argument checks run on the JS thread before any work is queued. Each returns false and fills
// a Failure (ERR_INVALID_ARGUMENT, ERR_INVALID_OPTION for a member of the options object) when
// the value is not of the expected shape.
#pragma once

#include <napi.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../common/bytes.hpp"
#include "../common/codec.hpp"
#include "../engine.hpp"
#include "errors.hpp"

namespace msm::addon {

inline bool invalid(Failure& f, const std::string& msg) {
  f = Failure{"ERR_INVALID_ARGUMENT", msg, -1};
  return false;
}

// Input bytes, taken when the call is made (issue 10; the WebCrypto BufferSource rule): once the
// call has returned its Promise, nothing the caller does to the array — mutate it, resize(0) its
// resizable ArrayBuffer, transfer the buffer away, drop it — changes the result or reaches freed
// memory. A Uint8Array is copied here, on the JS thread (HostBytes: recycled buffers or huge pages,
// several threads).
// `owned` is lib/'s promise that it made the array itself (encoded bigints, or copyBytes()) and
// will never touch it again: it is then held by a reference instead, saving a second copy. Either
// way the worker may decode the bytes in place.
class InputBytes {
 public:
  uint8_t* data() { return data_; }
  size_t size() const { return size_; }
  // Frees a copy once decoded (the worker thread may call it; a held reference is released with
  // the worker, on the JS thread, as napi references must be).
  void free_copy() {
    if (!copy_.data()) return;
    copy_.reset();
    data_ = nullptr;
    size_ = 0;
  }

  // The copy, for a worker that returns its result in place of the input (fieldTransform); empty
  // for a held reference.
  HostBytes release_copy() {
    data_ = nullptr;
    size_ = 0;
    return std::move(copy_);
  }

  // The ticket of the engine's copy (Engine::take_scalars; 0 for any other).
  uint64_t ticket() const { return ticket_; }
  // Whether take_scalars scanned the copy for scalars ≥ r, and the lowest such index (-1: none).
  bool scanned() const { return scanned_; }
  int64_t first_unreduced() const { return first_unreduced_; }

  // v: a Uint8Array, already checked. Throws std::bad_alloc when the copy cannot be allocated.
  void take(const Napi::Value& v, bool owned) {
    auto a = v.As<Napi::Uint8Array>();
    size_ = a.ByteLength();
    if (owned) {
      ref_ = Napi::Persistent(a.As<Napi::Object>());
      data_ = a.Data();
    } else {
      copy_ = HostBytes::copy_of(a.Data(), size_);
      data_ = copy_.data();
    }
  }

  // Parts of one input (packed points in several Uint8Arrays, already checked), copied into one
  // buffer, in order: the worker sees them as if one array had been passed.
  void take_parts(const std::vector<Napi::Uint8Array>& parts) {
    std::vector<HostBytes::Part> spans;
    spans.reserve(parts.size());
    for (const auto& a : parts) spans.push_back(HostBytes::Part{a.Data(), a.ByteLength()});
    copy_ = HostBytes::copy_of_parts(spans);
    data_ = copy_.data();
    size_ = copy_.size();
  }

  // One MSM's scalars for engine: its copy (Engine::take_scalars, upload_now passed on), which
  // also scans them for values ≥ r, so that the worker need not read them all again.
  void take_scalars(const Napi::Value& v, bool owned, Engine& engine, bool upload_now) {
    if (owned) return take(v, true);
    auto a = v.As<Napi::Uint8Array>();
    size_ = a.ByteLength();
    UnreducedScan scan(engine.curve());
    copy_ = engine.take_scalars(a.Data(), size_, upload_now, ticket_, HostBytes::Inspect(std::ref(scan), scan.top()));
    data_ = copy_.data();
    scanned_ = true;
    first_unreduced_ = scan.first();
  }

 private:
  HostBytes copy_;
  Napi::ObjectReference ref_;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint64_t ticket_ = 0;
  bool scanned_ = false;
  int64_t first_unreduced_ = -1;
};

// A curve name built into this addon.
inline bool parse_curve(const Napi::Value& v, CurveId& id, Failure& f) {
  if (!v.IsString()) return invalid(f, "curve must be a string");
  const std::string s = v.As<Napi::String>().Utf8Value();
  if (curve_by_name(s, id)) return true;
  f = Failure{"ERR_UNKNOWN_CURVE", "curve '" + s + "' is not built into this addon", -1};
  return false;
}

inline bool is_uint8_array(const Napi::Value& v) {
  return v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array;
}

// Packed points (or other packed elements, named by what): one Uint8Array, or an array of them
// (parts, concatenated in order: lib/validate.ts takePoints), each a whole number of elements of
// point_bytes. Every element is read before any is
// checked, so that no JS (an element's getter) runs between the checks and the copy. The total
// is summed in size_t, an overflow refused: nothing is truncated. list: whether it was an array.
inline bool get_point_parts(const Napi::Value& v, size_t point_bytes, std::vector<Napi::Uint8Array>& parts,
                            size_t& total, bool& list, Failure& f,
                            const std::string& what = "points") {
  parts.clear();
  total = 0;
  list = v.IsArray();
  if (!list) {
    if (!is_uint8_array(v)) return invalid(f, what + " must be a Uint8Array or an array of Uint8Array");
    parts.push_back(v.As<Napi::Uint8Array>());
  } else {
    auto arr = v.As<Napi::Array>();
    const uint32_t count = arr.Length();
    std::vector<Napi::Value> given;
    given.reserve(count);
    for (uint32_t i = 0; i < count; ++i) given.push_back(arr.Get(i));
    for (uint32_t i = 0; i < count; ++i) {
      if (!is_uint8_array(given[i])) return invalid(f, what + "[" + std::to_string(i) + "] must be a Uint8Array (a part)");
      parts.push_back(given[i].As<Napi::Uint8Array>());
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    const size_t bytes = parts[i].ByteLength();
    if (bytes % point_bytes != 0)
      return invalid(f, (list ? what + "[" + std::to_string(i) + "] (a part) has " : what + " byte length ") +
                            std::to_string(bytes) + (list ? " bytes, not" : " is not") + " a multiple of " +
                            std::to_string(point_bytes));
    if (bytes > SIZE_MAX - total) return invalid(f, what + ": the parts' total byte length overflows");
    total += bytes;
  }
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

// An option that is an array of 32-bit integers (at most 1024 of them); `undefined` leaves out empty.
inline bool get_option_int_list(const Napi::Object& o, const char* name, std::vector<int>& out, Failure& f) {
  const Napi::Value v = o.Get(name);
  out.clear();
  if (v.IsUndefined()) return true;
  if (!v.IsArray()) return bad_option(f, name, "an array of integers");
  auto a = v.As<Napi::Array>();
  const uint32_t len = a.Length();
  if (len == 0 || len > 1024) return bad_option(f, name, "an array of 1 to 1024 integers");
  for (uint32_t i = 0; i < len; ++i) {
    const Napi::Value e = a.Get(i);
    const double d = e.IsNumber() ? e.As<Napi::Number>().DoubleValue() : NAN;
    if (!(d >= INT32_MIN && d <= INT32_MAX) || std::floor(d) != d) return bad_option(f, name, "an array of 32-bit integers");
    out.push_back(int(d));
  }
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
