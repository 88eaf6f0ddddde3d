// The CPU backend behind engine.hpp: affine bases in Montgomery form, Pippenger per call, for G1
// and G2 alike (Curve a g1 or g2 struct: Fp or Fp2 coordinates, the same scalars).
#include <cstdint>
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
      : id_(id), group_(opt.group), threads_(default_threads(opt.threads)), c_fixed_(opt.window_bits) {
    check_options(Backend::cpu, opt);
    check_size(Backend::cpu, buf.n);
    if (buf.limbs.size() != buf.n * 2 * F::N)
      throw EngineError("ERR_INVALID_ARGUMENT", "affine buffer size does not match its point count");
    // The decoded limbs are the bases in place (the layout of A: x‖y limbs, no padding), saving a
    // copy of them all; A's alignment (16) is operator new's on the 64-bit ABIs, checked anyway.
    static_assert(sizeof(A) == 2 * F::N * sizeof(uint64_t), "affine layout");
    n_ = buf.n;
    limbs_ = std::move(buf.limbs);
    if (reinterpret_cast<uintptr_t>(limbs_.data()) % alignof(A) != 0) {
      aligned_.resize(n_);
      if (n_) std::memcpy(static_cast<void*>(aligned_.data()), limbs_.data(), n_ * sizeof(A));
      std::vector<uint64_t>().swap(limbs_);
    }
    skip_.resize(n_);
    size_t inf = 0;
    for (size_t i = 0; i < n_; ++i) inf += skip_[i] = points()[i].is_inf();
    if (inf == 0) skip_.clear();
  }

  void msm_batch(const std::vector<ScalarSet>& scalars, size_t n, uint8_t* outs) override {
    if (n != n_)
      throw EngineError("ERR_LENGTH_MISMATCH", "expected " + std::to_string(n_) + " scalars, got " + std::to_string(n));
    for (size_t k = 0; k < scalars.size(); ++k) {
      uint8_t* out = outs + k * 2 * F::BYTES;
      const auto r = cpu::Pippenger<F>::run(points(), skip_.empty() ? nullptr : skip_.data(), scalars[k].data, 32, n,
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
  Group group() const override { return group_; }
  size_t size() const override { return n_; }
  size_t host_memory() const override { return n_ * sizeof(A) + skip_.size(); }
  size_t device_memory() const override { return 0; }
  int window_bits() const override {
    return c_fixed_ ? c_fixed_ : cpu::choose_window(std::max<size_t>(n_, 1), kScalarBits);
  }
  int tau() const override { return 0; }

 private:
  CurveId id_;
  Group group_;
  int threads_;
  int c_fixed_;
  const A* points() const { return aligned_.empty() ? reinterpret_cast<const A*>(limbs_.data()) : aligned_.data(); }

  size_t n_ = 0;
  std::vector<uint64_t> limbs_;  // n_ affine bases, as decoded (common/codec.hpp)
  std::vector<A> aligned_;       // …or their copy, where limbs_ is not aligned for A
  std::vector<uint8_t> skip_;    // empty when no base is O
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(CurveId curve, AffineBuffer&& points, const EngineOptions& opt) {
  return visit_group(curve, opt.group, [&](auto g) -> std::unique_ptr<Engine> {
    return std::make_unique<CpuEngine<decltype(g)>>(curve, std::move(points), opt);
  });
}

}  // namespace msm
