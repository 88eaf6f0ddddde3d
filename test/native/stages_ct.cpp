// `testing` exports for the constant-time mode and the homogeneous formulas, run on the host from
// the same __host__ __device__ code the kernels use:
//  - accumulateCt / ctAggregate: Alg. 4's §5 layout and the op_index rounds (ct_aggregate.cuh) with
//    integers for points (O = 0, PADD = +), so test/stages.test.ts checks every bucket against the
//    plain sums and the Alg. 5 path on adversarial layouts;
//  - homogeneousCheck: RCB Alg. 7/8/9, mmadd-1998-cmo and the XYZZ conversion (ec/homogeneous.hpp)
//    against the XYZZ formulas on random points and every exceptional pair, of G1 or G2.
#include <napi.h>

#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "args.hpp"
#include "curves/all.hpp"
#include "ec/homogeneous.hpp"
#include "ec/xyzz.hpp"
#include "hooks.hpp"
#include "msm/accumulate.cuh"
#include "msm/recode.cuh"
#include "msm/ct_aggregate.cuh"

namespace msm::testing {
namespace {

// An integer "point": O = 0, PADD = + (mod 2^64).
struct IntPoint {
  uint64_t v;
  static IntPoint infinity() { return IntPoint{0}; }
  IntPoint add(const IntPoint& o) const { return IntPoint{v + o.v}; }
};

struct IntCtAcc {
  const uint64_t* weights;
  IntPoint* buffer;
  uint64_t acc = 0;
  void restart(bool cond) { acc = cond ? 0 : acc; }
  void add(uint32_t v, bool skip) { acc = skip ? acc : acc + weights[v]; }
  void store(uint32_t slot) { buffer[slot] = IntPoint{acc}; }
};

// accumulateCt(keys (sorted, one window), weights, T, c) → { index, buffer } of P = ct_padded(T + M)
// slots, O / index 0 where no run was stored.
Napi::Value accumulate_ct(const Napi::CallbackInfo& cb) {
  auto keys = typed_arg<Napi::Uint32Array>(cb, 0, "keys");
  auto weights = typed_arg<Napi::BigUint64Array>(cb, 1, "weights");
  const uint32_t T = u32_arg(cb, 2, "T"), c = u32_arg(cb, 3, "c");
  const uint32_t n = uint32_t(keys.ElementLength());
  if (weights.ElementLength() != n || T == 0 || c < 2 || c > 16) fail(cb.Env(), "bad keys, weights, T or c");
  const uint32_t M = 1u << (c - 2);
  for (uint32_t i = 0; i < n; ++i)
    if (keys[i] > M || (i && keys[i] < keys[i - 1])) fail(cb.Env(), "keys must be sorted and ≤ 2^(c−2)");
  std::vector<uint32_t> values(n);
  for (uint32_t i = 0; i < n; ++i) values[i] = i;
  const uint32_t P = gpu::ct_padded(gpu::buffer_slots(T, gpu::log2_buckets(int(c))));
  std::vector<uint32_t> index(P, 0);
  std::vector<IntPoint> buffer(P, IntPoint{0});
  for (uint32_t tid = 0; tid < T; ++tid) {
    IntCtAcc acc{weights.Data(), buffer.data()};
    gpu::accumulate_thread_ct(tid, gpu::thread_span(0, n, T, tid), keys.Data(), values.data(), index.data(), acc);
  }
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  auto idx = Napi::Uint32Array::New(env, P);
  std::memcpy(idx.Data(), index.data(), P * 4);
  auto buf = Napi::BigUint64Array::New(env, P);
  for (uint32_t s = 0; s < P; ++s) buf[s] = buffer[s].v;
  o.Set("index", idx);
  o.Set("buffer", buf);
  return o;
}

// ctAggregate(index, buffer, c) → BigUint64Array(M): bucket p (= index p + 1) after the §5 rounds.
// A bucket written twice throws (a run cut in two would lose one of its parts).
Napi::Value ct_aggregate(const Napi::CallbackInfo& cb) {
  auto index_in = typed_arg<Napi::Uint32Array>(cb, 0, "index");
  auto buffer_in = typed_arg<Napi::BigUint64Array>(cb, 1, "buffer");
  const uint32_t c = u32_arg(cb, 2, "c");
  const uint32_t P = uint32_t(index_in.ElementLength());
  if (buffer_in.ElementLength() != P || P < 4 || (P & (P - 1)) || c < 2 || c > 16)
    fail(cb.Env(), "index and buffer must have the same power-of-two length ≥ 4");
  const uint32_t M = 1u << (c - 2);
  std::vector<uint32_t> index(index_in.Data(), index_in.Data() + P);
  std::vector<IntPoint> buf(P);
  for (uint32_t s = 0; s < P; ++s) buf[s] = IntPoint{buffer_in[s]};
  for (uint32_t v : index)
    if (v > M) fail(cb.Env(), "index above 2^(c−2)");
  // Each bucket may receive one OUT: a run cut in two would lose one part. Writes are seen as a
  // change of the buckets a group can reach (its four indices).
  std::vector<IntPoint> buckets(M, IntPoint{0});
  std::vector<uint32_t> writes(M, 0);
  auto bucket_at = [&](uint32_t v) { return &buckets[v - 1]; };
  auto watched = [&](auto&& step, std::initializer_list<uint32_t> positions) {
    uint32_t v[4] = {};
    uint64_t before[4] = {};
    int k = 0;
    for (uint32_t pos : positions) {
      v[k] = index[pos];
      before[k] = v[k] ? buckets[v[k] - 1].v : 0;
      ++k;
    }
    step();
    for (int i = 0; i < k; ++i) {
      bool seen = v[i] == 0;
      for (int j = 0; j < i; ++j) seen |= v[j] == v[i];
      if (!seen && buckets[v[i] - 1].v != before[i]) ++writes[v[i] - 1];
    }
  };
  for (int r = 0, rounds = gpu::ct_rounds(P); r < rounds; ++r) {
    const uint32_t d = 1u << r;
    for (uint32_t q = 0; q < P / (4 * d); ++q) {
      const uint32_t base = 4 * d * q;
      watched([&] { gpu::ct_group(buf.data(), index.data(), base, d, bucket_at); },
              {base, base + d, base + 2 * d, base + 3 * d});
    }
  }
  watched([&] { gpu::ct_final(buf.data(), index.data(), P / 2, bucket_at); }, {0u, P / 2});
  for (uint32_t p = 0; p < M; ++p)
    if (writes[p] > 1) fail(cb.Env(), "bucket " + std::to_string(p + 1) + " written " + std::to_string(writes[p]) + " times");
  Napi::Env env = cb.Env();
  auto out = Napi::BigUint64Array::New(env, M);
  for (uint32_t p = 0; p < M; ++p) out[p] = buckets[p].v;
  return out;
}

// A non-zero field element from v (Fp: v | 1; Fp2: (v | 1) + w·u).
template <class F>
F nonzero_element(uint64_t v, uint64_t w) {
  if constexpr (ff::is_fp2<F>) return F{F::base::from_u64(v | 1), F::base::from_u64(w)};
  else return F::from_u64(v | 1);
}

// homogeneousCheck(curve, count, seed, group?) → { checked, mismatches, first }.
template <class G>
Napi::Value homogeneous_check(Napi::Env env, uint32_t count, uint32_t seed) {
  using F = typename G::field;
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;
  using H = ec::HomogeneousOf<G>;
  std::mt19937_64 rng(seed);
  const A g{F::to_mont(F::template from_table<typename G::gen_x>()), F::to_mont(F::template from_table<typename G::gen_y>())};
  auto random_point = [&]() {
    const uint64_t k[2] = {rng(), rng() >> 1};
    return ec::scalar_mul(g, k, 2);
  };
  // An arbitrary projective representative: (λx : λy : λ).
  auto scaled = [&](const A& a) {
    if (a.is_inf()) return H::infinity();
    const F l = nonzero_element<F>(rng(), rng());
    return H{a.x * l, a.y * l, l};
  };
  uint32_t checked = 0, mismatches = 0;
  std::string first;
  auto expect = [&](const A& got, const X& want, const char* what) {
    ++checked;
    if (!want.equals(got)) {
      ++mismatches;
      if (first.empty()) first = what;
    }
  };
  {  // mul_b3 multiplies by 3b (the curve's b_mont); for G1, b_int is b
    const F b = F::template from_table<typename G::b_mont>();
    bool ok = true;
    if constexpr (!ec::has_mul_b3<G>) ok = F::from_u64(G::b_int) == b;
    for (int k = 0; k < 8; ++k) {
      const F t = k == 0 ? F::zero() : k == 1 ? F::one() : k == 2 ? -F::one() : nonzero_element<F>(rng(), rng());
      ok = ok && H::mul_b3(t) == t * (b + b + b);
    }
    ++checked;
    if (!ok) {
      ++mismatches;
      if (first.empty()) first = "b_int / mul_b3";
    }
  }
  for (uint32_t it = 0; it < count; ++it) {
    const A p = random_point().to_affine(), q = random_point().to_affine(), O = A::infinity();
    const X xp = X::from_affine(p), xq = X::from_affine(q);
    // (a, b) pairs: distinct, equal, opposite, with O on either side, O + O.
    const A lhs[] = {p, p, p, O, p, O};
    const A rhs[] = {q, p, -p, q, O, O};
    for (int k = 0; k < 6; ++k) {
      const X want = X::from_affine(lhs[k]).add(X::from_affine(rhs[k]));
      expect(scaled(lhs[k]).add(scaled(rhs[k])).to_affine(), want, "RCB Alg. 7 (add)");
      expect(scaled(lhs[k]).add(rhs[k]).to_affine(), want, "RCB Alg. 8 (mixed add)");
      expect(scaled(lhs[k]).add(rhs[k]).to_xyzz().to_affine(), want, "to_xyzz");
    }
    expect(scaled(p).dbl().to_affine(), xp.dbl(), "RCB Alg. 9 (dbl)");
    expect(H::infinity().dbl().to_affine(), X::infinity(), "RCB Alg. 9 (dbl O)");
    expect(H::add_distinct(p, q).to_affine(), xp.add(xq), "mmadd-1998-cmo");
    expect((-scaled(p)).to_affine(), -xp, "negation");
    expect(H::select(true, scaled(p), scaled(q)).to_affine(), xp, "select");
    expect(H::from_affine(O).to_affine(), X::infinity(), "from_affine(O)");
  }
  auto o = Napi::Object::New(env);
  o.Set("checked", double(checked));
  o.Set("mismatches", double(mismatches));
  o.Set("first", first);
  return o;
}

Napi::Value homogeneous_check_js(const Napi::CallbackInfo& cb) {
  if (cb.Length() < 1 || !cb[0].IsString()) fail(cb.Env(), "expected a curve");
  const std::string name = cb[0].As<Napi::String>();
  const uint32_t count = u32_arg(cb, 1, "count"), seed = u32_arg(cb, 2, "seed");
  return visit_group(curve_arg(cb.Env(), name), group_arg(cb, 3),
                     [&](auto g) { return homogeneous_check<decltype(g)>(cb.Env(), count, seed); });
}

}  // namespace

void register_stages_ct(Napi::Object t) {
  Napi::Env env = t.Env();
  t.Set("accumulateCt", Napi::Function::New(env, accumulate_ct, "accumulateCt"));
  t.Set("ctAggregate", Napi::Function::New(env, ct_aggregate, "ctAggregate"));
  t.Set("homogeneousCheck", Napi::Function::New(env, homogeneous_check_js, "homogeneousCheck"));
}

}  // namespace msm::testing
