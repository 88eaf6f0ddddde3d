// Byte shapes of the curves' groups, read off their field and scalar types.
#include <array>

#include "all.hpp"

namespace msm {

namespace {
template <class G>
CurveShape shape_of(Group group) {
  return CurveShape{G::name, group, G::field::BYTES, G::scalar::BYTES, G::scalar::params::BITS};
}
}  // namespace

const CurveShape& curve_shape(CurveId id, Group group) {
  // [curve][group]; a group the curve lacks keeps name = nullptr.
  static const std::vector<std::array<CurveShape, kGroupCount>> shapes = [] {
    std::vector<std::array<CurveShape, kGroupCount>> v;
    for (CurveId c : kCurves) {
      std::array<CurveShape, kGroupCount> row{};
      for (int g = 0; g < kGroupCount; ++g)
        if (curve_has_group(c, Group(g)))
          row[g] = visit_group(c, Group(g), [g](auto s) { return shape_of<decltype(s)>(Group(g)); });
      v.push_back(row);
    }
    return v;
  }();
  const size_t i = size_t(id), g = size_t(group);
  if (i >= shapes.size()) throw EngineError("ERR_UNKNOWN_CURVE", "unknown curve id " + std::to_string(int(id)));
  if (g >= size_t(kGroupCount) || !shapes[i][g].name) no_group(id, group);
  return shapes[i][g];
}

bool curve_by_name(const std::string& name, CurveId& id) {
  for (CurveId c : kCurves)
    if (name == curve_shape(c).name) {
      id = c;
      return true;
    }
  return false;
}

void no_group(CurveId id, Group group) {
  const int g = int(group);
  const std::string gname = g >= 0 && g < kGroupCount ? kGroupNames[g] : "?";
  std::string with;
  for (CurveId c : kCurves)
    if (curve_has_group(c, group)) with += std::string(with.empty() ? "" : ", ") + curve_shape(c).name;
  throw EngineError("ERR_INVALID_OPTION", "option 'group' '" + gname + "' is not available for curve '" +
                                              curve_shape(id).name + "' (" + gname + " curves: " +
                                              (with.empty() ? "none" : with) + ")");
}

}  // namespace msm
