// The test addon (msm_cuda_testing.node): hooks into the core for the tests and the development
// bench, linked against the same core library as the product addon. Built only with the tests
// (scripts/build-testing.js), never shipped.
#include <napi.h>

#include "hooks.hpp"

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  msm::testing::register_stages(exports);
  msm::testing::register_stages_ct(exports);
  msm::testing::register_tools(exports);
  msm::testing::register_plan(exports);
  msm::testing::register_g2(exports);
  return exports;
}
NODE_API_MODULE(msm_cuda_testing, Init)
