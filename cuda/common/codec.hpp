// Input decoding shared by every backend (non-template interface; the field code stays inside
// codec.cpp): points from the byte formats of lib/native.ts into engine.hpp's AffineBuffer, with
// the range, on-curve and subgroup checks; scalars into canonical little-endian integers < r.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../engine.hpp"

namespace msm {

enum class PointFormat { Canonical = 0, Montgomery = 1 };
enum class Validation { None = 0, OnCurve = 1, Subgroup = 2 };

// bytes: n × 2·field_bytes of (curve, group) (curve_shape). Throws EngineError ERR_POINT_ENCODING /
// ERR_POINT_NOT_ON_CURVE / ERR_POINT_NOT_IN_SUBGROUP naming the lowest failing index, and
// ERR_INVALID_OPTION for a group the curve lacks. Multi-threaded.
AffineBuffer decode_points(CurveId curve, Group group, const uint8_t* bytes, size_t n, PointFormat format,
                           Validation validate, int threads);

// in: n × 32 bytes; out: n × 32 canonical bytes < r. Montgomery inputs are converted (x·R⁻¹).
// check_range: a value ≥ r throws ERR_SCALAR_RANGE (lowest index); otherwise it is reduced mod r.
void decode_scalars(CurveId curve, const uint8_t* in, size_t n, bool montgomery, bool check_range, uint8_t* out,
                    int threads);

// Read-only range scan of canonical scalars: the lowest index of a value ≥ r, or -1. Lets
// canonical input reach the engine without a decoded copy (512 MB at 2^24).
int64_t first_unreduced_scalar(CurveId curve, const uint8_t* in, size_t n, int threads);

}  // namespace msm
