// MsmContext: bases that stay resident (on the GPU with their precomputed table, or in host
// memory for the CPU backend) and serve many MSMs with new scalars, the way provers use MSM.

import { chooseBackend, nativeBinding } from './backend';
import type { Curve, CurveName } from './curves';
import { decodePoint, type AffinePoint } from './encoding';
import { CallSite, MsmError, rethrowAt } from './errors';
import type { NativeBackend, NativeContext, NativeMemory } from './native';
import {
  checkCallOptions,
  checkCurve,
  checkOptions,
  checkPoints,
  checkScalars,
  NATIVE_FORMAT,
  NATIVE_VALIDATE,
  type CallOptions,
  type MsmOptions,
  type PointsInput,
  type PreparedPoints,
  type ResolvedOptions,
  type ScalarsInput,
} from './validate';

const INFINITY = (): AffinePoint => ({ x: 0n, y: 0n });

/** Create the native context for prepared points (n > 0); used by MsmContext.create and msm(). */
export async function openNative(curve: Curve, points: PreparedPoints, opts: ResolvedOptions, site: CallSite): Promise<{ ctx: NativeContext; backend: NativeBackend }> {
  const native = nativeBinding();
  const backend = chooseBackend(native, points.n, opts);
  const ctx = await native
    .createContext(curve.name, points.bytes, NATIVE_FORMAT[points.format], NATIVE_VALIDATE[opts.validate], {
      backend,
      device: opts.device,
      windowBits: opts.windowBits,
      tau: opts.tau,
      accumulation: opts.accumulation,
      threads: opts.threads,
    })
    .catch(rethrowAt(site));
  return { ctx, backend };
}

export class MsmContext {
  readonly curve: CurveName;
  /** Number of bases. */
  readonly size: number;
  /** The backend serving this context; null for a context of zero points (nothing to compute). */
  readonly backend: NativeBackend | null;
  #native: NativeContext | null;
  #curve: Curve;
  #opts: ResolvedOptions;
  #closed = false;

  private constructor(curve: Curve, size: number, native: NativeContext | null, backend: NativeBackend | null, opts: ResolvedOptions) {
    this.curve = curve.name;
    this.#curve = curve;
    this.size = size;
    this.#native = native;
    this.backend = backend;
    this.#opts = opts;
  }

  /**
   * Validate and load the bases. Points are checked on the curve by default (option `validate`).
   * Scalars given to later calls must number `points.length`.
   */
  static async create(curve: CurveName, points: PointsInput, options?: MsmOptions): Promise<MsmContext> {
    const site = new CallSite(MsmContext.create);
    const c = checkCurve(curve);
    const opts = checkOptions(options);
    const prepared = checkPoints(c, points, opts);
    if (prepared.n === 0) return new MsmContext(c, 0, null, null, opts);
    const { ctx, backend } = await openNative(c, prepared, opts, site);
    return new MsmContext(c, prepared.n, ctx, backend, opts);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Window bits c in use (0 for an empty context). */
  get windowBits(): number {
    return this.#native?.windowBits ?? 0;
  }

  /** Precompute depth τ in use (cuda), 0 on cpu. */
  get tau(): number {
    return this.#native?.tau ?? 0;
  }

  /** Bytes held for this context on the host and on the device. */
  get memory(): NativeMemory {
    return this.#native?.memory ?? { host: 0, device: 0 };
  }

  /** Σ scalars[i]·points[i]. */
  async msm(scalars: ScalarsInput, options?: CallOptions): Promise<AffinePoint> {
    const site = new CallSite(this.msm);
    this.#checkOpen();
    const opts = checkCallOptions(options, this.#opts);
    const s = checkScalars(this.#curve, scalars, this.size, opts);
    if (!this.#native) return INFINITY();
    const out = await this.#native.msm(s.bytes, NATIVE_FORMAT[s.format], s.checkRange).catch(rethrowAt(site));
    return decodePoint(this.#curve, out);
  }

  /** Several MSMs over the same bases in one native call; one result per scalar set, in order. */
  async msmBatch(scalarSets: readonly ScalarsInput[], options?: CallOptions): Promise<AffinePoint[]> {
    const site = new CallSite(this.msmBatch);
    this.#checkOpen();
    if (!Array.isArray(scalarSets)) throw new MsmError('ERR_INVALID_ARGUMENT', 'msmBatch expects an array of scalar sets');
    const opts = checkCallOptions(options, this.#opts);
    const sets = scalarSets.map((s, j) => {
      try {
        return checkScalars(this.#curve, s, this.size, opts);
      } catch (e) {
        if (e instanceof MsmError) throw new MsmError(e.code, `scalar set ${j}: ${e.message}`, e.index);
        throw e;
      }
    });
    if (sets.length === 0) return [];
    if (!this.#native) return sets.map(INFINITY);
    // One native call needs one range-check mode: check all when any set is packed bytes.
    const checkRange = sets.some((s) => s.checkRange);
    const outs = await this.#native
      .msmBatch(sets.map((s) => s.bytes), NATIVE_FORMAT[opts.scalarFormat], checkRange)
      .catch(rethrowAt(site));
    return outs.map((o) => decodePoint(this.#curve, o));
  }

  /** Free the bases (host and device memory). Idempotent; later calls reject ERR_CONTEXT_CLOSED. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const n = this.#native;
    this.#native = null;
    n?.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new MsmError('ERR_CONTEXT_CLOSED', `this ${this.curve} MsmContext is closed`);
  }
}
