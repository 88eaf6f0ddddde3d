// msm-cuda/snarkjs: snarkjs's multi-scalar multiplications on msm-cuda.
//
// snarkjs (0.7) runs every MSM of its provers through ffjavascript's curve objects (0.3):
// `curve.G1.multiExpAffine(bases, scalars, logger, text)` and `curve.G2.multiExpAffine(...)`,
// bases packed as in the zkey (LEM: x‖y, Montgomery, little-endian, infinity all zeros; G2
// x.c0‖x.c1‖y.c0‖y.c1), scalars 32 bytes little-endian in standard form, the result a Jacobian
// point in Montgomery form. install() replaces that function on every curve snarkjs builds, now
// and later, by one that computes the same point here, and keeps the bases resident across
// proofs (lib/snarkjs-cache.ts). It also runs the curve's scalar-field transforms (Fr.fft,
// Fr.ifft, Fr.batchApplyKey: the FFTs of the Groth16 prover) natively on all cores
// (lib/snarkjs-field.ts; option `fft: false` leaves them to snarkjs). Everything else
// (buildABC, witnesses, pairings) stays snarkjs's.
//
// Where the curves are caught. ffjavascript builds them in buildBn128 / buildBls12381, caches
// the multi-threaded ones on globalThis.curve_bn128 / curve_bls12381 (its terminate() and a
// fresh load of the module reset that to null), and builds an uncached one for each
// `singleThread` call. snarkjs's CommonJS build (require('snarkjs'), the snarkjs CLI) calls
// those builders through ffjavascript's exports object at each call; its ES module build
// through bindings nobody can change. So, each of these is hooked, and any one of them suffices
// for the curves it sees:
//   1. the builders (and getCurveFrom*) on the exports of every ffjavascript CommonJS module
//      found: the one snarkjs resolves (from here, the main script, the working directory),
//      and those already loaded;
//   2. globalThis.curve_bn128 / curve_bls12381 become accessors: every curve ffjavascript
//      caches there, from any copy, CommonJS or ES module, is hooked as it is stored;
//   3. ffjavascript assigns multiExpAffine to each group object (`G.multiExpAffine = …`, own
//      properties of its WasmCurve instances), so an accessor on the prototype of a group seen
//      once catches that assignment in every curve built later by the same copy, uncached
//      singleThread ones of the ES module build included.
// The one curve none of these sees: the first one of an ES module copy of ffjavascript, built
// with singleThread before any cached curve of that copy; hookCurve(curve) hooks it by hand.
// The Fr transforms are hooked where the curve is seen whole (points 1 and 2, hookCurve), not by
// point 3, which sees a group as it is built: a curve only point 3 sees keeps snarkjs's FFTs.

import fs = require('fs');
import os = require('os');
import path = require('path');
import { nativeBinding } from './backend';
import { CURVES, type Curve, type CurveName, type Group } from './curves';
import { writeLE } from './encoding';
import { MsmError, toMsmError } from './errors';
import { ContextCache, bytesOf, contiguous, defaultBudget, fingerprint, pointParts, type Bytes, type CacheStats } from './snarkjs-cache';
import { FIELD_METHODS, FIELD_REASONS, identifyField, runField, type FieldFallbackReason, type FieldMethod, type WasmField } from './snarkjs-field';
import { checkOptions, type BackendChoice, type MsmOptions } from './validate';

export type { CacheStats } from './snarkjs-cache';
export { clearGroth16Cache, groth16CacheStats, groth16Prove, type Groth16Proof, type Groth16ProveOptions } from './groth16';
export type { FieldFallbackReason } from './snarkjs-field';

/** Options of install(). */
export interface SnarkjsOptions {
  /** msm-cuda's backend: 'auto' (default), 'cuda' or 'cpu'. */
  backend?: BackendChoice;
  /** CUDA device index (default 0). */
  device?: number;
  /** CPU worker threads (default 0 = all cores). */
  threads?: number;
  /**
   * MSMs of fewer points run snarkjs's own (WASM) code. Default DEFAULT_THRESHOLD; 0 sends all
   * but empty ones here.
   */
  threshold?: number;
  /**
   * Bytes the resident bases may hold, on the host and on the GPU (one number for both, or
   * each); least recently used first out. Default: half the host memory, three quarters of the
   * GPU's.
   */
  memoryBudget?: number | { host?: number; device?: number };
  /**
   * Also run the curves' Fr.fft, Fr.ifft and Fr.batchApplyKey natively (CPU threads, the
   * `threads` option; below `threshold` elements, snarkjs's own). Default true.
   */
  fft?: boolean;
}

/**
 * Fewer points than this run snarkjs's own code by default. msm-cuda is faster at every size
 * measured (2^6 points on 2 cores, CPU backend: 1.6 ms for BN254 with the context created, 15 ms
 * for snarkjs's multi-threaded WASM; BLS12-381 2.8 against 13 ms), so this only keeps the
 * tiniest MSMs, such as groth16.verify's few points of each verification key, out of the cache.
 */
export const DEFAULT_THRESHOLD = 64;

/** Why a call ran snarkjs's own multiExpAffine. */
export type FallbackReason =
  | 'threshold' // fewer points than the threshold (or none)
  | 'arguments' // more arguments than (bases, scalars, logger, text)
  | 'buffer' // bases or scalars neither a Uint8Array nor an ffjavascript BigBuffer
  | 'shape' // bases not a whole number of points
  | 'scalarSize' // scalars other than 32 bytes each
  | 'input' // values msm-cuda refuses (a scalar ≥ r, a point off the curve): snarkjs's semantics
  | 'g2'; // G2 where this msm-cuda (or its backend) has no G2

const REASONS: readonly FallbackReason[] = ['threshold', 'arguments', 'buffer', 'shape', 'scalarSize', 'input', 'g2'];

/** How G2 MSMs of a curve run: on msm-cuda with this backend, on snarkjs's own code, or not known yet. */
export type G2Route = BackendChoice | 'original' | 'unknown';

export interface SnarkjsStats {
  installed: boolean;
  backend: BackendChoice | null;
  threshold: number | null;
  /** Whether the Fr transforms are hooked (the option fft). */
  fft: boolean | null;
  /** Calls of the hooked multiExpAffine, by group. */
  calls: { g1: number; g2: number };
  /** Of those, computed by msm-cuda. */
  accelerated: { g1: number; g2: number };
  /** Of those, run by snarkjs's own code, by reason. */
  fallbacks: Record<FallbackReason, number>;
  /** The resident bases. */
  cache: CacheStats;
  /** The hooked Fr transforms (fft, ifft, batchApplyKey): calls, those computed here, and why the others were not. */
  fr: { calls: number; accelerated: number; fallbacks: Record<FieldFallbackReason, number> };
  g2: Record<'bn254' | 'bls12-381', G2Route>;
}

// The curves ffjavascript builds.
const SNARK_CURVES: readonly Curve[] = [CURVES.bn254, CURVES['bls12-381']];
const INPUT_CODES = new Set(['ERR_SCALAR_RANGE', 'ERR_POINT_ENCODING', 'ERR_POINT_NOT_ON_CURVE', 'ERR_POINT_NOT_IN_SUBGROUP']);
const GLOBALS = ['curve_bn128', 'curve_bls12381'];
const BUILDERS = ['buildBn128', 'buildBls12381', 'getCurveFromR', 'getCurveFromQ', 'getCurveFromName'];
// Shared by every copy of this module (two installs of msm-cuda, a test runner's registry):
// what a hook wraps, so that none wraps another's hook.
const ORIGINAL = Symbol.for('msm-cuda.snarkjs.original');

type AnyFn = ((...args: unknown[]) => unknown) & { [ORIGINAL]?: AnyFn };

/** What this module needs of an ffjavascript group (WasmCurve). */
interface WasmGroup {
  F: { type?: unknown; n8?: unknown; p?: unknown; F?: { type?: unknown; p?: unknown } };
  zero: Uint8Array;
  multiExpAffine: AnyFn;
}

interface Installation {
  readonly backend: BackendChoice;
  readonly threshold: number;
  readonly msmOptions: MsmOptions;
  readonly cache: ContextCache;
  readonly calls: { g1: number; g2: number };
  readonly accelerated: { g1: number; g2: number };
  readonly fallbacks: Record<FallbackReason, number>;
  readonly g2: Map<CurveName, G2Route>;
  readonly fft: boolean;
  readonly threads: number;
  readonly fr: SnarkjsStats['fr'];
  // what uninstall() undoes
  readonly exported: { mod: Record<string, unknown>; name: string; original: AnyFn; hook: AnyFn }[];
  readonly globals: { name: string; existed: boolean; get: () => unknown }[];
  readonly prototypes: { proto: object; get: () => unknown }[];
  readonly groups: WeakRef<WasmGroup>[];
  readonly fields: WeakRef<WasmField>[];
}

let current: Installation | null = null;
// Every group object hooked so far, by any installation: install() hooks those still alive again
// (a singleThread curve built before an uninstall() is held by nobody else's cache).
let seen: WeakRef<WasmGroup>[] = [];
let seenFields: WeakRef<WasmField>[] = [];

// ---- options ---------------------------------------------------------------------------------

function optionError(message: string): MsmError {
  return new MsmError('ERR_INVALID_OPTION', message);
}

function bytesOption(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !(v >= 0) || (!Number.isSafeInteger(v) && v !== Infinity)) throw optionError(`option '${name}' must be a non-negative integer number of bytes or Infinity`);
  return v;
}

function resolve(options: unknown): {
  backend: BackendChoice;
  threshold: number;
  msmOptions: MsmOptions;
  budget: { host: number; device: number };
  fft: boolean;
} {
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new MsmError('ERR_INVALID_ARGUMENT', 'options must be an object');
  }
  const o = { ...(options as Record<string, unknown> | undefined) };
  for (const k of Object.keys(o)) {
    if (!['backend', 'device', 'threads', 'threshold', 'memoryBudget', 'fft'].includes(k)) {
      throw optionError(`unknown option '${k}' of msm-cuda/snarkjs install(); known: backend, device, threads, threshold, memoryBudget, fft`);
    }
  }
  const msmOptions: MsmOptions = { pointFormat: 'lem' };
  for (const k of ['backend', 'device', 'threads'] as const) if (o[k] !== undefined) (msmOptions as Record<string, unknown>)[k] = o[k];
  const resolved = checkOptions(msmOptions); // their shapes, as msm() checks them
  const threshold = o.threshold ?? DEFAULT_THRESHOLD;
  if (typeof threshold !== 'number' || !Number.isSafeInteger(threshold) || threshold < 0) throw optionError("option 'threshold' must be a non-negative integer (points)");
  const fft = o.fft ?? true;
  if (typeof fft !== 'boolean') throw optionError("option 'fft' must be a boolean");
  const mb = o.memoryBudget;
  let host: number | undefined;
  let device: number | undefined;
  if (typeof mb === 'object' && mb !== null && !Array.isArray(mb)) {
    for (const k of Object.keys(mb)) if (k !== 'host' && k !== 'device') throw optionError(`unknown key '${k}' of option 'memoryBudget'; known: host, device`);
    host = bytesOption('memoryBudget.host', (mb as { host?: unknown }).host);
    device = bytesOption('memoryBudget.device', (mb as { device?: unknown }).device);
  } else {
    host = device = bytesOption('memoryBudget', mb);
  }
  // The addon, now: an install that cannot work fails here, not in the middle of a proof.
  const { cuda } = nativeBinding().info();
  if (resolved.backend === 'cuda' && !cuda.available) throw new MsmError('ERR_CUDA_UNAVAILABLE', `CUDA backend unavailable: ${cuda.reason ?? 'unknown reason'}`);
  const budget = defaultBudget(cuda.available ? cuda.devices[resolved.device]?.totalMemory : undefined, os.totalmem());
  return {
    backend: resolved.backend,
    threshold,
    msmOptions,
    budget: { host: host ?? budget.host, device: device ?? budget.device },
    fft,
  };
}

// ---- the hook --------------------------------------------------------------------------------

/** Which curve and group an ffjavascript group object is, by its field; null if none of ours. */
function identify(G: unknown): { curve: Curve; group: Group } | null {
  const F = (G as WasmGroup | null)?.F;
  if (!F || typeof F !== 'object') return null;
  const group: Group | null = F.type === 'F1' ? 'g1' : F.type === 'F2' && F.F?.type === 'F1' ? 'g2' : null;
  const p = group === 'g1' ? F.p : F.F?.p;
  const curve = SNARK_CURVES.find((c) => c.p === p);
  if (!group || !curve || F.n8 !== (group === 'g1' ? 1 : 2) * curve.fieldBytes) return null;
  return { curve, group };
}

function hookFor(original: AnyFn, G: WasmGroup, curve: Curve, group: Group): AnyFn {
  const hook: AnyFn = async function multiExpAffine(this: unknown, ...args: unknown[]) {
    const inst = current;
    if (!inst) return original.apply(this, args); // uninstalled, on a curve it could not restore
    return run(inst, original, this, args, G, curve, group);
  };
  hook[ORIGINAL] = original;
  return hook;
}

/** Hook one group object (own property), and learn its prototype (interception point 3). */
function hookGroup(inst: Installation, G: unknown): void {
  const id = identify(G);
  if (!id) return;
  const g = G as WasmGroup;
  const fn = g.multiExpAffine;
  if (typeof fn === 'function' && !fn[ORIGINAL]) {
    Object.defineProperty(g, 'multiExpAffine', { value: hookFor(fn, g, id.curve, id.group), writable: true, configurable: true, enumerable: true });
    inst.groups.push(new WeakRef(g));
    seen = seen.filter((r) => r.deref() !== undefined && r.deref() !== g);
    seen.push(new WeakRef(g));
  }
  hookPrototype(inst, Object.getPrototypeOf(g));
}

function hookPrototype(inst: Installation, proto: object | null): void {
  if (!proto || proto === Object.prototype || inst.prototypes.some((p) => p.proto === proto)) return;
  if (Object.getOwnPropertyDescriptor(proto, 'multiExpAffine')) return; // a method of its own: nothing assigns it
  const get = (): undefined => undefined;
  Object.defineProperty(proto, 'multiExpAffine', {
    configurable: true,
    enumerable: false,
    get,
    // `G.multiExpAffine = fn` in ffjavascript's engine, for a group being built
    set(this: WasmGroup, fn: unknown) {
      Object.defineProperty(this, 'multiExpAffine', { value: fn, writable: true, configurable: true, enumerable: true });
      if (current) hookGroup(current, this);
    },
  });
  inst.prototypes.push({ proto, get });
}

function fieldHookFor(original: AnyFn, F: WasmField, curve: Curve, method: FieldMethod): AnyFn {
  const hook: AnyFn = async function (this: unknown, ...args: unknown[]) {
    const inst = current;
    if (!inst || !inst.fft) return original.apply(this, args);
    inst.fr.calls++;
    const r = await runField(method, F, curve, args, inst.threshold, inst.threads);
    if ('fallback' in r) {
      inst.fr.fallbacks[r.fallback]++;
      return original.apply(this, args);
    }
    inst.fr.accelerated++;
    return r.value;
  };
  Object.defineProperty(hook, 'name', { value: method });
  hook[ORIGINAL] = original;
  return hook;
}

/** Hook the Fr transforms of one curve (own properties, as ffjavascript assigns them). */
function hookField(inst: Installation, F: unknown): void {
  if (!inst.fft) return;
  const curve = identifyField(F, SNARK_CURVES);
  if (!curve) return;
  const f = F as WasmField & Record<string, AnyFn | undefined>;
  let hooked = false;
  for (const m of FIELD_METHODS) {
    const fn = f[m];
    if (typeof fn !== 'function' || fn[ORIGINAL]) continue;
    Object.defineProperty(f, m, { value: fieldHookFor(fn, f, curve, m), writable: true, configurable: true, enumerable: true });
    hooked = true;
  }
  if (!hooked) return;
  inst.fields.push(new WeakRef(f));
  seenFields = seenFields.filter((r) => r.deref() !== undefined && r.deref() !== f);
  seenFields.push(new WeakRef(f));
}

/**
 * Hook one ffjavascript curve (from buildBn128 / buildBls12381) by hand, for the case no
 * interception point sees (the header above). Returns the curve. A no-op while not installed, or
 * for a curve that is not BN254 or BLS12-381.
 */
export function hookCurve<T>(curve: T): T {
  if (current && curve && typeof curve === 'object') {
    const c = curve as { G1?: unknown; G2?: unknown; Fr?: unknown };
    hookGroup(current, c.G1);
    hookGroup(current, c.G2);
    hookField(current, c.Fr);
  }
  return curve;
}

// A hook must not break the curve it is given: what it cannot hook, it leaves alone.
function hookQuietly(curve: unknown): void {
  try {
    hookCurve(curve);
  } catch {
    // not an ffjavascript curve
  }
}

/** R = 2^(8·F) mod p: ffjavascript's Montgomery radix. */
const radix = (c: Curve) => (1n << BigInt(8 * c.fieldBytes)) % c.p;

/** The affine result as ffjavascript's Jacobian point: x·R ‖ y·R ‖ R (Fp2: c0 ‖ c1 each). */
function toJacobian(G: WasmGroup, curve: Curve, coords: readonly bigint[]): Uint8Array {
  if (coords.every((v) => v === 0n)) return G.zero.slice(); // infinity
  const fb = curve.fieldBytes;
  const out = new Uint8Array((coords.length + coords.length / 2) * fb);
  const view = new DataView(out.buffer);
  const R = radix(curve);
  coords.forEach((v, i) => writeLE(view, i * fb, (v * R) % curve.p, fb));
  writeLE(view, coords.length * fb, R, fb); // z = 1 (its c1, for Fp2, stays 0)
  return out;
}

const G2_UNSUPPORTED = Symbol('g2 unsupported');

/** A G2 result `{x: [c0, c1], y: [c0, c1]}` as four coordinates; null for another shape. */
function g2Coords(r: unknown): bigint[] | null {
  const { x, y } = (r ?? {}) as { x?: unknown; y?: unknown };
  const pair = (v: unknown) => Array.isArray(v) && v.length === 2 && v.every((e) => typeof e === 'bigint');
  return pair(x) && pair(y) ? [...(x as bigint[]), ...(y as bigint[])] : null;
}

/**
 * A G2 MSM on msm-cuda, as far as this build has G2 (the `group` option): with the installed
 * backend, and under 'auto' with the CPU too (G2 came to the CPU backend first). A backend that
 * rejects G2 with ERR_INVALID_OPTION is not asked again while installed; where none takes it,
 * the curve's G2 stays snarkjs's.
 */
async function runG2(inst: Installation, curve: Curve, key: string, bases: Bytes, scalars: Uint8Array): Promise<bigint[] | typeof G2_UNSUPPORTED> {
  const known = inst.g2.get(curve.name) ?? 'unknown';
  const tries: BackendChoice[] = known === 'original' ? [] : known !== 'unknown' ? [known] : inst.backend === 'auto' ? ['auto', 'cpu'] : [inst.backend];
  for (const backend of tries) {
    const options: MsmOptions<'g2'> = { ...inst.msmOptions, backend, group: 'g2' };
    let r: unknown;
    try {
      r = await inst.cache.msm(`${key}/${backend}`, curve.name, () => pointParts(bases, 4 * curve.fieldBytes), options, scalars);
    } catch (e) {
      if (toMsmError(e).code === 'ERR_INVALID_OPTION') continue;
      throw e;
    }
    const coords = g2Coords(r);
    if (!coords) break; // not the G2 this module was written for
    inst.g2.set(curve.name, backend);
    return coords;
  }
  inst.g2.set(curve.name, 'original');
  return G2_UNSUPPORTED;
}

async function run(inst: Installation, original: AnyFn, self: unknown, args: unknown[], G: WasmGroup, curve: Curve, group: Group): Promise<unknown> {
  inst.calls[group]++;
  const fallback = (why: FallbackReason) => {
    inst.fallbacks[why]++;
    return original.apply(self, args);
  };
  if (args.length > 4) return fallback('arguments');
  const bases = bytesOf(args[0]);
  const scalars = bytesOf(args[1]);
  if (!bases || !scalars) return fallback('buffer');
  const pointBytes = (group === 'g1' ? 2 : 4) * curve.fieldBytes;
  if (bases.byteLength % pointBytes !== 0) return fallback('shape');
  const n = bases.byteLength / pointBytes;
  if (n === 0 || n < inst.threshold) return fallback('threshold');
  if (scalars.byteLength !== 32 * n) return fallback('scalarSize');
  if (group === 'g2' && inst.g2.get(curve.name) === 'original') return fallback('g2');
  const logger = args[2] as { debug?: unknown } | null | undefined;
  if (logger && typeof logger.debug === 'function') logger.debug(`msm-cuda: ${String(args[3] ?? 'multiexp')}: ${n} points`);
  let coords: bigint[] | typeof G2_UNSUPPORTED;
  try {
    const key = await fingerprint(curve.name, group, bases);
    const sc = contiguous(scalars);
    if (group === 'g1') {
      const r = (await inst.cache.msm(key, curve.name, () => pointParts(bases, pointBytes), inst.msmOptions, sc)) as { x: bigint; y: bigint };
      coords = [r.x, r.y];
    } else {
      coords = await runG2(inst, curve, key, bases, sc);
    }
  } catch (e) {
    const err = toMsmError(e);
    if (INPUT_CODES.has(err.code)) return fallback('input');
    throw err;
  }
  if (coords === G2_UNSUPPORTED) return fallback('g2');
  inst.accelerated[group]++;
  return toJacobian(G, curve, coords);
}

// ---- interception points 1 and 2 ---------------------------------------------------------------

/** ffjavascript's CommonJS module objects: those snarkjs resolves from here, and those loaded. */
function ffjavascriptModules(): Record<string, unknown>[] {
  const where = new Set<string>([__dirname, process.cwd()]);
  if (process.argv[1]) {
    try {
      where.add(path.dirname(fs.realpathSync(process.argv[1]))); // `node -r … $(which snarkjs)`
    } catch {
      // not a file
    }
  }
  const files = new Set<string>();
  const resolveFrom = (request: string, dir: string): string | null => {
    try {
      return require.resolve(request, { paths: [dir] });
    } catch {
      return null;
    }
  };
  for (const dir of where) {
    const snarkjs = resolveFrom('snarkjs', dir);
    for (const d of snarkjs ? [path.dirname(snarkjs), dir] : [dir]) {
      const f = resolveFrom('ffjavascript', d);
      if (f && /\.c?js$/.test(f)) files.add(f);
    }
  }
  for (const f of Object.keys(require.cache ?? {})) if (/[\\/]ffjavascript[\\/]build[\\/]main\.cjs$/.test(f)) files.add(f);
  const mods: Record<string, unknown>[] = [];
  for (const f of files) {
    try {
      const m = require(f) as unknown;
      if (m && typeof m === 'object' && typeof (m as Record<string, unknown>).buildBn128 === 'function' && !mods.includes(m as Record<string, unknown>)) mods.push(m as Record<string, unknown>);
    } catch {
      // an ES module only build, or broken: the other interception points remain
    }
  }
  return mods;
}

function hookBuilders(inst: Installation): void {
  for (const mod of ffjavascriptModules()) {
    for (const name of BUILDERS) {
      const original = mod[name] as AnyFn | undefined;
      if (typeof original !== 'function' || original[ORIGINAL]) continue;
      const hook: AnyFn = async function (this: unknown, ...args: unknown[]) {
        const curve = await original.apply(this, args);
        if (current) hookQuietly(curve);
        return curve;
      };
      hook[ORIGINAL] = original;
      try {
        mod[name] = hook;
      } catch {
        continue; // a frozen exports object
      }
      if (mod[name] === hook) inst.exported.push({ mod, name, original, hook });
    }
  }
}

function hookGlobals(inst: Installation): void {
  const g = globalThis as Record<string, unknown>;
  for (const name of GLOBALS) {
    const d = Object.getOwnPropertyDescriptor(g, name);
    if (d && (!d.configurable || (d.get as AnyFn | undefined)?.[ORIGINAL])) continue;
    let value = d ? (d.get ? d.get.call(g) : d.value) : undefined;
    const get: AnyFn = () => value;
    get[ORIGINAL] = get;
    Object.defineProperty(g, name, {
      configurable: true,
      enumerable: d?.enumerable ?? true,
      get,
      set(v: unknown) {
        value = v;
        if (current && v) hookQuietly(v);
      },
    });
    inst.globals.push({ name, existed: d !== undefined, get });
    if (value) hookQuietly(value);
  }
}

// ---- the public API ----------------------------------------------------------------------------

/**
 * Run snarkjs's G1 and G2 MSMs (multiExpAffine) on msm-cuda, in every ffjavascript curve built
 * now or later, until uninstall(). Installing again replaces the options (and drops the
 * resident bases). Throws an MsmError for bad options, ERR_NATIVE_UNAVAILABLE where the addon
 * does not load, ERR_CUDA_UNAVAILABLE for backend 'cuda' without CUDA.
 */
export function install(options?: SnarkjsOptions): void {
  const o = resolve(options);
  if (current) uninstall();
  const inst: Installation = {
    backend: o.backend,
    threshold: o.threshold,
    msmOptions: o.msmOptions,
    cache: new ContextCache(o.budget),
    calls: { g1: 0, g2: 0 },
    accelerated: { g1: 0, g2: 0 },
    fallbacks: Object.fromEntries(REASONS.map((r) => [r, 0])) as Record<FallbackReason, number>,
    g2: new Map(),
    fft: o.fft,
    threads: o.msmOptions.threads ?? 0,
    fr: { calls: 0, accelerated: 0, fallbacks: Object.fromEntries(FIELD_REASONS.map((r) => [r, 0])) as Record<FieldFallbackReason, number> },
    exported: [],
    globals: [],
    prototypes: [],
    groups: [],
    fields: [],
  };
  current = inst;
  try {
    hookBuilders(inst);
    hookGlobals(inst);
    for (const ref of seen) {
      const G = ref.deref();
      if (G) hookGroup(inst, G);
    }
    for (const ref of seenFields) {
      const F = ref.deref();
      if (F) hookField(inst, F);
    }
  } catch (e) {
    uninstall();
    throw toMsmError(e);
  }
}

/** Undo install(): snarkjs's own functions back everywhere, the resident bases freed. */
export function uninstall(): void {
  const inst = current;
  if (!inst) return;
  current = null;
  for (const { mod, name, original, hook } of inst.exported) if (mod[name] === hook) mod[name] = original;
  const g = globalThis as Record<string, unknown>;
  for (const { name, existed, get } of inst.globals) {
    const d = Object.getOwnPropertyDescriptor(g, name);
    if (d?.get !== get) continue;
    const value = get();
    if (!existed && value === undefined) delete g[name];
    else Object.defineProperty(g, name, { value, writable: true, enumerable: d.enumerable, configurable: true });
  }
  for (const { proto, get } of inst.prototypes) {
    if (Object.getOwnPropertyDescriptor(proto, 'multiExpAffine')?.get === get) delete (proto as Record<string, unknown>).multiExpAffine;
  }
  for (const ref of inst.groups) {
    const G = ref.deref();
    const original = G?.multiExpAffine?.[ORIGINAL];
    if (G && original) Object.defineProperty(G, 'multiExpAffine', { value: original, writable: true, configurable: true, enumerable: true });
  }
  for (const ref of inst.fields) {
    const F = ref.deref() as Record<string, AnyFn | undefined> | undefined;
    for (const m of FIELD_METHODS) {
      const original = F?.[m]?.[ORIGINAL];
      if (F && original) Object.defineProperty(F, m, { value: original, writable: true, configurable: true, enumerable: true });
    }
  }
  inst.cache.clear();
}

/** Counters of the current installation (zeros when not installed). */
export function stats(): SnarkjsStats {
  const inst = current;
  const g2 = (c: CurveName) => inst?.g2.get(c) ?? 'unknown';
  return {
    installed: inst !== null,
    backend: inst?.backend ?? null,
    threshold: inst?.threshold ?? null,
    fft: inst?.fft ?? null,
    calls: { ...(inst?.calls ?? { g1: 0, g2: 0 }) },
    accelerated: { ...(inst?.accelerated ?? { g1: 0, g2: 0 }) },
    fallbacks: { ...(inst?.fallbacks ?? (Object.fromEntries(REASONS.map((r) => [r, 0])) as Record<FallbackReason, number>)) },
    cache: inst?.cache.stats() ?? { contexts: 0, hits: 0, misses: 0, created: 0, evictions: 0, host: 0, device: 0 },
    g2: { bn254: g2('bn254'), 'bls12-381': g2('bls12-381') },
    fr: {
      calls: inst?.fr.calls ?? 0,
      accelerated: inst?.fr.accelerated ?? 0,
      fallbacks: { ...(inst?.fr.fallbacks ?? (Object.fromEntries(FIELD_REASONS.map((r) => [r, 0])) as Record<FieldFallbackReason, number>)) },
    },
  };
}
