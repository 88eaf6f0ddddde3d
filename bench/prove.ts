// snarkjs's groth16.prove with and without msm-cuda/snarkjs, split into its G1 MSMs, G2 MSM, FFTs
// and the rest (issue 11, item 4). Each (curve, size) gets a circuit and a known-τ proving key
// (bench/groth16-setup.ts, cached in --work), then each prover runs in a process of its own:
// 'snarkjs' (stock), 'msm-cuda' (install() first, as a user would) and 'msm-cuda-native'
// (msm-cuda/snarkjs's groth16Prove in place of snarkjs's prover). One warm-up proof, then
// --runs timed ones; every proof is checked with groth16.verify. The split times the calls of
// the curve's G1/G2.multiExpAffine and Fr.fft/ifft/batchApplyKey inside prove; 'other' is the
// rest (buildABC1, joinABC, reading the zkey and witness, the final point arithmetic). The
// native prover overlaps its MSMs with its quotient, so it has a total only (split left 0).

import { execFileSync, spawnSync } from 'child_process';
import fs = require('fs');
import os = require('os');
import path = require('path');
import { parseArgs } from 'util';
import { CURVES, type CurveName } from '../lib';
import { median } from '../lib/stats';
import { machine } from './machine';
import { domainLog, readR1cs, syntheticCircuit, writeKnownTauZkey, writeWtns, type Circuit } from './groth16-setup';

const USAGE = `Usage: node dist/bench/prove.js [options]

  --curves LIST      bn254,bls12-381 (default bn254)
  --logs LIST        domain sizes 2^N (default 14,16)
  --circuit C        synthetic: a chain of (x + a)(x + b) = x' filling the domain (default);
                     poseidon: test/vectors/snarkjs/poseidon_chain.circom with 2^(N−8) hashes,
                     compiled by circom2 --O2 (a minute per 2^16 here)
  --provers LIST     snarkjs,msm-cuda,msm-cuda-native (default all three)
  --backend B        msm-cuda's backend: auto|cpu|cuda (default auto)
  --runs N           timed proofs per prover after one warm-up (default 3)
  --work DIR         circuits and keys, reused across runs (default $TMPDIR/msm-prove-bench)
  --out FILE         JSON output (default bench/results/prove-<host>.json)
`;

const ROOT = path.resolve(__dirname, '..', '..');
const PRIMES: Record<string, string> = { bn254: 'bn128', 'bls12-381': 'bls12381' };
const PROVERS = ['snarkjs', 'msm-cuda', 'msm-cuda-native'];
// not secret: a benchmark key
const SECRETS = { tau: 0x5eed_7a0n ** 7n, alpha: 0xa1fan ** 11n, beta: 0xbe7an ** 13n };

interface Split {
  totalMs: number;
  g1Ms: number;
  g2Ms: number;
  fftMs: number;
  otherMs: number;
}
interface ChildResult {
  runs: (Split & { verified: boolean })[];
  warmupMs: number;
  warmupVerified: boolean;
  stats?: unknown;
}
interface Row {
  curve: CurveName;
  circuit: string;
  log: number;
  constraints: number;
  vars: number;
  prover: string;
  backend: string | null;
  runs: (Split & { verified: boolean })[];
  median: Split;
  warmupMs: number;
  verified: boolean;
  speedup: number | null; // stock median over this one
  stats?: unknown;
}


/** The zkey, witness and verification key of (curve, circuit, 2^log) in work/, made if missing. */
async function prepare(curve: CurveName, circuit: string, log: number, work: string): Promise<{ dir: string; constraints: number; vars: number }> {
  const dir = path.join(work, `${curve}-${circuit}-${log}`);
  const meta = path.join(dir, 'meta.json');
  if (fs.existsSync(meta)) return { dir, ...JSON.parse(fs.readFileSync(meta, 'utf8')) };
  fs.mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  let c: Circuit;
  if (circuit === 'synthetic') {
    const s = syntheticCircuit(curve, log, 3n);
    c = s.circuit;
    writeWtns(path.join(dir, 'witness.wtns'), curve, s.witness);
  } else {
    const src = fs.readFileSync(path.join(ROOT, 'test', 'vectors', 'snarkjs', 'poseidon_chain.circom'), 'utf8');
    const hashes = 2 ** Math.max(0, log - 8);
    fs.writeFileSync(path.join(dir, 'chain.circom'), src.replace(/PoseidonChain\(\d+\)/, `PoseidonChain(${hashes})`));
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'circom2', 'cli.js'), path.join(dir, 'chain.circom'), '--r1cs', '--wasm', '--O2', '--prime', PRIMES[curve], '-l', path.join(ROOT, 'node_modules'), '-o', dir],
      { cwd: ROOT, stdio: 'pipe' },
    );
    c = readR1cs(fs.readFileSync(path.join(dir, 'chain.r1cs')));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const snarkjs = require('snarkjs');
    await snarkjs.wtns.calculate({ a: 3, b: 5 }, path.join(dir, 'chain_js', 'chain.wasm'), path.join(dir, 'witness.wtns'));
  }
  if (domainLog(c) !== log) throw new Error(`${circuit} circuit for 2^${log} has a domain of 2^${domainLog(c)}`);
  writeKnownTauZkey(path.join(dir, 'circuit.zkey'), curve, c, SECRETS);
  const info = { constraints: c.constraints.length, vars: c.nVars, setupSeconds: (Date.now() - t0) / 1000 };
  process.stderr.write(`  setup ${curve} ${circuit} 2^${log}: ${info.constraints} constraints, ${info.vars} signals, ${info.setupSeconds.toFixed(1)} s\n`);
  fs.writeFileSync(meta, JSON.stringify(info));
  return { dir, ...info };
}

/** In the child: prove `runs` times after a warm-up, timing the parts. */
async function child(arg: { curve: CurveName; dir: string; prover: string; backend: string; runs: number }): Promise<ChildResult> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = arg.prover === 'snarkjs' ? null : (require('../lib/snarkjs') as typeof import('../lib/snarkjs'));
  const hook = arg.prover === 'msm-cuda' ? lib : null;
  if (hook) hook.install({ backend: arg.backend as 'auto' | 'cpu' | 'cuda' });
  const native = arg.prover === 'msm-cuda-native' ? lib : null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const snarkjs = require('snarkjs');
  const curve = await snarkjs.curves.getCurveFromName(PRIMES[arg.curve]);
  const spent = { g1: 0, g2: 0, fft: 0 };
  const timeMethod = (obj: Record<string, unknown>, name: string, key: keyof typeof spent): void => {
    const fn = obj[name] as (...a: unknown[]) => Promise<unknown>;
    const timed = async function (this: unknown, ...a: unknown[]) {
      const t = performance.now();
      try {
        return await fn.apply(this, a);
      } finally {
        spent[key] += performance.now() - t;
      }
    };
    // Marked as a wrapper, as msm-cuda's hooks are, so that the hook (which snarkjs's getCurveFromQ
    // passes every curve through again) keeps it instead of wrapping it once more.
    (timed as unknown as Record<symbol, unknown>)[Symbol.for('msm-cuda.snarkjs.original')] = fn;
    obj[name] = timed;
  };
  timeMethod(curve.G1, 'multiExpAffine', 'g1');
  timeMethod(curve.G2, 'multiExpAffine', 'g2');
  for (const f of ['fft', 'ifft', 'batchApplyKey']) timeMethod(curve.Fr, f, 'fft');
  const zkey = path.join(arg.dir, 'circuit.zkey');
  const wtns = path.join(arg.dir, 'witness.wtns');
  const vkeyFile = path.join(arg.dir, 'vkey.json');
  if (!fs.existsSync(vkeyFile)) fs.writeFileSync(vkeyFile, JSON.stringify(await snarkjs.zKey.exportVerificationKey(zkey)));
  const vkey = JSON.parse(fs.readFileSync(vkeyFile, 'utf8'));
  const prove = async (): Promise<Split & { verified: boolean }> => {
    spent.g1 = spent.g2 = spent.fft = 0;
    const t = performance.now();
    const { proof, publicSignals } = native ? await native.groth16Prove(zkey, wtns, { backend: arg.backend as 'auto' | 'cpu' | 'cuda' }) : await snarkjs.groth16.prove(zkey, wtns);
    const totalMs = performance.now() - t;
    const split = { totalMs, g1Ms: spent.g1, g2Ms: spent.g2, fftMs: spent.fft, otherMs: native ? 0 : totalMs - spent.g1 - spent.g2 - spent.fft };
    return { ...split, verified: (await snarkjs.groth16.verify(vkey, publicSignals, proof)) === true };
  };
  const w = await prove();
  const runs = [];
  for (let r = 0; r < arg.runs; r++) runs.push(await prove());
  const out: ChildResult = { runs, warmupMs: w.totalMs, warmupVerified: w.verified, stats: hook?.stats() ?? native?.groth16CacheStats() };
  if (hook) hook.uninstall();
  native?.clearGroth16Cache();
  await curve.terminate();
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      curves: { type: 'string' },
      logs: { type: 'string' },
      circuit: { type: 'string' },
      provers: { type: 'string' },
      backend: { type: 'string' },
      runs: { type: 'string' },
      work: { type: 'string' },
      out: { type: 'string' },
      child: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return void process.stdout.write(USAGE);
  if (values.child) {
    const r = await child(JSON.parse(values.child));
    process.stdout.write(`\nRESULT ${JSON.stringify(r)}\n`);
    return;
  }
  const curves = (values.curves ?? 'bn254').split(',') as CurveName[];
  for (const c of curves) if (!PRIMES[c]) throw new Error(`--curves: snarkjs has bn254 and bls12-381, not ${c}`);
  const logs = (values.logs ?? '14,16').split(',').map(Number);
  for (const l of logs) if (!Number.isInteger(l) || l < 4 || l > 26) throw new Error(`--logs: ${l} is not an integer in [4, 26]`);
  const circuit = values.circuit ?? 'synthetic';
  if (circuit !== 'synthetic' && circuit !== 'poseidon') throw new Error(`--circuit: synthetic or poseidon, not ${circuit}`);
  const provers = (values.provers ?? PROVERS.join(',')).split(',');
  for (const p of provers) if (!PROVERS.includes(p)) throw new Error(`--provers: ${PROVERS.join(', ')}, not ${p}`);
  const runs = Number(values.runs ?? 3);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: a positive integer, not ${values.runs}`);
  const backend = values.backend ?? 'auto';
  if (!['auto', 'cpu', 'cuda'].includes(backend)) throw new Error(`--backend: auto, cpu or cuda, not ${backend}`);
  const work = values.work ?? path.join(os.tmpdir(), 'msm-prove-bench');
  const rows: Row[] = [];
  for (const curve of curves) {
    for (const log of logs) {
      const { dir, constraints, vars } = await prepare(curve, circuit, log, work);
      let stock: number | null = null;
      for (const prover of provers) {
        const arg = JSON.stringify({ curve, dir, prover, backend, runs });
        const p = spawnSync(process.execPath, [__filename, '--child', arg], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
        const line = p.stdout.split('\n').find((l) => l.startsWith('RESULT '));
        if (p.status !== 0 || !line) throw new Error(`${prover} on ${curve} 2^${log} failed (exit ${p.status}): ${p.stdout.slice(-2000)}`);
        const res = JSON.parse(line.slice(7)) as ChildResult;
        const med = (k: keyof Split): number => median(res.runs.map((x) => x[k]));
        const m: Split = { totalMs: med('totalMs'), g1Ms: med('g1Ms'), g2Ms: med('g2Ms'), fftMs: med('fftMs'), otherMs: med('otherMs') };
        if (prover === 'snarkjs') stock = m.totalMs;
        const row: Row = {
          curve,
          circuit,
          log,
          constraints,
          vars,
          prover,
          backend: prover === 'snarkjs' ? null : backend,
          runs: res.runs,
          median: m,
          warmupMs: res.warmupMs,
          verified: res.warmupVerified && res.runs.every((x) => x.verified),
          speedup: stock !== null ? stock / m.totalMs : null,
          stats: res.stats,
        };
        rows.push(row);
        const f = (v: number): string => (v / 1000).toFixed(2).padStart(7);
        const split = prover === 'msm-cuda-native' ? '' : `  G1 ${f(m.g1Ms)}  G2 ${f(m.g2Ms)}  FFT ${f(m.fftMs)}  other ${f(m.otherMs)}`;
        process.stdout.write(
          `${curve.padEnd(9)} 2^${log} ${prover.padEnd(15)} total ${f(m.totalMs)} s${split}` +
            `  verified ${row.verified}${row.speedup && prover !== 'snarkjs' ? `  ${row.speedup.toFixed(2)}×` : ''}\n`,
        );
      }
    }
  }
  const out = values.out ?? path.join(ROOT, 'bench', 'results', `prove-${os.hostname()}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ machine: machine(), date: new Date().toISOString(), circuit, runs, rows }, null, 1) + '\n');
  process.stdout.write(`wrote ${out}\n`);
  if (rows.some((r) => !r.verified)) process.exitCode = 1;
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : e}\n`);
  process.exit(1);
});
