// Input decoding shared by every backend (non-template interface; the field code stays inside
// codec.cpp): points from the byte formats of lib/native.ts into engine.hpp's AffineBuffer, with
// the range, on-curve and subgroup checks; scalars into canonical little-endian integers < r.
#pragma once

#include <atomic>
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

// The same scan, of a buffer seen piece by piece by the copy that makes it, on the copying threads
// (a HostBytes::Inspect): the call-time copy of scalars checks their range while each piece is
// in cache, instead of a second pass over all of them (512 MB at 2^24) in the worker (issue 10).
class UnreducedScan {
 public:
  explicit UnreducedScan(CurveId curve) : curve_(curve) {}
  // piece: the scalars at byte offset `offset` (a multiple of 32) of the buffer, len bytes.
  void operator()(const uint8_t* piece, size_t offset, size_t len);
  // The lowest index of a value ≥ r seen, or -1.
  int64_t first() const;
  // r's top 64-bit limb: a scalar whose top limb is below it is < r (HostBytes::Inspect::top).
  uint64_t top() const;

 private:
  CurveId curve_;
  std::atomic<int64_t> first_{INT64_MAX};
};

}  // namespace msm
