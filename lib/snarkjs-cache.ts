// The bases snarkjs hands to multiExpAffine, kept resident between calls (lib/snarkjs.ts): one
// MsmContext per distinct set of bases, found again by a fingerprint of their bytes, within a
// memory budget (least recently used first out).
//
// The fingerprint is SHA-256 over all the bytes (plus the curve, the group and the length), not
// a sample: snarkjs reads every section anew for each proof, so the object is new every time, and
// a context found for other bases would give a proof that does not verify, with nothing to say
// why. Two zkeys of one circuit differ in every point, but a sample cannot rule out bases that
// differ in a few; a full hash can. What it costs, on every call: SHA-256 (Node's createHash, x86
// SHA extensions) runs at ~1.1 GiB/s on one core of the 2-core test VM, some 60 ms for 2^20
// BN254 points: far below snarkjs's WASM MSM of them, but more than the GPU's (to be won back by
// hashing while the MSM runs); it is hashed in 8 MiB slices that yield to the event loop.

import { createHash } from 'crypto';
import { types } from 'util';
import type { CurveName, Group } from './curves';
import { toMsmError } from './errors';
import { MsmContext } from './context';
import type { MsmOptions, PackedPoints } from './validate';

/**
 * Bytes as snarkjs passes them: a Uint8Array, or an ffjavascript BigBuffer (pages of at most
 * 1 GiB in `buffers`). `parts` are the pages in order.
 */
export interface Bytes {
  readonly byteLength: number;
  readonly parts: readonly Uint8Array[];
}

/** The bytes of a Uint8Array or BigBuffer; null for anything else (the caller falls back). */
export function bytesOf(v: unknown): Bytes | null {
  if (types.isUint8Array(v)) return { byteLength: v.byteLength, parts: [v] };
  if (v === null || typeof v !== 'object') return null;
  const { buffers, byteLength } = v as { buffers?: unknown; byteLength?: unknown };
  if (!Array.isArray(buffers) || typeof byteLength !== 'number' || !Number.isSafeInteger(byteLength)) return null;
  let sum = 0;
  for (const b of buffers) {
    if (!types.isUint8Array(b)) return null;
    sum += b.byteLength;
  }
  return sum === byteLength ? { byteLength, parts: buffers as Uint8Array[] } : null;
}

/** One contiguous Uint8Array (a page as it is, several pages copied into one). */
export function contiguous(b: Bytes): Uint8Array {
  if (b.parts.length === 1) return b.parts[0];
  const out = new Uint8Array(b.byteLength);
  let at = 0;
  for (const p of b.parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Bases as parts for MsmContext.create, in place of one copy of them all: the pages as they are
 * where each holds whole points (a G1 point of BN254 is 64 bytes, a 1 GiB page 2^24 of them);
 * where a point straddles two pages (BLS12-381's 96 bytes), that point alone is copied into a
 * part of its own, and the pages give views of the whole points between. byteLength is a
 * multiple of pointBytes.
 */
export function pointParts(b: Bytes, pointBytes: number): Uint8Array | Uint8Array[] {
  if (b.parts.length === 1) return b.parts[0];
  const out: Uint8Array[] = [];
  let straddling: Uint8Array | null = null; // the point begun at the end of an earlier page
  let filled = 0;
  for (const page of b.parts) {
    let at = 0;
    if (straddling) {
      at = Math.min(pointBytes - filled, page.byteLength);
      straddling.set(page.subarray(0, at), filled);
      filled += at;
      if (filled < pointBytes) continue; // a page smaller than a point
      out.push(straddling);
      straddling = null;
    }
    const whole = at + Math.floor((page.byteLength - at) / pointBytes) * pointBytes;
    if (whole > at) out.push(page.subarray(at, whole));
    if (whole < page.byteLength) {
      straddling = new Uint8Array(pointBytes);
      straddling.set(page.subarray(whole));
      filled = page.byteLength - whole;
    }
  }
  return out;
}

const HASH_SLICE = 8 << 20;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** curve/group/length/sha256 of the bytes, hashed in slices between which the event loop runs. */
export async function fingerprint(curve: CurveName, group: Group, b: Bytes): Promise<string> {
  const h = createHash('sha256');
  let since = 0;
  for (const p of b.parts) {
    for (let at = 0; at < p.byteLength; at += HASH_SLICE) {
      if (since >= HASH_SLICE) {
        await yieldToLoop();
        since = 0;
      }
      const end = Math.min(p.byteLength, at + HASH_SLICE);
      h.update(p.subarray(at, end));
      since += end - at;
    }
  }
  return `${curve}/${group}/${b.byteLength}/${h.digest('hex')}`;
}

/**
 * Contexts held at most, whatever their size: tiny MSMs over ever new bases (groth16.verify's
 * few points of each verification key) would otherwise pile up below any memory budget. A
 * Groth16 zkey takes five (one per section), a PLONK or FFLONK one one per length of the τ powers
 * it commits with (the test circuits': 4 and 2).
 */
export const MAX_CONTEXTS = 64;

export interface Budget {
  host: number;
  device: number;
}

/** The default budget: half the host memory, three quarters of the GPU's (Infinity without one). */
export function defaultBudget(gpuMemory: number | undefined, hostMemory: number): Budget {
  return { host: Math.floor(hostMemory / 2), device: gpuMemory ? Math.floor(gpuMemory * 0.75) : Infinity };
}

export interface CacheStats {
  /** Contexts held now. */
  contexts: number;
  /** Calls that found their bases resident (or being loaded by a concurrent call). */
  hits: number;
  /** Calls that had to load their bases. */
  misses: number;
  /** Contexts created (each a miss that succeeded). */
  created: number;
  /** Contexts dropped to stay within the budget (closed once their running MSMs end). */
  evictions: number;
  /** Bytes held by the contexts held now. */
  host: number;
  device: number;
}

interface Entry {
  readonly key: string;
  readonly ready: Promise<MsmContext<Group>>;
  ctx: MsmContext<Group> | null;
  users: number;
  /** Out of the cache: closed when its last user is done. */
  dropped: boolean;
}

/**
 * MsmContexts by fingerprint. Concurrent first uses of the same bases share one creation (the
 * entry goes into the map before its context exists); a context in use when it is evicted is
 * closed after its last MSM. The Map's order is the recency order (a use moves its entry last).
 */
export class ContextCache {
  readonly #entries = new Map<string, Entry>();
  readonly #budget: Budget;
  readonly #stats = { hits: 0, misses: 0, created: 0, evictions: 0 };

  constructor(budget: Budget) {
    this.#budget = budget;
  }

  /**
   * Σ scalars·bases on the context for `key`, creating it from `bases()` (called at once; it may
   * resolve later, as a file is read) on a miss with `options`. A creation that fails rejects
   * every call waiting for it and leaves no entry.
   */
  async msm(key: string, curve: CurveName, bases: () => PackedPoints | Promise<PackedPoints>, options: MsmOptions<Group>, scalars: Uint8Array): Promise<unknown> {
    let e = this.#entries.get(key);
    if (e) {
      this.#stats.hits++;
      this.#entries.delete(key); // most recently used: last
      this.#entries.set(key, e);
    } else {
      this.#stats.misses++;
      e = this.#create(key, curve, bases, options);
    }
    e.users++;
    try {
      const ctx = await e.ready;
      return await ctx.msm(scalars);
    } finally {
      e.users--;
      if (e.dropped && e.users === 0) e.ctx?.close();
    }
  }

  #create(key: string, curve: CurveName, bases: () => PackedPoints | Promise<PackedPoints>, options: MsmOptions<Group>): Entry {
    const b = bases();
    const entry: Entry = {
      key,
      ctx: null,
      users: 0,
      dropped: false,
      // bytes at hand go to the addon now, which copies them before this call returns
      ready: (b instanceof Promise ? b.then((bytes) => this.#open(curve, bytes, options)) : this.#open(curve, b, options)).then(
        (ctx) => {
          entry.ctx = ctx;
          this.#stats.created++;
          if (entry.dropped) return ctx; // cleared meanwhile: closed after this use
          this.#fit(entry);
          return ctx;
        },
        (err) => {
          if (this.#entries.get(key) === entry) this.#entries.delete(key);
          throw err;
        },
      ),
    };
    this.#entries.set(key, entry);
    return entry;
  }

  /** MsmContext.create, once more after dropping the idle contexts when the memory ran out. */
  async #open(curve: CurveName, bytes: PackedPoints, options: MsmOptions<Group>): Promise<MsmContext<Group>> {
    try {
      return await MsmContext.create(curve, bytes, options);
    } catch (err) {
      const code = toMsmError(err).code;
      if ((code !== 'ERR_CUDA_OOM' && code !== 'ERR_OUT_OF_MEMORY') || !this.#dropIdle()) throw err;
      return await MsmContext.create(curve, bytes, options);
    }
  }

  /** Evict the least recently used contexts until the held ones fit the budget. */
  #fit(fresh: Entry): void {
    const over = () => {
      const m = this.#held();
      return m.host > this.#budget.host || m.device > this.#budget.device || this.#entries.size > MAX_CONTEXTS;
    };
    for (const e of [...this.#entries.values()]) {
      if (!over()) return;
      if (e !== fresh && e.ctx) this.#drop(e);
    }
    if (over()) this.#drop(fresh); // alone above the budget: used for this call, then closed
  }

  #dropIdle(): boolean {
    let any = false;
    for (const e of [...this.#entries.values()]) {
      if (e.ctx && e.users === 0) {
        this.#drop(e);
        any = true;
      }
    }
    return any;
  }

  #drop(e: Entry): void {
    if (this.#entries.get(e.key) === e) this.#entries.delete(e.key);
    if (e.dropped) return;
    e.dropped = true;
    this.#stats.evictions++;
    if (e.users === 0) e.ctx?.close();
  }

  #held(): { host: number; device: number } {
    let host = 0;
    let device = 0;
    for (const e of this.#entries.values()) {
      if (!e.ctx) continue;
      const m = e.ctx.memory;
      host += m.host;
      device += m.device;
    }
    return { host, device };
  }

  /** Drop every context (each closed now, or after its running MSMs). */
  clear(): void {
    for (const e of [...this.#entries.values()]) {
      this.#entries.delete(e.key);
      e.dropped = true;
      if (e.users === 0) e.ctx?.close();
    }
  }

  stats(): CacheStats {
    const m = this.#held();
    return { contexts: this.#entries.size, ...this.#stats, host: m.host, device: m.device };
  }
}
