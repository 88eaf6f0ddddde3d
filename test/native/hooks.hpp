// The test addon's hook groups; each registers its functions on the module's exports
// (declared for TypeScript in test/support/testing.ts).
#pragma once

#include <napi.h>

namespace msm::testing {
void register_stages(Napi::Object exports);     // stages.cpp: recoding, Alg. 4/5, §3.4 on integers
void register_stages_ct(Napi::Object exports);  // stages_ct.cpp: §5 accumulation and aggregation, RCB formulas
void register_tools(Napi::Object exports);      // tools.cpp: point generator, engine bench, self-tests
void register_plan(Napi::Object exports);       // plan.cpp: the CUDA context plan for any device size
void register_g2(Napi::Object exports);         // g2.cpp: Fp2 and the G2 formulas on the host
}  // namespace msm::testing
