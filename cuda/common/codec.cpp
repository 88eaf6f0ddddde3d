#include "codec.hpp"

#include <atomic>
#include <cstring>
#include <string>

#include "../curves/all.hpp"
#include "../ec/subgroup.hpp"
#include "../ec/subgroup_g2.hpp"
#include "parallel.hpp"

namespace msm {
namespace {

// The lowest failing index over all threads, with its error code (checks at one index run in
// the order encoding, curve, subgroup, so the code is that of the first check failing there).
struct FirstFailure {
  std::atomic<int64_t> index{INT64_MAX};
  void report(int64_t i) {
    int64_t cur = index.load();
    while (i < cur && !index.compare_exchange_weak(cur, i)) {
    }
  }
};

// Membership of the prime-order group: φ on G1 (ec/subgroup.hpp), ψ on G2 (ec/subgroup_g2.hpp).
template <class Curve>
bool in_prime_group(const ec::Affine<typename Curve::field>& p) {
  if constexpr (ff::is_fp2<typename Curve::field>)
    return ec::in_subgroup_g2<Curve>(p);
  else
    return ec::in_subgroup<Curve>(p);
}

enum Fail : uint8_t { OK = 0, ENCODING = 1, NOT_ON_CURVE = 2, NOT_IN_SUBGROUP = 3 };

template <class Curve>
AffineBuffer decode_points_t(const uint8_t* bytes, size_t n, PointFormat format, Validation validate, int threads) {
  using F = typename Curve::field;
  using A = ec::Affine<F>;
  constexpr size_t FB = F::BYTES;
  static_assert(sizeof(A) == 2 * FB, "affine layout must be x‖y limbs without padding");
  AffineBuffer out;
  out.n = n;
  out.limbs.assign(n * 2 * F::N, 0);
  std::vector<uint8_t> fail(n, OK);
  FirstFailure first;
  parallel_ranges(n, threads, 64, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      if (int64_t(i) > first.index.load(std::memory_order_relaxed)) return;  // a lower one failed
      const uint8_t* src = bytes + i * 2 * FB;
      A p;
      Fail f = OK;
      if (!F::load_le(src, p.x) || !F::load_le(src + FB, p.y)) {
        f = ENCODING;
      } else if (!p.is_inf()) {
        if (format == PointFormat::Canonical) p = A{F::to_mont(p.x), F::to_mont(p.y)};
        if (validate != Validation::None && !ec::on_curve<Curve>(p))
          f = NOT_ON_CURVE;
        else if (validate == Validation::Subgroup && !in_prime_group<Curve>(p))
          f = NOT_IN_SUBGROUP;
      }
      if (f != OK) {
        fail[i] = f;
        first.report(int64_t(i));
        return;
      }
      std::memcpy(&out.limbs[i * 2 * F::N], &p, sizeof(A));
    }
  });
  const int64_t bad = first.index.load();
  if (bad != INT64_MAX) {
    const std::string at = " at index " + std::to_string(bad);
    switch (fail[size_t(bad)]) {
      case ENCODING:
        throw EngineError("ERR_POINT_ENCODING", std::string("point coordinate not below the field modulus") + at, bad);
      case NOT_ON_CURVE:
        throw EngineError("ERR_POINT_NOT_ON_CURVE", std::string("point not on the curve") + at, bad);
      default:
        throw EngineError("ERR_POINT_NOT_IN_SUBGROUP", std::string("point not in the prime-order subgroup") + at, bad);
    }
  }
  return out;
}

template <class Fr>
void decode_scalars_t(const uint8_t* in, size_t n, bool montgomery, bool check_range, uint8_t* out, int threads) {
  static_assert(Fr::BYTES == 32, "scalars are 32 bytes");
  FirstFailure first;
  parallel_ranges(n, threads, 4096, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      Fr k;
      if (!Fr::load_le(in + 32 * i, k)) {
        if (check_range) {
          first.report(int64_t(i));
          return;
        }
        // Reduce mod r by subtraction: 2^256 / r < 16 for every r here.
        while (!k.is_reduced()) {
          uint64_t borrow = 0;
          for (int j = 0; j < Fr::N; ++j) k.limb[j] = ff::sbb(k.limb[j], Fr::params::modulus::at(j), borrow);
        }
      }
      if (montgomery) k = Fr::from_mont(k);
      k.store_le(out + 32 * i);
    }
  });
  const int64_t bad = first.index.load();
  if (bad != INT64_MAX)
    throw EngineError("ERR_SCALAR_RANGE", "scalar not below the group order at index " + std::to_string(bad), bad);
}

// Almost every scalar is decided by its top limb alone (below r's: reduced), one 8-byte load
// per 32 bytes, so the scan keeps pace with the call-time copy it is folded into (issue 10; the
// limb-by-limb compare for every scalar made that copy ~25 % slower at 2^24). A tie or a larger
// top limb reads the whole value.
template <class Fr>
int64_t first_unreduced_scalar_t(const uint8_t* in, size_t n, int threads) {
  static_assert(Fr::N * 8 == 32, "scalars are 32 bytes, four 64-bit limbs");
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the top limb is read as a host integer");
  const uint64_t top = Fr::modulus().limb[Fr::N - 1];
  FirstFailure first;
  parallel_ranges(n, threads, 1 << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      uint64_t w;
      std::memcpy(&w, in + 32 * i + 24, 8);
      if (w < top) continue;
      Fr k;
      if (!Fr::load_le(in + 32 * i, k)) {
        first.report(int64_t(i));
        return;
      }
    }
  });
  const int64_t bad = first.index.load();
  return bad == INT64_MAX ? -1 : bad;
}

}  // namespace

AffineBuffer decode_points(CurveId curve, Group group, const uint8_t* bytes, size_t n, PointFormat format,
                           Validation validate, int threads) {
  return visit_group(curve, group,
                     [&](auto g) { return decode_points_t<decltype(g)>(bytes, n, format, validate, threads); });
}

void decode_scalars(CurveId curve, const uint8_t* in, size_t n, bool montgomery, bool check_range, uint8_t* out,
                    int threads) {
  visit_curve(curve, [&](auto g) {
    decode_scalars_t<typename decltype(g)::scalar>(in, n, montgomery, check_range, out, threads);
  });
}

int64_t first_unreduced_scalar(CurveId curve, const uint8_t* in, size_t n, int threads) {
  return visit_curve(curve, [&](auto g) { return first_unreduced_scalar_t<typename decltype(g)::scalar>(in, n, threads); });
}

void UnreducedScan::operator()(const uint8_t* piece, size_t offset, size_t len) {
  const int64_t at = int64_t(offset / 32);
  int64_t cur = first_.load(std::memory_order_relaxed);
  if (at > cur) return;  // a lower index is already known
  const int64_t i = first_unreduced_scalar(curve_, piece, len / 32, 1);
  if (i < 0) return;
  while (at + i < cur && !first_.compare_exchange_weak(cur, at + i)) {
  }
}

uint64_t UnreducedScan::top() const {
  return visit_curve(curve_, [](auto g) {
    using Fr = typename decltype(g)::scalar;
    return Fr::modulus().limb[Fr::N - 1];
  });
}

int64_t UnreducedScan::first() const {
  const int64_t i = first_.load();
  return i == INT64_MAX ? -1 : i;
}

}  // namespace msm
