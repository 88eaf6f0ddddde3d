// Child-process scripts for the input contract and the lifecycle cases of issue 10, shared by
// test/reliability.test.ts (CPU backend) and test/gpu/lifecycle.test.ts (CUDA backend). Each runs
// in its own process (test/support/child.ts): a crash fails the test that ran it, not jest.

import type { CurveName } from '../../lib';
import { expectClean, runChild, type ChildOptions } from './child';

export type Api = 'msm' | 'create' | 'ctx.msm' | 'msmBatch';
export type Action = 'mutate' | 'resize' | 'transfer' | 'drop';
export type InputKind = 'packed' | 'bigint' | 'parts'; // parts: the points as three uneven Uint8Arrays

export interface MutationCase {
  api: Api;
  action: Action;
  input: InputKind;
  curve: CurveName;
  sizes: number[];
  backend: 'cpu' | 'cuda';
  seed: number;
}

export interface MutationEntry {
  n: number;
  want: unknown;
  got: unknown;
  error?: string;
}

// The worker thread that reads an input is kept busy with an earlier MSM (one libuv worker:
// UV_THREADPOOL_SIZE=1), so that what is done to the input right after the call happens before
// any native code could have read it: an input not taken at call time shows, every time.
const MUTATION_SCRIPT = `
const C = CONFIG;
const opts = { backend: C.backend };
// the expected results come from the CPU backend, on untouched copies of the inputs
const reference = { backend: 'cpu' };
const { decodePoints, decodeScalars } = require(DIST + '/lib/encoding.js');
const curve = lib.CURVES[C.curve];
function scrub(bytes) {
  gc();
  gc();
  const junk = [];
  for (let i = 0; i < 4; i++) junk.push(new Uint8Array(Math.max(bytes, 64)).fill(0x5a));
  return junk.length;
}
// The input the API is given, and what the caller does to it right after the call.
function victim(u8, what) {
  if (C.input === 'parts' && what === 'points') {
    // cut before points ⌊n/3⌋ and ⌊n/2⌋ + 1 (n = 1: two empty parts), each part abused alike,
    // then the list itself emptied
    const pb = 2 * curve.fieldBytes, n = u8.length / pb;
    const edges = [0, Math.floor(n / 3), Math.min(n, Math.floor(n / 2) + 1), n];
    const parts = edges.slice(1).map((e, i) => packedVictim(u8.subarray(edges[i] * pb, e * pb)));
    const list = parts.map((p) => p.input);
    return { input: list, abuse: () => { for (const p of parts) p.abuse(); list.length = 0; } };
  }
  if (C.input === 'bigint') {
    const arr = what === 'points' ? decodePoints(curve, u8) : decodeScalars(curve, u8);
    return {
      input: arr,
      abuse() {
        if (what === 'points') for (const p of arr) { p.x = 1n; p.y = 2n; }
        else arr.fill(C.action === 'mutate' ? 7n : 0n);
        arr.length = 0;
        scrub(0);
      },
    };
  }
  return packedVictim(u8);
}
function packedVictim(u8) {
  switch (C.action) {
    case 'mutate': {
      const v = new Uint8Array(u8);
      return { input: v, abuse: () => v.fill(0xa5) };
    }
    case 'resize': {
      const ab = new ArrayBuffer(u8.length, { maxByteLength: u8.length });
      const v = new Uint8Array(ab);
      v.set(u8);
      return { input: v, abuse: () => { ab.resize(0); scrub(u8.length); } };
    }
    case 'transfer': {
      const v = new Uint8Array(u8);
      return {
        input: v,
        abuse() {
          let moved = structuredClone(v.buffer, { transfer: [v.buffer] });
          moved = null;
          scrub(u8.length);
        },
      };
    }
    case 'drop': {
      const holder = { v: new Uint8Array(u8) };
      return { get input() { return holder.v; }, abuse: () => { holder.v = null; scrub(u8.length); } };
    }
  }
}
(async () => {
  const blockerData = packedData(C.curve, 1 << 13, 999);
  const blocker = await lib.MsmContext.create(C.curve, blockerData.points, opts);
  const out = [];
  for (const n of C.sizes) {
    const { points, scalars } = packedData(C.curve, n, C.seed + n);
    const other = packedData(C.curve, n, C.seed + n + 7).scalars;
    const want = [await lib.msm(C.curve, points.slice(), scalars.slice(), reference)];
    if (C.api === 'msmBatch') want.push(await lib.msm(C.curve, points.slice(), other.slice(), reference));
    const ctx = C.api === 'ctx.msm' || C.api === 'msmBatch' ? await lib.MsmContext.create(C.curve, points.slice(), opts) : null;
    const busy = blocker.msm(blockerData.scalars);
    let pending;
    let victims;
    switch (C.api) {
      case 'msm': {
        victims = [victim(points, 'points'), victim(scalars, 'scalars')];
        pending = lib.msm(C.curve, victims[0].input, victims[1].input, opts).then((r) => [r]);
        break;
      }
      case 'create': {
        victims = [victim(points, 'points')];
        const created = lib.MsmContext.create(C.curve, victims[0].input, opts);
        pending = created.then(async (c) => {
          try {
            return [await c.msm(scalars.slice())];
          } finally {
            c.close();
          }
        });
        break;
      }
      case 'ctx.msm': {
        victims = [victim(scalars, 'scalars')];
        pending = ctx.msm(victims[0].input).then((r) => [r]);
        break;
      }
      case 'msmBatch': {
        victims = [victim(scalars, 'scalars'), victim(other, 'scalars')];
        pending = ctx.msmBatch([victims[0].input, victims[1].input]);
        break;
      }
    }
    for (const v of victims) v.abuse();
    let got;
    let error;
    try {
      got = await pending;
    } catch (e) {
      error = (e && e.code) + ': ' + (e && e.message);
    }
    await busy;
    if (ctx) ctx.close();
    out.push({ n, want, got, error });
  }
  blocker.close();
  report(out);
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
`;

export function mutationCase(c: MutationCase): MutationEntry[] {
  const r = runChild(`const CONFIG = ${JSON.stringify(c)}; const DIST = ${JSON.stringify(require('path').join(__dirname, '..', '..', 'dist'))};\n${MUTATION_SCRIPT}`, {
    nodeArgs: ['--expose-gc'],
    env: { UV_THREADPOOL_SIZE: '1' },
    timeoutMs: 120000,
  });
  expectClean(r);
  const entries = r.report as MutationEntry[] | undefined;
  if (!entries) throw new Error(`the child reported nothing\n${r.stderr}`);
  return entries;
}

export type LifecycleOp = 'msm' | 'create' | 'ctx.msm' | 'msmBatch';

export interface TerminationCase {
  op: LifecycleOp;
  curve: CurveName;
  n: number;
  backend: 'cpu' | 'cuda';
  /** ms between the worker's calls and worker.terminate(), one worker each. */
  delays: number[];
  /** Calls started in each worker before it is terminated (some run, some wait). */
  calls: number;
}

// A worker thread starts MSM work, the main thread terminates it while that work runs (or waits
// in the queue, or completes), for each delay; then the process must still compute correctly.
const TERMINATION_SCRIPT = `
const { Worker } = require('worker_threads');
const C = CONFIG;
const workerSource = PRELUDE_TEXT + \`
const { parentPort, workerData: C } = require('worker_threads');
(async () => {
  const { points, scalars } = packedData(C.curve, C.n, 1);
  const opts = { backend: C.backend };
  const ctx = C.op === 'ctx.msm' || C.op === 'msmBatch' ? await lib.MsmContext.create(C.curve, points, opts) : null;
  for (let i = 0; i < C.calls; i++) {
    if (C.op === 'msm') lib.msm(C.curve, points, scalars, opts).catch(() => {});
    else if (C.op === 'create') lib.MsmContext.create(C.curve, points, opts).catch(() => {});
    else if (C.op === 'ctx.msm') ctx.msm(scalars).catch(() => {});
    else ctx.msmBatch([scalars, scalars]).catch(() => {});
  }
  parentPort.postMessage('started');
})();
\`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  const small = packedData(C.curve, 300, 5);
  const opts = { backend: C.backend };
  const before = await lib.msm(C.curve, small.points, small.scalars, opts);
  let terminated = 0;
  for (const delay of C.delays) {
    const w = new Worker(workerSource, { eval: true, workerData: C });
    await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await sleep(delay);
    await w.terminate();
    terminated++;
  }
  const after = await lib.msm(C.curve, small.points, small.scalars, opts);
  report({ terminated, same: before.x === after.x && before.y === after.y });
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
`;

export function terminationCase(c: TerminationCase, opts: ChildOptions = {}): { terminated: number; same: boolean } {
  const { PRELUDE } = require('./child') as typeof import('./child');
  const r = runChild(`const CONFIG = ${JSON.stringify(c)}; const PRELUDE_TEXT = ${JSON.stringify(PRELUDE)};\n${TERMINATION_SCRIPT}`, {
    timeoutMs: 120000,
    ...opts,
  });
  expectClean(r);
  return r.report as { terminated: number; same: boolean };
}

/**
 * process.exit() while MSM work runs, on the main thread or in a worker thread: the process ends
 * with that exit status, not a signal.
 */
export function exitDuringWork(where: 'main' | 'worker', backend: 'cpu' | 'cuda', curve: CurveName, n: number) {
  const script = `
const opts = { backend: ${JSON.stringify(backend)} };
const { points, scalars } = packedData(${JSON.stringify(curve)}, ${n}, 3);
if (${JSON.stringify(where)} === 'main') {
  for (let i = 0; i < 3; i++) lib.msm(${JSON.stringify(curve)}, points, scalars, opts).catch(() => {});
  lib.MsmContext.create(${JSON.stringify(curve)}, points, opts).catch(() => {});
  setTimeout(() => process.exit(3), 20);
} else {
  const { Worker } = require('worker_threads');
  const w = new Worker(PRELUDE_TEXT + \`
    const opts = { backend: ${JSON.stringify(backend)} };
    const { points, scalars } = packedData(${JSON.stringify(curve)}, ${n}, 3);
    for (let i = 0; i < 3; i++) lib.msm(${JSON.stringify(curve)}, points, scalars, opts).catch(() => {});
    setTimeout(() => process.exit(5), 20);
  \`, { eval: true });
  w.on('exit', (code) => { report({ workerExit: code }); setTimeout(() => process.exit(4), 20); });
}
`;
  const { PRELUDE } = require('./child') as typeof import('./child');
  return runChild(`const PRELUDE_TEXT = ${JSON.stringify(PRELUDE)};\n${script}`, { timeoutMs: 120000 });
}
