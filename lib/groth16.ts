// groth16Prove (msm-cuda/snarkjs): snarkjs's groth16.prove, computed here. snarkjs's prover
// (groth16_prove.js, 0.7) spends most of a hooked proof (lib/snarkjs.ts) outside anything a hook
// reaches: buildABC1 is single-threaded JavaScript over one WASM Fr.mul/Fr.add per coefficient,
// joinABC and the file reads follow, and the module exports neither. This prover reads the same
// files (lib/snarkjs-files.ts), runs buildABC, the coset transforms and joinABC as one native call
// on all cores (cuda/cpu/qap.hpp through the addon's groth16Qap), and the five MSMs on
// MsmContexts kept resident between proofs (lib/snarkjs-cache.ts), the four over the witness
// while the quotient is computed.
//
// The same proof as groth16_prove.js, step by step:
//   A, B: Σ coef·witness over zkey section 4; C = A∘B (on the domain ω^i, n = domainSize)
//   A, B, C to the coset: Fr.ifft, Fr.batchApplyKey(·, 1, inc), Fr.fft, inc = Fr.w[log n + 1]
//     (Fr.shift where n is the largest power of two in r − 1): the odd points of the domain of
//     2n, where zkey section 9 (H) expects the quotient (zkey_new.js)
//   h = A·B − C there, out of Montgomery form
//   pi_a = Σ w·A_i + alpha1 + r·delta1;  pi_b = Σ w·B2_i + beta2 + s·delta2 (G2)
//   pi_c = Σ w_priv·C_i + Σ h·H_i + s·pi_a + r·(Σ w·B1_i + beta1 + s·delta1) − r·s·delta1
// with r, s uniform in F_r. The last additions are MSMs of a few points (CPU backend: they are
// too small for a GPU to win).

import { randomBytes } from 'crypto';
import os = require('os');
import { nativeBinding } from './backend';
import type { Curve, Group } from './curves';
import { bytesToBigintLE, bigintToBytesLE, decodePoints, modInverse, toMontgomery, type AffinePoint, type G2AffinePoint } from './encoding';
import { CallSite, MsmError, toMsmError } from './errors';
import { msm } from './index';
import { ContextCache, defaultBudget, fingerprint, type CacheStats } from './snarkjs-cache';
import { closeBinFile, openBinFile, readSection, readWtnsHeader, readZkeyHeader, sectionSize, type BinFile, type ZkeyHeader } from './snarkjs-files';
import { checkOptions, type BackendChoice, type MsmOptions } from './validate';

export interface Groth16ProveOptions {
  /** Backend of the MSMs: 'auto' (default), 'cuda' or 'cpu'. */
  backend?: BackendChoice;
  /** CUDA device index (default 0). */
  device?: number;
  /** CPU threads of the quotient and of CPU MSMs (default 0 = all cores). */
  threads?: number;
  /** snarkjs's logger shape: `debug(message)` hears each step. */
  logger?: { debug(message: string): void };
}

/** snarkjs's proof object: affine points as decimal strings with z = 1 (projective form). */
export interface Groth16Proof {
  pi_a: [string, string, string];
  pi_b: [[string, string], [string, string], [string, string]];
  pi_c: [string, string, string];
  protocol: 'groth16';
  curve: 'bn128' | 'bls12381';
}

const SNARKJS_NAME = { bn254: 'bn128', 'bls12-381': 'bls12381' } as const;
const OPTION_KEYS = ['backend', 'device', 'threads', 'logger'];
const COEF_BYTES = 12 + 32; // zkey section 4 entry: matrix, constraint, signal, coefficient

// The proving keys' bases, resident across proofs, within half the host memory and three quarters
// of the GPU's (as install()'s default); made at the first proof.
let cache: ContextCache | null = null;

function contexts(device: number): ContextCache {
  if (!cache) {
    const { cuda } = nativeBinding().info();
    cache = new ContextCache(defaultBudget(cuda.available ? cuda.devices[device]?.totalMemory : undefined, os.totalmem()));
  }
  return cache;
}

/** The resident bases of groth16Prove: counters and bytes held. */
export function groth16CacheStats(): CacheStats {
  return cache?.stats() ?? { contexts: 0, hits: 0, misses: 0, created: 0, evictions: 0, host: 0, device: 0 };
}

/** Free the bases groth16Prove keeps resident (each context closed once its running MSM ends). */
export function clearGroth16Cache(): void {
  cache?.clear();
}

// ---- the roots of unity, as ffjavascript's Fr has them (wasm_field1.js) ---------------------------

function powMod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}

const rootsCache = new Map<string, Uint8Array>();

/**
 * w‖w⁻¹‖1/n‖inc in Montgomery form for the domain of 2^log: ffjavascript's nqr is the least
 * quadratic non-residue from 2, w[s] = nqr^t for r − 1 = 2^s·t, w[k−1] = w[k]², shift = nqr².
 */
function qapRoots(curve: Curve, log: number): Uint8Array {
  const key = `${curve.name}/${log}`;
  const hit = rootsCache.get(key);
  if (hit) return hit;
  const r = curve.r;
  let nqr = 2n;
  while (powMod(nqr, (r - 1n) / 2n, r) !== r - 1n) nqr++;
  let s = 0;
  let t = r - 1n;
  for (; (t & 1n) === 0n; t >>= 1n) s++;
  if (log > s) throw new MsmError('ERR_INVALID_ARGUMENT', `malformed zkey: section 2 (groth16 header): a domain of 2^${log} exceeds ${curve.name}'s 2^${s}`);
  const w = (k: number) => powMod(powMod(nqr, t, r), 1n << BigInt(s - k), r);
  const inc = log === s ? (nqr * nqr) % r : w(log + 1);
  const values = [w(log), modInverse(w(log), r), modInverse(1n << BigInt(log), r), inc];
  const out = new Uint8Array(4 * curve.scalarBytes);
  values.forEach((v, i) => out.set(bigintToBytesLE(toMontgomery(v, r, curve.scalarBytes), curve.scalarBytes), i * curve.scalarBytes));
  rootsCache.set(key, out);
  return out;
}

// ---- the prover ----------------------------------------------------------------------------------

interface Resolved {
  backend: BackendChoice;
  device: number;
  threads: number;
  debug: (m: string) => void;
}

function resolve(options: unknown): Resolved {
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new MsmError('ERR_INVALID_ARGUMENT', 'options must be an object');
  }
  const o = { ...(options as Record<string, unknown> | undefined) };
  for (const k of Object.keys(o)) {
    if (!OPTION_KEYS.includes(k)) throw new MsmError('ERR_INVALID_OPTION', `unknown option '${k}' of groth16Prove(); known: ${OPTION_KEYS.join(', ')}`);
  }
  const logger = o.logger as { debug?: unknown } | undefined;
  if (logger !== undefined && (logger === null || typeof logger.debug !== 'function')) throw new MsmError('ERR_INVALID_OPTION', "option 'logger' must be an object with a debug(message) method");
  const { backend, device, threads } = checkOptions({ backend: o.backend, device: o.device, threads: o.threads });
  return { backend, device, threads, debug: logger ? (m) => (logger.debug as (m: string) => void).call(logger, `msm-cuda groth16: ${m}`) : () => {} };
}

/** What names a zkey's bases in the cache: its bytes' SHA-256, or for a file, the file as it is now. */
async function basesKey(zkey: BinFile, header: ZkeyHeader, o: Resolved): Promise<(id: number, group: Group) => Promise<string>> {
  const opts = `${o.backend}/${o.device}/${o.threads}`;
  const src = zkey.source;
  if (src.kind === 'file') {
    // Reading and hashing the five point sections (some 400 MB at 2^20 on BN254) would cost more
    // than the proof's MSMs on a GPU. The file's identity and times, with the header's digest (its
    // delta changes with every contribution), name its contents unless it is rewritten in place
    // to the same size within one timestamp tick.
    const s = src.stat;
    const file = `file:${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${header.digest}`;
    return async (id) => `${file}#${id}/${opts}`;
  }
  return async (id, group) => {
    const bytes = await readSection(zkey, id, 'points');
    return `${await fingerprint(header.curve.name, group, { byteLength: bytes.byteLength, parts: [bytes] })}/${opts}`;
  };
}

const SECTIONS = { 5: 'points A', 6: 'points B1', 7: 'points B2', 8: 'points C', 9: 'points H' } as const;

/**
 * A Groth16 proof from a snarkjs .zkey and .wtns (file names or their bytes), as snarkjs's
 * `groth16.prove(zkey, wtns)` makes it: `{ proof, publicSignals }` for `groth16.verify`. The bases
 * stay resident (on the GPU for backend 'cuda' or 'auto' with a GPU) for the next proof with the
 * same key: clearGroth16Cache() frees them. Bytes are read as the proof goes: leave them unchanged
 * until it settles. Errors are MsmError: ERR_INVALID_ARGUMENT for a
 * file that is not a Groth16 zkey or wtns or is malformed (the message names the section),
 * ERR_UNKNOWN_CURVE for a curve other than BN254 and BLS12-381, ERR_LENGTH_MISMATCH for a witness
 * of another circuit.
 */
export async function groth16Prove(
  zkey: string | Uint8Array,
  witness: string | Uint8Array,
  options?: Groth16ProveOptions,
): Promise<{ proof: Groth16Proof; publicSignals: string[] }> {
  const site = new CallSite(groth16Prove);
  try {
    const o = resolve(options);
    const zf = await openBinFile(zkey, 'zkey');
    try {
      const wf = await openBinFile(witness, 'wtns');
      try {
        return await prove(zf, wf, o);
      } finally {
        await closeBinFile(wf);
      }
    } finally {
      await closeBinFile(zf);
    }
  } catch (e) {
    throw site.attach(toMsmError(e));
  }
}

async function prove(zf: BinFile, wf: BinFile, o: Resolved): Promise<{ proof: Groth16Proof; publicSignals: string[] }> {
  const native = nativeBinding();
  const header = await readZkeyHeader(zf);
  await readWtnsHeader(wf, header);
  const { curve, nVars, nPublic, domainSize } = header;
  const fb = curve.fieldBytes;
  const sizes: Record<keyof typeof SECTIONS, number> = { 5: nVars * 2 * fb, 6: nVars * 2 * fb, 7: nVars * 4 * fb, 8: (nVars - nPublic - 1) * 2 * fb, 9: domainSize * 2 * fb };
  for (const [id, name] of Object.entries(SECTIONS)) {
    const got = sectionSize(zf, Number(id));
    const want = sizes[Number(id) as keyof typeof SECTIONS];
    if (got !== want) throw new MsmError('ERR_INVALID_ARGUMENT', `malformed zkey: section ${id} (${name}) ${got === undefined ? 'is missing' : `has ${got} bytes, not ${want}`}`);
  }
  o.debug(`${curve.name}, ${nVars} signals (${nPublic} public), domain 2^${Math.log2(domainSize)}`);
  const w = await readSection(wf, 2, 'witness', nVars * curve.scalarBytes);
  const coefs = await readSection(zf, 4, 'coefficients');
  const nCoefs = coefs.byteLength >= 4 ? new DataView(coefs.buffer, coefs.byteOffset, 4).getUint32(0, true) : -1;
  if (coefs.byteLength !== 4 + nCoefs * COEF_BYTES) throw new MsmError('ERR_INVALID_ARGUMENT', `malformed zkey: section 4 (coefficients) has ${coefs.byteLength} bytes, not 4 + ${COEF_BYTES} × its count ${nCoefs}`);

  const quotient = native.groth16Qap(curve.name, 2, coefs.subarray(4), w, Math.log2(domainSize), qapRoots(curve, Math.log2(domainSize)), o.threads);
  quotient.catch(() => {}); // awaited below, after the MSMs have been started
  o.debug(`quotient: ${nCoefs} coefficients`);

  const key = await basesKey(zf, header, o);
  const { limits } = native.info();
  const base: MsmOptions = { pointFormat: 'lem', backend: o.backend, device: o.device, threads: o.threads };
  const multiexp = async <G extends Group>(id: keyof typeof SECTIONS, group: G, scalars: Uint8Array): Promise<AffinePoint | G2AffinePoint> => {
    if (scalars.byteLength === 0) return group === 'g1' ? { x: 0n, y: 0n } : { x: [0n, 0n], y: [0n, 0n] };
    // a build whose CUDA backend lacks G2 runs it on the CPU, as 'auto' does
    const backend = group === 'g2' && o.backend === 'cuda' && !limits.cuda.groups.includes('g2') ? 'cpu' : o.backend;
    const options = { ...base, backend, group } as MsmOptions<Group>;
    o.debug(`multiexp ${SECTIONS[id]}: ${scalars.byteLength / curve.scalarBytes} points`);
    const r = await contexts(o.device).msm(await key(id, group), curve.name, () => readSection(zf, id, SECTIONS[id]), options, scalars);
    return r as AffinePoint | G2AffinePoint;
  };
  const sb = curve.scalarBytes;
  const [A, B1, B2, C] = await Promise.all([
    multiexp(5, 'g1', w),
    multiexp(6, 'g1', w),
    multiexp(7, 'g2', w),
    multiexp(8, 'g1', w.subarray((nPublic + 1) * sb)),
  ]);
  const h = await quotient;
  const H = await multiexp(9, 'g1', h);

  o.debug('assembling the proof');
  const q = curve.r;
  const [r, s] = [randomScalar(q), randomScalar(q)];
  const g1 = (bytes: Uint8Array) => decodePoints(curve, bytes, 'montgomery', 'g1')[0];
  const g2 = (bytes: Uint8Array) => decodePoints(curve, bytes, 'montgomery', 'g2')[0];
  const P = header.points;
  const small = { backend: 'cpu', threads: o.threads } as const;
  const piA = await msm(curve.name, [A as AffinePoint, g1(P.alpha1), g1(P.delta1)], [1n, 1n, r], small);
  const piB = await msm(curve.name, [B2 as G2AffinePoint, g2(P.beta2), g2(P.delta2)], [1n, 1n, s], { ...small, group: 'g2' });
  const piB1 = await msm(curve.name, [B1 as AffinePoint, g1(P.beta1), g1(P.delta1)], [1n, 1n, s], small);
  const piC = await msm(curve.name, [C as AffinePoint, H as AffinePoint, piA, piB1, g1(P.delta1)], [1n, 1n, s, r, (q - ((r * s) % q)) % q], small);

  const publicSignals: string[] = [];
  for (let i = 1; i <= nPublic; i++) publicSignals.push(bytesToBigintLE(w.subarray(i * sb, (i + 1) * sb)).toString());
  return { proof: { pi_a: g1Object(piA), pi_b: g2Object(piB), pi_c: g1Object(piC), protocol: 'groth16', curve: SNARKJS_NAME[curve.name as keyof typeof SNARKJS_NAME] }, publicSignals };
}

/** Uniform in [0, q): 512 random bits reduced (bias below 2^-256). */
function randomScalar(q: bigint): bigint {
  return bytesToBigintLE(randomBytes(64)) % q;
}

// ffjavascript's G.toObject(G.toAffine(p)), stringified: infinity is (0, 1, 0)
function g1Object(p: AffinePoint): Groth16Proof['pi_a'] {
  return p.x === 0n && p.y === 0n ? ['0', '1', '0'] : [p.x.toString(), p.y.toString(), '1'];
}

function g2Object(p: G2AffinePoint): Groth16Proof['pi_b'] {
  if ([...p.x, ...p.y].every((v) => v === 0n)) return [['0', '0'], ['1', '0'], ['0', '0']];
  return [[p.x[0].toString(), p.x[1].toString()], [p.y[0].toString(), p.y[1].toString()], ['1', '0']];
}
