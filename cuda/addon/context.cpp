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
#include "worker.hpp"

namespace msm::addon {
namespace {

struct AddonData {
  Napi::FunctionReference context_ctor;
  // Set by CreateWorker only while it constructs a NativeContext, which copies it: the class
  // cannot be instantiated from JavaScript with anything else.
  const std::shared_ptr<Engine>* constructing = nullptr;
};

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

  // Only created by CreateWorker, which hands over its engine through AddonData::constructing.
  explicit NativeContext(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeContext>(info) {
    Napi::Env env = info.Env();
    auto* data = env.GetInstanceData<AddonData>();
    if (!data || !data->constructing) {
      throw Napi::Error(env, Failure{"ERR_INVALID_ARGUMENT",
                                     "NativeContext cannot be constructed from JavaScript: use createContext()", -1}
                                 .to_js(env));
    }
    engine_ = *data->constructing;
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

  Napi::Value msm(const Napi::CallbackInfo& info) {
    return promise_call(info.Env(), [&] { return queue(info, false); });
  }
  Napi::Value msm_batch(const Napi::CallbackInfo& info) {
    return promise_call(info.Env(), [&] { return queue(info, true); });
  }

  Napi::Value queue(const Napi::CallbackInfo& info, bool batch);

  std::shared_ptr<Engine> engine_;
  CurveId curve_ = CurveId::BN254;
  size_t size_ = 0, host_memory_ = 0, device_memory_ = 0;
  int window_bits_ = 0, tau_ = 0;
};

class MsmWorker : public PromiseWorker {
 public:
  MsmWorker(Napi::Env env, std::shared_ptr<Engine> engine, std::vector<InputBytes>&& scalars, bool montgomery,
            bool check_range, bool batch)
      : PromiseWorker(env, "msm-cuda:msm"),
        engine_(std::move(engine)),
        scalars_(std::move(scalars)),
        montgomery_(montgomery),
        check_range_(check_range),
        batch_(batch) {}

 private:
  void run() override {
    const CurveId curve = engine_->curve();
    const size_t n = engine_->size(), out_bytes = 2 * curve_shape(curve, engine_->group()).field_bytes;
    const int threads = default_threads(0);
    std::vector<ScalarSet> sets;
    for (size_t e = 0; e < scalars_.size(); ++e) {
      uint8_t* s = scalars_[e].data();
      uint64_t ticket = scalars_[e].ticket();
      try {
        // Canonical scalars already below r go to the engine as they are; anything else
        // (Montgomery form, or values ≥ r to reduce) is decoded in place: the bytes are ours.
        const int64_t bad = montgomery_              ? 0
                            : scalars_[e].scanned() ? scalars_[e].first_unreduced()
                                                    : first_unreduced_scalar(curve, s, n, threads);
        if (bad >= 0) {
          if (check_range_ && !montgomery_)
            throw EngineError("ERR_SCALAR_RANGE", "scalar not below the group order at index " + std::to_string(bad),
                              bad);
          decode_scalars(curve, s, n, montgomery_, check_range_, s, threads);
          ticket = 0;  // not the bytes take_scalars may have uploaded
        }
      } catch (EngineError& err) {
        if (batch_)
          throw EngineError(err.code, std::string(err.what()) + " of batch entry " + std::to_string(e), err.index);
        throw;
      }
      sets.push_back(ScalarSet{s, ticket});
    }
    out_.assign(scalars_.size() * out_bytes, 0);
    engine_->msm_batch(sets, n, out_.data());
  }

  Napi::Value result(Napi::Env env) override {
    const size_t count = scalars_.size(), each = count ? out_.size() / count : 0;
    auto make = [&](size_t i) {
      auto a = Napi::Uint8Array::New(env, each);
      std::copy(out_.begin() + i * each, out_.begin() + (i + 1) * each, a.Data());
      return a;
    };
    if (!batch_) return make(0);
    auto arr = Napi::Array::New(env, count);
    for (size_t i = 0; i < count; ++i) arr.Set(uint32_t(i), make(i));
    return arr;
  }

  std::shared_ptr<Engine> engine_;
  std::vector<InputBytes> scalars_;  // taken at call time; decoded in place
  bool montgomery_, check_range_, batch_;
  std::vector<uint8_t> out_;
};

// msm(scalars, scalarFormat, checkRange, owned) / msmBatch(sets, scalarFormat, checkRange, owned):
// the scalars are taken (InputBytes) before this returns.
Napi::Value NativeContext::queue(const Napi::CallbackInfo& info, bool batch) {
  Napi::Env env = info.Env();
  if (!engine_) return rejected(env, "ERR_CONTEXT_CLOSED", "the context is closed");
  Failure f;
  int format = 0;
  bool check_range = true, owned = false;
  if (!get_int(info[1], "scalarFormat", 0, 1, 0, format, f) || !get_bool(info[2], "checkRange", true, check_range, f) ||
      !get_bool(info[3], "owned", false, owned, f))
    return rejected(env, f);
  const size_t want = size_ * curve_shape(curve_).scalar_bytes;
  // All the values first (an array's getters run JS, which could resize an array already
  // checked), then their shapes and lengths, then the copies: no JS runs between the last two, and
  // nothing is copied for a call that is going to be refused.
  std::vector<Napi::Value> given;
  if (batch) {
    if (!info[0].IsArray()) return rejected(env, "ERR_INVALID_ARGUMENT", "scalars must be an array of Uint8Array");
    auto arr = info[0].As<Napi::Array>();
    const uint32_t count = arr.Length();
    for (uint32_t i = 0; i < count; ++i) given.push_back(arr.Get(i));
    if (given.empty()) {
      auto d = Napi::Promise::Deferred::New(env);
      d.Resolve(Napi::Array::New(env));
      return d.Promise();
    }
  } else {
    given.push_back(info[0]);
  }
  for (size_t i = 0; i < given.size(); ++i) {
    const std::string what = batch ? "scalars[" + std::to_string(i) + "]" : "scalars";
    const Napi::Value& v = given[i];
    if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      return rejected(env, "ERR_INVALID_ARGUMENT", what + " must be a Uint8Array");
    const size_t bytes = v.As<Napi::Uint8Array>().ByteLength();
    if (bytes != want)
      return rejected(env, "ERR_LENGTH_MISMATCH",
                      what + " has " + std::to_string(bytes) + " bytes, expected " + std::to_string(want) + " (" +
                          std::to_string(size_) + " scalars × 32)");
  }
  // Canonical scalars usually go to the device as they are: the engine may start their upload
  // now (the first two sets: it has two device buffers for them).
  std::vector<InputBytes> sets(given.size());
  for (size_t i = 0; i < given.size(); ++i) sets[i].take_scalars(given[i], owned, *engine_, format == 0 && i < 2);
  auto* w = new MsmWorker(env, engine_, std::move(sets), format == 1, check_range, batch);
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

// ---- createContext -----------------------------------------------------------------------------

class CreateWorker : public PromiseWorker {
 public:
  CreateWorker(Napi::Env env, CurveId curve, InputBytes&& points, int format, int validate, bool cuda,
               EngineOptions opt)
      : PromiseWorker(env, "msm-cuda:createContext"),
        curve_(curve),
        points_(std::move(points)),
        format_(format),
        validate_(validate),
        cuda_(cuda),
        opt_(opt) {}

 private:
  void run() override {
    const size_t n = points_.size() / (2 * curve_shape(curve_, opt_.group).field_bytes);
    AffineBuffer buf = decode_points(curve_, opt_.group, points_.data(), n, PointFormat(format_),
                                     Validation(validate_), default_threads(opt_.threads));
    points_.free_copy();  // decoded: the engine's copy is all that is needed from here on
    engine_ = cuda_ ? make_cuda_engine(curve_, std::move(buf), opt_) : make_cpu_engine(curve_, std::move(buf), opt_);
  }

  // If constructing the object fails, engine_ is still ours and goes with the worker.
  Napi::Value result(Napi::Env env) override {
    auto* data = env.GetInstanceData<AddonData>();
    data->constructing = &engine_;
    try {
      Napi::Object obj = data->context_ctor.New({});
      data->constructing = nullptr;
      return obj;
    } catch (...) {
      data->constructing = nullptr;
      throw;
    }
  }

  CurveId curve_;
  InputBytes points_;  // taken at call time
  int format_, validate_;
  bool cuda_;
  EngineOptions opt_;
  std::shared_ptr<Engine> engine_;
};

Napi::Value create_context_body(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Failure f;
  CurveId curve = CurveId::BN254;
  int format = 0, validate = 0;
  bool owned = false;
  if (!parse_curve(info[0], curve, f) || !get_int(info[2], "pointFormat", 0, 1, 0, format, f) ||
      !get_int(info[3], "validate", 0, 2, 2, validate, f) || !get_bool(info[5], "owned", false, owned, f))
    return rejected(env, f);
  EngineOptions opt;
  int backend = int(Backend::cpu), mode = int(Accumulation::xyzz), group = int(Group::g1);
  if (!info[4].IsUndefined()) {
    if (!info[4].IsObject()) return rejected(env, "ERR_INVALID_ARGUMENT", "options must be an object");
    auto o = info[4].As<Napi::Object>();
    if (!get_option_name(o, "backend", kBackendNames, int(std::size(kBackendNames)), backend, backend, f) ||
        !get_option_int(o, "device", 0, opt.device, f) || !get_option_int_list(o, "devices", opt.devices, f) ||
        !get_option_int(o, "windowBits", 0, opt.window_bits, f) ||
        !get_option_int(o, "tau", -1, opt.tau, f) ||
        !get_option_name(o, "accumulation", kAccumulationNames, kAccumulationCount, mode, mode, f) ||
        !get_option_int(o, "threads", 0, opt.threads, f) ||
        !get_option_name(o, "group", kGroupNames, kGroupCount, group, group, f))
      return rejected(env, f);
    opt.accumulation = Accumulation(mode);
    opt.group = Group(group);
  }
  // A group the curve lacks throws ERR_INVALID_OPTION here, which promise_call turns into the rejection.
  const size_t point_bytes = 2 * curve_shape(curve, opt.group).field_bytes;
  // The options object's getters have run, then the parts' (get_point_parts): from here on no JS
  // runs until the points are taken.
  std::vector<Napi::Uint8Array> parts;
  size_t bytes = 0;
  bool list = false;
  if (!get_point_parts(info[1], point_bytes, parts, bytes, list, f)) return rejected(env, f);
  // The native re-check of lib/validate.ts, before any work is queued (and before the points are
  // copied): the point decoding already runs on opt.threads threads.
  try {
    check_options(Backend(backend), opt);
    check_size(Backend(backend), bytes / point_bytes);
  } catch (const EngineError& e) {
    return rejected(env, Failure{e.code, e.what(), e.index});
  }
  // Parts are the caller's (lib/ hands over only its own single arrays as owned): always copied.
  InputBytes points;
  if (list)
    points.take_parts(parts);
  else
    points.take(info[1], owned);
  const bool cuda = Backend(backend) == Backend::cuda;
  auto* w = new CreateWorker(env, curve, std::move(points), format, validate, cuda, opt);
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

}  // namespace

void init_context_class(Napi::Env env) {
  auto* data = new AddonData();
  data->context_ctor = Napi::Persistent(NativeContext::define(env));
  env.SetInstanceData<AddonData>(data);
}

Napi::Value create_context(const Napi::CallbackInfo& info) {
  return promise_call(info.Env(), [&] { return create_context_body(info); });
}

// copyBytes(bytes) → a copy the caller may hand over later with owned = true (lib/native.ts). Large
// copies are an external ArrayBuffer over HostBytes (recycled buffers, huge pages: see
// common/bytes.hpp); where the runtime refuses external buffers, or for small ones, V8 allocates it.
Napi::Value copy_bytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return throwing_call(env, [&]() -> Napi::Value {
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      throw Napi::Error(env, Failure{"ERR_INVALID_ARGUMENT", "bytes must be a Uint8Array", -1}.to_js(env));
    auto src = info[0].As<Napi::Uint8Array>();
    const size_t size = src.ByteLength();
    if (size >= kExternalBytes) return to_js_bytes(env, HostBytes::copy_of(src.Data(), size));
    auto out = Napi::Uint8Array::New(env, size);
    HostBytes::copy(out.Data(), src.Data(), size);
    return out;
  });
}

}  // namespace msm::addon
