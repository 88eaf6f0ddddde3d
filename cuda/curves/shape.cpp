// Byte shapes of the curves, read off their field and scalar types.
#include "all.hpp"

namespace msm {

const CurveShape& curve_shape(CurveId id) {
  static const std::vector<CurveShape> shapes = [] {
    std::vector<CurveShape> v;
    for (CurveId c : kCurves)
      v.push_back(visit_curve(c, [](auto g) {
        using G = decltype(g);
        return CurveShape{G::name, G::field::BYTES, G::scalar::BYTES, G::scalar::params::BITS};
      }));
    return v;
  }();
  const size_t i = size_t(id);
  if (i >= shapes.size()) throw EngineError("ERR_UNKNOWN_CURVE", "unknown curve id " + std::to_string(int(id)));
  return shapes[i];
}

bool curve_by_name(const std::string& name, CurveId& id) {
  for (CurveId c : kCurves)
    if (name == curve_shape(c).name) {
      id = c;
      return true;
    }
  return false;
}

}  // namespace msm
