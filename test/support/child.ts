// A script in a child Node.js process, for what could crash the process (issue 10): a crash
// (signal, abort, nonzero exit) fails the test that ran it instead of taking jest down. The child
// loads the compiled package (dist/, built by `npm run build:ts`, npm ci's prepare step), as
// test/cpu-simd.test.ts does; a dist/ older than lib/ fails loudly rather than testing stale code.

import { spawnSync } from 'child_process';
import fs = require('fs');
import path = require('path');

export const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');

function checkDistFresh(): void {
  const built = path.join(DIST, 'lib', 'index.js');
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: run \`npm run build:ts\``);
  const builtAt = fs.statSync(built).mtimeMs;
  const sources = [...fs.readdirSync(path.join(ROOT, 'lib')).filter((f) => f.endsWith('.ts')).map((f) => `lib/${f}`), 'test/support/testing.ts'];
  for (const src of sources) {
    if (fs.statSync(path.join(ROOT, src)).mtimeMs > builtAt) throw new Error(`dist/ is older than ${src}: run \`npm run build:ts\``);
  }
}

/**
 * What every child script starts with: the package as `lib`, the test addon as `testing`, and
 * `report(value)`, the one line of JSON (bigints as strings) the parent reads back.
 */
export const PRELUDE = `
'use strict';
const lib = require(${JSON.stringify(path.join(DIST, 'lib', 'index.js'))});
const { testingAddon } = require(${JSON.stringify(path.join(DIST, 'test', 'support', 'testing.js'))});
const testing = testingAddon();
const report = (value) => process.stdout.write('@@REPORT ' + JSON.stringify(value, (k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\\n');
// n distinct points (s + i·t)·G, packed canonical x‖y, and n scalars from a 32-bit seed.
function packedData(curve, n, seed) {
  const s = new Uint8Array(32), t = new Uint8Array(32);
  new DataView(s.buffer).setUint32(0, seed + 1, true);
  new DataView(t.buffer).setUint32(0, (seed * 7919) ^ 0x5bd1e995, true);
  const points = testing.generatePoints(curve, n, s, t);
  const scalars = new Uint8Array(32 * n);
  let x = BigInt(seed) * 6364136223846793005n + 1442695040888963407n;
  const r = lib.CURVES[curve].r;
  const view = new DataView(scalars.buffer);
  for (let i = 0; i < n; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 256n) - 1n);
    const k = x % r;
    for (let j = 0; j < 4; j++) view.setBigUint64(32 * i + 8 * j, BigInt.asUintN(64, k >> BigInt(64 * j)), true);
  }
  return { points, scalars };
}
`;

export interface ChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The value the script passed to report(), or undefined when it reported nothing. */
  report: unknown;
}

export interface ChildOptions {
  nodeArgs?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Run under `ulimit -v` (KiB of virtual memory), through bash. */
  ulimitKb?: number;
}

export function runChild(script: string, opts: ChildOptions = {}): ChildResult {
  checkDistFresh();
  const nodeArgs = [...(opts.nodeArgs ?? []), '-e', PRELUDE + script];
  const env = { ...process.env, ...opts.env };
  const spawned =
    opts.ulimitKb === undefined
      ? spawnSync(process.execPath, nodeArgs, { env, encoding: 'utf8', timeout: opts.timeoutMs ?? 60000, maxBuffer: 64 << 20 })
      : spawnSync('bash', ['-c', `ulimit -v ${opts.ulimitKb} && exec "$0" "$@"`, process.execPath, ...nodeArgs], {
          env,
          encoding: 'utf8',
          timeout: opts.timeoutMs ?? 60000,
          maxBuffer: 64 << 20,
        });
  const line = spawned.stdout.split('\n').find((l) => l.startsWith('@@REPORT '));
  return {
    status: spawned.status,
    signal: spawned.signal,
    stdout: spawned.stdout,
    stderr: spawned.stderr,
    report: line === undefined ? undefined : JSON.parse(line.slice('@@REPORT '.length)),
  };
}

/** The child ran to a clean exit (status 0, no signal); otherwise what it printed, for the failure. */
export function expectClean(r: ChildResult): void {
  const how = r.signal ? `killed by ${r.signal}` : `exit status ${r.status}`;
  if (r.status !== 0 || r.signal !== null) {
    throw new Error(`the child process crashed (${how})\n--- stderr ---\n${r.stderr.slice(-4000)}\n--- stdout ---\n${r.stdout.slice(-2000)}`);
  }
}
