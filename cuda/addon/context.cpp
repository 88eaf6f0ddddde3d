#include "context.hpp"

#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "../common/codec.hpp"
#include "../common/parallel.hpp"
#include "../engine.hpp"
#include "../options.hpp"
#include "args.hpp"
#include "errors.hpp"

namespace msm::addon {
namespace {

struct AddonData {
  Napi::FunctionReference context_ctor;
};

bool parse_curve(const Napi::Value& v, CurveId& id, Failure& f) {
  if (!v.IsString()) return invalid(f, "curve must be a string");
  const std::string s = v.As<Napi::String>().Utf8Value();
  if (curve_by_name(s, id)) return true;
  f = Failure{"ERR_UNKNOWN_CURVE", "curve '" + s + "' is not built into this addon", -1};
  return false;
}

// One of names[0..count), as its index; `undefined` gives dflt.
bool get_option_name(const Napi::Object& o, const char* name, const char* const* names, int count, int dflt, int& out,
                     Failure& f) {
  const Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return out = dflt, true;
  const std::string s = v.IsString() ? v.As<Napi::String>().Utf8Value() : "";
  std::string expected;
  for (int i = 0; i < count; ++i) {
    if (v.IsString() && s == names[i]) return out = i, true;
    expected += std::string(i ? (i + 1 == count ? " or '" : ", '") : "'") + names[i] + "'";
  }
  return bad_option(f, name, expected);
}

// ---- NativeContext -----------------------------------------------------------------------------

class NativeContext : public Napi::ObjectWrap<NativeContext> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(env, "NativeContext",
                       {
                           InstanceAccessor<&NativeContext::size>("size"),
                           InstanceAccessor<&NativeContext::memory>("memory"),
                           InstanceAccessor<&NativeContext::window_bits>("windowBits"),
                           InstanceAccessor<&NativeContext::tau>("tau"),
                           InstanceMethod<&NativeContext::msm>("msm"),
                           InstanceMethod<&NativeContext::msm_batch>("msmBatch"),
                           InstanceMethod<&NativeContext::close>("close"),
                       });
  }

  // Only created from C++: info[0] is an External owning a heap shared_ptr<Engine>.
  explicit NativeContext(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeContext>(info) {
    if (info.Length() < 1 || !info[0].IsExternal()) {
      Napi::TypeError::New(info.Env(), "NativeContext cannot be constructed from JavaScript")
          .ThrowAsJavaScriptException();
      return;
    }
    std::unique_ptr<std::shared_ptr<Engine>> holder(info[0].As<Napi::External<std::shared_ptr<Engine>>>().Data());
    engine_ = std::move(*holder);
    curve_ = engine_->curve();
    size_ = engine_->size();
    host_memory_ = engine_->host_memory();
    device_memory_ = engine_->device_memory();
    window_bits_ = engine_->window_bits();
    tau_ = engine_->tau();
  }

 private:
  Napi::Value size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), double(size_)); }
  Napi::Value memory(const Napi::CallbackInfo& info) {
    auto o = Napi::Object::New(info.Env());
    o.Set("host", Napi::Number::New(info.Env(), engine_ ? double(host_memory_) : 0.0));
    o.Set("device", Napi::Number::New(info.Env(), engine_ ? double(device_memory_) : 0.0));
    return o;
  }
  Napi::Value window_bits(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), window_bits_); }
  Napi::Value tau(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), tau_); }

  // Running workers hold their own reference, so the engine lives until the last one finishes.
  Napi::Value close(const Napi::CallbackInfo& info) {
    engine_.reset();
    return info.Env().Undefined();
  }

  Napi::Value msm(const Napi::CallbackInfo& info) { return queue(info, false); }
  Napi::Value msm_batch(const Napi::CallbackInfo& info) { return queue(info, true); }

  Napi::Value queue(const Napi::CallbackInfo& info, bool batch);

  std::shared_ptr<Engine> engine_;
  CurveId curve_ = CurveId::BN254;
  size_t size_ = 0, host_memory_ = 0, device_memory_ = 0;
  int window_bits_ = 0, tau_ = 0;
};

class MsmWorker : public Napi::AsyncWorker {
 public:
  MsmWorker(Napi::Env env, std::shared_ptr<Engine> engine, std::vector<HeldBytes>&& scalars,
            bool montgomery, bool check_range, bool batch)
      : Napi::AsyncWorker(env, "msm-cuda:msm"),
        deferred_(Napi::Promise::Deferred::New(env)),
        engine_(std::move(engine)),
        scalars_(std::move(scalars)),
        montgomery_(montgomery),
        check_range_(check_range),
        batch_(batch) {}

  Napi::Promise promise() const { return deferred_.Promise(); }

  void Execute() override {
    try {
      const CurveId curve = engine_->curve();
      const size_t n = engine_->size(), out_bytes = 2 * curve_shape(curve).field_bytes;
      const int threads = default_threads(0);
      std::vector<const uint8_t*> ptrs;
      decoded_.resize(scalars_.size());
      for (size_t e = 0; e < scalars_.size(); ++e) {
        const uint8_t* src = scalars_[e].data;
        try {
          // Canonical scalars already below r go to the engine as they are; anything else
          // (Montgomery form, or values ≥ r to reduce) is decoded into a copy.
          const int64_t bad = montgomery_ ? 0 : first_unreduced_scalar(curve, src, n, threads);
          if (bad < 0) {
            ptrs.push_back(src);
            continue;
          }
          if (check_range_ && !montgomery_)
            throw EngineError("ERR_SCALAR_RANGE",
                              "scalar not below the group order at index " + std::to_string(bad), bad);
          auto& s = decoded_[e];
          s.resize(scalars_[e].size);
          decode_scalars(curve, src, n, montgomery_, check_range_, s.data(), threads);
          ptrs.push_back(s.data());
        } catch (EngineError& err) {
          if (batch_) throw EngineError(err.code, std::string(err.what()) + " of batch entry " + std::to_string(e),
                                        err.index);
          throw;
        }
      }
      out_.assign(scalars_.size() * out_bytes, 0);
      if (batch_)
        engine_->msm_batch(ptrs, n, out_.data());
      else
        engine_->msm(ptrs[0], n, out_.data());
    } catch (...) {
      failure_ = Failure::from_current_exception();
      SetError(failure_.message);
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    const size_t count = scalars_.size(), each = count ? out_.size() / count : 0;
    auto make = [&](size_t i) {
      auto a = Napi::Uint8Array::New(env, each);
      std::copy(out_.begin() + i * each, out_.begin() + (i + 1) * each, a.Data());
      return a;
    };
    if (!batch_) return deferred_.Resolve(make(0));
    auto arr = Napi::Array::New(env, count);
    for (size_t i = 0; i < count; ++i) arr.Set(uint32_t(i), make(i));
    deferred_.Resolve(arr);
  }

  void OnError(const Napi::Error&) override { deferred_.Reject(failure_.to_js(Env())); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<Engine> engine_;
  std::vector<HeldBytes> scalars_;             // the caller's arrays, read in Execute
  std::vector<std::vector<uint8_t>> decoded_;  // canonical scalars < r
  bool montgomery_, check_range_, batch_;
  std::vector<uint8_t> out_;
  Failure failure_;
};

Napi::Value NativeContext::queue(const Napi::CallbackInfo& info, bool batch) {
  Napi::Env env = info.Env();
  if (!engine_) return rejected(env, "ERR_CONTEXT_CLOSED", "the context is closed");
  Failure f;
  int format = 0;
  bool check_range = true;
  std::vector<HeldBytes> sets;
  const size_t want = size_ * curve_shape(curve_).scalar_bytes;
  auto take = [&](const Napi::Value& v, const std::string& what) {
    HeldBytes bytes;
    if (!hold_bytes(v, what.c_str(), bytes, f)) return false;
    if (bytes.size != want) {
      f = Failure{"ERR_LENGTH_MISMATCH",
                  what + " has " + std::to_string(bytes.size) + " bytes, expected " + std::to_string(want) +
                      " (" + std::to_string(size_) + " scalars × 32)",
                  -1};
      return false;
    }
    sets.push_back(std::move(bytes));
    return true;
  };
  if (!get_int(info[1], "scalarFormat", 0, 1, 0, format, f) || !get_bool(info[2], "checkRange", true, check_range, f))
    return rejected(env, f);
  if (batch) {
    if (!info[0].IsArray()) return rejected(env, "ERR_INVALID_ARGUMENT", "scalars must be an array of Uint8Array");
    auto arr = info[0].As<Napi::Array>();
    for (uint32_t i = 0; i < arr.Length(); ++i)
      if (!take(arr.Get(i), "scalars[" + std::to_string(i) + "]")) return rejected(env, f);
    if (sets.empty()) {
      auto d = Napi::Promise::Deferred::New(env);
      d.Resolve(Napi::Array::New(env));
      return d.Promise();
    }
  } else if (!take(info[0], "scalars")) {
    return rejected(env, f);
  }
  auto* w = new MsmWorker(env, engine_, std::move(sets), format == 1, check_range, batch);
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

// ---- createContext -----------------------------------------------------------------------------

class CreateWorker : public Napi::AsyncWorker {
 public:
  CreateWorker(Napi::Env env, CurveId curve, HeldBytes&& points, int format, int validate, bool cuda,
               EngineOptions opt)
      : Napi::AsyncWorker(env, "msm-cuda:createContext"),
        deferred_(Napi::Promise::Deferred::New(env)),
        curve_(curve),
        points_(std::move(points)),
        format_(format),
        validate_(validate),
        cuda_(cuda),
        opt_(opt) {}

  Napi::Promise promise() const { return deferred_.Promise(); }

  void Execute() override {
    try {
      const size_t n = points_.size / (2 * curve_shape(curve_).field_bytes);
      AffineBuffer buf = decode_points(curve_, points_.data, n, PointFormat(format_), Validation(validate_),
                                       default_threads(opt_.threads));
      engine_ = cuda_ ? make_cuda_engine(curve_, std::move(buf), opt_) : make_cpu_engine(curve_, std::move(buf), opt_);
    } catch (...) {
      failure_ = Failure::from_current_exception();
      SetError(failure_.message);
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    auto* holder = new std::shared_ptr<Engine>(std::move(engine_));
    auto ext = Napi::External<std::shared_ptr<Engine>>::New(env, holder);
    Napi::Object obj = env.GetInstanceData<AddonData>()->context_ctor.New({ext});
    deferred_.Resolve(obj);
  }

  void OnError(const Napi::Error&) override { deferred_.Reject(failure_.to_js(Env())); }

 private:
  Napi::Promise::Deferred deferred_;
  CurveId curve_;
  HeldBytes points_;  // the caller's array, read once in Execute
  int format_, validate_;
  bool cuda_;
  EngineOptions opt_;
  std::shared_ptr<Engine> engine_;
  Failure failure_;
};

}  // namespace

void init_context_class(Napi::Env env) {
  auto* data = new AddonData();
  data->context_ctor = Napi::Persistent(NativeContext::define(env));
  env.SetInstanceData<AddonData>(data);
}

Napi::Value create_context(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Failure f;
  CurveId curve = CurveId::BN254;
  HeldBytes points;
  int format = 0, validate = 0;
  if (!parse_curve(info[0], curve, f) || !hold_bytes(info[1], "points", points, f) ||
      !get_int(info[2], "pointFormat", 0, 1, 0, format, f) || !get_int(info[3], "validate", 0, 2, 2, validate, f))
    return rejected(env, f);
  const size_t point_bytes = 2 * curve_shape(curve).field_bytes;
  if (points.size % point_bytes != 0)
    return rejected(env, "ERR_INVALID_ARGUMENT",
                    "points byte length " + std::to_string(points.size) + " is not a multiple of " +
                        std::to_string(point_bytes));
  EngineOptions opt;
  int backend = int(Backend::cpu), mode = int(Accumulation::xyzz);
  if (!info[4].IsUndefined()) {
    if (!info[4].IsObject()) return rejected(env, "ERR_INVALID_ARGUMENT", "options must be an object");
    auto o = info[4].As<Napi::Object>();
    if (!get_option_name(o, "backend", kBackendNames, int(std::size(kBackendNames)), backend, backend, f) ||
        !get_option_int(o, "device", 0, opt.device, f) || !get_option_int(o, "windowBits", 0, opt.window_bits, f) ||
        !get_option_int(o, "tau", -1, opt.tau, f) ||
        !get_option_name(o, "accumulation", kAccumulationNames, kAccumulationCount, mode, mode, f) ||
        !get_option_int(o, "threads", 0, opt.threads, f))
      return rejected(env, f);
    opt.accumulation = Accumulation(mode);
  }
  // The native re-check of lib/validate.ts, before any work is queued: the point decoding
  // already runs on opt.threads threads.
  try {
    check_options(Backend(backend), opt);
    check_size(Backend(backend), points.size / point_bytes);
  } catch (const EngineError& e) {
    return rejected(env, Failure{e.code, e.what(), e.index});
  }
  const bool cuda = Backend(backend) == Backend::cuda;
  auto* w = new CreateWorker(env, curve, std::move(points), format, validate, cuda, opt);
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

}  // namespace msm::addon
