// The scalar-field transforms of snarkjs's Groth16 prover on msm-cuda (install() in
// lib/snarkjs.ts hooks them beside the MSMs): `curve.Fr.ifft`, `Fr.batchApplyKey` and `Fr.fft`,
// three of each per proof, on the domain of the circuit. ffjavascript runs them in WASM through
// its worker threads; here they run natively on all cores (cuda/cpu/ntt.hpp, through the addon's
// fieldTransform), with the roots taken from the curve's own Fr (Fr.w), so the results are the
// same elements.
//
// ffjavascript's semantics (engine_fft.js, engine_applykey.js; 0.3), for its Fr (WasmField1,
// elements 32-byte little-endian in Montgomery form, in a Uint8Array or a BigBuffer of pages):
//   fft(a)[k]  = Σ_j a_j·w^(jk), w = Fr.w[log2 n], n a power of two
//   ifft(a)[k] = (1/n)·Σ_j a_j·w^(−jk)
//   batchApplyKey(a, first, inc)[i] = a_i·first·inc^i (first, inc through Fr.e)
// The result is a new buffer, of the kind ffjavascript returns (below). Anything else (arrays of elements, other
// arguments, too few elements) runs ffjavascript's own code.

import { nativeBinding } from './backend';
import type { Curve } from './curves';
import { toMsmError } from './errors';
import { bytesOf } from './snarkjs-cache';

export type FieldMethod = 'fft' | 'ifft' | 'batchApplyKey';
export const FIELD_METHODS: readonly FieldMethod[] = ['fft', 'ifft', 'batchApplyKey'];

/** Why a call ran ffjavascript's own transform. */
export type FieldFallbackReason =
  | 'threshold' // fewer elements than the threshold (or none)
  | 'arguments' // more arguments than ffjavascript's (buffer, …, inType, outType, logger, text)
  | 'buffer' // neither a Uint8Array nor an ffjavascript BigBuffer (an array of elements)
  | 'shape' // not a whole number of elements, or an FFT of a length without a root in Fr.w
  | 'input'; // an element (or factor) not below r: ffjavascript's semantics

export const FIELD_REASONS: readonly FieldFallbackReason[] = ['threshold', 'arguments', 'buffer', 'shape', 'input'];

/** What this module needs of an ffjavascript prime field (WasmField1). */
export interface WasmField {
  type?: unknown;
  p?: unknown;
  n8?: unknown;
  s?: unknown;
  w?: unknown;
  e(x: unknown): Uint8Array;
  inv(x: Uint8Array): Uint8Array;
}

const ELEMENT_BYTES = 32;
// ffjavascript's arity, the same for all three: fft(buff, inType, outType, logger, loggerTxt),
// batchApplyKey(buff, first, inc, inType, outType).
const ARITY = 5;

/** The curve whose scalar field F is (ffjavascript's Fr: type F1, p = r, 32-byte elements), or null. */
export function identifyField(F: unknown, curves: readonly Curve[]): Curve | null {
  const f = F as WasmField | null;
  if (!f || typeof f !== 'object' || f.type !== 'F1' || f.n8 !== ELEMENT_BYTES || !Array.isArray(f.w)) return null;
  if (typeof f.e !== 'function' || typeof f.inv !== 'function') return null;
  return curves.find((c) => c.r === f.p) ?? null;
}

const log2Exact = (n: number): number => (n > 0 && Number.isInteger(Math.log2(n)) ? Math.log2(n) : -1);

/**
 * One call of a hooked transform: its value computed here, or the reason to run ffjavascript's.
 * Errors other than a refused input (an element not below r) are thrown, as MsmError.
 */
export async function runField(
  method: FieldMethod,
  F: WasmField,
  curve: Curve,
  args: readonly unknown[],
  threshold: number,
  threads: number,
): Promise<{ value: unknown } | { fallback: FieldFallbackReason }> {
  if (args.length > ARITY) return { fallback: 'arguments' };
  const data = bytesOf(args[0]);
  if (!data) return { fallback: 'buffer' };
  if (data.byteLength % ELEMENT_BYTES !== 0) return { fallback: 'shape' };
  const n = data.byteLength / ELEMENT_BYTES;
  if (n === 0 || n < threshold) return { fallback: 'threshold' };
  const bits = method === 'batchApplyKey' ? 0 : log2Exact(n);
  const w = method === 'batchApplyKey' ? null : (F.w as unknown[])[bits];
  if (bits < 0 || (method !== 'batchApplyKey' && !(w instanceof Uint8Array))) return { fallback: 'shape' };
  let op: 0 | 1, a: Uint8Array, b: Uint8Array | null;
  try {
    if (method === 'batchApplyKey') [op, a, b] = [1, F.e(args[1]), F.e(args[2])];
    else if (method === 'fft') [op, a, b] = [0, w as Uint8Array, null];
    else [op, a, b] = [0, F.inv(w as Uint8Array), F.inv(F.e(n))];
  } catch {
    return { fallback: 'arguments' }; // factors ffjavascript's Fr.e does not take: its own error
  }
  const logger = (method === 'batchApplyKey' ? null : args[3]) as { debug?: unknown } | null | undefined;
  if (logger && typeof logger.debug === 'function') logger.debug(`msm-cuda: ${String(args[4] ?? method)}: ${method} of ${n} elements`);
  let out: Uint8Array;
  try {
    out = await nativeBinding().fieldTransform(curve.name, op, data.parts.length === 1 ? data.parts[0] : data.parts, a, b, threads);
  } catch (e) {
    const err = toMsmError(e);
    if (err.code === 'ERR_INVALID_ARGUMENT') return { fallback: 'input' };
    throw err;
  }
  // The kind of buffer ffjavascript returns: fft and ifft work on buff.slice(), a Uint8Array for a
  // BigBuffer of one page, and return that kind; batchApplyKey returns a BigBuffer for any BigBuffer.
  const big = method === 'batchApplyKey' ? !(args[0] instanceof Uint8Array) : data.parts.length > 1;
  if (!big) return { value: out };
  const Ctor = (args[0] as object).constructor as new (size: number) => { set(b: Uint8Array, offset: number): void };
  const result = new Ctor(out.byteLength);
  result.set(out, 0);
  return { value: result };
}
