// The CUDA entry points of engine.hpp for an addon built without nvcc.
#include "../engine.hpp"

namespace msm {

static const char* kReason = "built without CUDA (nvcc was not found at build time)";

CudaStatus cuda_status() {
  CudaStatus s;
  s.compiled = false;
  s.available = false;
  s.reason = kReason;
  return s;
}

std::unique_ptr<Engine> make_cuda_engine(CurveId, AffineBuffer&&, const EngineOptions&) {
  throw EngineError("ERR_CUDA_UNAVAILABLE", kReason);
}

}  // namespace msm
