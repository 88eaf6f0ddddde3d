// Host-side hooks for the GPU stage tests (implemented by cuda/addon/testing.cpp when present).
#pragma once

#include <napi.h>

namespace msm {
void register_testing(Napi::Env env, Napi::Object exports);
// cuda/addon/testing_ct.cpp: the constant-time mode's and the homogeneous formulas' host checks.
void register_testing_ct(Napi::Object testing);
}
