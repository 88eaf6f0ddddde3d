// An independent bigint model of short-Weierstrass curves y² = x³ + b (a = 0), written for the
// tests only: textbook affine formulas (one inversion each, obviously right) and Jacobian
// formulas (fast enough for Pippenger at a few thousand points). It shares nothing with lib/
// but the curve constants, which test/curves.test.ts checks.

export interface Field {
  p: bigint;
  b: bigint;
}

export interface Aff {
  x: bigint;
  y: bigint;
  inf: boolean;
}

export interface Jac {
  X: bigint;
  Y: bigint;
  Z: bigint; // Z = 0: infinity
}

export const md = (a: bigint, p: bigint): bigint => {
  const r = a % p;
  return r < 0n ? r + p : r;
};

export function powMod(a: bigint, e: bigint, p: bigint): bigint {
  let r = 1n;
  a = md(a, p);
  while (e > 0n) {
    if (e & 1n) r = (r * a) % p;
    a = (a * a) % p;
    e >>= 1n;
  }
  return r;
}

/** Inverse by Fermat (p prime): independent of the extended-Euclid inverse in lib/. */
export const inv = (a: bigint, p: bigint): bigint => {
  if (md(a, p) === 0n) throw new RangeError('inverse of 0');
  return powMod(a, p - 2n, p);
};

export const AFF_INF: Aff = { x: 0n, y: 0n, inf: true };
export const JAC_INF: Jac = { X: 1n, Y: 1n, Z: 0n };

export const aff = (x: bigint, y: bigint): Aff => ({ x, y, inf: false });

export function onCurve(F: Field, P: Aff): boolean {
  return P.inf || md(P.y * P.y - P.x * P.x * P.x - F.b, F.p) === 0n;
}

export function affNeg(F: Field, P: Aff): Aff {
  return P.inf ? P : aff(P.x, md(-P.y, F.p));
}

/** Textbook chord-and-tangent addition. */
export function affAdd(F: Field, P: Aff, Q: Aff): Aff {
  const p = F.p;
  if (P.inf) return Q;
  if (Q.inf) return P;
  let l: bigint;
  if (P.x === Q.x) {
    if (md(P.y + Q.y, p) === 0n) return AFF_INF;
    l = md(3n * P.x * P.x * inv(2n * P.y, p), p);
  } else {
    l = md((Q.y - P.y) * inv(Q.x - P.x, p), p);
  }
  const x = md(l * l - P.x - Q.x, p);
  return aff(x, md(l * (P.x - x) - P.y, p));
}

export function affMul(F: Field, k: bigint, P: Aff): Aff {
  let R = AFF_INF;
  for (let A = P; k > 0n; k >>= 1n, A = affAdd(F, A, A)) if (k & 1n) R = affAdd(F, R, A);
  return R;
}

export const toJac = (P: Aff): Jac => (P.inf ? JAC_INF : { X: P.x, Y: P.y, Z: 1n });

export function toAff(F: Field, P: Jac): Aff {
  if (P.Z === 0n) return AFF_INF;
  const zi = inv(P.Z, F.p);
  const zi2 = (zi * zi) % F.p;
  return aff((P.X * zi2) % F.p, (P.Y * zi2 * zi) % F.p);
}

/** dbl-2009-l (EFD, a = 0): 2M + 5S. */
export function jacDbl(F: Field, P: Jac): Jac {
  const p = F.p;
  if (P.Z === 0n || P.Y === 0n) return JAC_INF;
  const A = (P.X * P.X) % p;
  const B = (P.Y * P.Y) % p;
  const C = (B * B) % p;
  const t = P.X + B;
  const D = md(2n * (t * t - A - C), p);
  const E = (3n * A) % p;
  const Fv = (E * E) % p;
  const X3 = md(Fv - 2n * D, p);
  const Y3 = md(E * (D - X3) - 8n * C, p);
  const Z3 = (2n * P.Y * P.Z) % p;
  return { X: X3, Y: Y3, Z: Z3 };
}

/** add-2007-bl (EFD): 11M + 5S, with the special cases handled. */
export function jacAdd(F: Field, P: Jac, Q: Jac): Jac {
  const p = F.p;
  if (P.Z === 0n) return Q;
  if (Q.Z === 0n) return P;
  const Z1Z1 = (P.Z * P.Z) % p;
  const Z2Z2 = (Q.Z * Q.Z) % p;
  const U1 = (P.X * Z2Z2) % p;
  const U2 = (Q.X * Z1Z1) % p;
  const S1 = (P.Y * Q.Z * Z2Z2) % p;
  const S2 = (Q.Y * P.Z * Z1Z1) % p;
  if (U1 === U2) return S1 === S2 ? jacDbl(F, P) : JAC_INF;
  const H = md(U2 - U1, p);
  const I = (4n * H * H) % p;
  const J = (H * I) % p;
  const r = md(2n * (S2 - S1), p);
  const V = (U1 * I) % p;
  const X3 = md(r * r - J - 2n * V, p);
  const Y3 = md(r * (V - X3) - 2n * S1 * J, p);
  const zs = P.Z + Q.Z;
  const Z3 = md((zs * zs - Z1Z1 - Z2Z2) * H, p);
  return { X: X3, Y: Y3, Z: Z3 };
}

export function jacMul(F: Field, k: bigint, P: Jac): Jac {
  let R = JAC_INF;
  for (let i = k.toString(2).length - 1; i >= 0; i--) {
    R = jacDbl(F, R);
    if ((k >> BigInt(i)) & 1n) R = jacAdd(F, R, P);
  }
  return R;
}

export function eqAff(P: Aff, Q: Aff): boolean {
  return P.inf === Q.inf && (P.inf || (P.x === Q.x && P.y === Q.y));
}

/** Jacobian → affine for many points with one inversion (Montgomery's trick). */
export function toAffAll(F: Field, Ps: Jac[]): Aff[] {
  const p = F.p;
  const prefix: bigint[] = [];
  let acc = 1n;
  for (const P of Ps) {
    prefix.push(acc);
    if (P.Z !== 0n) acc = (acc * P.Z) % p;
  }
  let ia = inv(acc, p);
  const out: Aff[] = new Array(Ps.length);
  for (let i = Ps.length - 1; i >= 0; i--) {
    const P = Ps[i];
    if (P.Z === 0n) {
      out[i] = AFF_INF;
      continue;
    }
    const zi = (ia * prefix[i]) % p;
    ia = (ia * P.Z) % p;
    const zi2 = (zi * zi) % p;
    out[i] = aff((P.X * zi2) % p, (P.Y * zi2 * zi) % p);
  }
  return out;
}

/** A square root mod p (Tonelli–Shanks), or null when a is not a square. */
export function sqrtMod(a: bigint, p: bigint): bigint | null {
  a = md(a, p);
  if (a === 0n) return 0n;
  if (powMod(a, (p - 1n) / 2n, p) !== 1n) return null;
  let q = p - 1n;
  let s = 0n;
  while ((q & 1n) === 0n) [q, s] = [q >> 1n, s + 1n];
  let z = 2n;
  while (powMod(z, (p - 1n) / 2n, p) !== p - 1n) z++;
  let [m, c, t, r] = [s, powMod(z, q, p), powMod(a, q, p), powMod(a, (q + 1n) / 2n, p)];
  while (t !== 1n) {
    let i = 0n;
    for (let u = t; u !== 1n; u = (u * u) % p) i++;
    const b = powMod(c, 1n << (m - i - 1n), p);
    [m, c, t, r] = [i, (b * b) % p, (t * b * b) % p, (r * b) % p];
  }
  return r;
}

/** The first point with x ≥ x0 on the curve (any subgroup). */
export function pointAtOrAfter(F: Field, x0: bigint): Aff {
  for (let x = x0; ; x++) {
    const y = sqrtMod(x * x * x + F.b, F.p);
    if (y !== null) return aff(x, y);
  }
}
