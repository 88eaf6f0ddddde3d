// sppark as a peer of the GPU bench (bench/gpu.ts --sppark DIR): runs the harness of
// bench/native/sppark_peer.cu, built against a sppark checkout (CMakeLists.txt: SPPARK_DIR,
// BLST_DIR), on the bench's own points and scalars, in a process of its own. Its times cover what
// ours cover (scalar upload, MSM, affine result; bases resident), from pageable and from pinned
// memory; its result is returned for the bench to compare with ours.

import { spawnSync } from 'child_process';
import fs = require('fs');
import os = require('os');
import path = require('path');
import type { CurveName } from '../lib';

export const SPPARK_CURVES: readonly CurveName[] = ['bn254', 'bls12-381'];

export interface SpparkRun {
  pageableMs: number[];
  pinnedMs: number[];
  coords: bigint[]; // affine x, y, canonical ([0n, 0n] for the point at infinity)
}

// The harness for a curve in dir (the build's Release folder), or an error naming what is missing.
export function spparkExecutable(dir: string, curve: CurveName): string {
  if (!SPPARK_CURVES.includes(curve)) throw new Error(`--sppark: no sppark harness for ${curve} (only ${SPPARK_CURVES.join(', ')})`);
  const file = path.join(dir, `sppark_peer_${curve.replace(/-/g, '_')}`);
  if (!fs.existsSync(file))
    throw new Error(`--sppark: ${file} not found; build it with npx cmake-js build --CDMSM_BUILD_TESTING=ON --CDSPPARK_DIR=<sppark> --CDBLST_DIR=<blst>`);
  return file;
}

// Writes the points (canonical little-endian x‖y, one array or the parts form) and the 32-byte
// scalars to a temporary folder, runs the harness there and removes the folder.
export function runSppark(exe: string, points: Uint8Array | Uint8Array[], scalars: Uint8Array, runs: number): SpparkRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msm-sppark-'));
  try {
    const pointsFile = path.join(dir, 'points.bin');
    const fd = fs.openSync(pointsFile, 'w');
    try {
      for (const part of Array.isArray(points) ? points : [points]) fs.writeSync(fd, part);
    } finally {
      fs.closeSync(fd);
    }
    const scalarsFile = path.join(dir, 'scalars.bin');
    fs.writeFileSync(scalarsFile, scalars);
    const r = spawnSync(exe, [pointsFile, scalarsFile, String(runs)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.error) throw new Error(`sppark harness ${exe}: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`sppark harness ${exe} exited with ${r.status ?? r.signal}: ${r.stderr.trim()}`);
    const out = JSON.parse(r.stdout) as { n: number; pageableMs: number[]; pinnedMs: number[]; x: string; y: string };
    if (out.n * 32 !== scalars.length) throw new Error(`sppark harness read ${out.n} points, the bench passed ${scalars.length / 32}`);
    return { pageableMs: out.pageableMs, pinnedMs: out.pinnedMs, coords: [BigInt(out.x), BigInt(out.y)] };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
