// The CPU backend behind engine.hpp: affine bases in Montgomery form, Pippenger per call.
#include <cstring>
#include <string>

#include "../curves/all.hpp"
#include "../engine.hpp"
#include "pippenger.hpp"

namespace msm {
namespace {

template <class Curve>
class CpuEngine final : public Engine {
  using F = typename Curve::field;
  using A = ec::Affine<F>;
  static constexpr unsigned kScalarBits = Curve::scalar::params::BITS;

 public:
  CpuEngine(CurveId id, AffineBuffer&& buf, const EngineOptions& opt)
      : id_(id), threads_(default_threads(opt.threads)), c_fixed_(opt.window_bits) {
    check_options(Backend::cpu, opt);
    check_size(Backend::cpu, buf.n);
    if (buf.limbs.size() != buf.n * 2 * F::N)
      throw EngineError("ERR_INVALID_ARGUMENT", "affine buffer size does not match its point count");
    points_.resize(buf.n);
    if (buf.n) std::memcpy(points_.data(), buf.limbs.data(), buf.n * sizeof(A));
    skip_.resize(buf.n);
    size_t inf = 0;
    for (size_t i = 0; i < buf.n; ++i) inf += skip_[i] = points_[i].is_inf();
    if (inf == 0) skip_.clear();
  }

  void msm_batch(const std::vector<const uint8_t*>& scalars, size_t n, uint8_t* outs) override {
    if (n != points_.size())
      throw EngineError("ERR_LENGTH_MISMATCH",
                        "expected " + std::to_string(points_.size()) + " scalars, got " + std::to_string(n));
    for (size_t k = 0; k < scalars.size(); ++k) {
      uint8_t* out = outs + k * 2 * F::BYTES;
      const auto r = cpu::Pippenger<F>::run(points_.data(), skip_.empty() ? nullptr : skip_.data(), scalars[k], 32, n,
                                            kScalarBits, window_bits(), threads_);
      const A a = r.to_affine();
      if (a.is_inf()) {
        std::memset(out, 0, 2 * F::BYTES);
        continue;
      }
      F::from_mont(a.x).store_le(out);
      F::from_mont(a.y).store_le(out + F::BYTES);
    }
  }

  CurveId curve() const override { return id_; }
  size_t size() const override { return points_.size(); }
  size_t host_memory() const override { return points_.size() * sizeof(A) + skip_.size(); }
  size_t device_memory() const override { return 0; }
  int window_bits() const override {
    return c_fixed_ ? c_fixed_ : cpu::choose_window(std::max<size_t>(points_.size(), 1), kScalarBits);
  }
  int tau() const override { return 0; }

 private:
  CurveId id_;
  int threads_;
  int c_fixed_;
  std::vector<A> points_;
  std::vector<uint8_t> skip_;  // empty when no base is O
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(CurveId curve, AffineBuffer&& points, const EngineOptions& opt) {
  return visit_curve(curve, [&](auto g) -> std::unique_ptr<Engine> {
    return std::make_unique<CpuEngine<decltype(g)>>(curve, std::move(points), opt);
  });
}

}  // namespace msm
