#include "options.hpp"

#include <cctype>

#include "engine.hpp"

namespace msm {

bool accumulation_by_name(const std::string& name, Accumulation& out) {
  for (int i = 0; i < kAccumulationCount; ++i)
    if (name == kAccumulationNames[i]) return out = Accumulation(i), true;
  return false;
}

const BackendLimits& backend_limits(Backend b) {
  // CPU: 2^20 buckets per thread and window is where the bucket memory stops paying for itself
  // (cpu/pippenger.hpp). CUDA: the recoding table (2^c + 1 words) and the 32-bit sort values, which
  // hold EXP and the point index: 27 bits of index up to c = 16, 26 bits above (msm/recode.cuh; the
  // plan refuses c > 16 for 2^26 points or more); τ ≤ c − 1.
  // Threads (host threads: the CPU engine's workers, both backends' point decoding): at most 1024,
  // above the hardware threads of any one host today (768 on two 192-core SMT sockets), since more
  // threads than cores buy nothing, while each CPU worker holds its own 2^(c−1) buckets (96 MiB at
  // c = 20 on BLS12-381): 4096 of them asked for 384 GiB. Within the bound, an allocation that
  // still fails is ERR_OUT_OF_MEMORY.
  // Groups: both backends run G1 and G2 (the curves that have one, curves/list.hpp), every
  // accumulation mode of theirs included (ec/G2.md).
  static const BackendLimits cpu{{1, 20}, {0, -1}, {0, 1024}, (uint64_t(1) << 32) - 1, {true, false, false}, {true, true}};
  static const BackendLimits cuda{{2, 22}, {0, 21}, {0, 1024}, (uint64_t(1) << 27) - 1, {true, true, true}, {true, true}};
  return b == Backend::cuda ? cuda : cpu;
}

namespace {
[[noreturn]] void bad(Backend b, const char* option, const std::string& expected, int got) {
  throw EngineError("ERR_INVALID_OPTION", std::string("option '") + option + "' must be " + expected + " on the " +
                                              kBackendNames[int(b)] + " backend (got " + std::to_string(got) + ")");
}
std::string range(const IntRange& r) {
  return "an integer in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]";
}
}  // namespace

void check_options(Backend b, const EngineOptions& opt) {
  const BackendLimits& l = backend_limits(b);
  const int group = int(opt.group);
  if (group < 0 || group >= kGroupCount || !l.groups[group]) {
    std::string name = group >= 0 && group < kGroupCount ? kGroupNames[group] : "?", upper = name;
    for (char& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    throw EngineError("ERR_INVALID_OPTION", "option 'group' '" + name + "': " + upper + " is not available on the " +
                                                kBackendNames[int(b)] + " backend yet");
  }
  if (opt.window_bits != 0 && !l.window_bits.contains(opt.window_bits))
    bad(b, "windowBits", range(l.window_bits), opt.window_bits);
  if (opt.tau != -1 && !l.tau.empty() && !l.tau.contains(opt.tau)) bad(b, "tau", range(l.tau), opt.tau);
  if (!l.threads.contains(opt.threads)) bad(b, "threads", range(l.threads), opt.threads);
  const int mode = int(opt.accumulation);
  if (mode < 0 || mode >= kAccumulationCount || !l.accumulation[mode]) {
    std::string modes;
    for (int m = 0; m < kAccumulationCount; ++m)
      if (l.accumulation[m]) modes += std::string(modes.empty() ? "'" : ", '") + kAccumulationNames[m] + "'";
    throw EngineError("ERR_INVALID_OPTION", std::string("option 'accumulation' must be ") + modes + " on the " +
                                                kBackendNames[int(b)] + " backend (got '" +
                                                (mode >= 0 && mode < kAccumulationCount ? kAccumulationNames[mode] : "?") +
                                                "')");
  }
  if (opt.device < 0) bad(b, "device", "a device index ≥ 0", opt.device);
  if (!opt.devices.empty() && b != Backend::cuda)
    throw EngineError("ERR_INVALID_OPTION", "option 'devices' is for the cuda backend only");
  for (size_t i = 0; i < opt.devices.size(); ++i) {
    if (opt.devices[i] < 0) bad(b, "devices", "a list of device indices ≥ 0", opt.devices[i]);
    for (size_t j = 0; j < i; ++j)
      if (opt.devices[j] == opt.devices[i]) bad(b, "devices", "a list of distinct device indices", opt.devices[i]);
  }
}

void check_size(Backend b, uint64_t n) {
  const uint64_t most = backend_limits(b).max_points;
  if (n > most)
    throw EngineError("ERR_INVALID_ARGUMENT", "the " + std::string(kBackendNames[int(b)]) + " backend takes at most " +
                                                  std::to_string(most) + " points per context (got " +
                                                  std::to_string(n) + ")");
}

}  // namespace msm
