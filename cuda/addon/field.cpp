#include "field.hpp"

#include <mutex>
#include <string>
#include <vector>

#include "../common/parallel.hpp"
#include "../cpu/ntt.hpp"
#include "../cpu/qap.hpp"
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

// ERR_INVALID_ARGUMENT naming the lowest index of an element of x[0, n) not below the modulus.
template <class F>
void check_reduced(const F* x, size_t n, const char* what, int threads) {
  std::mutex m;
  int64_t bad = -1;
  parallel_ranges(n, threads, 1 << 14, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i)
      if (!x[i].is_reduced()) {
        std::lock_guard<std::mutex> lock(m);
        if (bad < 0 || int64_t(i) < bad) bad = int64_t(i);
        return;
      }
  });
  if (bad >= 0)
    throw EngineError("ERR_INVALID_ARGUMENT", std::string(what) + std::to_string(bad) + " is not below the field's modulus",
                      bad);
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
      check_reduced(x, n, "element ", threads_);
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

// ---- groth16Qap -------------------------------------------------------------------------------

enum class QapOp { abc = 0, join = 1, quotient = 2 };

class QapWorker : public PromiseWorker {
 public:
  QapWorker(Napi::Env env, CurveId curve, QapOp op, InputBytes&& data, InputBytes&& witness, size_t domain,
            size_t n_vars, std::vector<uint8_t>&& roots, int threads)
      : PromiseWorker(env, "msm-cuda:qap"),
        curve_(curve),
        op_(op),
        data_(std::move(data)),
        witness_(std::move(witness)),
        domain_(domain),
        n_vars_(n_vars),
        roots_(std::move(roots)),
        threads_(threads) {}

 private:
  void run() override {
    visit_curve(curve_, [&](auto g) {
      using F = typename decltype(g)::scalar;
      const size_t n = domain_;
      out_ = HostBytes::allocate((op_ == QapOp::abc ? 3 : 1) * n * F::BYTES);
      if (op_ == QapOp::join) {  // data: a‖b‖c
        const F* x = reinterpret_cast<const F*>(data_.data());
        check_reduced(x, 3 * n, "element ", threads_);
        return cpu::join_abc(x, x + n, x + 2 * n, out_.data(), n, threads_);
      }
      const F* w = reinterpret_cast<const F*>(witness_.data());
      check_reduced(w, n_vars_, "wtns section 2 (witness): element ", threads_);
      const size_t n_coefs = data_.size() / (cpu::kCoefHeader + F::BYTES);
      const cpu::CoefProblem bad = cpu::check_coefs<F>(data_.data(), n_coefs, n, n_vars_, threads_);
      if (bad.index >= 0)
        throw EngineError("ERR_INVALID_ARGUMENT",
                          "zkey section 4 (coefficients): entry " + std::to_string(bad.index) + ": " + bad.why, bad.index);
      if (op_ == QapOp::abc) {
        F* a = reinterpret_cast<F*>(out_.data());
        return cpu::build_abc(data_.data(), n_coefs, w, a, a + n, a + 2 * n, n, threads_);
      }
      cpu::QapRoots<F> r;
      F* rs[] = {&r.w, &r.w_inv, &r.inv_n, &r.inc};
      for (int i = 0; i < 4; ++i)
        if (!F::load_le(roots_.data() + i * F::BYTES, *rs[i]))
          throw EngineError("ERR_INVALID_ARGUMENT", "root " + std::to_string(i) + " is not below the field's modulus");
      HostBytes scratch = HostBytes::allocate(3 * n * F::BYTES);
      F* a = reinterpret_cast<F*>(scratch.data());
      cpu::quotient(data_.data(), n_coefs, w, a, a + n, a + 2 * n, log2_exact(n), r, out_.data(), threads_);
    });
  }

  Napi::Value result(Napi::Env env) override { return to_js_bytes(env, std::move(out_)); }

  CurveId curve_;
  QapOp op_;
  InputBytes data_, witness_;  // copied at the call
  size_t domain_, n_vars_;
  std::vector<uint8_t> roots_;
  int threads_;
  HostBytes out_;
};

bool get_bytes(const Napi::Value& v, const char* what, size_t unit, InputBytes& out, Failure& f) {
  if (!is_uint8_array(v) || v.As<Napi::Uint8Array>().ByteLength() % unit != 0)
    return invalid(f, std::string(what) + " must be a Uint8Array of a multiple of " + std::to_string(unit) + " bytes");
  out.take(v, false);
  return true;
}

Napi::Value groth16_qap_body(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Failure f;
  CurveId curve = CurveId::BN254;
  int op = 0, log_n = 0, threads = 0;
  if (!parse_curve(info[0], curve, f) || !get_int(info[1], "op", 0, 2, 0, op, f) ||
      !get_int(info[4], "log2 of the domain size", 0, 30, 0, log_n, f) ||
      !get_int(info[6], "threads", 0, 1 << 16, 0, threads, f))
    return rejected(env, f);
  const size_t eb = element_bytes(curve), n = size_t(1) << log_n;
  std::vector<uint8_t> roots;
  if (op == int(QapOp::quotient) && !get_element(info[5], "roots", 4 * eb, false, roots, f)) return rejected(env, f);
  InputBytes data, witness;
  const size_t n_vars = is_uint8_array(info[3]) ? info[3].As<Napi::Uint8Array>().ByteLength() / eb : 0;
  if (op == int(QapOp::join)) {
    if (!get_bytes(info[2], "a‖b‖c", eb, data, f)) return rejected(env, f);
    if (data.size() != 3 * n * eb) return rejected(env, "ERR_LENGTH_MISMATCH", "a‖b‖c must hold 3 × the domain size elements");
  } else if (!get_bytes(info[2], "zkey section 4's entries", cpu::kCoefHeader + eb, data, f) ||
             !get_bytes(info[3], "the witness", eb, witness, f)) {
    return rejected(env, f);
  }
  auto* w = new QapWorker(env, curve, QapOp(op), std::move(data), std::move(witness), n, n_vars,
                          std::move(roots), default_threads(threads));
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

}  // namespace

Napi::Value field_transform(const Napi::CallbackInfo& info) {
  return promise_call(info.Env(), [&] { return field_transform_body(info); });
}

Napi::Value groth16_qap(const Napi::CallbackInfo& info) {
  return promise_call(info.Env(), [&] { return groth16_qap_body(info); });
}

}  // namespace msm::addon
