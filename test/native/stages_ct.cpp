// `testing` exports for the constant-time mode and the homogeneous formulas, run on the host from
// the same __host__ __device__ code the kernels use:
//  - accumulateCt / ctAggregate: Alg. 4's constant-time layout (whole runs to their buckets, the
//    first and last of each thread to §5's buffer) and §5's tree levels in ct_aggregate.cu's
//    launches (ct_aggregate.cuh) with integers for points (O = 0, PADD = +), so
//    test/stages.test.ts checks every bucket against the plain sums on adversarial layouts;
//  - homogeneousCheck: RCB Alg. 7/8/9, mmadd-1998-cmo and the XYZZ conversions both ways (ec/homogeneous.hpp)
//    against the XYZZ formulas on random points and every exceptional pair, of G1 or G2;
//  - unblind: the host's last step of the mode, q − Σ_j 2^(jc)·(f + count_j)·R (msm/combine.hpp).
#include <napi.h>

#include <algorithm>
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
#include "msm/combine.hpp"
#include "msm/ct_aggregate.cuh"

namespace msm::testing {
namespace {

// An integer "point": O = 0, PADD = + (mod 2^64).
struct IntPoint {
  uint64_t v;
  static IntPoint infinity() { return IntPoint{0}; }
  IntPoint add(const IntPoint& o) const { return IntPoint{v + o.v}; }
  static IntPoint select(bool c, const IntPoint& a, const IntPoint& b) { return c ? a : b; }
};

struct IntCtAcc {
  const uint64_t* weights;
  IntPoint* buffer;
  IntPoint* buckets;
  uint32_t* bucket_writes;
  bool later;
  uint64_t acc = 0;
  void begin(uint32_t b, bool head) { acc = head || b == 0 || !later ? 0 : buckets[b - 1].v; }
  void add(uint32_t v, bool skip) { acc = skip ? acc : acc + weights[v]; }
  void store(uint32_t slot) { buffer[slot] = IntPoint{acc}; }
  void store_infinity(uint32_t slot) { buffer[slot] = IntPoint{0}; }
  void bucket(uint32_t b) {
    buckets[b - 1] = IntPoint{acc};
    ++bucket_writes[b - 1];
  }
};

// accumulateCt(keys (sorted, one window), weights, T, c, start?) → { index, buffer, buckets, written }:
// the §5 buffer of P = ct_window_slots(T) slots (O / index 0 where no run was stored) and the M
// buckets after Alg. 4's direct writes, with how often each was written. `start` (M values): the
// buckets of a call's earlier pieces, which this piece's runs start from (Workspace::later).
Napi::Value accumulate_ct(const Napi::CallbackInfo& cb) {
  auto keys = typed_arg<Napi::Uint32Array>(cb, 0, "keys");
  auto weights = typed_arg<Napi::BigUint64Array>(cb, 1, "weights");
  const uint32_t T = u32_arg(cb, 2, "T"), c = u32_arg(cb, 3, "c");
  const uint32_t n = uint32_t(keys.ElementLength());
  if (weights.ElementLength() != n || T == 0 || c < 2 || c > 16) fail(cb.Env(), "bad keys, weights, T or c");
  const uint32_t M = 1u << (c - 2);
  for (uint32_t i = 0; i < n; ++i)
    if (keys[i] > M || (i && keys[i] < keys[i - 1])) fail(cb.Env(), "keys must be sorted and ≤ 2^(c−2)");
  const bool later = cb.Length() > 4 && !cb[4].IsUndefined();
  std::vector<IntPoint> buckets(M, IntPoint{0});
  if (later) {
    auto start = typed_arg<Napi::BigUint64Array>(cb, 4, "start");
    if (start.ElementLength() != M) fail(cb.Env(), "start must hold 2^(c−2) buckets");
    for (uint32_t p = 0; p < M; ++p) buckets[p] = IntPoint{start[p]};
  }
  std::vector<uint32_t> values(n);
  for (uint32_t i = 0; i < n; ++i) values[i] = i;
  const uint32_t P = gpu::ct_window_slots(T);
  // Alg. 4 writes all 2T slots (nothing clears them before it): they start as garbage here, so that
  // a slot left unwritten shows; the padding past them is ct_open's, O and index 0
  std::vector<uint32_t> index(P, 0), writes(M, 0);
  std::vector<IntPoint> buffer(P, IntPoint{0});
  for (uint32_t s = 0; s < 2 * T && s < P; ++s) index[s] = 0xdeadbeefu, buffer[s] = IntPoint{0xdeadbeefdeadbeefull};
  for (uint32_t tid = 0; tid < T; ++tid) {
    IntCtAcc acc{weights.Data(), buffer.data(), buckets.data(), writes.data(), later};
    gpu::accumulate_thread_ct(tid, gpu::thread_span(0, n, T, tid), keys.Data(), values.data(), index.data(), acc);
  }
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  auto idx = Napi::Uint32Array::New(env, P);
  std::memcpy(idx.Data(), index.data(), P * 4);
  auto buf = Napi::BigUint64Array::New(env, P);
  for (uint32_t s = 0; s < P; ++s) buf[s] = buffer[s].v;
  auto bk = Napi::BigUint64Array::New(env, M);
  for (uint32_t p = 0; p < M; ++p) bk[p] = buckets[p].v;
  auto wr = Napi::Uint32Array::New(env, M);
  std::memcpy(wr.Data(), writes.data(), M * 4);
  o.Set("index", idx);
  o.Set("buffer", buf);
  o.Set("buckets", bk);
  o.Set("written", wr);
  return o;
}

// ctAggregate(index, buffer, c, block, resident, live) → { buckets, written }: bucket p (= index p +
// 1) after §5's level 1 as ct_open runs it (ct_first_level) and the other levels as ct_aggregate.cu
// launches them with `block` threads a block and `resident` blocks at once (ct_launch_last,
// ct_launch_base; block a power of two), over the blocks that hold the first `live` elements
// (ct_launch_blocks), and how often each bucket was written. Every pair
// with an element below `live` must be run exactly once, a pair left out must hold O and index 0
// only, and a bucket written twice throws (a run cut in two would lose one of its parts).
Napi::Value ct_aggregate(const Napi::CallbackInfo& cb) {
  auto index_in = typed_arg<Napi::Uint32Array>(cb, 0, "index");
  auto buffer_in = typed_arg<Napi::BigUint64Array>(cb, 1, "buffer");
  const uint32_t c = u32_arg(cb, 2, "c"), block = u32_arg(cb, 3, "block"), resident = u32_arg(cb, 4, "resident");
  const uint32_t live = u32_arg(cb, 5, "live");
  const uint32_t P = uint32_t(index_in.ElementLength());
  if (buffer_in.ElementLength() != P || P < 4 || (P & (P - 1)) || c < 2 || c > 16)
    fail(cb.Env(), "index and buffer must have the same power-of-two length ≥ 4");
  if (block == 0 || (block & (block - 1)) || resident == 0) fail(cb.Env(), "block must be a power of two, resident ≥ 1");
  const uint32_t M = 1u << (c - 2);
  std::vector<uint32_t> index(index_in.Data(), index_in.Data() + P);
  std::vector<IntPoint> buf(P);
  for (uint32_t s = 0; s < P; ++s) buf[s] = IntPoint{buffer_in[s]};
  for (uint32_t v : index)
    if (v > M) fail(cb.Env(), "index above 2^(c−2)");
  // Each bucket may receive one OUT: a run cut in two would lose one part. Writes are seen as a
  // change of the buckets a pair can reach (the keys it reads).
  std::vector<IntPoint> buckets(M, IntPoint{0});
  std::vector<uint32_t> writes(M, 0);
  std::vector<IntPoint> sinks(P);  // an OUT not taken, outside the buffer (ct_aggregate.cuh OutTargets)
  const auto outs = gpu::out_targets([&](uint32_t v) { return &buckets[v - 1]; }, [&](uint32_t s) { return &sinks[s]; });
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
  // The launches in order; inside one, block by block, each block's levels in order (the blocks'
  // elements are disjoint, so this is one order the device may take). Every pair of every level
  // must run once: counted against the tree's P/(2d), each base checked to be new.
  std::vector<uint32_t> ran(gpu::ct_rounds(P), 0);
  std::vector<std::vector<uint8_t>> done(ran.size());
  for (size_t r = 0; r < ran.size(); ++r) done[r].assign(P / (2u << r), 0);
  // Level 1 as ct_open runs it: ct_first_level on the pairs of live slots (ct_open's Alg. 4 threads),
  // which must leave every slot and index as ct_pair's addition at d = 1 would (it assumes a tail of
  // O wherever the two keys are "equal", as Alg. 4's layout has it); past `live` ct_open stores
  // padding without either, so ct_pair must change nothing there.
  {
    std::vector<uint32_t> index1 = index;
    std::vector<IntPoint> buf1 = buf;
    for (uint32_t base = 0; base < P; base += 2) {
      gpu::ct_pair(buf1.data(), index1.data(), base, 1, outs);
      if (base < live) buf[base + 1] = gpu::ct_first_level(index.data(), base, buf[base], buf[base + 1]);
      const bool same = buf[base].v == buf1[base].v && buf[base + 1].v == buf1[base + 1].v &&
                        index[base + 1] == index1[base + 1];
      if (!same && base < live) fail(cb.Env(), "level 1 without its addition differs from ct_pair's at slot " + std::to_string(base));
      if (!same) fail(cb.Env(), "a pair ct_open leaves out would have changed the tree (slot " + std::to_string(base) + ")");
    }
    ran[0] = P / 2;
    done[0].assign(P / 2, 1);
  }
  // The OUTs of distances from ds on, and the root's, are staged in the buffer (StagedOuts): each
  // record must land on a position no other took, and keep its value until the put pass reads it.
  const uint32_t ds = gpu::ct_stage_from(P, block, resident, live);
  std::vector<int64_t> staged_key(P, -1);
  std::vector<uint64_t> staged_value(P, 0);
  auto staged = [&](uint32_t d) {
    struct Checked {
      gpu::StagedOuts<IntPoint> s;
      std::vector<int64_t>* key;
      std::vector<uint64_t>* value;
      Napi::Env env;
      void put(const gpu::WholePoints& op, uint32_t k, bool on, uint32_t slot, const IntPoint& v) const {
        const uint32_t at = s.record(slot);
        if ((*key)[at] >= 0) fail(env, "a staged OUT on the record at " + std::to_string(at) + " of another");
        s.put(op, k, on, slot, v);
        (*key)[at] = s.index[at], (*value)[at] = v.v;
      }
    };
    return Checked{gpu::staged_outs(buf.data(), index.data(), d, P), &staged_key, &staged_value, cb.Env()};
  };
  bool finished = false;
  for (uint32_t d0 = gpu::kCtFirstDistance; d0 <= P / 2;) {
    const uint32_t d1 = gpu::ct_launch_last(d0, P, block, resident, live);
    if (d1 < d0 || d1 > P / 2 || (d1 & (d1 - 1))) fail(cb.Env(), "a launch ending outside the levels");
    // The blocks the launch leaves out are run too, and must change nothing (their elements and every
    // bucket as they were): only padding, as ct_open stores it.
    const uint32_t held = gpu::ct_launch_blocks(P, d1, live);
    if (held == 0 || uint64_t(held) * 2 * d1 < std::min<uint64_t>(live, P)) fail(cb.Env(), "a launch leaves out live elements");
    for (uint32_t b = 0; b < P / (2 * d1); ++b) {
      const bool left_out = b >= held;
      const uint32_t lo = 2 * d1 * b, hi = lo + 2 * d1;
      std::vector<uint32_t> index_before;
      std::vector<uint64_t> before;
      if (left_out) {
        index_before.assign(index.begin() + lo, index.begin() + hi);
        for (uint32_t e = lo; e < hi; ++e) before.push_back(buf[e].v);
        for (const IntPoint& q : buckets) before.push_back(q.v);
      }
      for (uint32_t d = d0; d <= d1; d <<= 1) {
        for (uint32_t k = 0; k < d1 / d; ++k) {
          const uint32_t base = gpu::ct_launch_base(b, k, d, d1);
          if (base % (2 * d) || base + 2 * d > P) fail(cb.Env(), "a pair outside the level's layout");
          int r = 0;
          while ((1u << r) < d) ++r;
          if (done[r][base / (2 * d)]++) fail(cb.Env(), "a pair run twice in level " + std::to_string(r));
          ++ran[r];
          if (d >= ds) gpu::ct_pair(buf.data(), index.data(), base, d, staged(d));
          else watched([&] { gpu::ct_pair(buf.data(), index.data(), base, d, outs); }, {base + d / 2, base + d});
        }
      }
      if (left_out) {
        std::vector<uint64_t> after;
        for (uint32_t e = lo; e < hi; ++e) after.push_back(buf[e].v);
        for (const IntPoint& q : buckets) after.push_back(q.v);
        if (after != before || !std::equal(index_before.begin(), index_before.end(), index.begin() + lo))
          fail(cb.Env(), "a block the launch leaves out would have changed the tree");
      }
    }
    if (d1 == P / 2) {  // the last launch: one block, which ends with ct_root
      gpu::ct_root(buf.data(), index.data(), P / 2, staged(P));
      finished = true;
    }
    d0 = 2 * d1;
  }
  if (!finished) fail(cb.Env(), "no launch ended at P/2");
  // ct_put_kernel: every staged pair's two records to their bucket (counted) or sink.
  for (uint32_t s = 0; s < P; ++s)
    if (staged_key[s] >= 0 && (int64_t(index[s]) != staged_key[s] || buf[s].v != staged_value[s]))
      fail(cb.Env(), "the staged OUT at " + std::to_string(s) + " was overwritten before the put pass");
  struct Counted {
    std::vector<IntPoint>* buckets;
    std::vector<uint32_t>* writes;
    std::vector<IntPoint>* sinks;
    void put(const gpu::WholePoints&, uint32_t key, bool on, uint32_t slot, const IntPoint& v) const {
      if (on && key != 0) (*buckets)[key - 1] = v, ++(*writes)[key - 1];
      else (*sinks)[slot] = v;
    }
  };
  for (uint32_t h = 0; h < gpu::ct_staged_pairs(P, ds); ++h) {
    const gpu::CtRecords r = gpu::ct_staged_records(P, h);
    if (h > 0 && r.base >= live && (index[r.a] != 0 || index[r.b] != 0 || buf[r.a].v != 0 || buf[r.b].v != 0))
      fail(cb.Env(), "ct_put_pair passes over a staged OUT past the live slots, at " + std::to_string(r.a));
    gpu::ct_put_pair(buf.data(), index.data(), P, live, h, Counted{&buckets, &writes, &sinks});
  }
  for (int r = 0; r < int(ran.size()); ++r)
    if (ran[r] != P / (2u << r)) fail(cb.Env(), "level " + std::to_string(r) + " ran " + std::to_string(ran[r]) + " pairs");
  for (uint32_t p = 0; p < M; ++p)
    if (writes[p] > 1) fail(cb.Env(), "bucket " + std::to_string(p + 1) + " written " + std::to_string(writes[p]) + " times");
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  auto out = Napi::BigUint64Array::New(env, M);
  for (uint32_t p = 0; p < M; ++p) out[p] = buckets[p].v;
  auto wr = Napi::Uint32Array::New(env, M);
  std::memcpy(wr.Data(), writes.data(), M * 4);
  o.Set("buckets", out);
  o.Set("written", wr);
  return o;
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
      H in_place = scaled(lhs[k]);
      H::add_into(in_place, scaled(rhs[k]));
      expect(in_place.to_affine(), want, "RCB Alg. 7 in place (add_into)");
      expect(scaled(lhs[k]).add(rhs[k]).to_affine(), want, "RCB Alg. 8 (mixed add)");
      expect(scaled(lhs[k]).add(rhs[k]).to_xyzz().to_affine(), want, "to_xyzz");
      // XYZZ → homogeneous (the bucket reduction's chunk sums, reduce.cu): want's ZZ is not 1 after an
      // addition, and O must come out as RCB's (0 : 1 : 0), which the next complete addition takes.
      expect(H::from_xyzz(want).to_affine(), want, "from_xyzz");
      expect(H::from_xyzz(want).add(scaled(q)).to_affine(), want.add(xq), "from_xyzz, then RCB Alg. 7");
    }
    expect(H::from_xyzz(xp.dbl()).add(H::from_xyzz(X::infinity())).to_affine(), xp.dbl(), "from_xyzz(O) as an operand");
    expect(H::from_xyzz(X::infinity()).dbl().to_affine(), X::infinity(), "from_xyzz(O), doubled");
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

// unblind(curve, a, b: Uint8Array(32) little-endian, counts: BigUint64Array (W), [f, top]:
// BigUint64Array, c, group?) → { digits, point }: combine.hpp's unblinded(a·G, unblind_table(b·G,
// unblind_digits(top, W, c)), counts, f, W, c), canonical affine x‖y (G2: x.c0‖x.c1‖y.c0‖y.c1).
template <class G>
Napi::Value unblind(const Napi::CallbackInfo& cb) {
  using F = typename G::field;
  using A = ec::Affine<F>;
  auto words = [&](size_t i, const char* what) {
    auto b = typed_arg<Napi::Uint8Array>(cb, i, what);
    if (b.ByteLength() != 32) fail(cb.Env(), std::string(what) + " must be 32 bytes");
    std::vector<uint64_t> k(4, 0);
    for (size_t j = 0; j < 32; ++j) k[j / 8] |= uint64_t(b[j]) << (8 * (j % 8));
    return k;
  };
  const std::vector<uint64_t> a = words(1, "a"), b = words(2, "b");
  auto counts = typed_arg<Napi::BigUint64Array>(cb, 3, "counts");
  auto params = typed_arg<Napi::BigUint64Array>(cb, 4, "[f, top]");
  const uint32_t c = u32_arg(cb, 5, "c");
  const int W = int(counts.ElementLength());
  if (W == 0 || params.ElementLength() != 2 || c == 0 || c > 32) fail(cb.Env(), "bad counts, [f, top] or c");
  const A g{F::to_mont(F::template from_table<typename G::gen_x>()), F::to_mont(F::template from_table<typename G::gen_y>())};
  const int digits = gpu::unblind_digits(params[1], W, int(c));
  const auto table = gpu::unblind_table<G>(ec::scalar_mul(g, b.data(), 4).to_affine(), digits);
  auto out = Napi::Uint8Array::New(cb.Env(), 2 * F::BYTES);
  try {
    const auto q = gpu::unblinded<G>(ec::scalar_mul(g, a.data(), 4), table, counts.Data(), params[0], W, int(c));
    gpu::write_affine<G>(q, out.Data());
  } catch (const EngineError& e) {
    Napi::Error err = Napi::Error::New(cb.Env(), e.what());
    err.Set("code", Napi::String::New(cb.Env(), e.code));
    throw err;
  }
  auto o = Napi::Object::New(cb.Env());
  o.Set("digits", digits);
  o.Set("point", out);
  return o;
}

Napi::Value unblind_js(const Napi::CallbackInfo& cb) {
  if (cb.Length() < 1 || !cb[0].IsString()) fail(cb.Env(), "expected a curve");
  const std::string name = cb[0].As<Napi::String>();
  return visit_group(curve_arg(cb.Env(), name), group_arg(cb, 6), [&](auto g) { return unblind<decltype(g)>(cb); });
}

}  // namespace

void register_stages_ct(Napi::Object t) {
  Napi::Env env = t.Env();
  t.Set("accumulateCt", Napi::Function::New(env, accumulate_ct, "accumulateCt"));
  t.Set("ctAggregate", Napi::Function::New(env, ct_aggregate, "ctAggregate"));
  t.Set("homogeneousCheck", Napi::Function::New(env, homogeneous_check_js, "homogeneousCheck"));
  t.Set("unblind", Napi::Function::New(env, unblind_js, "unblind"));
}

}  // namespace msm::testing
