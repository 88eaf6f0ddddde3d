// What the benchmark ran on, for the JSON results.

import os = require('os');
import { execFileSync } from 'child_process';
import { info } from '../lib';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  gpu: { name: string; computeCapability: string; memoryGiB: number } | null;
  cudaReason: string | null;
  addon: string | null;
  commit: string | null;
  /** 1-minute load average when the run started (other work on the machine skews timings). */
  loadAverage: number;
}

export function machine(): Machine {
  const i = info();
  const d = i.cuda.devices[0];
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null;
  } catch {
    commit = null;
  }
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    gpu: i.cuda.available && d ? { name: d.name, computeCapability: d.computeCapability, memoryGiB: Math.round((d.totalMemory / 2 ** 30) * 10) / 10 } : null,
    cudaReason: i.cuda.available ? null : i.cuda.reason,
    addon: i.version,
    commit,
    loadAverage: Math.round(os.loadavg()[0] * 100) / 100,
  };
}
