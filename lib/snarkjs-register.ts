// `node -r msm-cuda/snarkjs/register $(which snarkjs) groth16 prove …`: installs the snarkjs hook
// (lib/snarkjs.ts) before the script runs. Options from the environment:
//   MSM_SNARKJS_BACKEND        auto | cuda | cpu
//   MSM_SNARKJS_THRESHOLD      points below which snarkjs's own MSM runs
//   MSM_SNARKJS_MEMORY_BUDGET  bytes of resident bases (host and GPU each)
//   MSM_SNARKJS_FFT            0 leaves snarkjs's Fr transforms (fft, ifft, batchApplyKey) to it

import { MsmError } from './errors';
import { install, type SnarkjsOptions } from './snarkjs';

function fromEnv(): SnarkjsOptions {
  const o: SnarkjsOptions = {};
  const env = process.env;
  const int = (name: string): number => {
    const v = Number(env[name]);
    if (!Number.isSafeInteger(v) || v < 0) throw new MsmError('ERR_INVALID_OPTION', `${name} must be a non-negative integer (got '${env[name]}')`);
    return v;
  };
  if (env.MSM_SNARKJS_BACKEND) o.backend = env.MSM_SNARKJS_BACKEND as SnarkjsOptions['backend'];
  if (env.MSM_SNARKJS_THRESHOLD) o.threshold = int('MSM_SNARKJS_THRESHOLD');
  if (env.MSM_SNARKJS_MEMORY_BUDGET) o.memoryBudget = int('MSM_SNARKJS_MEMORY_BUDGET');
  if (env.MSM_SNARKJS_FFT) {
    if (env.MSM_SNARKJS_FFT !== '0' && env.MSM_SNARKJS_FFT !== '1') throw new MsmError('ERR_INVALID_OPTION', `MSM_SNARKJS_FFT must be 0 or 1 (got '${env.MSM_SNARKJS_FFT}')`);
    o.fft = env.MSM_SNARKJS_FFT === '1';
  }
  return o;
}

install(fromEnv());
