// MsmContext: bases that stay resident (on the GPU with their precomputed table, or in host
// memory for the CPU backend) and serve many MSMs with new scalars, the way provers use MSM. A
// context is one curve and one group (G1 or G2): its results have that group's point type.

import { checkEmptyInput, chooseBackend, cudaDevices, nativeBinding, takeBytes } from './backend';
import type { Curve, CurveName, Group } from './curves';
import { decodePoint, infinityOf, type PointOf } from './encoding';
import { CallSite, MsmError, rethrowAt } from './errors';
import type { NativeBackend, NativeContext, NativeMemory } from './native';
import {
  checkCallOptions,
  checkCurve,
  checkOptions,
  NATIVE_FORMAT,
  NATIVE_VALIDATE,
  preparePoints,
  prepareScalars,
  takeList,
  takePoints,
  takeScalars,
  type CallOptions,
  type MsmOptions,
  type PointsInputOf,
  type PreparedPoints,
  type PreparedScalars,
  type ResolvedOptions,
  type ScalarsInput,
} from './validate';
import { CallWaits } from './wait';

/**
 * Packed input that cannot go to the addon now (it is for a call that waits for something else:
 * msm()'s scalars for its context, a batch's packed sets for its bigint ones) is copied now,
 * before the API call returns. Packed input that goes to the addon before the call returns is
 * not: the addon copies it (into recycled buffers, freed as soon as the work is done).
 */
export function freeze<T extends { bytes?: Uint8Array }>(taken: T): T {
  if (taken.bytes) taken.bytes = takeBytes(taken.bytes);
  return taken;
}

// Only MsmContext.create() holds it: `new MsmContext()` from JavaScript (where the constructor's
// `private` does not exist) is an MsmError, not a TypeError from deep inside.
const CREATE: unique symbol = Symbol('MsmContext.create');

/** An error of scalar set j of a batch, named so. */
function inSet(j: number, e: unknown): unknown {
  return e instanceof MsmError ? new MsmError(e.code, `scalar set ${j}: ${e.message}`, e.index) : e;
}

/**
 * Create the native context for prepared points (n > 0); used by MsmContext.create and msm().
 * owned: points.bytes is the package's own (an encoding); otherwise it is the caller's, and this
 * must be called before the API call returns (the addon copies it before createContext returns).
 */
export async function openNative(curve: Curve, points: PreparedPoints, opts: ResolvedOptions, site: CallSite, owned: boolean): Promise<{ ctx: NativeContext; backend: NativeBackend }> {
  const native = nativeBinding();
  const backend = chooseBackend(native, points.n, opts);
  const ctx = await native
    .createContext(
      curve.name,
      points.bytes,
      NATIVE_FORMAT[points.format],
      NATIVE_VALIDATE[opts.validate],
      {
        backend,
        device: opts.device,
        ...(backend === 'cuda' && opts.devices ? { devices: cudaDevices(native, opts) } : {}),
        windowBits: opts.windowBits,
        tau: opts.tau,
        accumulation: opts.accumulation,
        threads: opts.threads,
        group: opts.group,
      },
      owned,
    )
    .catch(rethrowAt(site));
  return { ctx, backend };
}

export class MsmContext<G extends Group = 'g1'> {
  readonly curve: CurveName;
  /** The group of the bases; results are points of it. */
  readonly group: G;
  /** Number of bases. */
  readonly size: number;
  /** The backend serving this context; null for a context of zero points (nothing to compute). */
  readonly backend: NativeBackend | null;
  #native: NativeContext | null;
  #curve: Curve;
  #opts: ResolvedOptions;
  #closed = false;
  #waits = new CallWaits();

  private constructor(token: typeof CREATE, curve: Curve, size: number, native: NativeContext | null, backend: NativeBackend | null, opts: ResolvedOptions) {
    if (token !== CREATE) throw new MsmError('ERR_INVALID_ARGUMENT', 'MsmContext has no public constructor: use MsmContext.create(curve, points, options)');
    this.curve = curve.name;
    this.group = opts.group as G;
    this.#curve = curve;
    this.size = size;
    this.#native = native;
    this.backend = backend;
    this.#opts = opts;
  }

  /**
   * Validate and load the bases. Points are checked on the curve by default (option `validate`).
   * Packed points may come in parts (an array of Uint8Array, each a whole number of points), for
   * bases above one typed array. Scalars given to later calls must number the points. Option `group: 'g2'` makes a
   * context over G2 points (`{x: [c0, c1], y: [c0, c1]}`), whose results are G2 points.
   */
  static async create<G extends Group = 'g1'>(curve: CurveName, points: PointsInputOf<G>, options?: MsmOptions<G>): Promise<MsmContext<G>> {
    const site = new CallSite(MsmContext.create);
    const c = checkCurve(curve);
    const opts = checkOptions(options);
    const taken = takePoints(c, points, opts);
    if (taken.n === 0) {
      checkEmptyInput(opts);
      return new MsmContext<G>(CREATE, c, 0, null, null, opts);
    }
    // packed points go to the addon now (no await before openNative's call), which copies them
    const prepared = taken.bytes ? { n: taken.n, bytes: taken.bytes, format: taken.format } : await preparePoints(c, taken).catch(rethrowAt(site));
    const { ctx, backend } = await openNative(c, prepared, opts, site, !taken.bytes);
    return new MsmContext<G>(CREATE, c, prepared.n, ctx, backend, opts);
  }

  get closed(): boolean {
    return MsmContext.#own(this).#closed;
  }

  /** Window bits c in use (0 for an empty context). */
  get windowBits(): number {
    return MsmContext.#own(this).#native?.windowBits ?? 0;
  }

  /**
   * Precompute depth τ in use (cuda): the table holds τ + 1 levels of the bases, 2^h·P for h ≤ τ, or,
   * where the windows share one bucket set (the plan's choice from 2^16 points), 2^(jc)·P for each
   * of the τ + 1 windows j; 0 on cpu.
   */
  get tau(): number {
    return MsmContext.#own(this).#native?.tau ?? 0;
  }

  /** Bytes held for this context on the host and on the device. */
  get memory(): NativeMemory {
    return MsmContext.#own(this).#native?.memory ?? { host: 0, device: 0 };
  }

  /**
   * Σ scalars[i]·points[i]. The scalars are taken when the call is made: changing them afterwards
   * does not change the result. A close() before a call over bigint scalars has been handed to
   * the addon (while they are encoded) rejects it with ERR_CONTEXT_CLOSED.
   */
  async msm(scalars: ScalarsInput, options?: CallOptions): Promise<PointOf<G>> {
    const site = new CallSite(MsmContext.prototype.msm);
    const self = MsmContext.#open(this);
    const opts = checkCallOptions(options, self.#opts);
    const taken = takeScalars(self.#curve, scalars, self.size, opts);
    const native = self.#native;
    if (!native) return infinityOf(self.group);
    // packed: to the addon now, which copies it; bigints: encoded first, then handed over (owned)
    const s = taken.bytes ? { bytes: taken.bytes, format: taken.format, checkRange: true } : await prepareScalars(self.#curve, taken).catch(rethrowAt(site));
    const out = await self.#wait(native.msm(s.bytes, NATIVE_FORMAT[s.format], s.checkRange, !taken.bytes), 1).catch(rethrowAt(site));
    return decodePoint(self.#curve, out, self.group);
  }

  /** Several MSMs over the same bases in one native call; one result per scalar set, in order. */
  async msmBatch(scalarSets: readonly ScalarsInput[], options?: CallOptions): Promise<PointOf<G>[]> {
    const site = new CallSite(MsmContext.prototype.msmBatch);
    const self = MsmContext.#open(this);
    const list = takeList(scalarSets, 'scalarSets', 'msmBatch expects an array of scalar sets');
    const opts = checkCallOptions(options, self.#opts);
    const taken = list.map((s, j) => {
      try {
        return takeScalars(self.#curve, s, self.size, opts);
      } catch (e) {
        throw inSet(j, e);
      }
    });
    if (taken.length === 0) return [];
    const native = self.#native;
    if (!native) return taken.map(() => infinityOf(self.group));
    const packed = taken.every((t) => t.bytes);
    // all packed: to the addon now, which copies them; else the packed ones are copied now, and
    // all are handed over (owned) once the bigint ones are encoded
    const sets: PreparedScalars[] = [];
    if (packed) {
      for (const t of taken) sets.push({ bytes: t.bytes!, format: t.format, checkRange: true });
    } else {
      taken.forEach(freeze);
      for (let j = 0; j < taken.length; j++) {
        sets.push(await prepareScalars(self.#curve, taken[j]).catch((e) => rethrowAt(site)(inSet(j, e))));
      }
    }
    // One native call needs one range-check mode: check all when any set is packed bytes.
    const checkRange = sets.some((s) => s.checkRange);
    const outs = await self
      .#wait(native.msmBatch(sets.map((s) => s.bytes), NATIVE_FORMAT[opts.scalarFormat], checkRange, !packed), sets.length)
      .catch(rethrowAt(site));
    return outs.map((o) => decodePoint(self.#curve, o, self.group));
  }

  /** A native call's promise: a CUDA call's waited for with the event loop turning near its end (wait.ts). */
  #wait<T>(p: Promise<T>, sets: number): Promise<T> {
    return this.backend === 'cuda' ? this.#waits.wait(p, sets) : p;
  }

  /** Free the bases (host and device memory). Idempotent; later calls reject ERR_CONTEXT_CLOSED. */
  close(): void {
    MsmContext.#own(this);
    if (this.#closed) return;
    this.#closed = true;
    const n = this.#native;
    this.#native = null;
    n?.close();
  }

  // A method called on something else (`MsmContext.prototype.msm.call({}, …)`): an MsmError, not
  // the TypeError of a private field read.
  // (`this` as typed; at run time whatever the method was called on.)
  static #own<C extends MsmContext<Group>>(x: C): C {
    if (typeof x !== 'object' || x === null || !(#closed in x)) {
      throw new MsmError('ERR_INVALID_ARGUMENT', 'not an MsmContext: call the method on a context from MsmContext.create()');
    }
    return x;
  }

  static #open<C extends MsmContext<Group>>(x: C): C {
    const self = MsmContext.#own(x);
    if (self.#closed) throw new MsmError('ERR_CONTEXT_CLOSED', `this ${self.curve}${self.group === 'g1' ? '' : ` ${self.group.toUpperCase()}`} MsmContext is closed`);
    return self;
  }
}
