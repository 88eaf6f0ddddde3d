// The typed view of the native addon (cuda/addon). This file is the contract between the
// TypeScript layer and C++: every export of the addon is declared here, nothing else touches it.
//
// Byte formats crossing the boundary (all little-endian):
//   points   n × (2·fieldBytes): x‖y. pointFormat 0 = canonical integers < p,
//            1 = Montgomery form (snarkjs/ffjavascript "LEM"). The point at infinity is all zeros
//            in both formats. Group 'g2' (options.group): n × (4·fieldBytes), x.c0‖x.c1‖y.c0‖y.c1,
//            each F_p coordinate in the same two forms.
//   scalars  n × 32 bytes. scalarFormat 0 = canonical integers, 1 = Montgomery form mod r.
//   result   x‖y canonical (x.c0‖x.c1‖y.c0‖y.c1 for G2), all zeros for infinity.
//
// Native errors are plain Errors carrying `code` and, where an input element is at fault, `index`.
// lib/errors.ts turns them into MsmError. Codes the addon raises:
//   ERR_INVALID_ARGUMENT       malformed call (wrong types, byte length not a multiple, options not
//                              an object, more points than the backend's maxPoints)
//   ERR_INVALID_OPTION         an option of the wrong shape, or outside the backend's limits (the
//                              message names it): the native re-check of lib/validate.ts; a group
//                              the curve lacks (G2 of bls12-377) or the backend does not run
//   ERR_UNKNOWN_CURVE          curve id not built into the addon
//   ERR_LENGTH_MISMATCH        scalars byte length ≠ size·32
//   ERR_POINT_ENCODING         a coordinate ≥ p (index = point)
//   ERR_POINT_NOT_ON_CURVE     (index = point)
//   ERR_POINT_NOT_IN_SUBGROUP  (index = point)
//   ERR_SCALAR_RANGE           scalar ≥ r (index = scalar)
//   ERR_CUDA_UNAVAILABLE       backend 'cuda' asked for but not compiled / no device (message says why)
//   ERR_CUDA_OOM               device allocation failed; the process and other contexts stay healthy
//   ERR_CUDA                   any other CUDA error (message names the call and the CUDA error string)
//   ERR_CONTEXT_CLOSED         msm on a closed context
//   ERR_OUT_OF_MEMORY          a host allocation failed, in any thread (copying an input, decoding,
//                              the CPU engine's buckets); the process and other contexts carry on
//
// Input bytes are taken at call time: before createContext/msm/msmBatch return their Promise, each
// Uint8Array (every part of createContext's points) is copied into memory the addon owns, so nothing done to it afterwards (mutation,
// resize, transfer, collection) reaches the work. `owned: true` says instead that the caller made
// the array itself and hands it over: it is held by reference, may be overwritten (decoded in
// place), and must never be touched again: lib/ says so of its own encodings of bigint input and
// of copyBytes() copies (of packed input that waits for something else before it is handed over).
// Points in parts are always copied (into one buffer), whatever `owned` says.

import nodeGypBuild = require('node-gyp-build');
import path = require('path');
import type { Group } from './curves';
import type { AccumulationMode } from './validate';

export type NativeBackend = 'cpu' | 'cuda';

export interface NativeDeviceInfo {
  index: number;
  name: string;
  computeCapability: string; // "9.0"
  totalMemory: number; // bytes
  multiProcessors: number;
}

// One backend's row of cuda/options.hpp backend_limits(): what its options may be. Ranges are
// inclusive [lo, hi] of an explicit value (0 for windowBits and threads, -1 for tau, mean "the
// backend chooses" and are always accepted).
export interface NativeBackendLimits {
  windowBits: [number, number];
  tau: [number, number] | null; // null: the backend has no τ and ignores the option
  threads: [number, number];
  maxPoints: number; // bases per context
  accumulation: AccumulationMode[]; // the modes it runs
  groups: Group[]; // the groups it runs
}

export interface NativeInfo {
  version: string; // addon build version (package version)
  curves: string[]; // curve ids the addon was built with
  groups: Record<string, Group[]>; // curve id → the groups the addon runs for it
  cpu: { threads: number };
  cuda: {
    compiled: boolean; // the addon was built with the CUDA backend
    available: boolean; // compiled and at least one usable device
    reason: string | null; // why not available (null when available)
    runtimeVersion: number; // e.g. 13000; 0 when not compiled
    driverVersion: number; // 0 when no driver
    devices: NativeDeviceInfo[];
  };
  // Static (the build's table): reported for both backends, whether CUDA is compiled in or not.
  limits: Record<NativeBackend, NativeBackendLimits>;
}

export interface NativeContextOptions {
  backend: NativeBackend;
  device: number; // CUDA device index (ignored on cpu)
  devices?: number[]; // cuda only: split the bases over these devices (issue 13); absent: `device` alone
  windowBits: number; // c; 0 = chosen by the backend's cost model
  tau: number; // precompute depth τ (cuda); -1 = backend default
  accumulation: AccumulationMode; // cuda/options.hpp Accumulation
  threads: number; // cpu worker threads; 0 = all cores
  group: Group; // the group of the points (a context is one curve and one group)
}

export interface NativeMemory {
  host: number; // bytes held on the host for this context
  device: number; // bytes held on the device (bases, 2^h·P table, scratch)
}

export interface NativeContext {
  readonly size: number; // number of bases
  readonly memory: NativeMemory;
  readonly windowBits: number; // c actually used for this size
  readonly tau: number; // τ actually used (cuda), 0 on cpu
  // One MSM over the resident bases; scalars.length must be size·32 (checked natively too).
  // checkRange: reject any scalar ≥ r with ERR_SCALAR_RANGE and its index.
  msm(scalars: Uint8Array, scalarFormat: 0 | 1, checkRange: boolean, owned?: boolean): Promise<Uint8Array>;
  // Several MSMs over the resident bases in one native call (uploads overlap compute on cuda);
  // resolves to one result per entry, in order.
  msmBatch(scalars: Uint8Array[], scalarFormat: 0 | 1, checkRange: boolean, owned?: boolean): Promise<Uint8Array[]>;
  close(): void; // frees host and device memory; later msm calls reject with ERR_CONTEXT_CLOSED
}

export interface NativeBinding {
  info(): NativeInfo;
  // Parses and converts the points (and checks them when validate > 0: 1 = on curve,
  // 2 = on curve and in the prime-order subgroup), then uploads them and builds the
  // precomputed table for cuda. All of it off the event loop.
  // points: one Uint8Array, or parts (each a whole number of points) that it copies into one
  // buffer at the call, so that decoding and the engines see one array of n points.
  createContext(
    curve: string,
    points: Uint8Array | readonly Uint8Array[],
    pointFormat: 0 | 1,
    validate: 0 | 1 | 2,
    options: NativeContextOptions,
    owned?: boolean,
  ): Promise<NativeContext>;
  // A copy of bytes, taken now (several threads for large arrays); throws ERR_OUT_OF_MEMORY.
  copyBytes(bytes: Uint8Array): Uint8Array;
  // A transform over the curve's scalar field on `threads` CPU threads (0: all), off the event
  // loop (cuda/cpu/ntt.hpp; lib/snarkjs-field.ts). data: elements of 32 bytes in Montgomery form,
  // little-endian (one array or parts), copied at the call. op 0: the NTT of a power-of-two length,
  // out_k = b·Σ_j data_j·a^(jk) (b null: 1); op 1: out_i = data_i·a·b^i. ERR_INVALID_ARGUMENT for
  // an element, a or b not below r (naming the index), or a length that is not a power of two.
  fieldTransform(curve: string, op: 0 | 1, data: Uint8Array | readonly Uint8Array[], a: Uint8Array, b: Uint8Array | null, threads: number): Promise<Uint8Array>;
  // The quotient polynomial's parts of a Groth16 proof from a snarkjs zkey (cuda/cpu/qap.hpp;
  // lib/groth16.ts), on `threads` CPU threads, off the event loop, inputs copied at the call.
  // data: zkey section 4's entries (after its count: 12 + 32 bytes each) for ops 0 and 2, a‖b‖c
  // (3·2^logN elements, Montgomery form) for op 1; witness: .wtns section 2 (standard form).
  // op 0, buildABC: A‖B‖C on the domain of 2^logN, Montgomery form. op 1, joinABC: a·b − c in
  // standard form. op 2: buildABC, to the coset (inverse NTT, ·(1/n)·inc^i, NTT) and joinABC, the
  // scalars of the H multiexponentiation; roots = w‖w⁻¹‖1/n‖inc in Montgomery form.
  // ERR_INVALID_ARGUMENT naming the zkey/wtns section and index of an unusable entry or element.
  groth16Qap(curve: string, op: 0 | 1 | 2, data: Uint8Array, witness: Uint8Array | null, logN: number, roots: Uint8Array | null, threads: number): Promise<Uint8Array>;
}

let cached: NativeBinding | undefined;
let loadError: Error | undefined;

// Package root: dist/lib/native.js → ../.., lib/native.ts (under ts-jest/swc) → ..
function packageRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 4; i++) {
    if (require('fs').existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return path.resolve(__dirname, '..');
}

export function loadNative(): NativeBinding {
  if (cached) return cached;
  if (loadError) throw loadError;
  try {
    cached = nodeGypBuild(packageRoot()) as NativeBinding;
    return cached;
  } catch (e) {
    loadError = e as Error;
    throw loadError;
  }
}
