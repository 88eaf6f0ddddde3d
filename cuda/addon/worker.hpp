// Async work for the addon's Promise-returning entry points (NativeContext's msm, createContext,
// fieldTransform), and large results handed to JavaScript without a copy.
#pragma once

#include <napi.h>

#include "../common/bytes.hpp"
#include "errors.hpp"

namespace msm::addon {

// Async work that settles a Promise. Execute() lets no exception out (run()'s failure is kept for
// the JS thread), and the completion does nothing that can throw out of it: while the environment
// is being torn down (worker.terminate(), process exit) during the work, every napi call fails and
// node-addon-api throws Napi::Error, which, escaping the libuv callback, aborted the process
// ("terminate called after throwing an instance of 'Napi::Error'", issue 10). Nobody is left to
// tell then, so the result is dropped; the worker and what it owns (engine, input copies) are
// freed as usual. (A call on the JS thread failing in a dying environment is the build's
// NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS: CMakeLists.txt, core.gypi.)
class PromiseWorker : public Napi::AsyncWorker {
 public:
  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  PromiseWorker(Napi::Env env, const char* name)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)) {}

  virtual void run() = 0;                         // worker thread
  virtual Napi::Value result(Napi::Env env) = 0;  // JS thread, once run() succeeded

 private:
  void Execute() final {
    try {
      run();
    } catch (...) {
      failed_ = true;
      try {
        failure_ = Failure::from_current_exception();
      } catch (...) {
        failure_.code = "ERR_OUT_OF_MEMORY";  // not even the message could be copied
      }
    }
  }

  // Replaces node-addon-api's, which calls OnOK/OnError through a wrapper that rethrows.
  void OnWorkComplete(Napi::Env env, napi_status status) final {
    if (status != napi_cancelled) settle(env);
    Destroy();
  }

  void settle(Napi::Env env) noexcept {
    Failure why{"ERR_INTERNAL", "the result could not be returned", -1};
    try {
      Napi::HandleScope scope(env);
      if (failed_)
        deferred_.Reject(failure_.to_js(env));
      else
        deferred_.Resolve(result(env));
      return;
    } catch (...) {
      try {
        why = Failure::from_current_exception();
      } catch (...) {
      }
    }
    // A live environment that could not build the result (allocating it) rejects instead; in a
    // dying one this fails the same way, and is dropped.
    try {
      Napi::HandleScope scope(env);
      deferred_.Reject(why.to_js(env));
    } catch (...) {
    }
  }

  Napi::Promise::Deferred deferred_;
  bool failed_ = false;
  Failure failure_;
};

// bytes as a Uint8Array: an external ArrayBuffer over them, handed back to HostBytes' pool when
// collected (common/bytes.hpp); where the runtime refuses external buffers (a V8 sandbox), a copy
// in V8's memory. Arrays below kExternalBytes are cheaper as V8's own.
constexpr size_t kExternalBytes = size_t(1) << 20;
inline Napi::Uint8Array to_js_bytes(Napi::Env env, HostBytes&& bytes) {
  const size_t size = bytes.size();
  if (size >= kExternalBytes && !bytes.lent()) {
    napi_value ab = nullptr;
    const napi_status st = napi_create_external_arraybuffer(
        env, bytes.data(), size,
        [](napi_env, void* p, void* capacity) {
          HostBytes::recycle(static_cast<uint8_t*>(p), reinterpret_cast<size_t>(capacity));
        },
        reinterpret_cast<void*>(bytes.capacity()), &ab);
    if (st == napi_ok) {
      bytes.release();  // the ArrayBuffer's finalizer hands it back
      return Napi::Uint8Array::New(env, size, Napi::ArrayBuffer(env, ab), 0);
    }
    if (st == napi_pending_exception) throw Napi::Error::New(env);
    // napi_no_external_buffers_allowed: a V8 allocation below
  }
  auto out = Napi::Uint8Array::New(env, size);
  if (size) HostBytes::copy(out.Data(), bytes.data(), size);
  return out;
}

}  // namespace msm::addon
