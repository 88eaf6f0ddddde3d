// The one place that loads the native addon and decides which backend runs an MSM.

import { MsmError, toMsmError } from './errors';
import { loadNative, type NativeBackend, type NativeBinding } from './native';
import { checkDevices, checkLimits, type ResolvedOptions } from './validate';

/**
 * With backend 'auto', inputs of at least this many points go to CUDA (when available). Measured
 * on an H100 host (16 cores; bench/results/crossover-NVIDIA-H100-80GB-HBM3.json): CUDA already
 * wins at 2^8 through the API (BN254 0.9 ms vs 6.2 ms on the CPU, BLS12-381 1.2 vs 12.3 ms), so
 * only inputs smaller than that, where no measurement says otherwise, stay on the CPU. G2 takes the
 * same threshold (not measured apart: an Fp2 point costs both backends about three times a G1 one).
 */
export const AUTO_CUDA_MIN_POINTS = 1 << 8;

/** The addon, or ERR_NATIVE_UNAVAILABLE saying why it did not load. */
export function nativeBinding(): NativeBinding {
  try {
    return loadNative();
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0]; // node-gyp-build appends the search path
    throw new MsmError(
      'ERR_NATIVE_UNAVAILABLE',
      `the msm-cuda native addon could not be loaded: ${why}. Without a prebuilt binary for ` +
        `${process.platform}-${process.arch}, it is built by the package's install script: run ` +
        '`npm rebuild msm-cuda` (newer npm versions run dependencies\' install scripts only once ' +
        'allowed: `npm install-scripts approve msm-cuda`)',
    );
  }
}

/**
 * The backend that runs n points with these options, after checking the options against its
 * limits (validate.ts checkLimits) and then that it is usable here.
 */
export function chooseBackend(native: NativeBinding, n: number, opts: ResolvedOptions): NativeBackend {
  const { cuda, limits } = native.info();
  const backend: NativeBackend =
    opts.backend !== 'auto'
      ? opts.backend
      : // an accumulation mode the CPU lacks (constant time, homogeneous): 'auto' must not quietly drop it
        !limits.cpu.accumulation.includes(opts.accumulation)
        ? 'cuda'
        : // a group the cuda row lacks would stay on the CPU whatever n (both rows list G1 and G2)
          cuda.available && n >= AUTO_CUDA_MIN_POINTS && limits.cuda.groups.includes(opts.group)
          ? 'cuda'
          : 'cpu';
  checkLimits(opts, backend, limits, n);
  if (backend === 'cuda') {
    if (!cuda.available) throw new MsmError('ERR_CUDA_UNAVAILABLE', `CUDA backend unavailable: ${cuda.reason ?? 'unknown reason'}`);
    checkDevices(opts, cuda.devices.length);
  }
  return backend;
}

/** The CUDA device indices a context of these options runs on (after chooseBackend picked CUDA). */
export function cudaDevices(native: NativeBinding, opts: ResolvedOptions): number[] {
  return checkDevices(opts, native.info().cuda.devices.length);
}

/**
 * Input of no points runs nothing, so it needs no addon and its options are checked for shape
 * only; unless they insist on CUDA (backend 'cuda', or an accumulation mode other than 'xyzz',
 * the one every backend runs: constantTime, 'homogeneous'). Then the backend is chosen as for
 * n > 0, so that CUDA's absence is ERR_CUDA_UNAVAILABLE whatever n is (issue 10).
 */
export function checkEmptyInput(opts: ResolvedOptions): void {
  if (opts.backend !== 'cuda' && opts.accumulation === 'xyzz') return;
  chooseBackend(nativeBinding(), 0, opts);
}

/**
 * A copy of the caller's packed input, taken now, before the API call returns (the addon's
 * copyBytes: several threads, recycled buffers or huge pages), which the addon is later handed as
 * owned.
 */
export function takeBytes(bytes: Uint8Array): Uint8Array {
  const native = nativeBinding();
  try {
    return native.copyBytes(bytes);
  } catch (e) {
    throw toMsmError(e);
  }
}
