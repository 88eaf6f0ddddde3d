// The options an engine takes, and the one table of what each backend accepts. lib/validate.ts
// reads this table through info().limits and checks the caller's options against it before any
// native work; check_options() is the native re-check (the same table, the same code
// ERR_INVALID_OPTION), so a limit is written down here and nowhere else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace msm {

enum class Backend { cpu = 0, cuda = 1 };
inline constexpr const char* kBackendNames[] = {"cpu", "cuda"};

// The group the bases lie in: G1 ⊂ E(Fp), or G2 ⊂ E'(Fp2), the sextic twist (BN254 and BLS12-381
// only: curves/list.hpp MSM_G2_CURVES). One axis beside CurveId: a context is one (curve, group).
enum class Group { g1 = 0, g2 = 1 };
inline constexpr int kGroupCount = 2;
// As the JS API spells them (lib/validate.ts `Group`).
inline constexpr const char* kGroupNames[kGroupCount] = {"g1", "g2"};

// How points are added into buckets: one enum from the TypeScript API to the kernel.
//   xyzz           XYZZ mixed additions (Chen et al. §3.2 "cached Jacobian"), Alg. 5 aggregation;
//   homogeneous    §3.2 double-point additions in homogeneous coordinates, then Alg. 5;
//   constant_time  §5: τ = c − 1, complete homogeneous additions, §5's aggregation as a tree.
enum class Accumulation { xyzz = 0, homogeneous = 1, constant_time = 2 };
inline constexpr int kAccumulationCount = 3;
// As the JS API spells them (lib/validate.ts `AccumulationMode`).
inline constexpr const char* kAccumulationNames[kAccumulationCount] = {"xyzz", "homogeneous", "constant-time"};
bool accumulation_by_name(const std::string& name, Accumulation& out);

struct EngineOptions {
  int device = 0;            // CUDA device index
  std::vector<int> devices;  // CUDA devices to split the bases over (issue 13); empty: `device` alone
  int window_bits = 0;  // c; 0 = the backend's cost model picks
  int tau = -1;         // precompute depth τ (CUDA); -1 = the backend picks
  Accumulation accumulation = Accumulation::xyzz;
  int threads = 0;      // CPU threads; 0 = all cores
  Group group = Group::g1;
};

struct IntRange {
  int lo, hi;
  bool contains(int v) const { return v >= lo && v <= hi; }
  bool empty() const { return lo > hi; }  // the backend does not use the option
};

// What one backend accepts (reported by info().limits). An option a backend does not use (τ on
// the CPU) has an empty range and is ignored there; 0 (c, threads) and −1 (τ) always mean "the
// backend chooses".
struct BackendLimits {
  IntRange window_bits;  // explicit c
  IntRange tau;          // explicit τ; the CUDA plan also needs τ ≤ c − 1 (τ = c − 1 in constant time)
  IntRange threads;      // host worker threads
  uint64_t max_points;   // bases per context
  bool accumulation[kAccumulationCount];
  bool groups[kGroupCount];  // the groups it runs
};
const BackendLimits& backend_limits(Backend b);

// Throws EngineError ERR_INVALID_OPTION naming the option when a value is outside b's limits (a
// group b does not run included).
void check_options(Backend b, const EngineOptions& opt);
// Throws EngineError ERR_INVALID_ARGUMENT when n bases are more than one context of b takes.
void check_size(Backend b, uint64_t n);

}  // namespace msm
