// G2 of BN254 and BLS12-381 on the host: Fp2 (cuda/ff/fp2.hpp), the twist constants
// (cuda/curves/*_g2.hpp), the XYZZ / Jacobian formulas instantiated with Fp2, the ψ subgroup test
// (cuda/ec/subgroup_g2.hpp) and a small bucket-method MSM, through the test addon's g2.cpp hooks,
// against @noble/curves' G2 and the independent bigint model of test/model/fp2.ts: the pieces the
// CPU engine's G2 MSM is built of (tested through the API by test/g2-msm.test.ts; cuda/ec/G2.md).

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { f2, f2add, f2conj, f2inv, f2mul, f2neg, f2sub, mul2, onTwist, psi2, twistPoint, TWISTS, INF2, type Aff2, type Fq2, type Twist } from './model/fp2';
import { seededRng } from './support/data';
import { testingAddon, type G2Curve } from './support/testing';

const T = testingAddon();
const rng = seededRng('g2');
const CURVES: G2Curve[] = ['bn254', 'bls12-381'];
const NOBLE = { bn254: bn254.G2.Point, 'bls12-381': bls12_381.G2.Point } as const;
const FB = { bn254: 32, 'bls12-381': 48 } as const; // Fp bytes

type NoblePoint = InstanceType<(typeof NOBLE)['bn254']>;

// ---- encodings ----------------------------------------------------------------------------
function le(v: bigint, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}
function fromLe(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
  return v;
}
const fq2Bytes = (c: string, a: Fq2): Uint8Array => {
  const fb = FB[c as G2Curve];
  const out = new Uint8Array(2 * fb);
  out.set(le(a[0], fb), 0);
  out.set(le(a[1], fb), fb);
  return out;
};
const fq2From = (c: string, b: Uint8Array): Fq2 => {
  const fb = FB[c as G2Curve];
  return [fromLe(b.subarray(0, fb)), fromLe(b.subarray(fb, 2 * fb))];
};
function modelBytes(c: G2Curve, P: Aff2): Uint8Array {
  const out = new Uint8Array(4 * FB[c]);
  if (!P.inf) {
    out.set(fq2Bytes(c, P.x), 0);
    out.set(fq2Bytes(c, P.y), 2 * FB[c]);
  }
  return out;
}
function fromBytes(c: G2Curve, b: Uint8Array): Aff2 {
  if (b.every((v) => v === 0)) return INF2;
  return { x: fq2From(c, b.subarray(0, 2 * FB[c])), y: fq2From(c, b.subarray(2 * FB[c])), inf: false };
}
const nobleToModel = (P: NoblePoint): Aff2 => {
  if (P.is0()) return INF2;
  const a = P.toAffine();
  return { x: [a.x.c0, a.x.c1], y: [a.y.c0, a.y.c1], inf: false };
};
const nobleFrom = (c: G2Curve, P: Aff2): NoblePoint =>
  P.inf ? NOBLE[c].ZERO : NOBLE[c].fromAffine({ x: { c0: P.x[0], c1: P.x[1] }, y: { c0: P.y[0], c1: P.y[1] } });
const nb = (c: G2Curve, P: NoblePoint): Uint8Array => modelBytes(c, nobleToModel(P));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const randomG2 = (c: G2Curve): NoblePoint => NOBLE[c].BASE.multiply(1n + rng.below(TWISTS[c].r - 1n));

describe.each(CURVES)('G2 %s', (c: G2Curve) => {
  const M: Twist = TWISTS[c];
  const { p, r } = M;

  test('the model agrees with noble on p, r, b′ and the generator', () => {
    expect(bn254.fields.Fp.ORDER === TWISTS.bn254.p && bls12_381.fields.Fp.ORDER === TWISTS['bls12-381'].p).toBe(true);
    expect(NOBLE[c].Fn.ORDER).toBe(r);
    const b = NOBLE[c].CURVE().b as { c0: bigint; c1: bigint };
    expect([b.c0, b.c1]).toEqual([...M.b]);
    expect(onTwist(M, nobleToModel(NOBLE[c].BASE))).toBe(true);
  });

  test('Fp2 identities on edge and random values (fp2Check)', () => {
    const res = T.fp2Check(c, 300, rng.int(2 ** 31));
    console.log(`fp2Check ${c}: ${res.checked} checks, ${res.mismatches} mismatches`);
    expect(res).toEqual({ checked: res.checked, mismatches: 0, first: '' });
    expect(res.checked).toBeGreaterThan(5000);
  });

  test('Fp2 operations against the bigint model', () => {
    const edge: Fq2[] = [f2(0n), f2(1n), f2(p - 1n), f2(0n, 1n), f2(0n, p - 1n), f2(1n, 1n), f2(p - 1n, p - 1n), f2(2n, p - 3n)];
    const rand = (): Fq2 => [rng.below(p), rng.below(p)];
    const pairs: [Fq2, Fq2][] = [];
    for (const a of edge) for (const b of edge) pairs.push([a, b]);
    for (let i = 0; i < 60; i++) pairs.push([rand(), i % 3 ? rand() : edge[i % edge.length]]);
    for (const [a, b] of pairs) {
      const o = T.fp2Ops(c, fq2Bytes(c, a), fq2Bytes(c, b));
      const ab = f2mul(p, a, b);
      const want = {
        add: f2add(p, a, b),
        sub: f2sub(p, a, b),
        neg: f2neg(p, a),
        dbl: f2add(p, a, a),
        mul: ab,
        sqr: f2mul(p, a, a),
        inv: f2inv(p, a),
        conj: f2conj(p, a),
        mulBase: f2mul(p, a, f2(b[0])),
        mulAdd: f2add(p, ab, f2mul(p, b, b)),
      };
      for (const [k, v] of Object.entries(want)) expect([k, fq2From(c, o[k as keyof typeof want])]).toEqual([k, [...v]]);
      expect(o.equal).toBe(a[0] === b[0] && a[1] === b[1]);
      expect(o.isZero).toBe(a[0] === 0n && a[1] === 0n);
    }
    // u² = −1 and the inverse really inverts.
    expect(f2mul(p, f2(0n, 1n), f2(0n, 1n))).toEqual([p - 1n, 0n]);
    const x = rand();
    expect(f2mul(p, x, fq2From(c, T.fp2Ops(c, fq2Bytes(c, x), fq2Bytes(c, x)).inv))).toEqual([1n, 0n]);
    // A coordinate ≥ p is refused.
    expect(() => T.fp2Ops(c, fq2Bytes(c, [p, 0n]), fq2Bytes(c, f2(1n)))).toThrow(/not reduced/);
  });

  test('the header generator is noble’s, on the twist and in G2', () => {
    const g = T.g2Generator(c);
    expect(hex(g)).toBe(hex(nb(c, NOBLE[c].BASE)));
    expect(T.g2OnCurve(c, g)).toBe(true);
    expect(T.g2InSubgroup(c, g)).toBe(true);
  });

  test('addition and doubling: random points and every edge case, five formulas against noble', () => {
    const P = randomG2(c);
    const Q = randomG2(c);
    const O = NOBLE[c].ZERO;
    const cases: [NoblePoint, NoblePoint][] = [[P, Q], [P, P], [P, P.negate()], [O, P], [P, O], [O, O], [Q, P.add(Q)]];
    for (let i = 0; i < 4; i++) cases.push([randomG2(c), randomG2(c)]);
    for (const [A, B] of cases) {
      const o = T.g2Add(c, nb(c, A), nb(c, B));
      const sum = hex(nb(c, A.add(B)));
      expect([hex(o.mixed), hex(o.full), hex(o.jacobian)]).toEqual([sum, sum, sum]);
      const twice = hex(nb(c, A.double()));
      expect([hex(o.dbl), hex(o.dblMixed), o.dblJacobian]).toEqual([twice, twice, true]);
    }
  });

  test('scalar multiplication: random scalars and 0, 1, 2, r − 1, r, r + 1, against noble and the model', () => {
    const P = randomG2(c);
    const ks = [0n, 1n, 2n, r - 1n, r, r + 1n, rng.below(r), rng.below(r), (1n << 256n) - 1n];
    for (const k of ks) {
      const o = T.g2ScalarMul(c, nb(c, P), le(k, 32));
      const want = k % r === 0n ? NOBLE[c].ZERO : P.multiply(k % r);
      expect([k, hex(o.xyzz)]).toEqual([k, hex(nb(c, want))]);
      expect(o.jacobianAgrees).toBe(true);
    }
    const k = rng.below(r);
    expect(hex(T.g2ScalarMul(c, nb(c, P), le(k, 32)).xyzz)).toBe(hex(modelBytes(c, mul2(M, k, nobleToModel(P)))));
    expect(hex(T.g2ScalarMul(c, new Uint8Array(4 * FB[c]), le(k, 32)).xyzz)).toBe(hex(new Uint8Array(4 * FB[c])));
  });

  test('ψ: the header constants match the model, and ψ acts on G2 as [t − 1]', () => {
    for (let i = 0; i < 3; i++) {
      const P = randomG2(c);
      const psi = T.g2Psi(c, nb(c, P));
      expect(hex(psi)).toBe(hex(modelBytes(c, psi2(M, nobleToModel(P)))));
      expect(hex(psi)).toBe(hex(nb(c, P.multiply((((M.t - 1n) % r) + r) % r))));
    }
    expect(hex(T.g2Psi(c, new Uint8Array(4 * FB[c])))).toBe(hex(new Uint8Array(4 * FB[c])));
  });

  test('validation: off the twist rejected; on the twist outside G2 rejected by ψ, accepted after [h2]', () => {
    // Off the twist: (x, y + 1).
    const P = nobleToModel(randomG2(c));
    const off: Aff2 = { x: P.x, y: f2add(p, P.y, f2(1n)), inf: false };
    expect(T.g2OnCurve(c, modelBytes(c, off))).toBe(false);
    expect(() => nobleFrom(c, off).assertValidity()).toThrow();
    expect(T.g2OnCurve(c, modelBytes(c, INF2))).toBe(true);
    expect(T.g2InSubgroup(c, modelBytes(c, INF2))).toBe(true);
    // On the twist, outside G2 (the model's random points), and [r]Q, a point of the cofactor part.
    for (let i = 0; i < 3; i++) {
      const Q = twistPoint(M, [rng.below(p), rng.below(p)]);
      const qb = modelBytes(c, Q);
      expect(T.g2OnCurve(c, qb)).toBe(true);
      expect(T.g2InSubgroup(c, qb)).toBe(false);
      expect(nobleFrom(c, Q).isTorsionFree()).toBe(false);
      const rQ = T.g2ScalarMul(c, qb, le(r, 32)).xyzz;
      expect(T.g2OnCurve(c, rQ)).toBe(true);
      expect(T.g2InSubgroup(c, rQ)).toBe(false);
      const cleared = T.g2ClearCofactor(c, qb);
      expect(hex(cleared)).toBe(hex(modelBytes(c, mul2(M, M.h2, Q))));
      expect(T.g2InSubgroup(c, cleared)).toBe(true);
      expect(nobleFrom(c, fromBytes(c, cleared)).isTorsionFree()).toBe(true);
      expect(hex(T.g2ScalarMul(c, cleared, le(r, 32)).xyzz)).toBe(hex(modelBytes(c, INF2)));
    }
    // A coordinate ≥ p is refused.
    const bad = modelBytes(c, P);
    bad.set(le(p, FB[c]), 0);
    expect(() => T.g2OnCurve(c, bad)).toThrow(/not reduced/);
  });

  test('a small bucket-method MSM with O, duplicates, negations and scalars 0, 1, r − 1', () => {
    for (const n of [0, 1, 2, 17]) {
      const pts: NoblePoint[] = [];
      const ks: bigint[] = [];
      for (let i = 0; i < n; i++) {
        if (i % 7 === 3) pts.push(NOBLE[c].ZERO);
        else if (i % 5 === 4) pts.push(pts[rng.int(i)]);
        else if (i % 6 === 5) pts.push(pts[rng.int(i)].negate());
        else pts.push(randomG2(c));
        ks.push([0n, 1n, r - 1n][i % 9] ?? rng.below(r));
      }
      const pb = new Uint8Array(n * 4 * FB[c]);
      const sb = new Uint8Array(32 * n);
      pts.forEach((P, i) => pb.set(nb(c, P), i * 4 * FB[c]));
      ks.forEach((k, i) => sb.set(le(k, 32), 32 * i));
      let want = NOBLE[c].ZERO;
      pts.forEach((P, i) => (want = want.add(P.multiplyUnsafe(ks[i]))));
      expect([n, hex(T.g2Msm(c, pb, sb))]).toEqual([n, hex(nb(c, want))]);
    }
  });
});
