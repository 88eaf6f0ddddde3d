// The curve constants in lib/curves.ts, checked three independent ways: against @noble/curves,
// against the defining polynomials of the BN, BLS12 and BLS24 families, and on the bigint model
// (generator on the curve, r·G = O, h·r = #E). BLS12-377 and BLS24-315 have no noble
// counterpart: the family polynomials and the model carry them alone.

import { CURVES, CURVE_NAMES } from '../lib';
import { aff, affMul, jacMul, onCurve, pointAtOrAfter, powMod, toAff, toJac, type Aff } from './model/ec';
import { fieldOf, gen } from './support/data';
import { nobleCons, NOBLE_CURVES } from './support/noble';

function probablyPrime(n: bigint): boolean {
  if (n < 4n) return n >= 2n;
  let d = n - 1n;
  let s = 0;
  while (d % 2n === 0n) [d, s] = [d / 2n, s + 1];
  for (const a of [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n]) {
    let x = powMod(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    let composite = true;
    for (let i = 1; i < s && composite; i++) {
      x = (x * x) % n;
      if (x === n - 1n) composite = false;
    }
    if (composite) return false;
  }
  return true;
}

// Family parameters (public, from the curves' definitions):
//   BN: p = 36u⁴+36u³+24u²+6u+1, r = 36u⁴+36u³+18u²+6u+1, trace t = 6u²+1.
//   BLS12: r = x⁴−x²+1, p = (x−1)²·r/3 + x, trace t = x+1.
//   BLS24: r = x⁸−x⁴+1, p = (x−1)²·r/3 + x, trace t = x+1 (El Housni–Guillevic, ePrint 2021/1359).
const FAMILY = {
  bn254: (() => {
    const u = 4965661367192848881n;
    return { p: 36n * u ** 4n + 36n * u ** 3n + 24n * u ** 2n + 6n * u + 1n, r: 36n * u ** 4n + 36n * u ** 3n + 18n * u ** 2n + 6n * u + 1n, t: 6n * u ** 2n + 1n };
  })(),
  'bls12-381': bls12(-0xd201000000010000n),
  'bls12-377': bls12(0x8508c00000000001n),
  'bls24-315': bls24(-0xbfcfffffn),
};

function bls12(x: bigint) {
  return bls(x, x ** 4n - x ** 2n + 1n, x ** 2n);
}
function bls24(x: bigint) {
  return bls(x, x ** 8n - x ** 4n + 1n, x ** 4n);
}
/** k: the integer of the G1 membership test φ(P) = −k·P (cuda/ec/subgroup.hpp). */
function bls(x: bigint, r: bigint, k: bigint) {
  return { p: ((x - 1n) ** 2n * r) / 3n + x, r, t: x + 1n, k, h: (x - 1n) ** 2n / 3n };
}

describe.each(CURVE_NAMES)('%s constants', (name) => {
  const c = CURVES[name];
  const F = fieldOf(c);

  test('p and r follow the family polynomials; #E = h·r = p + 1 − t', () => {
    const fam = FAMILY[name];
    expect(c.p).toBe(fam.p);
    expect(c.r).toBe(fam.r);
    expect(c.h * c.r).toBe(c.p + 1n - fam.t);
    if ('h' in fam) expect(c.h).toBe(fam.h);
  });

  test('p and r are (probable) primes; byte and bit sizes match', () => {
    expect(probablyPrime(c.p)).toBe(true);
    expect(probablyPrime(c.r)).toBe(true);
    expect(c.r.toString(2).length).toBe(c.scalarBits);
    expect(c.p < 1n << BigInt(8 * c.fieldBytes)).toBe(true);
    expect(c.r < 1n << BigInt(8 * c.scalarBytes)).toBe(true);
  });

  test('the generator is on the curve and has order r in the model', () => {
    const G = gen(c);
    expect(onCurve(F, G)).toBe(true);
    expect(toAff(F, jacMul(F, c.r, toJac(G))).inf).toBe(true);
    expect(affMul(F, c.r, G).inf).toBe(true); // the affine path agrees
    expect(toAff(F, jacMul(F, c.r - 1n, toJac(G)))).toEqual(aff(G.x, c.p - G.y));
  });
});

// The fast G1 test of cuda/ec/subgroup.hpp, in the model: φ(x, y) = (βx, y) acts on G1 as −k for
// one primitive cube root of unity β, and k² − k + 1 = r makes φ + k of degree r, so that its
// kernel is G1 alone (checked here on points off G1 too).
describe.each(CURVE_NAMES.filter((n) => 'k' in FAMILY[n]))('%s membership test φ(P) = −k·P', (name) => {
  const c = CURVES[name];
  const F = fieldOf(c);
  const { k } = FAMILY[name] as ReturnType<typeof bls>;
  const phiIsMinusK = (beta: bigint, P: Aff) => {
    const kP = toAff(F, jacMul(F, k, toJac(P)));
    return !kP.inf && kP.x === (beta * P.x) % c.p && kP.y === (c.p - P.y) % c.p;
  };
  let beta = 0n;
  for (let g = 2n; beta === 0n || beta === 1n; g++) beta = powMod(g, (c.p - 1n) / 3n, c.p);
  const betas = [beta, (beta * beta) % c.p];

  test('k² − k + 1 = r; exactly one cube root of unity β gives φ(G) = −k·G', () => {
    expect(k * k - k + 1n).toBe(c.r);
    expect(betas.filter((b) => phiIsMinusK(b, gen(c)))).toHaveLength(1);
  });

  test('points of E(Fp) off G1 fail it; cleared by h they pass', () => {
    const b = betas.find((x) => phiIsMinusK(x, gen(c)))!;
    for (let x0 = 7n, found = 0; found < 3; x0++) {
      const Q = pointAtOrAfter(F, x0);
      x0 = Q.x;
      found++;
      expect(toAff(F, jacMul(F, c.r, toJac(Q))).inf).toBe(false);
      expect(phiIsMinusK(b, Q)).toBe(false);
      expect(phiIsMinusK(b, affMul(F, c.h, Q))).toBe(true);
    }
  });
});

describe.each(NOBLE_CURVES)('%s against @noble/curves', (name) => {
  test('p, r, b, h and generator equal noble', () => {
    const P = nobleCons(name);
    const c = CURVES[name];
    const N = P.CURVE();
    expect([c.p, c.r, c.b, c.h]).toEqual([N.p, N.n, N.b, N.h]);
    expect(c.generator).toEqual(P.BASE.toAffine());
  });
});
