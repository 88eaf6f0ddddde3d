// The one validation layer: every argument of the public API is checked here, synchronously and
// before any native work, and turned into the plain shapes lib/native.ts expects. Options are
// checked in two steps: their shape (type, enum) by checkOptions, then, once the backend is known
// (lib/backend.ts chooseBackend), their values against that backend's row of the addon's limits
// table (info().limits, cuda/options.hpp) by checkLimits. What only the native parser can check
// cheaply (coordinates of packed points < p, on-curve and subgroup membership, packed scalars < r)
// is left to it; its errors come back as MsmError too.

import { CURVES, CURVE_NAMES, isCurveName, type Curve } from './curves';
import { encodePoints, encodeScalars, type AffinePoint, type ByteFormat } from './encoding';
import { MsmError } from './errors';
import type { NativeBackend, NativeBackendLimits } from './native';

export type BackendChoice = 'auto' | 'cuda' | 'cpu';
export type PointValidation = 'subgroup' | 'curve' | 'none';
export type PointFormat = ByteFormat | 'lem';
export type Accumulation = 'xyzz' | 'homogeneous';
/**
 * The accumulation mode a call runs: the options `constantTime` and `accumulation` resolved into
 * one name, as the addon and its limits table spell it (cuda/options.hpp kAccumulationNames).
 */
export type AccumulationMode = Accumulation | 'constant-time';

/**
 * Options of `msm()` and `MsmContext.create()`. The ranges of `windowBits`, `tau` and `threads`,
 * and the accumulation modes, are those of the backend that runs the call: `info().limits`.
 */
export interface MsmOptions {
  /** 'auto' (default): cuda when available and n is large enough, else cpu. */
  backend?: BackendChoice;
  /** CUDA device index (default 0). */
  device?: number;
  /** Pippenger window bits c (default: chosen by the backend's cost model). */
  windowBits?: number;
  /** Precompute depth τ of the CUDA backend (default: the backend's choice). */
  tau?: number;
  /**
   * Constant-time accumulation (CUDA backend only; Chen et al. §5): the device work does not depend
   * on the scalars' values. See the README for what it promises and costs. Default false.
   */
  constantTime?: boolean;
  /**
   * How the CUDA backend adds points into buckets: 'xyzz' (default; mixed additions in XYZZ
   * coordinates) or 'homogeneous' (§3.2 double-point additions in homogeneous coordinates).
   */
  accumulation?: Accumulation;
  /** Point checks: 'curve' (default), 'subgroup' (also in the order-r subgroup), 'none'. */
  validate?: PointValidation;
  /** Format of packed points: 'canonical' (default) or 'montgomery' (alias 'lem', snarkjs LEM). */
  pointFormat?: PointFormat;
  /** Format of packed scalars: 'canonical' (default) or 'montgomery'. */
  scalarFormat?: ByteFormat;
  /** CPU worker threads (default 0 = all cores). */
  threads?: number;
}

/** Options of one `ctx.msm()` / `ctx.msmBatch()` call. */
export interface CallOptions {
  scalarFormat?: ByteFormat;
}

export type PointsInput = readonly AffinePoint[] | Uint8Array;
export type ScalarsInput = readonly bigint[] | Uint8Array;

export interface ResolvedOptions {
  backend: BackendChoice;
  device: number;
  windowBits: number; // 0 = backend's choice
  tau: number; // -1 = backend's choice
  accumulation: AccumulationMode; // constantTime: true is 'constant-time'
  validate: PointValidation;
  pointFormat: ByteFormat;
  scalarFormat: ByteFormat;
  threads: number; // 0 = all cores
  explicit: Set<string>; // options the caller set
}

export interface PreparedPoints {
  n: number;
  bytes: Uint8Array;
  format: ByteFormat;
}

export interface PreparedScalars {
  bytes: Uint8Array;
  format: ByteFormat;
  checkRange: boolean; // bigint input is range-checked here; packed input natively
}

function optionError(name: string, expected: string, got: unknown): MsmError {
  const shown = typeof got === 'bigint' ? `${got}n` : typeof got === 'string' ? `'${got}'` : String(got);
  return new MsmError('ERR_INVALID_OPTION', `option '${name}' must be ${expected} (got ${shown})`);
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw optionError(name, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
}

// The addon takes these options as C ints.
const INT_MAX = 2 ** 31 - 1;

// The shape of an integer option; the values a backend accepts are checkLimits' business.
function intFrom(name: string, value: unknown, lo: 0 | 1): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= lo && value <= INT_MAX) return value;
  throw optionError(name, typeof value === 'number' && value > INT_MAX ? 'below 2^31' : lo === 0 ? 'a non-negative integer' : 'a positive integer', value);
}

const OPTION_NAMES = ['backend', 'device', 'windowBits', 'tau', 'constantTime', 'accumulation', 'validate', 'pointFormat', 'scalarFormat', 'threads'];

export function checkCurve(curve: unknown): Curve {
  if (!isCurveName(curve)) {
    throw new MsmError('ERR_UNKNOWN_CURVE', `unknown curve ${typeof curve === 'string' ? `'${curve}'` : String(curve)}; supported: ${CURVE_NAMES.join(', ')}`);
  }
  return CURVES[curve];
}

export function checkOptions(options: unknown): ResolvedOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new MsmError('ERR_INVALID_ARGUMENT', 'options must be an object');
  }
  const o = options as Record<string, unknown>;
  const explicit = new Set<string>();
  for (const key of Object.keys(o)) {
    if (!OPTION_NAMES.includes(key)) throw new MsmError('ERR_INVALID_OPTION', `unknown option '${key}'; known: ${OPTION_NAMES.join(', ')}`);
    if (o[key] !== undefined) explicit.add(key);
  }
  const has = (k: string) => explicit.has(k);
  const pointFormat = has('pointFormat') ? oneOf('pointFormat', o.pointFormat, ['canonical', 'montgomery', 'lem']) : 'canonical';
  const backend = has('backend') ? oneOf('backend', o.backend, ['auto', 'cuda', 'cpu']) : 'auto';
  const device = has('device') ? intFrom('device', o.device, 0) : 0;
  const windowBits = has('windowBits') ? intFrom('windowBits', o.windowBits, 1) : 0;
  const tau = has('tau') ? intFrom('tau', o.tau, 0) : -1;
  if (has('constantTime') && typeof o.constantTime !== 'boolean') throw optionError('constantTime', 'a boolean', o.constantTime);
  const accumulation = has('accumulation') ? oneOf('accumulation', o.accumulation, ['xyzz', 'homogeneous']) : 'xyzz';
  if (o.constantTime === true && accumulation !== 'xyzz') {
    throw new MsmError('ERR_INVALID_OPTION', "options 'constantTime' and 'accumulation' 'homogeneous' exclude each other: the double-point accumulation is not constant-time");
  }
  return {
    backend,
    device,
    windowBits,
    tau,
    accumulation: o.constantTime === true ? 'constant-time' : accumulation,
    validate: has('validate') ? oneOf('validate', o.validate, ['subgroup', 'curve', 'none']) : 'curve',
    pointFormat: pointFormat === 'lem' ? 'montgomery' : pointFormat,
    scalarFormat: has('scalarFormat') ? oneOf('scalarFormat', o.scalarFormat, ['canonical', 'montgomery']) : 'canonical',
    threads: has('threads') ? intFrom('threads', o.threads, 0) : 0,
    explicit,
  };
}

/**
 * The options' values against the limits of the backend that will run them (info().limits, the
 * addon's one table), and the size n of the input against its points per context. The table is
 * static, so this runs before CUDA's availability is known: a value out of range is
 * ERR_INVALID_OPTION on every machine.
 */
export function checkLimits(opts: ResolvedOptions, backend: NativeBackend, limits: Readonly<Record<NativeBackend, NativeBackendLimits>>, n: number): void {
  const l = limits[backend];
  const inRange = (name: string, value: number, [lo, hi]: readonly [number, number]) => {
    if (value < lo || value > hi) throw optionError(name, `an integer in [${lo}, ${hi}] on the ${backend} backend`, value);
  };
  if (opts.explicit.has('windowBits')) inRange('windowBits', opts.windowBits, l.windowBits);
  // τ is ignored by a backend without one (null), as under 'auto' when the CPU is picked.
  if (opts.explicit.has('tau') && l.tau) inRange('tau', opts.tau, l.tau);
  if (opts.explicit.has('threads')) inRange('threads', opts.threads, l.threads);
  if (!l.accumulation.includes(opts.accumulation)) {
    const option = opts.accumulation === 'constant-time' ? "option 'constantTime'" : `option 'accumulation' '${opts.accumulation}'`;
    const others = (Object.keys(limits) as NativeBackend[]).filter((b) => limits[b].accumulation.includes(opts.accumulation));
    const where = others.length ? `is supported by the ${others.join(' and ')} backend only` : 'is not supported by any backend';
    throw new MsmError('ERR_INVALID_OPTION', `${option} ${where} (backend is '${backend}')`);
  }
  if (n > l.maxPoints) {
    throw new MsmError('ERR_INVALID_ARGUMENT', `the ${backend} backend takes at most ${l.maxPoints} points per context (got ${n})`);
  }
}

/** The CUDA device index against the devices there are (where CUDA is available). */
export function checkDevice(opts: ResolvedOptions, devices: number): void {
  if (opts.device >= devices) {
    throw optionError('device', `a CUDA device index in [0, ${devices - 1}]`, opts.device);
  }
}

export function checkCallOptions(options: unknown, defaults: ResolvedOptions): ResolvedOptions {
  if (options === undefined || options === null) return defaults;
  if (typeof options !== 'object' || Array.isArray(options)) throw new MsmError('ERR_INVALID_ARGUMENT', 'options must be an object');
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (key !== 'scalarFormat') throw new MsmError('ERR_INVALID_OPTION', `unknown option '${key}' for a context call; known: scalarFormat`);
  }
  if (o.scalarFormat === undefined) return defaults;
  const explicit = new Set(defaults.explicit).add('scalarFormat');
  return { ...defaults, scalarFormat: oneOf('scalarFormat', o.scalarFormat, ['canonical', 'montgomery']), explicit };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

export function checkPoints(curve: Curve, points: unknown, opts: ResolvedOptions): PreparedPoints {
  const pairBytes = 2 * curve.fieldBytes;
  if (points instanceof Uint8Array) {
    if (points.byteLength % pairBytes !== 0) {
      throw new MsmError('ERR_INVALID_ARGUMENT', `packed points must be a multiple of ${pairBytes} bytes for ${curve.name} (got ${points.byteLength})`);
    }
    return { n: points.byteLength / pairBytes, bytes: points, format: opts.pointFormat };
  }
  if (!Array.isArray(points)) {
    throw new MsmError('ERR_INVALID_ARGUMENT', `points must be an array of {x, y} bigints or a Uint8Array (got ${describe(points)})`);
  }
  if (opts.explicit.has('pointFormat') && opts.pointFormat !== 'canonical') {
    throw new MsmError('ERR_INVALID_OPTION', "option 'pointFormat' applies to packed (Uint8Array) points only; {x, y} points hold integer coordinates");
  }
  for (let i = 0; i < points.length; i++) {
    const pt = points[i] as { x?: unknown; y?: unknown } | null;
    if (pt === null || typeof pt !== 'object' || typeof pt.x !== 'bigint' || typeof pt.y !== 'bigint') {
      throw new MsmError('ERR_INVALID_ARGUMENT', `points[${i}] must be an object {x, y} with bigint coordinates (got ${describe(pt)})`, i);
    }
    if (pt.x < 0n || pt.x >= curve.p || pt.y < 0n || pt.y >= curve.p) {
      throw new MsmError('ERR_POINT_ENCODING', `points[${i}] has a coordinate outside [0, p) for ${curve.name}`, i);
    }
  }
  return { n: points.length, bytes: encodePoints(curve, points as AffinePoint[]), format: 'canonical' };
}

export function checkScalars(curve: Curve, scalars: unknown, n: number, opts: ResolvedOptions): PreparedScalars {
  const sb = curve.scalarBytes;
  if (scalars instanceof Uint8Array) {
    if (scalars.byteLength !== n * sb) {
      throw new MsmError('ERR_LENGTH_MISMATCH', `packed scalars are ${scalars.byteLength} bytes; ${n} points need ${n * sb} (${sb} per scalar)`);
    }
    return { bytes: scalars, format: opts.scalarFormat, checkRange: true };
  }
  if (!Array.isArray(scalars)) {
    throw new MsmError('ERR_INVALID_ARGUMENT', `scalars must be an array of bigints or a Uint8Array (got ${describe(scalars)})`);
  }
  if (opts.explicit.has('scalarFormat') && opts.scalarFormat !== 'canonical') {
    throw new MsmError('ERR_INVALID_OPTION', "option 'scalarFormat' applies to packed (Uint8Array) scalars only; bigint scalars are integers");
  }
  if (scalars.length !== n) {
    throw new MsmError('ERR_LENGTH_MISMATCH', `${scalars.length} scalars for ${n} points`);
  }
  for (let i = 0; i < scalars.length; i++) {
    const k: unknown = scalars[i];
    if (typeof k !== 'bigint') {
      throw new MsmError('ERR_INVALID_ARGUMENT', `scalars[${i}] must be a bigint (got ${describe(k)})`, i);
    }
    if (k < 0n || k >= curve.r) {
      throw new MsmError('ERR_SCALAR_RANGE', `scalars[${i}] is outside [0, r) for ${curve.name}`, i);
    }
  }
  return { bytes: encodeScalars(curve, scalars as bigint[]), format: 'canonical', checkRange: false };
}

export const NATIVE_VALIDATE: Readonly<Record<PointValidation, 0 | 1 | 2>> = { none: 0, curve: 1, subgroup: 2 };
export const NATIVE_FORMAT: Readonly<Record<ByteFormat, 0 | 1>> = { canonical: 0, montgomery: 1 };
