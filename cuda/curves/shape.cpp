// Byte shapes of the curves in engine.hpp's CurveId order.
#include "../engine.hpp"

namespace msm {

const CurveShape& curve_shape(CurveId id) {
  static const CurveShape shapes[] = {
      {"bn254", 32, 32, 254},
      {"bls12-381", 48, 32, 255},
      {"bls12-377", 48, 32, 253},
  };
  const int i = int(id);
  if (i < 0 || i > 2) throw EngineError("ERR_UNKNOWN_CURVE", "unknown curve id " + std::to_string(i));
  return shapes[i];
}

}  // namespace msm
