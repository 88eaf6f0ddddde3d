// A Groth16 proving key made from a known τ, for benchmarking provers at sizes where a
// powers-of-tau ceremony on this machine would take hours (preparePhase2 alone takes ~9 minutes
// at 2^14 on two cores). The zkey is the one snarkjs's `zkey new` would write from a ceremony whose
// secrets were τ, α, β (γ = δ = 1, as `zkey new` leaves them before any phase-2 contribution):
// the same sections, coefficients and point order, so snarkjs's prover reads it unchanged and its
// proofs verify. Each point is k·G for a scalar k computed here over F_r, multiplied on all cores
// by the test addon (fixedBaseMul). Insecure by construction: for timing only.
//
// What snarkjs (0.7, src/zkey_new.js) puts in each section, with L_c the Lagrange basis of the
// domain of n = 2^k (ω = Fr.w[k]) and, for variable s, a_s = Σ_c A[c][s]·L_c(τ) (plus L_{m+s} for
// the public ones and ONE: the rows the prover appends), b_s, c_s likewise:
//   3 IC: (β·a_s + α·b_s + c_s)·G1 for s ≤ nPublic; 5 A: a_s·G1; 6 B1: b_s·G1; 7 B2: b_s·G2;
//   8 C: (β·a_s + α·b_s + c_s)·G1 for s > nPublic; 9 H: L'_{2i+1}(τ)·G1 for i < n, L' the basis of
//   the domain of 2n; 4: the (matrix, constraint, signal, coefficient·R²) of A and B.

import fs = require('fs');
import { CURVES, type CurveName } from '../lib';
import { testingAddon } from '../test/support/testing';

export interface Lc {
  wires: number[];
  coefs: bigint[];
}
export interface Circuit {
  nVars: number;
  nPublic: number; // outputs + public inputs, ONE not counted
  constraints: [Lc, Lc, Lc][];
}

const mod = (a: bigint, r: bigint): bigint => ((a % r) + r) % r;
function pow(b: bigint, e: bigint, r: bigint): bigint {
  let x = 1n;
  b = mod(b, r);
  for (; e > 0n; e >>= 1n, b = (b * b) % r) if (e & 1n) x = (x * b) % r;
  return x;
}
/** Inverses of all (non-zero) values with one exponentiation (Montgomery's trick). */
function batchInverse(v: bigint[], r: bigint): bigint[] {
  const pre: bigint[] = new Array(v.length);
  let acc = 1n;
  for (let i = 0; i < v.length; i++) pre[i] = acc = (acc * v[i]) % r;
  let inv = pow(acc, r - 2n, r);
  const out: bigint[] = new Array(v.length);
  for (let i = v.length - 1; i >= 0; i--) {
    out[i] = ((i > 0 ? pre[i - 1] : 1n) * inv) % r;
    inv = (inv * v[i]) % r;
  }
  return out;
}

/** ffjavascript's root of unity of order 2^k of F_r (Fr.w[k]): nqr^t squared s − k times, nqr the
 * least quadratic non-residue from 2 up and r − 1 = 2^s·t. */
export function rootOfUnity(r: bigint, k: number): bigint {
  let s = 0;
  let t = r - 1n;
  while (!(t & 1n)) (t >>= 1n), s++;
  if (k > s) throw new Error(`no root of unity of order 2^${k} in this field (2-adicity ${s})`);
  let nqr = 2n;
  while (pow(nqr, (r - 1n) / 2n, r) === 1n) nqr++;
  let w = pow(nqr, t, r);
  for (let i = s; i > k; i--) w = (w * w) % r;
  return w;
}

/** L_0(τ) … L_{n−1}(τ) of the domain of n = 2^k: L_c(τ) = (τ^n − 1)/n · ω^c/(τ − ω^c). */
export function lagrangeAt(r: bigint, k: number, tau: bigint): bigint[] {
  const n = 2 ** k;
  const w = rootOfUnity(r, k);
  const wc: bigint[] = new Array(n);
  wc[0] = 1n;
  for (let c = 1; c < n; c++) wc[c] = (wc[c - 1] * w) % r;
  const den = batchInverse(wc.map((x) => mod(tau - x, r)), r);
  const z = (mod(pow(tau, BigInt(n), r) - 1n, r) * pow(BigInt(n), r - 2n, r)) % r;
  return wc.map((x, c) => (((z * x) % r) * den[c]) % r);
}

/** The domain snarkjs gives a circuit: 2^k ≥ constraints + public signals + ONE. */
export function domainLog(c: Circuit): number {
  let k = 0;
  while (2 ** k < c.constraints.length + c.nPublic + 1) k++;
  return k;
}

/** A chain of m = 2^k − 2 constraints (x_i + a_i)·(x_i + b_i) = x_{i+1}, x_0 the public input:
 * a domain of exactly 2^k, and a witness of full-size field elements (as a hash chain's). */
export function syntheticCircuit(curve: CurveName, k: number, x0: bigint): { circuit: Circuit; witness: bigint[] } {
  const r = CURVES[curve].r;
  const m = 2 ** k - 2;
  const witness: bigint[] = [1n, mod(x0, r)];
  const constraints: [Lc, Lc, Lc][] = [];
  let a = 0x9e3779b97f4a7c15n;
  for (let i = 0; i < m; i++) {
    a = (a * 6364136223846793005n + 1442695040888963407n) % r;
    const b = (a * a + 7n) % r;
    const u = i + 1; // wire of x_i
    constraints.push([
      { wires: [u, 0], coefs: [1n, a] },
      { wires: [u, 0], coefs: [1n, b] },
      { wires: [i + 2], coefs: [1n] },
    ]);
    witness.push(((witness[u] + a) * (witness[u] + b)) % r);
  }
  return { circuit: { nVars: m + 2, nPublic: 1, constraints }, witness };
}

/** An .r1cs file (iden3's binary format, as circom writes it). */
export function readR1cs(bytes: Uint8Array): Circuit {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== 'r1cs') throw new Error('not an r1cs file');
  const sections = new Map<number, number>();
  let p = 12;
  for (let i = 0, ns = dv.getUint32(8, true); i < ns; i++) {
    const id = dv.getUint32(p, true);
    const size = Number(dv.getBigUint64(p + 4, true));
    sections.set(id, p + 12);
    p += 12 + size;
  }
  let h = sections.get(1)!;
  const n8 = dv.getUint32(h, true);
  h += 4 + n8;
  const nWires = dv.getUint32(h, true);
  const nPublic = dv.getUint32(h + 4, true) + dv.getUint32(h + 8, true);
  const m = dv.getUint32(h + 24, true);
  const le = (at: number): bigint => {
    let v = 0n;
    for (let i = n8 - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i]);
    return v;
  };
  let q = sections.get(2)!;
  const lc = (): Lc => {
    const t = dv.getUint32(q, true);
    q += 4;
    const out: Lc = { wires: [], coefs: [] };
    for (let i = 0; i < t; i++, q += 4 + n8) {
      out.wires.push(dv.getUint32(q, true));
      out.coefs.push(le(q + 4));
    }
    return out;
  };
  const constraints: [Lc, Lc, Lc][] = [];
  for (let c = 0; c < m; c++) constraints.push([lc(), lc(), lc()]);
  return { nVars: nWires, nPublic, constraints };
}

/** iden3's binary container: type, version, then (id, size, bytes) sections. */
function binFile(type: string, version: number, sections: [number, Uint8Array[]][]): Uint8Array[] {
  const head = Buffer.alloc(12);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(version, 4);
  head.writeUInt32LE(sections.length, 8);
  const out: Uint8Array[] = [head];
  for (const [id, parts] of sections) {
    const sh = Buffer.alloc(12);
    sh.writeUInt32LE(id, 0);
    sh.writeBigUInt64LE(BigInt(parts.reduce((s, b) => s + b.byteLength, 0)), 4);
    out.push(sh, ...parts);
  }
  return out;
}
function writeParts(file: string, parts: Uint8Array[]): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const b of parts) fs.writeSync(fd, b);
  } finally {
    fs.closeSync(fd);
  }
}
function putLe(out: Uint8Array, at: number, v: bigint, n: number): void {
  for (let i = 0; i < n; i++, v >>= 8n) out[at + i] = Number(v & 0xffn);
}
function leBytes(v: bigint, n: number): Buffer {
  const b = Buffer.alloc(n);
  putLe(b, 0, v, n);
  return b;
}
const u32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v, 0);
  return b;
};
const nBytes = (p: bigint): number => 8 * Math.ceil(p.toString(2).length / 64);

/** A .wtns file (version 2) of the witness. */
export function writeWtns(file: string, curve: CurveName, witness: bigint[]): void {
  const r = CURVES[curve].r;
  const values = Buffer.alloc(32 * witness.length);
  witness.forEach((v, i) => putLe(values, 32 * i, v, 32));
  writeParts(file, binFile('wtns', 2, [[1, [u32(32), leBytes(r, 32), u32(witness.length)]], [2, [values]]]));
}

export interface Secrets {
  tau: bigint;
  alpha: bigint;
  beta: bigint;
}

/** Writes the Groth16 zkey of `circuit` for the secrets; returns its domain's log. */
export function writeKnownTauZkey(file: string, curve: CurveName, circuit: Circuit, secrets: Secrets): number {
  const c = CURVES[curve];
  const r = c.r;
  const addon = testingAddon();
  const k = domainLog(circuit);
  const n = 2 ** k;
  const { nVars, nPublic, constraints } = circuit;
  const m = constraints.length;
  const { tau, alpha, beta } = secrets;
  const L = lagrangeAt(r, k, tau);
  const a = new Array<bigint>(nVars).fill(0n);
  const b = new Array<bigint>(nVars).fill(0n);
  const cc = new Array<bigint>(nVars).fill(0n);
  // Section 4: A's and B's coefficients in the prover's order, each c·R² mod r (R = 2^256:
  // snarkjs stores Fr.mul(c, R²) in standard form, so that its Montgomery product with a standard
  // witness value is the product in Montgomery form).
  const R2 = pow(2n, 512n, r);
  let terms = nPublic + 1;
  for (const [A, B] of constraints) terms += A.wires.length + B.wires.length;
  const coefs = Buffer.alloc(4 + 44 * terms);
  coefs.writeUInt32LE(terms, 0);
  let at = 4;
  const coef = (matrix: number, row: number, s: number, v: bigint): void => {
    coefs.writeUInt32LE(matrix, at);
    coefs.writeUInt32LE(row, at + 4);
    coefs.writeUInt32LE(s, at + 8);
    putLe(coefs, at + 12, (v * R2) % r, 32);
    at += 44;
  };
  for (let i = 0; i < m; i++) {
    const [A, B, C] = constraints[i];
    A.wires.forEach((s, j) => {
      a[s] = (a[s] + A.coefs[j] * L[i]) % r;
      coef(0, i, s, A.coefs[j]);
    });
    B.wires.forEach((s, j) => {
      b[s] = (b[s] + B.coefs[j] * L[i]) % r;
      coef(1, i, s, B.coefs[j]);
    });
    C.wires.forEach((s, j) => (cc[s] = (cc[s] + C.coefs[j] * L[i]) % r));
  }
  for (let s = 0; s <= nPublic; s++) {
    a[s] = (a[s] + L[m + s]) % r;
    coef(0, m + s, s, 1n);
  }
  const combined = (s: number): bigint => (beta * a[s] + alpha * b[s] + cc[s]) % r;
  // H: the odd points of the domain of 2n, L'_{2i+1}(τ)
  const L2 = lagrangeAt(r, k + 1, tau);
  const H = Array.from({ length: n }, (_, i) => L2[2 * i + 1]);

  const scalars = (v: bigint[]): Uint8Array => {
    const out = Buffer.alloc(32 * v.length);
    v.forEach((x, i) => putLe(out, 32 * i, x, 32));
    return out;
  };
  const g1 = (v: bigint[]): Uint8Array => addon.fixedBaseMul(curve, scalars(v), 'g1', true);
  const g2 = (v: bigint[]): Uint8Array => addon.fixedBaseMul(curve, scalars(v), 'g2', true);
  const n8q = nBytes(c.p);
  const header2 = [
    u32(n8q),
    leBytes(c.p, n8q),
    u32(32),
    leBytes(r, 32),
    u32(nVars),
    u32(nPublic),
    u32(n),
    g1([alpha, beta]),
    g2([beta, 1n]), // β·G2, γ = G2
    g1([1n]), // δ·G1
    g2([1n]), // δ·G2
  ];
  const pub = Array.from({ length: nPublic + 1 }, (_, s) => combined(s));
  const priv = Array.from({ length: nVars - nPublic - 1 }, (_, i) => combined(nPublic + 1 + i));
  writeParts(
    file,
    binFile('zkey', 1, [
      [1, [u32(1)]], // Groth16
      [2, header2],
      [3, [g1(pub)]],
      [4, [coefs]],
      [5, [g1(a)]],
      [6, [g1(b)]],
      [7, [g2(b)]],
      [8, [g1(priv)]],
      [9, [g1(H)]],
      [10, [Buffer.alloc(64), u32(0)]], // no contributions
    ]),
  );
  return k;
}
