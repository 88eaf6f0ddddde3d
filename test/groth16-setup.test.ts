// The prover benchmark's known-τ Groth16 setup (bench/groth16-setup.ts) and the test addon's
// fixedBaseMul it stands on: fixedBaseMul against @noble/curves (G1 and G2, both formats, edge
// scalars); the roots of unity against ffjavascript's; and the zkeys it writes, read by snarkjs's
// own prover (no msm-cuda hook), whose proofs snarkjs's verifier accepts, and rejects for a
// witness that breaks a constraint. Also a circom-compiled circuit (the committed fixtures' R1CS).

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import fs = require('fs');
import os = require('os');
import path = require('path');
import { CURVES } from '../lib';
import { domainLog, lagrangeAt, readR1cs, rootOfUnity, syntheticCircuit, writeKnownTauZkey, writeWtns } from '../bench/groth16-setup';
import { seededRng } from './support/data';
import { testingAddon } from './support/testing';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const snarkjs = require('snarkjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compile } = require('./vectors/snarkjs/circuit');

type SnarkCurve = 'bn254' | 'bls12-381';
const SNARK_CURVES: SnarkCurve[] = ['bn254', 'bls12-381'];
const NOBLE = { bn254, 'bls12-381': bls12_381 } as const;
const PRIMES = { bn254: 'bn128', 'bls12-381': 'bls12381' } as const;
const rng = seededRng('groth16-setup');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msm-groth16-setup-'));

afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  for (const k of ['curve_bn128', 'curve_bls12381']) {
    const c = (globalThis as Record<string, { terminate(): Promise<void> } | undefined>)[k];
    if (c) await c.terminate();
  }
});

const le = (v: bigint, n = 32): Uint8Array => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++, v >>= 8n) b[i] = Number(v & 0xffn);
  return b;
};
const fromLe = (b: Uint8Array, at: number, n: number): bigint => {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[at + i]);
  return v;
};

describe.each(SNARK_CURVES)('fixedBaseMul on %s', (curve) => {
  const c = CURVES[curve];
  const fb = c.fieldBytes;
  const R = (1n << BigInt(8 * fb)) % c.p;
  const ks = [0n, 1n, 2n, 255n, 256n, c.r - 1n, c.r, c.r + 1n, (1n << 256n) - 1n, ...Array.from({ length: 12 }, () => rng.below(c.r))];
  const scalars = new Uint8Array(32 * ks.length);
  ks.forEach((k, i) => scalars.set(le(k), 32 * i));
  test.each(['g1', 'g2'] as const)('%s: k·G equals noble, canonical and Montgomery; 0 and r give zeros', (group) => {
    const P = group === 'g1' ? NOBLE[curve].G1.Point : NOBLE[curve].G2.Point;
    const coords = group === 'g1' ? 2 : 4;
    for (const montgomery of [false, true]) {
      const out = testingAddon().fixedBaseMul(curve, scalars, group, montgomery);
      expect(out.byteLength).toBe(ks.length * coords * fb);
      ks.forEach((k, i) => {
        const got = Array.from({ length: coords }, (_, j) => fromLe(out, (i * coords + j) * fb, fb));
        const kr = k % c.r;
        let want: bigint[] = Array(coords).fill(0n);
        if (kr !== 0n) {
          const a = P.BASE.multiply(kr).toAffine() as { x: bigint | { c0: bigint; c1: bigint }; y: bigint | { c0: bigint; c1: bigint } };
          const flat = (v: bigint | { c0: bigint; c1: bigint }) => (typeof v === 'bigint' ? [v] : [v.c0, v.c1]);
          want = [...flat(a.x), ...flat(a.y)];
          if (montgomery) want = want.map((v) => (v * R) % c.p);
        }
        if (got.join() !== want.join()) throw new Error(`${group} k = ${k} (montgomery ${montgomery}): got ${got}, want ${want}`);
      });
    }
  });
});

test('rootOfUnity is ffjavascript\'s Fr.w[k]; the Lagrange basis at τ sums to 1', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { F1Field } = require('ffjavascript');
  for (const curve of SNARK_CURVES) {
    const r = CURVES[curve].r;
    const F = new F1Field(r);
    for (const k of [1, 5, 16, 28]) expect(rootOfUnity(r, k)).toBe(F.w[k]);
    const L = lagrangeAt(r, 4, 1234567n);
    expect(L.reduce((s, x) => (s + x) % r, 0n)).toBe(1n);
  }
});

async function proveAndVerify(curve: SnarkCurve, dir: string): Promise<boolean> {
  const zkey = path.join(dir, 'c.zkey');
  const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
  const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, path.join(dir, 'w.wtns'));
  expect(proof.curve).toBe(PRIMES[curve]);
  return snarkjs.groth16.verify(vkey, publicSignals, proof, { debug() {}, info() {}, warn() {}, error() {} });
}

describe.each(SNARK_CURVES)('known-τ zkeys on %s, proved by snarkjs alone', (curve) => {
  const secrets = { tau: 1n + rng.below(CURVES[curve].r - 1n), alpha: 1n + rng.below(1n << 64n), beta: 1n + rng.below(1n << 64n) };

  test('the synthetic chain: a domain of exactly 2^k; its proof verifies; a broken witness does not', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, `${curve}-`));
    const { circuit, witness } = syntheticCircuit(curve, 7, 3n);
    expect(domainLog(circuit)).toBe(7);
    writeKnownTauZkey(path.join(dir, 'c.zkey'), curve, circuit, secrets);
    writeWtns(path.join(dir, 'w.wtns'), curve, witness);
    expect(await proveAndVerify(curve, dir)).toBe(true);
    witness[50] = (witness[50] + 1n) % CURVES[curve].r;
    writeWtns(path.join(dir, 'w.wtns'), curve, witness);
    expect(await proveAndVerify(curve, dir)).toBe(false);
  }, 120_000);

  test('a circom circuit (the Poseidon chain of the committed fixtures): its proof verifies', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, `${curve}-`));
    // compiled apart from the committed fixtures' build, which other suites may be writing
    compile(curve, path.join(dir, 'build'));
    const circuit = readR1cs(fs.readFileSync(path.join(dir, 'build', 'poseidon_chain.r1cs')));
    const wasm = path.join(dir, 'build', 'poseidon_chain_js', 'poseidon_chain.wasm');
    expect(circuit.nPublic).toBe(2); // out and a
    writeKnownTauZkey(path.join(dir, 'c.zkey'), curve, circuit, secrets);
    await snarkjs.wtns.calculate({ a: 3, b: 5 }, wasm, path.join(dir, 'w.wtns'));
    expect(await proveAndVerify(curve, dir)).toBe(true);
  }, 180_000);
});
