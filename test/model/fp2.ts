// An independent bigint model of Fp2 = Fp[u]/(u² + 1) and of the G2 twists of BN254 and
// BLS12-381, for the tests only: textbook affine formulas, Fermat inverses, and every constant
// derived here from the curve family's seed (p, r, h2 from the BN / BLS12 polynomials; b' from
// the tower's ξ; ψ's constants by exponentiation), so nothing is shared with cuda/, lib/ or noble.

import { md, powMod } from './ec';

export type Fq2 = readonly [bigint, bigint]; // c0 + c1·u

export interface Twist {
  p: bigint;
  r: bigint;
  t: bigint; // trace of Frobenius of E(Fp)
  b: Fq2; // b' of y² = x³ + b'
  h2: bigint; // #E'(Fp2) / r
  psiX: Fq2; // ψ(x, y) = (conj(x)·psiX, conj(y)·psiY)
  psiY: Fq2;
}

export const f2 = (c0: bigint, c1 = 0n): Fq2 => [c0, c1];
export const f2add = (p: bigint, a: Fq2, b: Fq2): Fq2 => [md(a[0] + b[0], p), md(a[1] + b[1], p)];
export const f2sub = (p: bigint, a: Fq2, b: Fq2): Fq2 => [md(a[0] - b[0], p), md(a[1] - b[1], p)];
export const f2neg = (p: bigint, a: Fq2): Fq2 => [md(-a[0], p), md(-a[1], p)];
export const f2mul = (p: bigint, a: Fq2, b: Fq2): Fq2 => [md(a[0] * b[0] - a[1] * b[1], p), md(a[0] * b[1] + a[1] * b[0], p)];
export const f2conj = (p: bigint, a: Fq2): Fq2 => [md(a[0], p), md(-a[1], p)];
export const f2eq = (a: Fq2, b: Fq2): boolean => a[0] === b[0] && a[1] === b[1];
export const f2zero = (a: Fq2): boolean => a[0] === 0n && a[1] === 0n;

/** a⁻¹ = conj(a)/N(a), N(a) = a0² + a1², by Fermat in Fp; 0 ↦ 0 (as the C++ does). */
export function f2inv(p: bigint, a: Fq2): Fq2 {
  const n = powMod(a[0] * a[0] + a[1] * a[1], p - 2n, p);
  return [md(a[0] * n, p), md(-a[1] * n, p)];
}

export function f2pow(p: bigint, a: Fq2, e: bigint): Fq2 {
  let r: Fq2 = [1n, 0n];
  while (e > 0n) {
    if (e & 1n) r = f2mul(p, r, a);
    a = f2mul(p, a, a);
    e >>= 1n;
  }
  return r;
}

/** A square root in Fp2 for p ≡ 3 mod 4 through the norm, or undefined. */
export function f2sqrt(p: bigint, a: Fq2): Fq2 | undefined {
  const sqrt = (v: bigint): bigint | undefined => {
    const s = powMod(v, (p + 1n) / 4n, p);
    return md(s * s - v, p) === 0n ? s : undefined;
  };
  let x: Fq2 | undefined;
  if (a[1] === 0n) {
    const s = sqrt(a[0]);
    x = s !== undefined ? [s, 0n] : [0n, sqrt(md(-a[0], p)) ?? 0n];
  } else {
    const n = sqrt(md(a[0] * a[0] + a[1] * a[1], p));
    if (n === undefined) return undefined;
    const half = (p + 1n) / 2n;
    const x0 = sqrt(md((a[0] + n) * half, p)) ?? sqrt(md((a[0] - n) * half, p));
    if (x0 === undefined) return undefined;
    x = [x0, md(a[1] * powMod(2n * x0, p - 2n, p), p)];
  }
  return f2eq(f2mul(p, x, x), [md(a[0], p), md(a[1], p)]) ? x : undefined;
}

// ---- the twists ----------------------------------------------------------------------------
function twist(p: bigint, r: bigint, t: bigint, b: bigint, xi: Fq2, dType: boolean, h2: bigint): Twist {
  const bp = dType ? f2mul(p, f2(b), f2inv(p, xi)) : f2mul(p, f2(b), xi);
  const base = dType ? xi : f2inv(p, xi);
  return { p, r, t, b: bp, h2, psiX: f2pow(p, base, (p - 1n) / 3n), psiY: f2pow(p, base, (p - 1n) / 2n) };
}

/** BN254 (u = 4965661367192848881, D-type, ξ = 9 + u) and BLS12-381 (u = −0xd201000000010000, M-type, ξ = 1 + u). */
export const TWISTS = {
  bn254: (() => {
    const u = 4965661367192848881n;
    const p = 36n * u ** 4n + 36n * u ** 3n + 24n * u ** 2n + 6n * u + 1n;
    const r = 36n * u ** 4n + 36n * u ** 3n + 18n * u ** 2n + 6n * u + 1n;
    return twist(p, r, 6n * u ** 2n + 1n, 3n, [9n, 1n], true, 2n * p - r);
  })(),
  'bls12-381': (() => {
    const u = -0xd201000000010000n;
    const r = u ** 4n - u ** 2n + 1n;
    const p = ((u - 1n) ** 2n * r) / 3n + u;
    const h2 = (u ** 8n - 4n * u ** 7n + 5n * u ** 6n - 4n * u ** 4n + 6n * u ** 3n - 4n * u ** 2n - 4n * u + 13n) / 9n;
    return twist(p, r, u + 1n, 4n, [1n, 1n], false, h2);
  })(),
} as const;

// ---- affine points on y² = x³ + b' (textbook chord and tangent) ---------------------------
export interface Aff2 {
  x: Fq2;
  y: Fq2;
  inf: boolean;
}
export const INF2: Aff2 = { x: [0n, 0n], y: [0n, 0n], inf: true };

export function onTwist(T: Twist, P: Aff2): boolean {
  if (P.inf) return true;
  const { p } = T;
  return f2eq(f2mul(p, P.y, P.y), f2add(p, f2mul(p, f2mul(p, P.x, P.x), P.x), T.b));
}

export const neg2 = (T: Twist, P: Aff2): Aff2 => (P.inf ? P : { x: P.x, y: f2neg(T.p, P.y), inf: false });

export function add2(T: Twist, P: Aff2, Q: Aff2): Aff2 {
  if (P.inf) return Q;
  if (Q.inf) return P;
  const { p } = T;
  let l: Fq2;
  if (f2eq(P.x, Q.x)) {
    if (f2zero(f2add(p, P.y, Q.y))) return INF2;
    const xx = f2mul(p, P.x, P.x);
    l = f2mul(p, f2add(p, f2add(p, xx, xx), xx), f2inv(p, f2add(p, P.y, P.y)));
  } else {
    l = f2mul(p, f2sub(p, Q.y, P.y), f2inv(p, f2sub(p, Q.x, P.x)));
  }
  const x = f2sub(p, f2sub(p, f2mul(p, l, l), P.x), Q.x);
  return { x, y: f2sub(p, f2mul(p, l, f2sub(p, P.x, x)), P.y), inf: false };
}

export function mul2(T: Twist, k: bigint, P: Aff2): Aff2 {
  if (k < 0n) return mul2(T, -k, neg2(T, P));
  let R = INF2;
  for (let i = k.toString(2).length - 1; i >= 0 && k > 0n; i--) {
    R = add2(T, R, R);
    if ((k >> BigInt(i)) & 1n) R = add2(T, R, P);
  }
  return R;
}

export function psi2(T: Twist, P: Aff2): Aff2 {
  if (P.inf) return P;
  return { x: f2mul(T.p, f2conj(T.p, P.x), T.psiX), y: f2mul(T.p, f2conj(T.p, P.y), T.psiY), inf: false };
}

/** A point of E'(Fp2) with x = x0 + i (i = 0, 1, …): on the twist, almost never in G2. */
export function twistPoint(T: Twist, x0: Fq2): Aff2 {
  for (let i = 0n; ; i++) {
    const x: Fq2 = [md(x0[0] + i, T.p), x0[1]];
    const y = f2sqrt(T.p, f2add(T.p, f2mul(T.p, f2mul(T.p, x, x), x), T.b));
    if (y) return { x, y, inf: false };
  }
}
