// groth16Prove (lib/groth16.ts, exported by msm-cuda/snarkjs): proofs from the committed keys of
// test/vectors/snarkjs/ (BN254 and BLS12-381) that snarkjs's groth16.verify accepts, with
// snarkjs's public signals and proof shape; a tampered public signal fails; the bases stay
// resident for a second proof; malformed input fails naming what is wrong. Then the native parts
// (the addon's groth16Qap: buildABC, joinABC, and both with the coset transforms) against a bigint
// model of groth16_prove.js's buildABC1, Fr.ifft/batchApplyKey/fft and joinABC on random sparse
// coefficients (the seed is printed).

import fs = require('fs');
import os = require('os');
import path = require('path');
import { nativeBinding } from '../lib/backend';
import { CURVES, MsmError, type CurveName } from '../lib';
import { bigintToBytesLE, bytesToBigintLE, modInverse } from '../lib/encoding';
import { clearGroth16Cache, groth16CacheStats, groth16Prove } from '../lib/snarkjs';
import { seededRng } from './support/data';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const snarkjs = require('snarkjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ff = require('ffjavascript');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureCircuit } = require('./vectors/snarkjs/circuit');

type SnarkCurve = 'bn254' | 'bls12-381';
const CURVE_LIST: SnarkCurve[] = ['bn254', 'bls12-381'];
const FX = path.join(__dirname, 'vectors', 'snarkjs');
const fixture = (c: SnarkCurve, f: string) => path.join(FX, c, f);
const INPUT = { a: 3, b: 5 };
const BUILD = { bn254: 'buildBn128', 'bls12-381': 'buildBls12381' } as const;

interface FfField {
  w: Uint8Array[];
  e(x: unknown): Uint8Array;
  inv(x: Uint8Array): Uint8Array;
}
const curves: Partial<Record<SnarkCurve, { Fr: FfField; terminate(): Promise<void> }>> = {};
const wtns: Partial<Record<SnarkCurve, Uint8Array>> = {};

beforeAll(async () => {
  for (const c of CURVE_LIST) {
    const { wasm } = ensureCircuit(c);
    const out = { type: 'mem' } as { type: string; data?: Uint8Array };
    await snarkjs.wtns.calculate(INPUT, wasm, out);
    wtns[c] = out.data!;
  }
}, 120000);

afterAll(async () => {
  clearGroth16Cache();
  for (const c of CURVE_LIST) await curves[c]?.terminate();
  for (const g of ['curve_bn128', 'curve_bls12381']) await (globalThis as Record<string, { terminate(): Promise<void> } | null>)[g]?.terminate();
});

const vkeyOf = (c: SnarkCurve) => JSON.parse(fs.readFileSync(fixture(c, 'groth16.vkey.json'), 'utf8'));

describe.each(CURVE_LIST)('groth16Prove on %s', (c) => {
  it('makes a proof snarkjs verifies, with snarkjs public signals and proof shape', async () => {
    const ours = await groth16Prove(fixture(c, 'groth16.zkey'), wtns[c]!, { backend: 'cpu' });
    const theirs = await snarkjs.groth16.prove(fixture(c, 'groth16.zkey'), { type: 'mem', data: wtns[c] });
    expect(ours.publicSignals).toEqual(theirs.publicSignals);
    expect(Object.keys(ours.proof)).toEqual(Object.keys(theirs.proof));
    expect(ours.proof.protocol).toBe(theirs.proof.protocol);
    expect(ours.proof.curve).toBe(theirs.proof.curve);
    expect(ours.proof.pi_a[2]).toBe('1');
    expect(ours.proof.pi_b[2]).toEqual(['1', '0']);
    expect(await snarkjs.groth16.verify(vkeyOf(c), ours.publicSignals, ours.proof)).toBe(true);
    // so that the check above can fail
    const tampered = [...ours.publicSignals];
    tampered[0] = (BigInt(tampered[0]) + 1n).toString();
    expect(await snarkjs.groth16.verify(vkeyOf(c), tampered, ours.proof)).toBe(false);
  });

  it('takes the zkey as bytes and the witness as a file, and keeps the bases resident for the next proof', async () => {
    const zkey = new Uint8Array(fs.readFileSync(fixture(c, 'groth16.zkey')));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'msm-groth16-')), 'w.wtns');
    fs.writeFileSync(file, wtns[c]!);
    const first = await groth16Prove(zkey, file, { backend: 'cpu', threads: 2 });
    const before = groth16CacheStats();
    const second = await groth16Prove(zkey, wtns[c]!, { backend: 'cpu', threads: 2 });
    const after = groth16CacheStats();
    expect(after.created).toBe(before.created);
    expect(after.hits).toBe(before.hits + 5);
    for (const r of [first, second]) expect(await snarkjs.groth16.verify(vkeyOf(c), r.publicSignals, r.proof)).toBe(true);
    expect(second.proof.pi_a).not.toEqual(first.proof.pi_a); // fresh r and s
  });
});

describe('groth16Prove errors', () => {
  const fails = async (p: Promise<unknown>, code: string, message: RegExp) => {
    const e = await p.then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(MsmError);
    expect((e as MsmError).code).toBe(code);
    expect((e as MsmError).message).toMatch(message);
  };
  const zkey = () => new Uint8Array(fs.readFileSync(fixture('bn254', 'groth16.zkey')));

  it('names the protocol of a PLONK key', () => fails(groth16Prove(fixture('bn254', 'plonk.zkey'), wtns.bn254!), 'ERR_INVALID_ARGUMENT', /plonk key, not a groth16/));
  it('refuses a witness of the other curve', () => fails(groth16Prove(zkey(), wtns['bls12-381']!), 'ERR_INVALID_ARGUMENT', /another field/));
  it('refuses a witness of another length', async () => {
    const w = wtns.bn254!.slice();
    // section 1 (header) starts at byte 12 + 12: n8, q, then nWitness
    const v = new DataView(w.buffer);
    v.setUint32(24 + 4 + 32, v.getUint32(24 + 4 + 32, true) + 1, true);
    await fails(groth16Prove(zkey(), w), 'ERR_LENGTH_MISMATCH', /witness length/);
  });
  it('names a truncated section', () => fails(groth16Prove(zkey().subarray(0, 5000), wtns.bn254!), 'ERR_INVALID_ARGUMENT', /malformed zkey: section \d+: .*past the end/));
  it('names a bad coefficient entry', async () => {
    const z = zkey();
    const { at } = sectionOf(z, 4);
    new DataView(z.buffer).setUint32(at + 4 + 3 * 44, 7, true); // entry 3's matrix
    await fails(groth16Prove(z, wtns.bn254!, { backend: 'cpu' }), 'ERR_INVALID_ARGUMENT', /zkey section 4 \(coefficients\): entry 3: matrix 7/);
  });
  it('refuses a file that is not a zkey, and unknown options', async () => {
    await fails(groth16Prove(wtns.bn254!, wtns.bn254!), 'ERR_INVALID_ARGUMENT', /starts with "wtns", not "zkey"/);
    await fails(groth16Prove(zkey(), wtns.bn254!, { fft: true } as object), 'ERR_INVALID_OPTION', /unknown option 'fft'/);
  });
});

/** Offset and size of a binfile section (the test's own reading of the container). */
function sectionOf(b: Uint8Array, id: number): { at: number; size: number } {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let at = 12;
  for (let i = 0; i < v.getUint32(8, true); i++) {
    const size = Number(v.getBigUint64(at + 4, true));
    if (v.getUint32(at, true) === id) return { at: at + 12, size };
    at += 12 + size;
  }
  throw new Error(`no section ${id}`);
}

// ---- the native parts against a bigint model -------------------------------------------------

describe.each(CURVE_LIST)('groth16Qap on %s against a bigint model', (c) => {
  const curve = CURVES[c as CurveName];
  const r = curve.r;
  const R = (1n << 256n) % r;
  const mont = (x: bigint) => (x * R) % r;
  const unmont = (x: bigint) => (x * modInverse(R, r)) % r;
  const pack = (xs: bigint[]) => {
    const out = new Uint8Array(32 * xs.length);
    xs.forEach((x, i) => out.set(bigintToBytesLE(x, 32), 32 * i));
    return out;
  };
  const unpack = (b: Uint8Array) => Array.from({ length: b.byteLength / 32 }, (_, i) => bytesToBigintLE(b.subarray(32 * i, 32 * i + 32)));
  const rng = seededRng(`groth16Qap ${c}`);
  const rand = () => rng.below(r);

  /** n8-byte entries (matrix, constraint, signal, k·R² mod r) and the model's A, B. */
  function problem(log: number, nVars: number, nCoefs: number, sorted: boolean) {
    const n = 1 << log;
    const entries = Array.from({ length: nCoefs }, () => ({ m: rng.u32() & 1, c: rng.u32() % n, s: rng.u32() % nVars, k: rand() }));
    if (sorted) entries.sort((x, y) => x.c - y.c);
    const bytes = new Uint8Array(44 * nCoefs);
    const v = new DataView(bytes.buffer);
    entries.forEach((e, i) => {
      v.setUint32(44 * i, e.m, true);
      v.setUint32(44 * i + 4, e.c, true);
      v.setUint32(44 * i + 8, e.s, true);
      bytes.set(bigintToBytesLE(mont(mont(e.k)), 32), 44 * i + 12);
    });
    const w = Array.from({ length: nVars }, rand);
    const A = new Array<bigint>(n).fill(0n);
    const B = new Array<bigint>(n).fill(0n);
    for (const e of entries) (e.m === 0 ? A : B)[e.c] = ((e.m === 0 ? A : B)[e.c] + e.k * w[e.s]) % r;
    return { n, bytes, w, A, B };
  }

  it('buildABC: A, B and A∘B in Montgomery form, entries in order or not, any threads', async () => {
    for (const sorted of [true, false]) {
      // 3·2^12 + 100 entries: three threads of their own (qap.hpp takes 2^12 per thread), cut
      // inside runs of one constraint (some 50 entries each)
      const { bytes, w, A, B } = problem(8, 9, 3 * 4096 + 100, sorted);
      for (const threads of [1, 3]) {
        const out = unpack(await nativeBinding().groth16Qap(c, 0, bytes, pack(w), 8, null, threads));
        expect(out.map(unmont)).toEqual([...A, ...B, ...A.map((a, i) => (a * B[i]) % r)]);
      }
    }
  });

  it('joinABC: a·b − c out of Montgomery form', async () => {
    const n = 8;
    const abc = Array.from({ length: 3 * n }, rand);
    const out = unpack(await nativeBinding().groth16Qap(c, 1, pack(abc.map(mont)), null, 3, null, 2));
    expect(out).toEqual(Array.from({ length: n }, (_, i) => (((abc[i] * abc[n + i] - abc[2 * n + i]) % r) + r) % r));
  });

  it('the quotient: buildABC, to the coset with snarkjs roots, joinABC', async () => {
    const Fr = (curves[c] ??= await ff[BUILD[c]](true)).Fr;
    const log = 4;
    const { n, bytes, w, A, B } = problem(log, 7, 60, true);
    const root = unmont(bytesToBigintLE(Fr.w[log]));
    const inc = unmont(bytesToBigintLE(Fr.w[log + 1]));
    const roots = new Uint8Array(128);
    [Fr.w[log], Fr.inv(Fr.w[log]), Fr.inv(Fr.e(n)), Fr.w[log + 1]].forEach((x, i) => roots.set(x, 32 * i));
    // the polynomial through (root^j, y_j), evaluated at inc·root^i: its coefficients are the
    // inverse DFT (naive), then Horner
    const pow = (b: bigint, e: number) => {
      let x = 1n;
      for (let i = 0; i < e; i++) x = (x * b) % r;
      return x;
    };
    const invN = modInverse(BigInt(n), r);
    const rootInv = modInverse(root, r);
    const coset = (y: bigint[]) => {
      const coef = y.map((_, k) => (y.reduce((s, yj, j) => s + yj * pow(rootInv, j * k), 0n) % r) * invN % r);
      return y.map((_, i) => {
        const x = (inc * pow(root, i)) % r;
        return coef.reduceRight((acc, a) => (acc * x + a) % r, 0n);
      });
    };
    const C = A.map((a, i) => (a * B[i]) % r);
    const [a, b, cc] = [coset(A), coset(B), coset(C)];
    const want = a.map((ai, i) => (((ai * b[i] - cc[i]) % r) + r) % r);
    const got = unpack(await nativeBinding().groth16Qap(c, 2, bytes, pack(w), log, roots, 3));
    expect(got).toEqual(want);
    expect(got.some((x) => x !== 0n)).toBe(true); // A·B − C vanishes on the domain, not on the coset
  });
});
