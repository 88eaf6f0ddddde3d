// msm-cuda: multi-scalar multiplication Q = Σ kᵢ·Pᵢ on BN254, BLS12-381, BLS12-377 and BLS24-315 G1
// (and the G2 of BN254 and BLS12-381: option `group`), on CUDA GPUs or a multi-threaded CPU
// backend. Variable-time: for public inputs.

import { AUTO_CUDA_MIN_POINTS, checkEmptyInput, nativeBinding } from './backend';
import { freeze, openNative } from './context';
import { CURVE_NAMES, CURVES, type CurveName, type Group } from './curves';
import { decodePoint, infinityOf, type PointOf } from './encoding';
import { CallSite, MsmError, rethrowAt } from './errors';
import type { NativeBackendLimits, NativeContext, NativeDeviceInfo } from './native';
import { checkCurve, checkOptions, NATIVE_FORMAT, preparePoints, prepareScalars, takePoints, takeScalars, type AccumulationMode, type MsmOptions, type PointsInputOf, type ScalarsInput } from './validate';

export { MsmContext } from './context';
export { CURVES, CURVE_NAMES, GROUPS, type Curve, type CurveName, type Group } from './curves';
export { ERROR_CODES, MsmError, type MsmErrorCode } from './errors';
export type { AffinePoint, ByteFormat, G2AffinePoint, PointOf } from './encoding';
export type { AccumulationMode, BackendChoice, BaseMsmOptions, CallOptions, G2PointsInput, GroupOption, MsmOptions, PointFormat, PointParts, PointValidation, PointsInput, PointsInputOf, ScalarsInput } from './validate';
export { AUTO_CUDA_MIN_POINTS } from './backend';

/**
 * Σ scalars[i]·points[i] on `curve`. Resolves to the affine result, {x: 0n, y: 0n} for infinity.
 * With `group: 'g2'` the points and the result are G2 points, `{x: [c0, c1], y: [c0, c1]}`
 * (infinity all 0n). Packed points may come in parts (an array of Uint8Array, each a whole number
 * of points). For many MSMs over the same points, MsmContext keeps them (and their
 * tables) resident. The inputs are taken when the call is made (packed ones copied, arrays read
 * once): changing them afterwards does not change the result.
 */
export async function msm<G extends Group = 'g1'>(curve: CurveName, points: PointsInputOf<G>, scalars: ScalarsInput, options?: MsmOptions<G>): Promise<PointOf<G>> {
  const site = new CallSite(msm);
  const c = checkCurve(curve);
  const opts = checkOptions(options);
  const takenPoints = takePoints(c, points, opts);
  const takenScalars = takeScalars(c, scalars, takenPoints.n, opts);
  const group = opts.group as G;
  if (takenPoints.n === 0) {
    checkEmptyInput(opts);
    return infinityOf(group);
  }
  // Packed points go to the addon now, which copies them; packed scalars are copied now (their
  // context does not exist yet). What follows the first await runs on snapshots and copies only.
  const early = takenPoints.bytes ? openNative(c, { n: takenPoints.n, bytes: takenPoints.bytes, format: takenPoints.format }, opts, site, false) : undefined;
  early?.catch(() => {}); // awaited below, once the scalars are encoded: not an unhandled rejection meanwhile
  let opened: { ctx: NativeContext } | undefined;
  try {
    freeze(takenScalars); // still before the first await
    const pts = early ? undefined : await preparePoints(c, takenPoints).catch(rethrowAt(site));
    const sc = await prepareScalars(c, takenScalars).catch(rethrowAt(site));
    opened = await (early ?? openNative(c, pts!, opts, site, true));
    // owned: sc.bytes is the package's own (an encoding, or freeze()'s copy)
    const out = await opened.ctx.msm(sc.bytes, NATIVE_FORMAT[sc.format], sc.checkRange, true).catch(rethrowAt(site));
    return decodePoint(c, out, group);
  } finally {
    if (opened) opened.ctx.close();
    else early?.then((o) => o.ctx.close(), () => {}); // the scalars failed: the context goes too
  }
}

export interface CudaDeviceInfo {
  index: number;
  name: string;
  computeCapability: string;
  totalMemory: number;
  multiProcessors: number;
}

/**
 * What one backend accepts; `msm()` and `MsmContext.create()` reject other values with
 * ERR_INVALID_OPTION. Ranges are inclusive, of explicit values.
 */
export interface BackendLimits {
  /** Option `windowBits`: [lo, hi]. */
  windowBits: [number, number];
  /** Option `tau`: [lo, hi] (and at most windowBits − 1), or null where the backend has no τ and ignores it. */
  tau: [number, number] | null;
  /** Option `threads`: [lo, hi] (0 = all cores). */
  threads: [number, number];
  /** Points per call or context. */
  maxPoints: number;
  /** The accumulation modes it runs ('constant-time' is `constantTime: true`). */
  accumulation: AccumulationMode[];
  /** The groups it runs (option `group`). */
  groups: Group[];
}

export interface Info {
  /** Package version of the native addon (null when it did not load). */
  version: string | null;
  /** Curves usable now (those of the addon). */
  curves: CurveName[];
  /** For each of those curves, the groups it runs (`'g2'` for BN254 and BLS12-381: `CURVES[c].groups`). */
  groups: Partial<Record<CurveName, Group[]>>;
  /** Backends usable now, in the order 'auto' prefers them for large inputs. */
  backends: ('cuda' | 'cpu')[];
  /** Inputs of at least this many points go to CUDA under backend 'auto'. */
  autoCudaMinPoints: number;
  native: { loaded: boolean; error: string | null };
  cpu: { available: boolean; threads: number };
  cuda: {
    compiled: boolean;
    available: boolean;
    reason: string | null;
    runtimeVersion: number;
    driverVersion: number;
    devices: CudaDeviceInfo[];
  };
  /** What each backend accepts (the addon's table, so null when it did not load). */
  limits: { cpu: BackendLimits; cuda: BackendLimits } | null;
}

function copyLimits(l: NativeBackendLimits): BackendLimits {
  return { windowBits: [...l.windowBits], tau: l.tau && [...l.tau], threads: [...l.threads], maxPoints: l.maxPoints, accumulation: [...l.accumulation], groups: [...l.groups] };
}

/** What this installation can do: backends, GPUs, and why CUDA is unavailable when it is. */
export function info(): Info {
  let native;
  try {
    native = nativeBinding();
  } catch (e) {
    const why = (e as MsmError).message;
    return {
      version: null,
      curves: [],
      groups: {},
      backends: [],
      autoCudaMinPoints: AUTO_CUDA_MIN_POINTS,
      native: { loaded: false, error: why },
      cpu: { available: false, threads: 0 },
      cuda: { compiled: false, available: false, reason: why, runtimeVersion: 0, driverVersion: 0, devices: [] },
      limits: null,
    };
  }
  const n = native.info();
  const devices = n.cuda.devices.map((d: NativeDeviceInfo) => ({ ...d }));
  return {
    version: n.version,
    curves: CURVE_NAMES.filter((c) => n.curves.includes(c)),
    groups: Object.fromEntries(CURVE_NAMES.filter((c) => n.curves.includes(c)).map((c) => [c, CURVES[c].groups.filter((g) => n.groups[c]?.includes(g))])),
    backends: n.cuda.available ? ['cuda', 'cpu'] : ['cpu'],
    autoCudaMinPoints: AUTO_CUDA_MIN_POINTS,
    native: { loaded: true, error: null },
    cpu: { available: true, threads: n.cpu.threads },
    cuda: { ...n.cuda, reason: n.cuda.available ? null : n.cuda.reason ?? 'unknown reason', devices },
    limits: { cpu: copyLimits(n.limits.cpu), cuda: copyLimits(n.limits.cuda) },
  };
}
