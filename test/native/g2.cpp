// G2 on the host (cuda/ff/fp2.hpp, cuda/curves/*_g2.hpp, the ec/ formulas instantiated with
// Fp2): hooks for test/g2.test.ts. Points cross as canonical little-endian bytes
// x.c0‖x.c1‖y.c0‖y.c1 (all zeros for O), Fp2 elements as c0‖c1, scalars as little-endian bytes
// of any length. The pieces, one by one; the product's G2 MSM (the CPU engine) is tested through
// the API by test/g2-msm.test.ts.
#include <napi.h>

#include <cstring>
#include <string>
#include <vector>

#include "args.hpp"
#include "curves/all.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/subgroup_g2.hpp"
#include "ec/xyzz.hpp"
#include "hooks.hpp"

namespace msm::testing {
namespace {

// An Fp2 element is its two coordinates' limbs and nothing else (the x.c0‖x.c1‖y.c0‖y.c1 layout).
static_assert(sizeof(curves::bn254::fp2) == curves::bn254::fp2::BYTES && sizeof(curves::bls12_381::fp2) == 96);
static_assert(sizeof(ec::Affine<curves::bls12_381::fp2>) == 2 * curves::bls12_381::fp2::BYTES);

// f(G{}) for the G2 struct of the curve named by argument 0 (msm::visit_g2, curves/all.hpp).
template <class Fn>
Napi::Value visit_g2(const Napi::CallbackInfo& cb, Fn&& f) {
  if (cb.Length() < 1 || !cb[0].IsString()) fail(cb.Env(), "expected a curve");
  const std::string name = cb[0].As<Napi::String>();
  const CurveId id = curve_arg(cb.Env(), name);
  if (!curve_has_group(id, Group::g2)) fail(cb.Env(), "no G2 for curve " + name);
  return msm::visit_g2(id, f);
}

Napi::Uint8Array bytes(Napi::Env env, const uint8_t* p, size_t n) {
  auto a = Napi::Uint8Array::New(env, n);
  std::memcpy(a.Data(), p, n);
  return a;
}

// A canonical Fp2 element (c0‖c1) to Montgomery form; throws unless both coordinates are < p.
template <class F>
F fp2_arg(const Napi::CallbackInfo& cb, size_t i, const char* what) {
  auto a = typed_arg<Napi::Uint8Array>(cb, i, what);
  if (a.ByteLength() != F::BYTES) fail(cb.Env(), std::string(what) + ": wrong length");
  F v;
  if (!F::load_le(a.Data(), v)) fail(cb.Env(), std::string(what) + ": coordinate not reduced");
  return F::to_mont(v);
}
template <class F>
Napi::Value fp2_out(Napi::Env env, const F& v) {
  uint8_t b[F::BYTES];
  F::from_mont(v).store_le(b);
  return bytes(env, b, F::BYTES);
}

template <class F>
ec::Affine<F> point_from(Napi::Env env, const uint8_t* in) {
  F x, y;
  if (!F::load_le(in, x) || !F::load_le(in + F::BYTES, y)) fail(env, "point coordinate not reduced");
  return ec::Affine<F>{F::to_mont(x), F::to_mont(y)};  // all zeros stays (0, 0) = O
}
template <class F>
ec::Affine<F> point_arg(const Napi::CallbackInfo& cb, size_t i) {
  auto a = typed_arg<Napi::Uint8Array>(cb, i, "point");
  if (a.ByteLength() != 2 * F::BYTES) fail(cb.Env(), "point: wrong length");
  return point_from<F>(cb.Env(), a.Data());
}
template <class F>
Napi::Value point_out(Napi::Env env, const ec::Affine<F>& p) {
  uint8_t b[2 * F::BYTES] = {};
  if (!p.is_inf()) {
    F::from_mont(p.x).store_le(b);
    F::from_mont(p.y).store_le(b + F::BYTES);
  }
  return bytes(env, b, sizeof b);
}

std::vector<uint64_t> scalar_arg(const Napi::CallbackInfo& cb, size_t i) {
  auto a = typed_arg<Napi::Uint8Array>(cb, i, "scalar");
  std::vector<uint64_t> k((a.ByteLength() + 7) / 8 + 1, 0);
  for (size_t j = 0; j < a.ByteLength(); ++j) k[j / 8] |= uint64_t(a[j]) << (8 * (j % 8));
  return k;
}

// The same point with ZZ = λ², ZZZ = λ³ (λ ≠ 0), so XYZZ + XYZZ meets ZZ ≠ 1 on both sides.
template <class F>
ec::XYZZ<F> rescaled(const ec::Affine<F>& a, const F& lambda) {
  if (a.is_inf()) return ec::XYZZ<F>::infinity();
  const F l2 = lambda.sqr(), l3 = l2 * lambda;
  return ec::XYZZ<F>{a.x * l2, a.y * l3, l2, l3};
}
template <class F>
F small(uint64_t v) {
  F r = F::zero();
  r.c0 = F::base::from_u64(v);
  r.c1 = F::base::from_u64(v + 7);
  return r;
}

// g2Generator(curve) → point (the header's generator).
Napi::Value g2_generator(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using G = decltype(g);
    using F = typename G::field;
    const ec::Affine<F> p{F::to_mont(F::template from_table<typename G::gen_x>()),
                          F::to_mont(F::template from_table<typename G::gen_y>())};
    return point_out(cb.Env(), p);
  });
}

// g2OnCurve(curve, P) → y² = x³ + b' (O counts as on the curve).
Napi::Value g2_on_curve(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using G = decltype(g);
    return Napi::Boolean::New(cb.Env(), ec::on_curve<G>(point_arg<typename G::field>(cb, 1)));
  });
}

// g2InSubgroup(curve, P) → ψ(P) = [λ]P (ec/subgroup_g2.hpp; P on the twist).
Napi::Value g2_in_subgroup(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using G = decltype(g);
    return Napi::Boolean::New(cb.Env(), ec::in_subgroup_g2<G>(point_arg<typename G::field>(cb, 1)));
  });
}

// g2Psi(curve, P) → ψ(P).
Napi::Value g2_psi(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using G = decltype(g);
    return point_out(cb.Env(), ec::psi<G>(point_arg<typename G::field>(cb, 1)));
  });
}

// g2Add(curve, A, B) → { mixed, full, jacobian, dbl, dblMixed, dblJacobian }: A + B by XYZZ madd,
// XYZZ add (both sides rescaled), Jacobian madd; 2A by XYZZ dbl (rescaled), mdbl, Jacobian dbl.
Napi::Value g2_add(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using F = typename decltype(g)::field;
    using X = ec::XYZZ<F>;
    using J = ec::Jacobian<F>;
    const auto A = point_arg<F>(cb, 1), B = point_arg<F>(cb, 2);
    Napi::Env env = cb.Env();
    auto o = Napi::Object::New(env);
    o.Set("mixed", point_out(env, X::from_affine(A).add(B).to_affine()));
    o.Set("full", point_out(env, rescaled(A, small<F>(3)).add(rescaled(B, small<F>(5))).to_affine()));
    const J j = J::from_affine(A).add(B);
    o.Set("jacobian", point_out(env, j.is_inf() ? ec::Affine<F>::infinity() : [&] {
            const F zi = j.Z.inverse(), zi2 = zi.sqr();
            return ec::Affine<F>{j.X * zi2, j.Y * zi2 * zi};
          }()));
    o.Set("dbl", point_out(env, rescaled(A, small<F>(11)).dbl().to_affine()));
    o.Set("dblMixed", point_out(env, X::dbl(A).to_affine()));
    const J jd = J::from_affine(A).dbl();
    o.Set("dblJacobian", Napi::Boolean::New(env, jd.equals(X::dbl(A).to_affine())));
    return o;
  });
}

// g2ScalarMul(curve, P, k: LE bytes) → { xyzz, jacobianAgrees }: [k]P by XYZZ double-and-add, and
// whether the Jacobian double-and-add gives the same point.
Napi::Value g2_scalar_mul(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using F = typename decltype(g)::field;
    const auto P = point_arg<F>(cb, 1);
    const std::vector<uint64_t> k = scalar_arg(cb, 2);
    const auto x = ec::double_and_add<ec::XYZZ<F>>(P, k.data(), int(k.size())).to_affine();
    const auto j = ec::double_and_add<ec::Jacobian<F>>(P, k.data(), int(k.size()));
    auto o = Napi::Object::New(cb.Env());
    o.Set("xyzz", point_out(cb.Env(), x));
    o.Set("jacobianAgrees", Napi::Boolean::New(cb.Env(), j.equals(x)));
    return o;
  });
}

// g2ClearCofactor(curve, P) → [h2]P with the header's cofactor.
Napi::Value g2_clear_cofactor(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using G = decltype(g);
    using F = typename G::field;
    using H = typename G::cofactor;
    uint64_t h[H::n];
    for (int i = 0; i < H::n; ++i) h[i] = H::at(i);
    return point_out(cb.Env(), ec::double_and_add<ec::XYZZ<F>>(point_arg<F>(cb, 1), h, H::n).to_affine());
  });
}

// g2Msm(curve, points: n × 4·Fp bytes, scalars: n × 32 bytes) → Σ kᵢPᵢ by a plain bucket method
// (4-bit unsigned windows, XYZZ buckets filled by mixed additions, running sums by XYZZ
// additions): the formulas a G2 Pippenger will use, not a tuned MSM.
Napi::Value g2_msm(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using F = typename decltype(g)::field;
    using X = ec::XYZZ<F>;
    auto pts = typed_arg<Napi::Uint8Array>(cb, 1, "points");
    auto sc = typed_arg<Napi::Uint8Array>(cb, 2, "scalars");
    const size_t n = pts.ByteLength() / (2 * F::BYTES);
    if (pts.ByteLength() != n * 2 * F::BYTES || sc.ByteLength() != 32 * n) fail(cb.Env(), "g2Msm: lengths");
    std::vector<ec::Affine<F>> P(n);
    for (size_t i = 0; i < n; ++i) P[i] = point_from<F>(cb.Env(), pts.Data() + i * 2 * F::BYTES);
    constexpr int c = 4;
    X acc = X::infinity();
    for (int w = 256 / c - 1; w >= 0; --w) {
      for (int i = 0; i < c; ++i) acc = acc.dbl();
      X bucket[(1 << c) - 1];
      for (auto& b : bucket) b = X::infinity();
      for (size_t i = 0; i < n; ++i) {
        const unsigned d = (sc[32 * i + (w * c) / 8] >> ((w * c) % 8)) & ((1u << c) - 1);
        if (d) bucket[d - 1] = bucket[d - 1].add(P[i]);
      }
      X running = X::infinity(), sum = X::infinity();
      for (int d = (1 << c) - 2; d >= 0; --d) {
        running = running.add(bucket[d]);
        sum = sum.add(running);
      }
      acc = acc.add(sum);
    }
    return point_out(cb.Env(), acc.to_affine());
  });
}

// fp2Ops(curve, a, b) → { add, sub, neg, mul, sqr, inv, conj, mulBase, mulAdd }: a + b, a − b,
// −a, a·b, a², a⁻¹, conj(a), a·b.c0 (by an Fp element), a·b + b·b (mul_add); canonical c0‖c1.
Napi::Value fp2_ops(const Napi::CallbackInfo& cb) {
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using F = typename decltype(g)::field;
    const F a = fp2_arg<F>(cb, 1, "a"), b = fp2_arg<F>(cb, 2, "b");
    Napi::Env env = cb.Env();
    auto o = Napi::Object::New(env);
    o.Set("add", fp2_out(env, a + b));
    o.Set("sub", fp2_out(env, a - b));
    o.Set("neg", fp2_out(env, -a));
    o.Set("dbl", fp2_out(env, a.dbl()));
    o.Set("mul", fp2_out(env, a * b));
    o.Set("sqr", fp2_out(env, a.sqr()));
    o.Set("inv", fp2_out(env, a.inverse()));
    o.Set("conj", fp2_out(env, a.conjugate()));
    o.Set("mulBase", fp2_out(env, a * b.c0));
    o.Set("mulAdd", fp2_out(env, F::mul_add(a, b, b, b)));
    o.Set("equal", Napi::Boolean::New(env, a == b));
    o.Set("isZero", Napi::Boolean::New(env, a.is_zero()));
    return o;
  });
}

// ---- fp2Check: Fp2 identities on edge and random values -------------------------------------
uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
template <class B>
B random_base(uint64_t& s) {  // uniform in [0, p) as raw limbs (a Montgomery representative)
  using P = typename B::params;
  B r;
  do {
    for (int i = 0; i < B::N; ++i) r.limb[i] = splitmix(s);
    if (P::BITS % 64) r.limb[B::N - 1] &= (uint64_t(1) << (P::BITS % 64)) - 1;
  } while (!r.is_reduced());
  return r;
}

// fp2Check(curve, count, seed) → { checked, mismatches, first }: for every pair of the edge values
// {0, 1, −1, u, −u, 1 + u, (p−1)(1 + u), raw limbs p − 1} and count random triples: mul against the
// schoolbook (four separate F products) and Karatsuba products, sqr against mul, commutativity,
// associativity, distributivity, inverse, mul_add, mul by F, conj·a = norm, u² = −1, Montgomery
// and byte round trips.
Napi::Value fp2_check(const Napi::CallbackInfo& cb) {
  const uint32_t count = u32_arg(cb, 1, "count"), seed = u32_arg(cb, 2, "seed");
  return visit_g2(cb, [&](auto g) -> Napi::Value {
    using F = typename decltype(g)::field;
    using B = typename F::base;
    uint64_t s = seed;
    double checked = 0, bad = 0;
    std::string first;
    auto check = [&](bool ok, const char* what) {
      ++checked;
      if (!ok && bad++ == 0) first = what;
    };
    const B one = B::one(), zero = B::zero();
    B pm1 = B::modulus();
    pm1.limb[0] -= 1;
    const F u{zero, one};
    std::vector<F> vals = {F::zero(), F::one(), -F::one(), u, -u, F{one, one}, F{-one, -one}, F{pm1, pm1}, F{pm1, zero}};
    auto verify = [&](const F& a, const F& b, const F& c) {
      const F ab = a * b;
      check(ab == F{a.c0 * b.c0 - a.c1 * b.c1, a.c0 * b.c1 + a.c1 * b.c0}, "mul vs schoolbook");
      const B v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
      check(ab == F{v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1}, "mul vs Karatsuba");
      check(ab == b * a, "commutativity");
      check(a.sqr() == a * a, "sqr");
      check((ab) * c == a * (b * c), "associativity");
      check(a * (b + c) == ab + a * c, "distributivity");
      check(F::mul_add(a, b, c, a) == ab + c * a, "mul_add");
      check(a * b.c0 == a * F{b.c0, zero}, "mul by F");
      check(a * a.conjugate() == F{a.c0.sqr() + a.c1.sqr(), zero}, "conj·a = norm");
      check(a.is_zero() ? a.inverse().is_zero() : a.inverse() * a == F::one(), "inverse");
      check(F::to_mont(F::from_mont(a)) == a, "Montgomery round trip");
      check((a - b) + b == a && a + (-a) == F::zero() && a.dbl() == a + a, "additive group");
      uint8_t buf[F::BYTES];
      a.store_le(buf);
      F back;
      check(F::load_le(buf, back) && back == a, "bytes round trip");
    };
    check(u.sqr() == -F::one(), "u² = −1");
    for (const F& a : vals)
      for (const F& b : vals) verify(a, b, vals[(&a - vals.data() + 3) % vals.size()]);
    for (uint32_t i = 0; i < count; ++i) {
      const F a{random_base<B>(s), random_base<B>(s)}, b{random_base<B>(s), random_base<B>(s)};
      const F c{random_base<B>(s), random_base<B>(s)};
      verify(a, b, c);
      verify(a, vals[i % vals.size()], c);
    }
    return selftest_result(cb.Env(), double(checked), double(bad), first);
  });
}

}  // namespace

void register_g2(Napi::Object t) {
  Napi::Env env = t.Env();
  t.Set("g2Generator", Napi::Function::New(env, g2_generator, "g2Generator"));
  t.Set("g2OnCurve", Napi::Function::New(env, g2_on_curve, "g2OnCurve"));
  t.Set("g2InSubgroup", Napi::Function::New(env, g2_in_subgroup, "g2InSubgroup"));
  t.Set("g2Psi", Napi::Function::New(env, g2_psi, "g2Psi"));
  t.Set("g2Add", Napi::Function::New(env, g2_add, "g2Add"));
  t.Set("g2ScalarMul", Napi::Function::New(env, g2_scalar_mul, "g2ScalarMul"));
  t.Set("g2ClearCofactor", Napi::Function::New(env, g2_clear_cofactor, "g2ClearCofactor"));
  t.Set("g2Msm", Napi::Function::New(env, g2_msm, "g2Msm"));
  t.Set("fp2Ops", Napi::Function::New(env, fp2_ops, "fp2Ops"));
  t.Set("fp2Check", Napi::Function::New(env, fp2_check, "fp2Check"));
}

}  // namespace msm::testing
