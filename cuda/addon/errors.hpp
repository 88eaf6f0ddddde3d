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

  // Inside a catch handler. (It can itself throw std::bad_alloc, building the strings.)
  static Failure from_current_exception() {
    try {
      throw;
    } catch (const EngineError& e) {
      return {e.code, e.what(), e.index};
    } catch (const std::bad_alloc&) {
      // Out of host memory (or over a ulimit), in any thread (common/parallel.hpp brings worker
      // threads' exceptions here): the call fails, the process and other contexts carry on.
      return {"ERR_OUT_OF_MEMORY", "host memory allocation failed", -1};
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

// The body of a Promise-returning entry point on the JS thread. node-addon-api turns a Napi::Error
// escaping it into a JS exception, but any other C++ exception (std::bad_alloc copying an input)
// would reach V8 and terminate the process: it rejects the Promise instead.
template <class Fn>
Napi::Value promise_call(Napi::Env env, Fn&& body) {
  try {
    return body();
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    return rejected(env, Failure::from_current_exception());
  }
}

// The same for a synchronous entry point: the failure is thrown as a JS Error with its .code.
template <class Fn>
Napi::Value throwing_call(Napi::Env env, Fn&& body) {
  try {
    return body();
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw Napi::Error(env, Failure::from_current_exception().to_js(env));
  }
}

}  // namespace msm::addon
