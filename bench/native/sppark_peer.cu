// sppark as a peer of the GPU bench (issue 12, "side by side"): a harness of our own around sppark's
// msm_t, compiled against a sppark checkout and blst (their headers and sources are not ours and are
// not in this tree; CMake builds this only when SPPARK_DIR and BLST_DIR are given). One executable
// per curve: sppark selects its field types at compile time (FEATURE_BN254 / FEATURE_BLS12_381).
//
//   sppark_peer_<curve> POINTS SCALARS RUNS
//
// POINTS: n affine points, canonical little-endian x‖y (our packed 'le' form, what the test addon's
// generatePoints writes); converted here to sppark's Montgomery form and uploaded once, so the
// bases stay resident as ours do. SCALARS: n × 32-byte little-endian canonical scalars (sppark's
// mont = false). After one warm-up, RUNS timed MSMs from the scalars in pageable memory, then RUNS
// from pinned memory (sppark's fastest path): each time covers the scalar upload, the MSM and the
// conversion of sppark's Jacobian result to affine, as bench/gpu.ts times ours. Prints one JSON
// line: {"n", "pageableMs": [...], "pinnedMs": [...], "x", "y"} with the affine result as canonical
// hex (both "0x0" for the point at infinity). Every run's result must equal the warm-up's.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#if defined(FEATURE_BN254)
#include <ff/alt_bn128.hpp>
#elif defined(FEATURE_BLS12_381)
#include <ff/bls12-381.hpp>
#else
#error "define FEATURE_BN254 or FEATURE_BLS12_381"
#endif
#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "sppark_peer: %s\n", what.c_str());
  std::exit(1);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) fail(std::string("cannot open ") + path);
  const std::streamsize size = f.tellg();
  std::vector<uint8_t> out(size_t(size > 0 ? size : 0));
  f.seekg(0);
  if (size > 0 && !f.read(reinterpret_cast<char*>(out.data()), size)) fail(std::string("cannot read ") + path);
  return out;
}

// A canonical field element as hex, most significant digit first (limbs little-endian in memory).
std::string hex(const fp_t& v) {
  uint8_t b[sizeof(fp_t)];
  std::memcpy(b, &v, sizeof b);
  std::string s;
  static const char* digits = "0123456789abcdef";
  for (size_t i = sizeof b; i-- > 0;) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  const size_t nz = s.find_first_not_of('0');
  return "0x" + (nz == std::string::npos ? std::string("0") : s.substr(nz));
}

using msm_type = msm_t<bucket_t, point_t, affine_t, scalar_t>;

// One MSM from host scalars, its result as canonical affine (x, y) hex.
std::pair<std::string, std::string> run(msm_type& msm, size_t n, const scalar_t* scalars) {
  point_t out;
  const RustError e = msm.invoke(out, static_cast<const affine_t*>(nullptr), n, scalars, false);  // null: the resident bases
  if (e.code != 0) fail(std::string("msm_t::invoke: ") + (e.message ? e.message : cudaGetErrorString(cudaError_t(e.code))));
  if (out.is_inf()) return {"0x0", "0x0"};
  const affine_t a = out;
  fp_t xy[2];
  static_assert(sizeof(affine_t) == 2 * sizeof(fp_t), "sppark's affine point is x then y");
  std::memcpy(xy, &a, sizeof xy);
  xy[0].from();
  xy[1].from();
  return {hex(xy[0]), hex(xy[1])};
}

std::string list(const std::vector<double>& xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) {
    char b[32];
    std::snprintf(b, sizeof b, "%s%.4f", i ? "," : "", xs[i]);
    s += b;
  }
  return s + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) fail("usage: sppark_peer POINTS SCALARS RUNS");
  const int runs = std::atoi(argv[3]);
  if (runs < 1) fail("RUNS must be at least 1");
  std::vector<uint8_t> point_bytes = read_file(argv[1]);
  std::vector<uint8_t> scalar_bytes = read_file(argv[2]);
  constexpr size_t kPoint = 2 * sizeof(fp_t);
  if (point_bytes.size() % kPoint != 0) fail("POINTS is not a whole number of points");
  const size_t n = point_bytes.size() / kPoint;
  if (scalar_bytes.size() != n * sizeof(scalar_t)) fail("SCALARS does not hold one 32-byte scalar per point");

  std::vector<affine_t> points(n);
  for (size_t i = 0; i < n; ++i) {
    fp_t xy[2];
    std::memcpy(xy, point_bytes.data() + i * kPoint, kPoint);
    const bool inf = xy[0].is_zero() && xy[1].is_zero();  // ours: all zeros; sppark's: (0, 0) too
    if (!inf) xy[0].to(), xy[1].to();
    points[i] = affine_t(xy[0], xy[1]);
  }
  point_bytes = {};
  const scalar_t* pageable = reinterpret_cast<const scalar_t*>(scalar_bytes.data());
  scalar_t* pinned = nullptr;
  check(cudaHostAlloc(reinterpret_cast<void**>(&pinned), n * sizeof(scalar_t), cudaHostAllocDefault), "cudaHostAlloc");
  std::memcpy(pinned, pageable, n * sizeof(scalar_t));

  std::vector<double> pageable_ms, pinned_ms;
  std::pair<std::string, std::string> first;
  {
    msm_type msm(points.data(), n);  // the bases, resident
    first = run(msm, n, pageable);
    for (int pass = 0; pass < 2; ++pass) {
      const scalar_t* from = pass == 0 ? pageable : pinned;
      std::vector<double>& times = pass == 0 ? pageable_ms : pinned_ms;
      for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto q = run(msm, n, from);
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (q != first) fail("a run's result differs from the warm-up's");
      }
    }
  }
  check(cudaFreeHost(pinned), "cudaFreeHost");
  std::printf("{\"n\":%zu,\"pageableMs\":%s,\"pinnedMs\":%s,\"x\":\"%s\",\"y\":\"%s\"}\n", n, list(pageable_ms).c_str(),
              list(pinned_ms).c_str(), first.first.c_str(), first.second.c_str());
  return 0;
}
