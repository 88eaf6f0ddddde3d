// NativeContext (lib/native.ts): resident bases behind an engine, MSMs as Promise-returning async
// work, and createContext that builds one off the event loop.
#pragma once

#include <napi.h>

namespace msm::addon {

// Defines the NativeContext class for this environment (kept in the addon's instance data).
void init_context_class(Napi::Env env);

// createContext(curve, points, pointFormat, validate, options, owned) → Promise<NativeContext>;
// points a Uint8Array or an array of them (parts, copied into one buffer at the call).
Napi::Value create_context(const Napi::CallbackInfo& info);

// copyBytes(bytes) → Uint8Array: a copy taken now, for lib/ to hand over later (owned = true).
Napi::Value copy_bytes(const Napi::CallbackInfo& info);

}  // namespace msm::addon
