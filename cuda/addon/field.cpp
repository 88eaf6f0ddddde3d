#include "field.hpp"

#include <mutex>
#include <string>
#include <vector>

#include "../common/parallel.hpp"
#include "../cpu/ntt.hpp"
#include "../curves/all.hpp"
#include "args.hpp"
#include "errors.hpp"
#include "worker.hpp"

namespace msm::addon {
namespace {

enum class FieldOp { ntt = 0, pow_mul = 1 };

// Bytes of an element of the curve's scalar field (Montgomery form, little-endian limbs).
size_t element_bytes(CurveId curve) {
  return visit_curve(curve, [](auto g) { return decltype(g)::scalar::BYTES; });
}

int log2_exact(size_t n) {
  int k = 0;
  while ((size_t(1) << k) < n) ++k;
  return (size_t(1) << k) == n ? k : -1;
}

class FieldWorker : public PromiseWorker {
 public:
  FieldWorker(Napi::Env env, CurveId curve, FieldOp op, InputBytes&& data, std::vector<uint8_t>&& a,
              std::vector<uint8_t>&& b, int threads)
      : PromiseWorker(env, "msm-cuda:field"),
        curve_(curve),
        op_(op),
        data_(std::move(data)),
        a_(std::move(a)),
        b_(std::move(b)),
        threads_(threads) {}

 private:
  void run() override {
    visit_curve(curve_, [&](auto g) {
      using F = typename decltype(g)::scalar;
      const auto load = [](const std::vector<uint8_t>& bytes, const char* what) {
        F v;
        if (!F::load_le(bytes.data(), v))
          throw EngineError("ERR_INVALID_ARGUMENT", std::string(what) + " is not below the field's modulus");
        return v;
      };
      const size_t n = data_.size() / F::BYTES;
      F* x = reinterpret_cast<F*>(data_.data());
      std::mutex m;
      int64_t bad = -1;  // the lowest index of an element ≥ the modulus
      parallel_ranges(n, threads_, 1 << 14, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i)
          if (!x[i].is_reduced()) {
            std::lock_guard<std::mutex> lock(m);
            if (bad < 0 || int64_t(i) < bad) bad = int64_t(i);
            return;
          }
      });
      if (bad >= 0)
        throw EngineError("ERR_INVALID_ARGUMENT", "element " + std::to_string(bad) + " is not below the field's modulus",
                          bad);
      const int threads = threads_;
      if (op_ == FieldOp::ntt) {
        const F root = load(a_, "the root");
        if (b_.empty()) return cpu::ntt(x, log2_exact(n), root, static_cast<const F*>(nullptr), threads);
        const F scale = load(b_, "the scale");
        cpu::ntt(x, log2_exact(n), root, &scale, threads);
      } else {
        cpu::pow_mul(x, n, load(a_, "first"), load(b_, "inc"), threads);
      }
    });
  }

  Napi::Value result(Napi::Env env) override { return to_js_bytes(env, data_.release_copy()); }

  CurveId curve_;
  FieldOp op_;
  InputBytes data_;  // copied at the call, transformed in place
  std::vector<uint8_t> a_, b_;
  int threads_;
};

bool get_element(const Napi::Value& v, const char* what, size_t bytes, bool optional, std::vector<uint8_t>& out,
                 Failure& f) {
  if (optional && (v.IsUndefined() || v.IsNull())) return true;
  if (!is_uint8_array(v) || v.As<Napi::Uint8Array>().ByteLength() != bytes)
    return invalid(f, std::string(what) + " must be a Uint8Array of " + std::to_string(bytes) + " bytes");
  auto a = v.As<Napi::Uint8Array>();
  out.assign(a.Data(), a.Data() + bytes);
  return true;
}

Napi::Value field_transform_body(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Failure f;
  CurveId curve = CurveId::BN254;
  int op = 0, threads = 0;
  if (!parse_curve(info[0], curve, f) || !get_int(info[1], "op", 0, 1, 0, op, f) ||
      !get_int(info[5], "threads", 0, 1 << 16, 0, threads, f))
    return rejected(env, f);
  const size_t eb = element_bytes(curve);
  std::vector<uint8_t> a, b;
  if (!get_element(info[3], op == 0 ? "root" : "first", eb, false, a, f) ||
      !get_element(info[4], op == 0 ? "scale" : "inc", eb, op == 0, b, f))
    return rejected(env, f);
  std::vector<Napi::Uint8Array> parts;
  size_t bytes = 0;
  bool list = false;
  if (!get_point_parts(info[2], eb, parts, bytes, list, f, "data")) return rejected(env, f);
  if (op == 0 && log2_exact(bytes / eb) < 0)
    return rejected(env, "ERR_INVALID_ARGUMENT",
                     "an NTT needs a power-of-two number of elements (got " + std::to_string(bytes / eb) + ")");
  InputBytes data;
  data.take_parts(parts);  // always a copy: the result is written over it
  auto* w = new FieldWorker(env, curve, FieldOp(op), std::move(data), std::move(a), std::move(b),
                            default_threads(threads));
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

}  // namespace

Napi::Value field_transform(const Napi::CallbackInfo& info) {
  return promise_call(info.Env(), [&] { return field_transform_body(info); });
}

}  // namespace msm::addon
