// The user CLI (bin/msm-cuda.js):
//   msm-cuda info                 backends, GPUs, and why CUDA is unavailable
//   msm-cuda run --curve bn254 --log-size 18 [--backend auto|cpu|cuda] [--seed N]
// `run` generates points P_i = (s + i·t)·G and scalars, computes the MSM on the chosen backend,
// verifies it on a second path and prints time and throughput.

import os = require('os');
import { parseArgs } from 'util';
import { CURVE_NAMES, CURVES, info, msm, MsmContext, MsmError, type AffinePoint, type Curve, type CurveName } from './index';
import { DISTRIBUTIONS, expectedMsm, generatePointsAsync, generateScalars, type Distribution } from './generate';
import { formatSeconds, Progress } from './progress';
import { Rng } from './random';
import { median } from './stats';

/** The curves @noble/curves has: `run` checks against it on these. */
const NOBLE_POINT = {
  bn254: async () => (await import('@noble/curves/bn254.js')).bn254.G1.Point,
  'bls12-381': async () => (await import('@noble/curves/bls12-381.js')).bls12_381.G1.Point,
};

const USAGE = `Usage:
  msm-cuda info [--json]
  msm-cuda run [--curve ${CURVE_NAMES.join('|')}] [--log-size N | --size N]
               [--backend auto|cpu|cuda] [--seed N] [--distribution D] [--runs N]
               [--no-verify] [--json] [--quiet]

run: generates N points (multiples of G) and scalars, computes Σ k_i·P_i on the backend
('auto': CUDA when available for large N, else the CPU), checks the result against the known
discrete logs and a second backend or configuration (and @noble/curves for N ≤ 4096 on
${Object.keys(NOBLE_POINT).join(', ')}), and
prints the time and throughput. Distributions: ${DISTRIBUTIONS.join(', ')}.
Defaults: --curve bn254 --log-size 16 --backend auto --distribution random --runs 1.
`;

/** Up to this many points, `run` also checks against @noble/curves (pure JS, slow). */
export const NOBLE_VERIFY_MAX = 4096;

interface Io {
  out: NodeJS.WritableStream;
  err: NodeJS.WriteStream;
}

export async function main(argv: string[], io: Io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'info':
        return commandInfo(rest, io);
      case 'run':
        return await commandRun(rest, io);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.out.write(USAGE);
        return command === undefined ? 1 : 0;
      default:
        io.err.write(`msm-cuda: unknown command '${command}'\n\n${USAGE}`);
        return 1;
    }
  } catch (e) {
    const code = e instanceof MsmError ? ` [${e.code}]` : '';
    io.err.write(`msm-cuda: ${(e as Error).message}${code}\n`);
    return 1;
  }
}

function commandInfo(argv: string[], io: Io): number {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  const i = info();
  if (values.json) {
    io.out.write(JSON.stringify(i, null, 2) + '\n');
    return 0;
  }
  const lines = [
    `msm-cuda ${i.version ?? '(native addon not loaded)'}`,
    i.native.loaded ? `curves:   ${i.curves.map((c) => `${c} (${(i.groups[c] ?? ['g1']).join(', ')})`).join(', ')}` : `native:   ${i.native.error}`,
    `backends: ${i.backends.length ? i.backends.join(', ') : 'none'}${i.cpu.available ? ` (cpu: ${i.cpu.threads} threads)` : ''}`,
  ];
  if (i.cuda.available) {
    const v = (x: number) => (x ? `${Math.floor(x / 1000)}.${(x % 1000) / 10}` : 'n/a');
    lines.push(`cuda:     runtime ${v(i.cuda.runtimeVersion)}, driver ${v(i.cuda.driverVersion)}`);
    for (const d of i.cuda.devices) {
      lines.push(`  device ${d.index}: ${d.name}, compute capability ${d.computeCapability}, ${(d.totalMemory / 2 ** 30).toFixed(1)} GiB, ${d.multiProcessors} SMs`);
    }
    lines.push(`auto:     cuda for n ≥ ${i.autoCudaMinPoints}, cpu below`);
  } else if (i.native.loaded) {
    lines.push(`cuda:     unavailable: ${i.cuda.reason}${i.cuda.compiled ? '' : ' (this build has no CUDA backend)'}`);
  } else {
    lines.push('cuda:     unavailable (the native addon did not load)');
  }
  io.out.write(lines.join('\n') + '\n');
  return 0;
}

function intArg(name: string, v: string | undefined, lo: number, hi: number): number | undefined {
  if (v === undefined) return undefined;
  const x = Number(v);
  if (!Number.isInteger(x) || x < lo || x > hi) throw new Error(`--${name} must be an integer in [${lo}, ${hi}] (got '${v}')`);
  return x;
}

const hex = (v: bigint) => `0x${v.toString(16)}`;
const same = (a: AffinePoint, b: AffinePoint) => a.x === b.x && a.y === b.y;

async function commandRun(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      curve: { type: 'string', default: 'bn254' },
      'log-size': { type: 'string' },
      size: { type: 'string' },
      backend: { type: 'string', default: 'auto' },
      seed: { type: 'string' },
      distribution: { type: 'string', default: 'random' },
      runs: { type: 'string', default: '1' },
      'no-verify': { type: 'boolean' },
      json: { type: 'boolean' },
      quiet: { type: 'boolean' },
    },
  });
  if (!CURVE_NAMES.includes(values.curve as CurveName)) throw new Error(`--curve must be one of ${CURVE_NAMES.join(', ')} (got '${values.curve}')`);
  const curve = CURVES[values.curve as CurveName];
  if (!(DISTRIBUTIONS as readonly string[]).includes(values.distribution!)) throw new Error(`--distribution must be one of ${DISTRIBUTIONS.join(', ')}`);
  const dist = values.distribution as Distribution;
  if (values.size !== undefined && values['log-size'] !== undefined) throw new Error('give --size or --log-size, not both');
  const n = intArg('size', values.size, 1, 2 ** 28) ?? 2 ** intArg('log-size', values['log-size'] ?? '16', 0, 28)!;
  const backend = values.backend as 'auto' | 'cpu' | 'cuda';
  if (!['auto', 'cpu', 'cuda'].includes(backend)) throw new Error(`--backend must be auto, cpu or cuda (got '${backend}')`);
  const runs = intArg('runs', values.runs, 1, 1000)!;
  const seed = intArg('seed', values.seed, 0, 2 ** 32 - 1) ?? Rng.freshSeed();
  const rng = new Rng(seed);
  const progress = new Progress(io.err, values.quiet);
  const label = `${curve.name}, n = ${n}${Number.isInteger(Math.log2(n)) ? ` (2^${Math.log2(n)})` : ''}`;
  if (!values.quiet) io.err.write(`msm-cuda run: ${label}, ${dist} scalars, seed ${seed}\n`);

  const gen = (await progress.stage(`generating ${n} points`, (update) => generatePointsAsync(curve, n, rng, (d, t) => update(`${Math.round((100 * d) / t)}%`)))).value;
  const scalars = (await progress.stage(`generating ${n} scalars`, () => generateScalars(curve, n, rng, dist))).value;
  const load = await progress.stage(`loading points (backend ${backend})`, () => MsmContext.create(curve.name, gen.points, { backend }));
  const ctx = load.value;
  const times: number[] = [];
  let result: AffinePoint = { x: 0n, y: 0n };
  const windowBits = ctx.windowBits;
  try {
    for (let i = 0; i < runs; i++) {
      const step = await progress.stage(`MSM on ${ctx.backend}${runs > 1 ? ` (run ${i + 1}/${runs})` : ''}`, () => ctx.msm(scalars));
      if (i > 0 && !same(step.value, result)) throw new Error('the MSM gave different results on repeated runs');
      result = step.value;
      times.push(step.ms);
    }
  } finally {
    ctx.close();
  }
  const ms = median(times);
  const checks = values['no-verify'] ? [] : await verify(curve, gen, scalars, result, ctx.backend!, windowBits, progress);
  const ok = checks.every((c) => c.ok);
  const report = {
    curve: curve.name,
    n,
    seed,
    distribution: dist,
    backend: ctx.backend,
    windowBits,
    threads: ctx.backend === 'cpu' ? os.availableParallelism() : undefined,
    loadMs: load.ms,
    msmMs: ms,
    runsMs: times,
    pointsPerSecond: n / (ms / 1000),
    result: { x: hex(result.x), y: hex(result.y) },
    verified: checks,
    ok,
  };
  if (values.json) {
    io.out.write(JSON.stringify(report, null, 2) + '\n');
  } else {
    io.out.write(
      [
        `${label} on ${ctx.backend} (c = ${windowBits}): ${formatSeconds(ms)}${runs > 1 ? ` (median of ${runs})` : ''}, ` +
          `${Math.round(report.pointsPerSecond).toLocaleString('en-US')} points/s; loading the points took ${formatSeconds(load.ms)}`,
        `result: x = ${report.result.x}`,
        `        y = ${report.result.y}`,
        checks.length ? `verified: ${checks.map((c) => `${c.ok ? '✔' : '✘ MISMATCH'} ${c.path}`).join('; ')}` : 'not verified (--no-verify)',
      ].join('\n') + '\n',
    );
  }
  return ok ? 0 : 2;
}

interface Check {
  path: string;
  ok: boolean;
}

/** Check the result on paths independent of the one that computed it. */
async function verify(
  curve: Curve,
  gen: { points: AffinePoint[]; s: bigint; t: bigint },
  scalars: bigint[],
  result: AffinePoint,
  backend: 'cpu' | 'cuda',
  windowBits: number,
  progress: Progress,
): Promise<Check[]> {
  const checks: Check[] = [];
  const dlog = await progress.stage('verifying: (Σ k_i·(s + i·t))·G', () => expectedMsm(curve, gen, scalars));
  checks.push({ path: 'known discrete logs', ok: same(dlog.value, result) });

  const i = info();
  let options: { backend: 'cpu' | 'cuda'; windowBits?: number; threads?: number };
  let path: string;
  if (backend === 'cuda') {
    options = { backend: 'cpu' };
    path = 'cpu backend';
  } else if (i.cuda.available) {
    options = { backend: 'cuda' };
    path = 'cuda backend';
  } else {
    const c = windowBits > 4 ? windowBits - 2 : windowBits + 2;
    const threads = Math.max(1, Math.min(os.availableParallelism() - 1, 3));
    options = { backend: 'cpu', windowBits: c, threads };
    path = `cpu backend, c = ${c}, ${threads} thread${threads > 1 ? 's' : ''}`;
  }
  const second = await progress.stage(`verifying: ${path}`, () => msm(curve.name, gen.points, scalars, options));
  checks.push({ path, ok: same(second.value, result) });

  if (gen.points.length <= NOBLE_VERIFY_MAX && curve.name in NOBLE_POINT) {
    const noble = await progress.stage('verifying: @noble/curves', () => nobleMsm(curve.name, gen.points, scalars));
    if (noble.value) checks.push({ path: '@noble/curves', ok: same(noble.value, result) });
  }
  return checks;
}

/** @noble/curves (a dev dependency: absent from installs without dev dependencies → null). */
async function nobleMsm(curve: CurveName, points: AffinePoint[], scalars: bigint[]): Promise<AffinePoint | null> {
  try {
    const { pippenger } = await import('@noble/curves/abstract/curve.js');
    const P = await NOBLE_POINT[curve as keyof typeof NOBLE_POINT]();
    return pippenger(
      P,
      points.map((p) => P.fromAffine(p)),
      scalars,
    ).toAffine();
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' || (e as { code?: string }).code === 'MODULE_NOT_FOUND') return null;
    throw e;
  }
}
