// The one interface every MSM backend implements (CPU in cuda/cpu, CUDA in cuda/msm), and the only
// thing the N-API glue (cuda/addon) sees of them: no field or curve templates cross this line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bytes.hpp"
#include "curves/list.hpp"
#include "options.hpp"

namespace msm {

#define MSM_CURVE_ENUMERATOR(a, Id, ns) Id,
enum class CurveId { MSM_CURVES(MSM_CURVE_ENUMERATOR, ) };
inline constexpr CurveId kCurves[] = {
#define MSM_CURVE_ID(a, Id, ns) CurveId::Id,
    MSM_CURVES(MSM_CURVE_ID, )};
#undef MSM_CURVE_ENUMERATOR
#undef MSM_CURVE_ID

// Whether the addon runs `group` of `id` (every curve's G1; G2 for MSM_G2_CURVES).
inline constexpr bool curve_has_group(CurveId id, Group group) {
  if (group == Group::g1) return true;
#define MSM_G2_CURVE_IS(a, Id, ns) \
  if (id == CurveId::Id) return group == Group::g2;
  MSM_G2_CURVES(MSM_G2_CURVE_IS, )
#undef MSM_G2_CURVE_IS
  return false;
}

// Byte sizes of one (curve, group)'s encodings (see lib/native.ts for the formats), from its g1 or
// g2 struct.
struct CurveShape {
  const char* name;      // "bn254", "bls12-381", …: the curve's name in the JS API
  Group group;
  size_t field_bytes;    // bytes of one coordinate, an element of the group's field: Fp (8 per
                         // 64-bit limb) for G1, Fp2 = c0‖c1 (twice that) for G2
  size_t scalar_bytes;   // always 32 for the curves here
  unsigned scalar_bits;  // bit length of r
};

// Throws EngineError ERR_INVALID_OPTION (no_group) where the curve has no such group here.
const CurveShape& curve_shape(CurveId id, Group group = Group::g1);
// The curve whose curve_shape(id).name is name; false when none is.
bool curve_by_name(const std::string& name, CurveId& id);
// The error for a group the curve lacks (!curve_has_group): ERR_INVALID_OPTION naming the curve.
[[noreturn]] void no_group(CurveId id, Group group);

// Error with a stable code (lib/native.ts lists them) and, where an input element is at fault,
// its index (-1 otherwise). The addon turns it into a JS Error with .code and .index.
struct EngineError : std::runtime_error {
  std::string code;
  int64_t index;
  EngineError(std::string c, const std::string& msg, int64_t idx = -1)
      : std::runtime_error(msg), code(std::move(c)), index(idx) {}
};


// Points handed to a backend: n affine points, x‖y, each coordinate field_bytes/8 little-endian
// 64-bit limbs in Montgomery form (the layout of ec/affine.hpp; a G2 coordinate is c0's limbs then
// c1's, ff/fp2.hpp), infinity = all-zero limbs.
// Already parsed, converted and validated by the glue.
struct AffineBuffer {
  std::vector<uint64_t> limbs;  // n · 2 · (field_bytes / 8)
  size_t n = 0;
};

// One MSM's scalars: n canonical little-endian 32-byte integers, already checked < r by the glue,
// and the ticket take_scalars gave these exact bytes (0: none, or they changed since).
struct ScalarSet {
  const uint8_t* data;
  uint64_t ticket = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Several MSMs over the same bases (CUDA overlaps the next upload with the current compute).
  // outs: 2·field_bytes per MSM (curve_shape(curve(), group())), canonical little-endian x‖y
  // (x.c0‖x.c1‖y.c0‖y.c1 for G2), all zeros for infinity.
  virtual void msm_batch(const std::vector<ScalarSet>& scalars, size_t n, uint8_t* outs) = 0;
  // One MSM: a batch of one.
  void msm(const uint8_t* scalars, size_t n, uint8_t* out) { msm_batch({ScalarSet{scalars}}, n, out); }
  // The call-time copy of one MSM's scalars (issue 10), on the caller's thread, into memory this
  // engine reads fastest, each piece shown to inspect once copied (the glue's range check). With
  // upload_now, an engine may also start moving the bytes to where its kernels read them while it
  // copies, and set ticket: msm_batch then skips that upload if the copy is still in place.
  // Throws std::bad_alloc.
  virtual HostBytes take_scalars(const uint8_t* src, size_t bytes, bool upload_now, uint64_t& ticket,
                                 const HostBytes::Inspect& inspect) {
    (void)upload_now;
    ticket = 0;
    return HostBytes::copy_of(src, bytes, inspect);
  }
  virtual CurveId curve() const = 0;
  // The group of the bases: G1 unless the engine says otherwise (both engines run both groups).
  virtual Group group() const { return Group::g1; }
  virtual size_t size() const = 0;
  virtual size_t host_memory() const = 0;
  virtual size_t device_memory() const = 0;
  virtual int window_bits() const = 0;
  virtual int tau() const = 0;
};

// The bases are in group opt.group of curve (both backends run both groups).
std::unique_ptr<Engine> make_cpu_engine(CurveId curve, AffineBuffer&& points, const EngineOptions& opt);

// CUDA side (cuda/msm when built with CUDA, cuda/msm/no_cuda.cpp otherwise).
struct CudaDevice {
  int index;
  std::string name;
  int cc_major, cc_minor;
  size_t total_memory;
  int multiprocessors;
};
struct CudaStatus {
  bool compiled = false;
  bool available = false;
  std::string reason;  // empty when available
  int runtime_version = 0;
  int driver_version = 0;
  std::vector<CudaDevice> devices;
};
CudaStatus cuda_status();
// Throws EngineError ERR_CUDA_UNAVAILABLE (with the reason), ERR_CUDA_OOM or ERR_CUDA.
// Calls on one device are serialised inside the CUDA backend.
std::unique_ptr<Engine> make_cuda_engine(CurveId curve, AffineBuffer&& points, const EngineOptions& opt);

}  // namespace msm
