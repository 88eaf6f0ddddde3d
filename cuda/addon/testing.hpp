// Host-side hooks for the GPU stage tests (implemented by cuda/addon/testing.cpp when present).
#pragma once

#include <napi.h>

namespace msm {
void register_testing(Napi::Env env, Napi::Object exports);
}
