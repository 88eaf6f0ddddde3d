// Native errors as JS Errors carrying .code (and .index where an input element is at fault),
// the shape lib/errors.ts expects (see lib/native.ts).
#pragma once

#include <napi.h>

#include <cstdint>
#include <exception>
#include <new>
#include <string>

#include "../engine.hpp"

namespace msm::addon {

// A captured failure, safe to carry from a worker thread back to the JS thread.
struct Failure {
  std::string code, message;
  int64_t index = -1;

  static Failure from_current_exception() {
    try {
      throw;
    } catch (const EngineError& e) {
      return {e.code, e.what(), e.index};
    } catch (const std::bad_alloc&) {
      return {"ERR_INTERNAL", "host memory allocation failed", -1};
    } catch (const std::exception& e) {
      return {"ERR_INTERNAL", e.what(), -1};
    } catch (...) {
      return {"ERR_INTERNAL", "unknown native exception", -1};
    }
  }

  Napi::Value to_js(Napi::Env env) const {
    Napi::Error err = Napi::Error::New(env, message);
    err.Set("code", Napi::String::New(env, code));
    if (index >= 0) err.Set("index", Napi::Number::New(env, double(index)));
    return err.Value();
  }
};

inline Napi::Value rejected(Napi::Env env, const Failure& f) {
  auto d = Napi::Promise::Deferred::New(env);
  d.Reject(f.to_js(env));
  return d.Promise();
}

inline Napi::Value rejected(Napi::Env env, const char* code, const std::string& message, int64_t index = -1) {
  return rejected(env, Failure{code, message, index});
}

}  // namespace msm::addon
