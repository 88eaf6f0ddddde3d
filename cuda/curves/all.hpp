// Every curve's header, and the one dispatch from a run-time CurveId to the curve's g1 type
// that the backends, the glue's test hooks and the GPU stages' explicit instantiations share.
#pragma once

#include <string>

#include "../engine.hpp"
#include "bls12_377.hpp"
#include "bls12_381.hpp"
#include "bls24_315.hpp"
#include "bn254.hpp"

// X(G) for every curve's g1 type G (explicit template instantiations).
#define MSM_CURVE_APPLY_G1(X, Id, ns) X(::msm::curves::ns::g1)
#define MSM_FOR_EACH_CURVE(X) MSM_CURVES(MSM_CURVE_APPLY_G1, X)

namespace msm {

// f(G{}) for the curve id names, G its g1 struct; every call of f must return one type.
template <class F>
auto visit_curve(CurveId id, F&& f) -> decltype(f(curves::bn254::g1{})) {
  switch (id) {
#define MSM_CURVE_CASE(a, Id, ns) \
  case CurveId::Id:               \
    return f(curves::ns::g1{});
    MSM_CURVES(MSM_CURVE_CASE, )
#undef MSM_CURVE_CASE
  }
  throw EngineError("ERR_UNKNOWN_CURVE", "unknown curve id " + std::to_string(int(id)));
}

}  // namespace msm
