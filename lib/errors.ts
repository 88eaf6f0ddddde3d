// The one error class of the package. Every failure, whether found by the TypeScript validation
// layer or raised by the native addon, reaches the caller as an MsmError with a stable `.code`
// and, where one input element is at fault, its `.index`.

export const ERROR_CODES = [
  'ERR_INVALID_ARGUMENT', // wrong type or shape of an argument
  'ERR_INVALID_OPTION', // unknown option or bad option value (the message names the option)
  'ERR_UNKNOWN_CURVE', // curve name not supported
  'ERR_LENGTH_MISMATCH', // number of scalars ≠ number of points
  'ERR_POINT_ENCODING', // a coordinate is negative or ≥ p (index = point)
  'ERR_POINT_NOT_ON_CURVE', // (index = point)
  'ERR_POINT_NOT_IN_SUBGROUP', // (index = point)
  'ERR_SCALAR_RANGE', // scalar < 0 or ≥ r (index = scalar)
  'ERR_CUDA_UNAVAILABLE', // backend 'cuda' asked for, but not compiled in or no device
  'ERR_CUDA_OOM', // device allocation failed
  'ERR_CUDA', // any other CUDA error
  'ERR_CONTEXT_CLOSED', // msm on a closed MsmContext
  'ERR_OUT_OF_MEMORY', // a host memory allocation failed (copying an input, buckets, decoding)
  'ERR_NATIVE_UNAVAILABLE', // the native addon could not be loaded
  'ERR_INTERNAL', // an unexpected failure inside the package (a bug: please report it)
] as const;

export type MsmErrorCode = (typeof ERROR_CODES)[number];

const KNOWN = new Set<string>(ERROR_CODES);

export class MsmError extends Error {
  readonly code: MsmErrorCode;
  /** The offending element's position in the points or scalars input, when there is one. */
  readonly index?: number;

  constructor(code: MsmErrorCode, message: string, index?: number) {
    super(message);
    this.name = 'MsmError';
    this.code = code;
    if (index !== undefined) this.index = index;
  }
}

/**
 * Where an async call started. Created synchronously at the API entry point, so that an error
 * raised later (after native async work) carries the caller's stack, not an empty native one.
 */
export class CallSite {
  private readonly holder: { stack?: string } = {};
  constructor(skip: Function) {
    Error.captureStackTrace(this.holder, skip);
  }
  /** Give `err` the stack captured at the call site (keeping its own first line). */
  attach<E extends Error>(err: E): E {
    const frames = (this.holder.stack ?? '').split('\n').slice(1).join('\n');
    if (frames) err.stack = `${err.name}: ${err.message}\n${frames}`;
    return err;
  }
}

/** Turn anything thrown (by native code or our own) into an MsmError. */
export function toMsmError(e: unknown): MsmError {
  if (e instanceof MsmError) return e;
  const err = e as { code?: unknown; message?: unknown; index?: unknown } | null;
  const message = typeof err?.message === 'string' ? err.message : String(e);
  const code = typeof err?.code === 'string' && KNOWN.has(err.code) ? (err.code as MsmErrorCode) : 'ERR_INTERNAL';
  const index = typeof err?.index === 'number' && err.index >= 0 ? err.index : undefined;
  const out = new MsmError(code, message, index);
  if (code === 'ERR_INTERNAL') (out as { cause?: unknown }).cause = e;
  return out;
}

/** Convert a rejection from native async work into an MsmError carrying the caller's stack. */
export function rethrowAt(site: CallSite): (e: unknown) => never {
  return (e: unknown) => {
    throw site.attach(toMsmError(e));
  };
}
