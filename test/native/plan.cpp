// planContext: the CUDA context plan (cuda/msm/plan.hpp) for any curve, size, options and device,
// with no GPU: what c, W, τ and T a context would get and how its one allocation is laid out.
#include <napi.h>

#include <cmath>
#include <string>

#include "addon/errors.hpp"
#include "args.hpp"
#include "curves/all.hpp"
#include "hooks.hpp"
#include "msm/curve_sizes.hpp"
#include "msm/tuning.hpp"

namespace msm::testing {
namespace {

// CUB's onesweep temp storage grows with n; the plan only lays it out, so any figure will do.
size_t fake_sort_temp(uint32_t n, int key_bits) { return size_t(n) * 4 + (size_t(1) << key_bits); }

int int_field(const Napi::Object& o, const char* key, int dflt) {
  const Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().Int32Value() : dflt;
}

// planContext(curve, n, { windowBits, tau, accumulation, group, buckets }, freeBytes, residentThreads)
//   → { c, W, D, sharedBuckets, tau, T, M, slots, chunkLog, sortGroup, tableLowered, sharedSum, total,
//       regions: { name: [offset, bytes] } }
// (group 'g2': the sizes of the curve's G2 points, curve_sizes of its g2 struct.) sharedSum: whether
// Alg. 4 keeps its sums in shared memory, decided as the engine decides it (tuning.hpp acc_shared_for).
Napi::Value plan_context(const Napi::CallbackInfo& cb) {
  Napi::Env env = cb.Env();
  if (cb.Length() < 5 || !cb[0].IsString() || !cb[1].IsNumber() || !cb[2].IsObject() || !cb[3].IsNumber() ||
      !cb[4].IsNumber())
    fail(env, "planContext(curve, n, options, freeBytes, residentThreads[, chunkThreads])");
  gpu::PlanInput in;
  const auto o = cb[2].As<Napi::Object>();
  const Napi::Value g = o.Get("group");
  const std::string group = g.IsUndefined() ? "g1" : g.IsString() ? g.As<Napi::String>().Utf8Value() : "?";
  if (group != "g1" && group != "g2") fail(env, "group must be 'g1' or 'g2'");
  in.options.group = group == "g2" ? Group::g2 : Group::g1;
  in.n = uint64_t(cb[1].As<Napi::Number>().DoubleValue());
  in.options.window_bits = int_field(o, "windowBits", 0);
  in.options.tau = int_field(o, "tau", -1);
  const Napi::Value buckets = o.Get("buckets");  // 'windows' | 'shared' | 'levels'; absent: the cost model's choice
  if (!buckets.IsUndefined()) {
    const std::string b = buckets.IsString() ? buckets.As<Napi::String>().Utf8Value() : "?";
    if (b != "windows" && b != "shared" && b != "levels") fail(env, "buckets must be 'windows', 'shared' or 'levels'");
    in.buckets = b == "windows" ? 1 : b == "shared" ? 2 : 3;
  }
  const Napi::Value mode = o.Get("accumulation");
  if (mode.IsString() && !accumulation_by_name(mode.As<Napi::String>().Utf8Value(), in.options.accumulation))
    fail(env, "unknown accumulation mode");
  try {
    visit_group(curve_arg(env, cb[0].As<Napi::String>()), in.options.group, [&](auto g) {
      using G = decltype(g);
      in.curve = gpu::curve_sizes<G>();
      in.shared_sum = gpu::acc_shared_for(in.n, ff::is_fp2<typename G::field>);
    });
  } catch (const EngineError&) {
    throw Napi::Error(env, addon::Failure::from_current_exception().to_js(env));
  }
  in.free_memory = size_t(cb[3].As<Napi::Number>().DoubleValue());
  in.resident_threads = u32_arg(cb, 4, "residentThreads");
  in.chunk_threads = cb.Length() > 5 ? u32_arg(cb, 5, "chunkThreads") : 0;
  in.sort_temp_bytes = fake_sort_temp;
  gpu::Plan p;
  try {
    p = gpu::make_plan(in);
  } catch (const EngineError&) {
    throw Napi::Error(env, addon::Failure::from_current_exception().to_js(env));
  }
  auto r = Napi::Object::New(env);
  r.Set("c", p.c);
  r.Set("W", p.W);
  r.Set("D", p.D);
  r.Set("sharedBuckets", p.shared_buckets);
  r.Set("levels", p.levels);
  r.Set("tau", p.tau);
  r.Set("T", double(p.T));
  r.Set("waves", double(p.waves));
  r.Set("M", double(p.M));
  r.Set("slots", double(p.slots));
  r.Set("chunkLog", p.chunk_log);
  r.Set("sortGroup", p.sort_group);
  r.Set("tableLowered", p.table_lowered);
  r.Set("sharedSum", p.shared_sum);
  auto cuts = Napi::Array::New(env, size_t(p.pieces));
  for (int i = 0; i < p.pieces; ++i) cuts.Set(uint32_t(i), double(p.cuts[i]));
  r.Set("cuts", cuts);
  r.Set("mode", kAccumulationNames[int(p.mode)]);
  r.Set("total", double(p.total));
  auto regions = Napi::Object::New(env);
  const auto put = [&](const char* name, const gpu::Region& g) {
    auto a = Napi::Array::New(env, 2);
    a.Set(0u, double(g.offset));
    a.Set(1u, double(g.bytes));
    regions.Set(name, a);
  };
  put("table", p.table);
  put("recodeTable", p.recode_table);
  put("scalars0", p.scalars[0]);
  put("scalars1", p.scalars[1]);
  put("keysIn", p.keys_in);
  put("valsIn", p.vals_in);
  put("keys", p.keys);
  put("vals", p.vals);
  put("sortTemp", p.sort_temp);
  put("buffer", p.buffer);
  put("ctRuns", p.ct_runs);
  put("bufOffset", p.buf_offset);
  put("bufUsed", p.buf_used);
  put("bufIndex", p.buf_index);
  put("buckets", p.buckets);
  put("heavy", p.heavy);
  put("heavyCount", p.heavy_count);
  put("chunkSums", p.chunk_sums);
  put("chunkRest", p.chunk_rest);
  put("bhat1", p.bhat1);
  put("windowSums", p.window_sums);
  r.Set("regions", regions);
  // The sizes the regions must hold, for the test to check the layout against.
  r.Set("affineBytes", double(in.curve.affine));
  r.Set("xyzzBytes", double(in.curve.xyzz));
  r.Set("homogeneousBytes", double(in.curve.homogeneous));
  return r;
}

}  // namespace

void register_plan(Napi::Object t) {
  t.Set("planContext", Napi::Function::New(t.Env(), plan_context, "planContext"));
}

}  // namespace msm::testing
