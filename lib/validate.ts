// The one validation layer: every argument of the public API is checked here, before any native
// work (shapes synchronously, the elements of arrays in slices: below), and turned into the plain
// shapes lib/native.ts expects. Options are
// checked in two steps: their shape (type, enum) by checkOptions, then, once the backend is known
// (lib/backend.ts chooseBackend), their values against that backend's row of the addon's limits
// table (info().limits, cuda/options.hpp) by checkLimits. What only the native parser can check
// cheaply (coordinates of packed points < p, on-curve and subgroup membership, packed scalars < r)
// is left to it; its errors come back as MsmError too.
//
// Inputs are taken at call time (issue 10): take*() reads each user value exactly once (an
// array's length, each element, each point's x and y) into a snapshot, so that a Proxy or a
// getter cannot show validation one value and encoding another, and nothing done to the array
// after the call changes the result. Packed input reaches the addon, which copies it, or is
// copied (lib/backend.ts takeBytes), before the call returns. prepare*() then checks and encodes a
// snapshot in slices that yield to the event loop (encoding 2^20 bigints takes 200 ms or more).
// Whatever a user value throws while being read becomes an MsmError too.

import { types } from 'util';
import { CURVES, CURVE_NAMES, isCurveName, type Curve, type Group } from './curves';
import { COORDINATES, writeLE, type AffinePoint, type ByteFormat, type G2AffinePoint } from './encoding';
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
 * Options of `msm()` and `MsmContext.create()` but the group. The ranges of `windowBits`, `tau`
 * and `threads`, and the accumulation modes, are those of the backend that runs the call:
 * `info().limits`.
 */
export interface BaseMsmOptions {
  /** 'auto' (default): cuda when available and n is large enough, else cpu. */
  backend?: BackendChoice;
  /** CUDA device index (default 0). */
  device?: number;
  /**
   * Several CUDA devices for one context: 'all', or a list of distinct indices. The bases are
   * split across them in proportion to their speed and every MSM runs on all of them (see the
   * README, "Several GPUs"). Excludes `device`; ignored where the CPU backend runs.
   */
  devices?: 'all' | readonly number[];
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

/**
 * The option `group`, typed so that the points' and the result's types follow it: optional for
 * G1 (the default), required for G2. 'g2' (BN254 and BLS12-381, `Curve.groups`): points
 * `{x: [c0, c1], y: [c0, c1]}` over F_p², packed x.c0‖x.c1‖y.c0‖y.c1, and results of that shape;
 * the backends that run it: `info().limits[backend].groups` (both, G2 with every accumulation mode).
 */
export type GroupOption<G extends Group> = 'g1' extends G ? { group?: G } : { group: G };

/**
 * Options of `msm()` and `MsmContext.create()` over group G: `MsmOptions` (G1) as before,
 * `MsmOptions<'g2'>` with `group: 'g2'`, `MsmOptions<Group>` for a group known at run time only
 * (results then typed as either point).
 */
export type MsmOptions<G extends Group = 'g1'> = BaseMsmOptions & GroupOption<G>;

/** Options of one `ctx.msm()` / `ctx.msmBatch()` call. */
export interface CallOptions {
  scalarFormat?: ByteFormat;
}

/**
 * Packed points in parts: Uint8Arrays concatenated in order, each a whole number of points, for
 * bases larger than one typed array holds (2^32 bytes in Node 20), or held in pages (snarkjs's
 * BigBuffer). Errors name a point by its index in the whole, as if one array had been passed.
 */
export type PointParts = readonly Uint8Array[];
export type PointsInput = readonly AffinePoint[] | Uint8Array | PointParts;
export type G2PointsInput = readonly G2AffinePoint[] | Uint8Array | PointParts;
/** The points a call over `group` takes. */
export type PointsInputOf<G extends Group> = G extends 'g2' ? G2PointsInput : PointsInput;
export type ScalarsInput = readonly bigint[] | Uint8Array;

export interface ResolvedOptions {
  backend: BackendChoice;
  device: number;
  devices: 'all' | number[] | null; // null: `device` alone
  windowBits: number; // 0 = backend's choice
  tau: number; // -1 = backend's choice
  accumulation: AccumulationMode; // constantTime: true is 'constant-time'
  validate: PointValidation;
  pointFormat: ByteFormat;
  scalarFormat: ByteFormat;
  threads: number; // 0 = all cores
  group: Group;
  explicit: Set<string>; // options the caller set
}

/** Packed points for the addon: one array, or parts that it copies into one buffer. */
export type PackedPoints = Uint8Array | PointParts;

export interface PreparedPoints {
  n: number;
  bytes: PackedPoints;
  format: ByteFormat;
}

export interface PreparedScalars {
  bytes: Uint8Array;
  format: ByteFormat;
  checkRange: boolean; // bigint input is range-checked here; packed input natively
}

/** What a value is, for a message; runs no user code, never throws. */
function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v !== 'object') return `a ${typeof v}`;
  try {
    return Array.isArray(v) ? 'an array' : 'an object';
  } catch {
    return 'an object'; // a revoked Proxy
  }
}

/** A value for a message (primitives as written, objects described); never throws. */
function show(v: unknown): string {
  switch (typeof v) {
    case 'bigint':
      return `${v}n`;
    case 'string':
      return `'${v.length > 64 ? `${v.slice(0, 64)}…` : v}'`;
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'symbol':
      return String(v);
    default:
      return describe(v);
  }
}

function messageOf(e: unknown): string {
  try {
    return e instanceof Error ? `${e.name}: ${e.message}` : show(e);
  } catch {
    return 'an exception';
  }
}

/** Reading a user value threw (a getter, a Proxy trap): an MsmError carrying the cause. */
function unreadable(what: string, cause: unknown, index?: number, code: 'ERR_INVALID_ARGUMENT' | 'ERR_INVALID_OPTION' = 'ERR_INVALID_ARGUMENT'): MsmError {
  const err = new MsmError(code, `${what} could not be read (${messageOf(cause)})`, index);
  (err as { cause?: unknown }).cause = cause;
  return err;
}

function isArray(v: unknown, what: string): boolean {
  try {
    return Array.isArray(v);
  } catch (e) {
    throw unreadable(what, e); // a revoked Proxy
  }
}

function optionError(name: string, expected: string, got: unknown): MsmError {
  return new MsmError('ERR_INVALID_OPTION', `option '${name}' must be ${expected} (got ${show(got)})`);
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

const OPTION_NAMES = ['backend', 'device', 'devices', 'windowBits', 'tau', 'constantTime', 'accumulation', 'validate', 'pointFormat', 'scalarFormat', 'threads', 'group'];

// 'all', or a non-empty list of distinct device indices, read once.
function deviceList(value: unknown): 'all' | number[] {
  if (value === 'all') return 'all';
  const expected = "'all' or a non-empty array of distinct device indices";
  if (!isArray(value, "option 'devices'")) throw optionError('devices', expected, value);
  let len: number;
  try {
    len = arrayLength(value, "option 'devices'");
  } catch {
    throw optionError('devices', expected, value); // a Proxy's length: an option error like any other
  }
  if (len === 0 || len > 1024) throw optionError('devices', expected, value);
  const out: number[] = [];
  for (let i = 0; i < len; i++) {
    let v: unknown;
    try {
      v = (value as readonly unknown[])[i];
    } catch (e) {
      throw unreadable(`option 'devices'[${i}]`, e, undefined, 'ERR_INVALID_OPTION');
    }
    const d = intFrom(`devices[${i}]`, v, 0);
    if (out.includes(d)) throw optionError('devices', expected, value);
    out.push(d);
  }
  return out;
}

export function checkCurve(curve: unknown): Curve {
  if (!isCurveName(curve)) {
    throw new MsmError('ERR_UNKNOWN_CURVE', `unknown curve ${show(curve)}; supported: ${CURVE_NAMES.join(', ')}`);
  }
  return CURVES[curve];
}

/**
 * The caller's options object with each own enumerable option read once (a getter that returns
 * another value on a second read changes nothing), checked against the known names.
 */
function readOptions(options: unknown, known: readonly string[], where: string): Record<string, unknown> {
  const o: Record<string, unknown> = Object.create(null);
  if (options === undefined || options === null) return o;
  if (typeof options !== 'object' || isArray(options, 'options')) {
    throw new MsmError('ERR_INVALID_ARGUMENT', 'options must be an object');
  }
  let keys: string[];
  try {
    keys = Object.keys(options);
  } catch (e) {
    throw unreadable('options', e);
  }
  for (const key of keys) {
    if (!known.includes(key)) throw new MsmError('ERR_INVALID_OPTION', `unknown option '${key}'${where}; known: ${known.join(', ')}`);
    try {
      o[key] = (options as Record<string, unknown>)[key];
    } catch (e) {
      throw unreadable(`option '${key}'`, e, undefined, 'ERR_INVALID_OPTION');
    }
  }
  return o;
}

export function checkOptions(options: unknown): ResolvedOptions {
  const o = readOptions(options, OPTION_NAMES, '');
  const explicit = new Set<string>();
  for (const key of Object.keys(o)) if (o[key] !== undefined) explicit.add(key);
  const has = (k: string) => explicit.has(k);
  const pointFormat = has('pointFormat') ? oneOf('pointFormat', o.pointFormat, ['canonical', 'montgomery', 'lem']) : 'canonical';
  const backend = has('backend') ? oneOf('backend', o.backend, ['auto', 'cuda', 'cpu']) : 'auto';
  const device = has('device') ? intFrom('device', o.device, 0) : 0;
  const devices = has('devices') ? deviceList(o.devices) : null;
  if (devices !== null && has('device')) throw new MsmError('ERR_INVALID_OPTION', "options 'device' and 'devices' exclude each other");
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
    devices,
    windowBits,
    tau,
    accumulation: o.constantTime === true ? 'constant-time' : accumulation,
    validate: has('validate') ? oneOf('validate', o.validate, ['subgroup', 'curve', 'none']) : 'curve',
    pointFormat: pointFormat === 'lem' ? 'montgomery' : pointFormat,
    scalarFormat: has('scalarFormat') ? oneOf('scalarFormat', o.scalarFormat, ['canonical', 'montgomery']) : 'canonical',
    threads: has('threads') ? intFrom('threads', o.threads, 0) : 0,
    group: has('group') ? oneOf('group', o.group, ['g1', 'g2']) : 'g1',
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
  if (!l.groups.includes(opts.group)) {
    throw new MsmError('ERR_INVALID_OPTION', `option 'group' '${opts.group}': ${opts.group.toUpperCase()} is not available on the ${backend} backend yet`);
  }
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

/**
 * The CUDA devices the options name, checked against the devices there are (where CUDA is
 * available): `devices` ('all' resolved), or [`device`].
 */
export function checkDevices(opts: ResolvedOptions, devices: number): number[] {
  if (opts.devices === 'all') return Array.from({ length: devices }, (_, i) => i);
  const list = opts.devices ?? [opts.device];
  for (const d of list) {
    if (d >= devices) {
      throw opts.devices ? optionError('devices', `a list of CUDA device indices in [0, ${devices - 1}]`, d) : optionError('device', `a CUDA device index in [0, ${devices - 1}]`, d);
    }
  }
  return list;
}

export function checkCallOptions(options: unknown, defaults: ResolvedOptions): ResolvedOptions {
  const o = readOptions(options, ['scalarFormat'], ' for a context call');
  if (o.scalarFormat === undefined) return defaults;
  const explicit = new Set(defaults.explicit).add('scalarFormat');
  return { ...defaults, scalarFormat: oneOf('scalarFormat', o.scalarFormat, ['canonical', 'montgomery']), explicit };
}

// TypedArray.prototype's byteLength getter: a subclass of Uint8Array cannot override it.
const typedArrayByteLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength')!.get as (this: Uint8Array) => number;

/** A Uint8Array (a Buffer, a view at an offset, of any realm), and its true byte length. */
function packed(v: unknown): v is Uint8Array {
  return types.isUint8Array(v);
}
function byteLength(v: Uint8Array): number {
  return typedArrayByteLength.call(v);
}

// The largest array length; a Proxy may claim anything for `length`.
const MAX_LENGTH = 2 ** 32 - 1;

function arrayLength(a: unknown, what: string): number {
  let len: unknown;
  try {
    len = (a as { length: unknown }).length;
  } catch (e) {
    throw unreadable(`${what}.length`, e);
  }
  if (typeof len !== 'number' || !Number.isInteger(len) || len < 0 || len > MAX_LENGTH) {
    throw new MsmError('ERR_INVALID_ARGUMENT', `${what}.length must be an integer in [0, 2^32 − 1] (got ${show(len)})`);
  }
  return len;
}

const speciesGetter = Object.getOwnPropertyDescriptor(Array, Symbol.species)?.get;

/**
 * Elements [0, n) of an array, each read once. A plain array (no Proxy, Array.prototype's, species
 * untouched, so that no user code decides what slice() builds) is copied in bulk by slice(): 2^20
 * elements in ~7 ms, against 10–25 ms element by element (more while the GC marks, as each store
 * then pays its write barrier), all of it on the event loop.
 */
function readElements(a: unknown[], n: number, what: string): unknown[] {
  if (!types.isProxy(a) && Object.getPrototypeOf(a) === Array.prototype && !Object.prototype.hasOwnProperty.call(a, 'constructor') && Object.getOwnPropertyDescriptor(Array, Symbol.species)?.get === speciesGetter) {
    try {
      return Array.prototype.slice.call(a, 0, n); // index getters run once each, like the loop below
    } catch (e) {
      throw unreadable(what, e);
    }
  }
  const out: unknown[] = new Array(n);
  let i = 0;
  try {
    for (; i < n; i++) out[i] = a[i];
  } catch (e) {
    throw unreadable(`${what}[${i}]`, e, i);
  }
  return out;
}

// In xy[ki] for an element that is not a point of the group's shape; xy[ki + 1] then holds the element.
const NOT_A_POINT: unique symbol = Symbol('not a point');

/** A point's shape in messages. */
const POINT_SHAPE: Readonly<Record<Group, string>> = { g1: '{x, y}', g2: '{x: [c0, c1], y: [c0, c1]}' };

/** Points as read at the call: packed bytes, or each element's x and y read once. */
export interface TakenPoints {
  readonly n: number;
  readonly format: ByteFormat;
  readonly group: Group;
  /** Packed: the caller's array, or its parts (in a list of our own), handed to the addon as they are. */
  readonly bytes?: PackedPoints;
  /**
   * Array: the k = COORDINATES[group] F_p coordinates of point i at ki … ki + k − 1, in packed
   * order (one array: ~3× faster to fill cold than several).
   */
  readonly xy?: readonly unknown[];
}

/** v as an F_p² coordinate [c0, c1] of bigints, read once each into out[at], out[at + 1]; false when it is not one. */
function readFp2(v: unknown, out: unknown[], at: number): boolean {
  if (!Array.isArray(v) || v.length !== 2) return false;
  const c0: unknown = v[0];
  const c1: unknown = v[1];
  if (typeof c0 !== 'bigint' || typeof c1 !== 'bigint') return false;
  out[at] = c0;
  out[at + 1] = c1;
  return true;
}

/** Scalars as read at the call: packed bytes, or each element read once. */
export interface TakenScalars {
  readonly format: ByteFormat;
  /** Packed: the caller's array, until the API entry point replaces it by its copy (takeBytes). */
  bytes?: Uint8Array;
  readonly values?: readonly unknown[];
}

/** The shape of the points, and their snapshot. Synchronous: it runs before the call returns. */
export function takePoints(curve: Curve, points: unknown, opts: ResolvedOptions): TakenPoints {
  const { group } = opts;
  if (!curve.groups.includes(group)) {
    const have = CURVE_NAMES.filter((name) => CURVES[name].groups.includes(group));
    throw new MsmError('ERR_INVALID_OPTION', `option 'group' '${group}' is not available for curve '${curve.name}' (${group} curves: ${have.join(', ')})`);
  }
  const k = COORDINATES[group];
  const pointBytes = k * curve.fieldBytes;
  const where = `${curve.name}${group === 'g1' ? '' : ` ${group.toUpperCase()}`}`;
  if (packed(points)) {
    const len = byteLength(points);
    if (len % pointBytes !== 0) {
      throw new MsmError('ERR_INVALID_ARGUMENT', `packed points must be a multiple of ${pointBytes} bytes for ${where} (got ${len})`);
    }
    return { n: len / pointBytes, format: opts.pointFormat, group, bytes: points };
  }
  if (!isArray(points, 'points')) {
    throw new MsmError('ERR_INVALID_ARGUMENT', `points must be an array of ${POINT_SHAPE[group]} bigints, a Uint8Array, or an array of Uint8Array parts (got ${describe(points)})`);
  }
  const n = arrayLength(points, 'points');
  const a = points as unknown[];
  // The first element decides the form: a Uint8Array makes the array a list of parts. It is read
  // once, here, and not again by the loop below.
  let first: unknown;
  try {
    if (n > 0) first = a[0];
  } catch (e) {
    throw unreadable('points[0]', e, 0);
  }
  if (packed(first)) return takeParts(a, n, first, pointBytes, where, opts);
  if (opts.explicit.has('pointFormat') && opts.pointFormat !== 'canonical') {
    throw new MsmError('ERR_INVALID_OPTION', `option 'pointFormat' applies to packed (Uint8Array) points only; ${POINT_SHAPE[group]} points hold integer coordinates`);
  }
  // Preallocated (push is 3× slower): 2^20 points in 25–35 ms, all of it on the event loop.
  const xy: unknown[] = new Array(k * n);
  let i = 0;
  try {
    for (; i < n; i++) {
      const pt = (i === 0 ? first : a[i]) as { x?: unknown; y?: unknown } | null;
      if (pt !== null && typeof pt === 'object') {
        const x = pt.x;
        const y = pt.y;
        if (k === 2 && typeof x === 'bigint' && typeof y === 'bigint') {
          xy[2 * i] = x;
          xy[2 * i + 1] = y;
          continue;
        }
        if (k === 4 && readFp2(x, xy, 4 * i) && readFp2(y, xy, 4 * i + 2)) continue;
      }
      xy[k * i] = NOT_A_POINT;
      xy[k * i + 1] = pt;
    }
  } catch (e) {
    throw unreadable(`points[${i}]`, e, i);
  }
  return { n, format: 'canonical', group, xy };
}

/**
 * Packed points in parts (points[0], already read, is a Uint8Array): each further part read once
 * into a list of our own, every one a Uint8Array of whole points. The addon copies the list into
 * one buffer, so that decoding, and the point errors' indices, see one array.
 */
function takeParts(a: unknown[], len: number, first: Uint8Array, pointBytes: number, where: string, opts: ResolvedOptions): TakenPoints {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let i = 0; i < len; i++) {
    let part: unknown = first;
    try {
      if (i > 0) part = a[i];
    } catch (e) {
      throw unreadable(`points[${i}]`, e);
    }
    if (!packed(part)) {
      throw new MsmError('ERR_INVALID_ARGUMENT', `points[${i}] must be a Uint8Array, as points[0] is: an array of packed parts holds nothing else (got ${describe(part)})`);
    }
    const bytes = byteLength(part);
    if (bytes % pointBytes !== 0) {
      throw new MsmError('ERR_INVALID_ARGUMENT', `points[${i}], a part of packed points, must be a whole number of ${pointBytes}-byte points for ${where} (got ${bytes} bytes)`);
    }
    parts.push(part);
    total += bytes; // exact: below 2^53
  }
  return { n: total / pointBytes, format: opts.pointFormat, group: opts.group, bytes: parts };
}

/** The shape and count of the scalars, and their snapshot. Synchronous, like takePoints. */
export function takeScalars(curve: Curve, scalars: unknown, n: number, opts: ResolvedOptions): TakenScalars {
  const sb = curve.scalarBytes;
  if (packed(scalars)) {
    const len = byteLength(scalars);
    if (len !== n * sb) {
      throw new MsmError('ERR_LENGTH_MISMATCH', `packed scalars are ${len} bytes; ${n} points need ${n * sb} (${sb} per scalar)`);
    }
    return { format: opts.scalarFormat, bytes: scalars };
  }
  if (!isArray(scalars, 'scalars')) {
    throw new MsmError('ERR_INVALID_ARGUMENT', `scalars must be an array of bigints or a Uint8Array (got ${describe(scalars)})`);
  }
  if (opts.explicit.has('scalarFormat') && opts.scalarFormat !== 'canonical') {
    throw new MsmError('ERR_INVALID_OPTION', "option 'scalarFormat' applies to packed (Uint8Array) scalars only; bigint scalars are integers");
  }
  const len = arrayLength(scalars, 'scalars');
  if (len !== n) {
    throw new MsmError('ERR_LENGTH_MISMATCH', `${len} scalars for ${n} points`);
  }
  return { format: 'canonical', values: readElements(scalars as unknown[], n, 'scalars') };
}

/**
 * An array argument holding inputs (msmBatch's scalar sets): its length and each element read
 * once. `notArray` is the message when it is not an array.
 */
export function takeList(v: unknown, what: string, notArray: string): unknown[] {
  if (!isArray(v, what)) throw new MsmError('ERR_INVALID_ARGUMENT', notArray);
  return readElements(v as unknown[], arrayLength(v, what), what);
}

// The event loop gets a turn at least this often while a snapshot is checked and encoded (the
// time between yields, not counting what else runs).
const SLICE_MS = 5;
const SLICE = 256; // elements between looks at the clock
const YIELD_FIRST_FROM = 1 << 14;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** body(lo, hi) over [0, n), yielding to the event loop every SLICE_MS. */
async function inSlices(n: number, body: (lo: number, hi: number) => void): Promise<void> {
  // Large input: the first slice too runs after the call has returned (its snapshot took a while).
  if (n > YIELD_FIRST_FROM) await yieldToLoop();
  let since = performance.now();
  for (let lo = 0; lo < n; lo += SLICE) {
    body(lo, Math.min(n, lo + SLICE));
    if (lo + SLICE < n && performance.now() - since > SLICE_MS) {
      await yieldToLoop();
      since = performance.now();
    }
  }
}

/** Check and encode the points of a snapshot (packed points are the addon's to check). */
export async function preparePoints(curve: Curve, t: TakenPoints): Promise<PreparedPoints> {
  if (t.bytes) return { n: t.n, bytes: t.bytes, format: t.format };
  const xy = t.xy!;
  const fb = curve.fieldBytes;
  const { p } = curve;
  const k = COORDINATES[t.group];
  const out = new Uint8Array(t.n * k * fb);
  const view = new DataView(out.buffer);
  await inSlices(t.n, (lo, hi) => {
    for (let i = lo; i < hi; i++) {
      if (xy[k * i] === NOT_A_POINT) {
        if (packed(xy[k * i + 1])) {
          throw new MsmError('ERR_INVALID_ARGUMENT', `points[${i}] is a Uint8Array but points[0] is not: point objects and packed parts cannot be mixed`, i);
        }
        throw new MsmError('ERR_INVALID_ARGUMENT', `points[${i}] must be an object ${POINT_SHAPE[t.group]} with bigint coordinates (got ${describe(xy[k * i + 1])})`, i);
      }
      let zero = true;
      for (let j = k * i; j < k * i + k; j++) {
        const v = xy[j] as bigint;
        if (v < 0n || v >= p) {
          throw new MsmError('ERR_POINT_ENCODING', `points[${i}] has a coordinate outside [0, p) for ${curve.name}`, i);
        }
        if (v !== 0n) zero = false;
      }
      if (zero) continue; // infinity: all zeros
      for (let j = k * i; j < k * i + k; j++) writeLE(view, fb * j, xy[j] as bigint, fb);
    }
  });
  return { n: t.n, bytes: out, format: 'canonical' };
}

/** Check and encode the scalars of a snapshot (packed scalars are range-checked by the addon). */
export async function prepareScalars(curve: Curve, t: TakenScalars): Promise<PreparedScalars> {
  if (t.bytes) return { bytes: t.bytes, format: t.format, checkRange: true };
  const values = t.values!;
  const sb = curve.scalarBytes;
  const { r } = curve;
  const out = new Uint8Array(values.length * sb);
  const view = new DataView(out.buffer);
  await inSlices(values.length, (lo, hi) => {
    for (let i = lo; i < hi; i++) {
      const k = values[i];
      if (typeof k !== 'bigint') {
        throw new MsmError('ERR_INVALID_ARGUMENT', `scalars[${i}] must be a bigint (got ${describe(k)})`, i);
      }
      if (k < 0n || k >= r) {
        throw new MsmError('ERR_SCALAR_RANGE', `scalars[${i}] is outside [0, r) for ${curve.name}`, i);
      }
      if (k !== 0n) writeLE(view, sb * i, k, sb);
    }
  });
  return { bytes: out, format: 'canonical', checkRange: false };
}

export const NATIVE_VALIDATE: Readonly<Record<PointValidation, 0 | 1 | 2>> = { none: 0, curve: 1, subgroup: 2 };
export const NATIVE_FORMAT: Readonly<Record<ByteFormat, 0 | 1>> = { canonical: 0, montgomery: 1 };
