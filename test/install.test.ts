// Installation paths, as a user meets them: `npm install <tarball>` into a clean folder with nvcc
// and cmake hidden (stubs that fail, ahead of everything on the PATH; the CUDA toolkit's folder
// removed from it).
//  1. The tarball carries a prebuilt binary (prebuilds/linux-x64, prebuildify's naming): it loads,
//     nothing is built, an MSM is right, and info() says why CUDA is unavailable here.
//  2. No prebuilt binary and no CMake: scripts/install.js falls back to node-gyp (binding.gyp,
//     CPU only), and the result computes.
// The third path, cmake-js from source, is what `npm ci` in this repository runs.
// The prebuilt binary here is this checkout's build/Release addon, put where `npm run prebuild`
// puts the release one, under the name prebuildify gives it (same cmake-js build; the release
// adds GPU architectures).

import { execFileSync, spawnSync } from 'child_process';
import fs = require('fs');
import os = require('os');
import path = require('path');
import { CURVES } from '../lib';
import { aff, jacMul, toAff, toJac } from './model/ec';

const root = path.resolve(__dirname, '..');
const npmCli = path.join(path.dirname(fs.realpathSync(process.execPath)), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
let tmp: string;
let plain: string; // the tarball as `npm pack` makes it from this checkout

function hiddenToolsEnv(): NodeJS.ProcessEnv {
  const stubs = path.join(tmp, 'stubs');
  fs.mkdirSync(stubs, { recursive: true });
  for (const tool of ['cmake', 'nvcc']) {
    fs.writeFileSync(path.join(stubs, tool), `#!/bin/sh\necho "${tool}: hidden by the install test" >&2\nexit 127\n`, { mode: 0o755 });
  }
  const keep = (process.env.PATH ?? '').split(path.delimiter).filter((d) => !/cuda/i.test(d));
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: [stubs, ...keep].join(path.delimiter), CUDA_PATH: '', CUDACXX: '' };
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k]; // not the outer npm's settings
  return env;
}

function install(name: string, tarball: string): { dir: string; log: string } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `app-${name}`, version: '1.0.0', private: true }));
  // --prefer-offline: the dependencies' tarballs come from npm's cache, which `npm ci` in this
  // checkout filled; their metadata (which `npm ci` does not cache) from the registry when the
  // cache has none, as on a fresh machine.
  const r = spawnSync(process.execPath, [npmCli, 'install', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts', tarball], {
    cwd: dir,
    env: hiddenToolsEnv(),
    encoding: 'utf8',
  });
  const log = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0) throw new Error(`npm install failed (${r.status}):\n${log}`);
  return { dir, log };
}

// 2·G + 3·G = 5·G through the installed package; and its info().
function computeIn(dir: string): { ok: boolean; info: { cuda: { compiled: boolean; available: boolean; reason: string | null } } } {
  const script = `
    const { msm, info, CURVES } = require('msm-cuda');
    const G = CURVES.bn254.generator;
    msm('bn254', [G, G], [2n, 3n], { backend: 'auto' }).then((q) =>
      console.log(JSON.stringify({ x: q.x.toString(), y: q.y.toString(), info: info() })));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: dir, env: hiddenToolsEnv() }).toString());
  const c = CURVES.bn254;
  const want = toAff(c, jacMul(c, 5n, toJac(aff(c.generator.x, c.generator.y))));
  return { ok: BigInt(out.x) === want.x && BigInt(out.y) === want.y, info: out.info };
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msm-install-'));
  const out = execFileSync(process.execPath, [npmCli, 'pack', '--json', '--pack-destination', tmp], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  plain = path.join(tmp, JSON.parse(out.slice(out.indexOf('[')))[0].filename);
}, 300000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('prebuilt binary: loads without building, computes, and info() says why CUDA is unavailable', () => {
  const stage = path.join(tmp, 'stage');
  fs.mkdirSync(stage);
  execFileSync('tar', ['xzf', plain, '-C', stage]);
  const pre = path.join(stage, 'package', 'prebuilds', `${process.platform}-${process.arch}`);
  fs.mkdirSync(pre, { recursive: true });
  fs.copyFileSync(path.join(root, 'build', 'Release', 'msm_cuda.node'), path.join(pre, 'msm-cuda.node'));
  const withPrebuild = path.join(tmp, 'msm-cuda-prebuilt.tgz');
  execFileSync('tar', ['czf', withPrebuild, '-C', stage, 'package']);

  const { dir, log } = install('prebuilt', withPrebuild);
  expect(log).toMatch(/using the native addon that already loads/);
  const pkg = path.join(dir, 'node_modules', 'msm-cuda');
  expect(fs.existsSync(path.join(pkg, 'build'))).toBe(false); // nothing was compiled
  const r = computeIn(dir);
  expect(r.ok).toBe(true);
  if (!r.info.cuda.available) expect(r.info.cuda.reason).toMatch(/\w/);
  process.stdout.write(`[install] prebuilt: tarball ${(fs.statSync(withPrebuild).size / 2 ** 20).toFixed(1)} MiB, binary ${(fs.statSync(path.join(pre, 'msm-cuda.node')).size / 2 ** 20).toFixed(1)} MiB; cuda: ${r.info.cuda.available ? 'available' : r.info.cuda.reason}\n`);
}, 300000);

test('no prebuilt binary and no CMake: node-gyp builds the CPU-only addon, which computes', () => {
  const { dir, log } = install('node-gyp', plain);
  expect(log).toMatch(/cmake not found/);
  expect(log).toMatch(/built with node-gyp \(CPU only\)/);
  const r = computeIn(dir);
  expect(r.ok).toBe(true);
  expect(r.info.cuda.compiled).toBe(false);
  expect(r.info.cuda.reason).toMatch(/built without CUDA/);
}, 900000);
