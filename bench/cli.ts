// Benchmark CLI (npm run bench -- --help): our backends against ffjavascript (snarkjs's engine)
// and @noble/curves. Every result is checked against the known discrete logs of the generated
// points (and so against each other) before it is timed; the figure is the median of several
// runs after a warm-up. Points are resident for our backends (an MsmContext; its creation is
// reported apart as setup); packed scalars go in and the affine result comes out inside the
// timed region. Peers get their natural inputs (ffjavascript: LEM bases and scalar bytes).

import fs = require('fs');
import os = require('os');
import path = require('path');
import { parseArgs } from 'util';
import { CURVE_NAMES, CURVES, info, MsmContext, type AffinePoint, type CurveName } from '../lib';
import { encodeScalars } from '../lib/encoding';
import { DISTRIBUTIONS, expectedMsm, generatePoints, generateScalars, type Distribution } from '../lib/generate';
import { formatSeconds } from '../lib/progress';
import { Rng } from '../lib/random';
import { median } from '../lib/stats';
import { machine } from './machine';
import { ffjavascriptPeer, noblePeer, PEER_NAMES, type Peer, type PeerName } from './peers';

const USAGE = `Usage: npm run bench -- [options]

  --curves LIST        curves (default bn254,bls12-381; also bls12-377, bls24-315, ours only)
  --sizes LIST         sizes, e.g. 1024,2^16 (default: 2^min-log … 2^max-log)
  --min-log N          smallest size 2^N (default 10)
  --max-log N          largest size 2^N (default 18)
  --backends LIST      our backends: cpu,cuda (default: those available)
  --peers LIST         ffjavascript,noble (default both)
  --skip-peers         time our backends only
  --noble-max-log N    largest size given to @noble/curves (default 16: it takes ~16 s per
                       BN254 MSM there, single-threaded, and grows linearly)
  --runs N             timed runs per measurement, after one warm-up (default 5)
  --budget SECONDS     fewer runs (at least 1) where the warm-up shows N would exceed this (default 60)
  --distribution D     ${DISTRIBUTIONS.join('|')} (default random)
  --seed N             PRNG seed (default: fresh, printed)
  --out FILE           write the results as JSON
  --quiet              no progress lines on stderr
`;

interface Measurement {
  curve: CurveName;
  n: number;
  impl: string; // 'msm-cuda/cpu', 'msm-cuda/cuda', 'ffjavascript', 'noble'
  medianMs: number;
  runsMs: number[];
  setupMs?: number;
  windowBits?: number;
  pointsPerSecond: number;
  correct: boolean;
}

function list(v: string | undefined, allowed: readonly string[], name: string): string[] | undefined {
  if (v === undefined) return undefined;
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const x of items) if (!allowed.includes(x)) throw new Error(`--${name}: unknown '${x}' (allowed: ${allowed.join(', ')})`);
  return items;
}

function int(v: string | undefined, name: string, lo: number, hi: number, dflt: number): number {
  if (v === undefined) return dflt;
  const x = Number(v);
  if (!Number.isInteger(x) || x < lo || x > hi) throw new Error(`--${name} must be an integer in [${lo}, ${hi}]`);
  return x;
}

function parseSize(s: string): number {
  const m = /^2\^(\d+)$/.exec(s.trim());
  const n = m ? 2 ** Number(m[1]) : Number(s);
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 28) throw new Error(`--sizes: bad size '${s}'`);
  return n;
}

const same = (a: AffinePoint, b: AffinePoint) => a.x === b.x && a.y === b.y;
const sizeLabel = (n: number) => (Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : String(n));

/** One warm-up, then `runs` timed runs (fewer if the warm-up says they would exceed the budget). */
async function measure(fn: () => Promise<AffinePoint>, runs: number, budgetMs: number): Promise<{ result: AffinePoint; times: number[] }> {
  let t = performance.now();
  const result = await fn();
  const warm = performance.now() - t;
  const k = Math.max(1, Math.min(runs, Math.floor(budgetMs / Math.max(warm, 1e-3))));
  const times: number[] = [];
  for (let i = 0; i < k; i++) {
    t = performance.now();
    const r = await fn();
    times.push(performance.now() - t);
    if (!same(r, result)) throw new Error('different results on repeated runs');
  }
  return { result, times };
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      curves: { type: 'string' },
      sizes: { type: 'string' },
      'min-log': { type: 'string' },
      'max-log': { type: 'string' },
      backends: { type: 'string' },
      peers: { type: 'string' },
      'skip-peers': { type: 'boolean' },
      'noble-max-log': { type: 'string' },
      runs: { type: 'string' },
      budget: { type: 'string' },
      distribution: { type: 'string', default: 'random' },
      seed: { type: 'string' },
      out: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const log = (s: string) => values.quiet || process.stderr.write(s + '\n');
  const curves = (list(values.curves, CURVE_NAMES, 'curves') ?? ['bn254', 'bls12-381']) as CurveName[];
  const minLog = int(values['min-log'], 'min-log', 0, 28, 10);
  const maxLog = int(values['max-log'], 'max-log', minLog, 28, 18);
  const sizes = values.sizes ? values.sizes.split(',').map(parseSize) : Array.from({ length: maxLog - minLog + 1 }, (_, i) => 2 ** (minLog + i));
  const i = info();
  if (!i.native.loaded) throw new Error(i.native.error ?? 'the native addon did not load');
  const backends = (list(values.backends, ['cpu', 'cuda'], 'backends') ?? i.backends) as ('cpu' | 'cuda')[];
  if (backends.includes('cuda') && !i.cuda.available) throw new Error(`--backends cuda: ${i.cuda.reason}`);
  const peerNames = values['skip-peers'] ? [] : ((list(values.peers, PEER_NAMES, 'peers') ?? PEER_NAMES) as PeerName[]);
  const nobleMax = 2 ** int(values['noble-max-log'], 'noble-max-log', 0, 28, 16);
  const runs = int(values.runs, 'runs', 1, 1000, 5);
  const budgetMs = 1000 * int(values.budget, 'budget', 1, 86400, 60);
  if (!(DISTRIBUTIONS as readonly string[]).includes(values.distribution!)) throw new Error(`--distribution must be one of ${DISTRIBUTIONS.join(', ')}`);
  const dist = values.distribution as Distribution;
  const seed = int(values.seed, 'seed', 0, 2 ** 32 - 1, Rng.freshSeed());
  const peers: Peer[] = peerNames.map((p) => (p === 'ffjavascript' ? ffjavascriptPeer() : noblePeer()));
  const m = machine();
  log(`msm-cuda bench: ${m.cpu} (${m.cores} cores, load ${m.loadAverage}), node ${m.node}, GPU ${m.gpu?.name ?? `none (${m.cudaReason})`}; seed ${seed}, ${dist} scalars`);
  if (peerNames.includes('noble')) log(`  @noble/curves only up to ${sizeLabel(nobleMax)} (--noble-max-log): it is single-threaded JS`);

  const results: Measurement[] = [];
  let allCorrect = true;
  try {
    for (const curve of curves) {
      const c = CURVES[curve];
      const rng = new Rng(seed);
      const maxN = Math.max(...sizes);
      log(`${curve}: generating ${maxN} points…`);
      const gen = generatePoints(c, maxN, rng);
      const allScalars = generateScalars(c, maxN, rng, dist);
      for (const n of sizes) {
        const points = gen.points.slice(0, n);
        const scalars = allScalars.slice(0, n);
        const want = expectedMsm(c, gen, scalars);
        const record = (impl: string, r: { result: AffinePoint; times: number[] }, extra: Partial<Measurement> = {}) => {
          const med = median(r.times);
          const correct = same(r.result, want);
          allCorrect &&= correct;
          results.push({ curve, n, impl, medianMs: med, runsMs: r.times, pointsPerSecond: n / (med / 1000), correct, ...extra });
          log(`  ${curve} ${sizeLabel(n).padEnd(5)} ${impl.padEnd(14)} ${formatSeconds(med).padStart(10)}  (${r.times.length} runs)${correct ? '' : '  ✘ WRONG RESULT'}`);
        };
        for (const backend of backends) {
          const t0 = performance.now();
          const ctx = await MsmContext.create(curve, points, { backend });
          const setupMs = performance.now() - t0;
          try {
            const packed = encodeScalars(c, scalars);
            record(`msm-cuda/${backend}`, await measure(() => ctx.msm(packed), runs, budgetMs), { setupMs, windowBits: ctx.windowBits });
          } finally {
            ctx.close();
          }
        }
        for (const peer of peers) {
          if (!peer.curves.includes(curve) || (peer.name === 'noble' && n > nobleMax)) continue;
          const prepared = await peer.prepare(curve, points);
          record(peer.name, await measure(() => prepared.run(scalars), runs, budgetMs));
        }
      }
    }
  } finally {
    for (const p of peers) await p.close();
  }

  printTable(results);
  const doc = { date: new Date().toISOString(), machine: m, loadAverageAtEnd: Math.round(os.loadavg()[0] * 100) / 100, seed, distribution: dist, runs, note: 'medianMs: median of the timed runs after one warm-up; setupMs: MsmContext creation (not timed in medianMs)', results };
  if (values.out) {
    fs.mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
    fs.writeFileSync(values.out, JSON.stringify(doc, null, 2) + '\n');
    log(`wrote ${values.out}`);
  }
  if (!allCorrect) process.stderr.write('bench: some results were WRONG (see ✘ above)\n');
  return allCorrect ? 0 : 2;
}

function printTable(results: Measurement[]): void {
  const impls = [...new Set(results.map((r) => r.impl))];
  const rows = [...new Set(results.map((r) => `${r.curve} ${r.n}`))];
  const header = ['curve', 'n', ...impls, ...(impls.includes('ffjavascript') ? impls.filter((x) => x.startsWith('msm-cuda')).map((x) => `speedup ${x.slice(9)} vs ffjs`) : [])];
  const lines = [header.join('\t')];
  for (const row of rows) {
    const [curve, nStr] = row.split(' ');
    const cell = (impl: string) => results.find((r) => r.curve === curve && r.n === Number(nStr) && r.impl === impl);
    const ff = cell('ffjavascript');
    const speedups = ff ? impls.filter((x) => x.startsWith('msm-cuda')).map((x) => (cell(x) ? `${(ff.medianMs / cell(x)!.medianMs).toFixed(1)}×` : '')) : [];
    lines.push([curve, sizeLabel(Number(nStr)), ...impls.map((x) => (cell(x) ? formatSeconds(cell(x)!.medianMs) : '')), ...speedups].join('\t'));
  }
  process.stdout.write(lines.join('\n') + '\n');
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: Error) => {
      process.stderr.write(`bench: ${e.message}\n`);
      process.exitCode = 1;
    },
  );
}
