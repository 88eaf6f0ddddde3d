// Every curve's header, and the dispatch from a run-time CurveId (and Group) to the curve's g1 or
// g2 type that the backends, the glue's test hooks and the GPU stages' explicit instantiations
// share.
#pragma once

#include <string>

#include "../engine.hpp"
#include "bls12_377.hpp"
#include "bls12_381.hpp"
#include "bls12_381_g2.hpp"
#include "bls24_315.hpp"
#include "bn254.hpp"
#include "bn254_g2.hpp"

// X(G) for every curve's g1 type G, and for every g2 type (MSM_G2_CURVES): explicit template
// instantiations.
#define MSM_CURVE_APPLY_G1(X, Id, ns) X(::msm::curves::ns::g1)
#define MSM_FOR_EACH_CURVE(X) MSM_CURVES(MSM_CURVE_APPLY_G1, X)
#define MSM_CURVE_APPLY_G2(X, Id, ns) X(::msm::curves::ns::g2)
#define MSM_FOR_EACH_G2(X) MSM_G2_CURVES(MSM_CURVE_APPLY_G2, X)

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

// f(G{}) for G the g2 struct of the curve id names (MSM_G2_CURVES); no_group() for the others.
template <class F>
auto visit_g2(CurveId id, F&& f) -> decltype(f(curves::bn254::g2{})) {
  switch (id) {
#define MSM_G2_CASE(a, Id, ns) \
  case CurveId::Id:            \
    return f(curves::ns::g2{});
    MSM_G2_CURVES(MSM_G2_CASE, )
#undef MSM_G2_CASE
    default:
      break;
  }
  no_group(id, Group::g2);
}

// f(G{}) for G the struct of group `group` of the curve id names: the one dispatch over (curve,
// group). f is instantiated for every g1 and g2 struct and must return one type.
template <class F>
auto visit_group(CurveId id, Group group, F&& f) -> decltype(f(curves::bn254::g1{})) {
  if (group == Group::g2) return visit_g2(id, f);
  if (group != Group::g1) no_group(id, group);
  return visit_curve(id, f);
}

}  // namespace msm
