#!/usr/bin/env node
// npm "install" step: use a native addon that already loads (prebuilds/ or an earlier build),
// else build from source: cmake-js (CUDA when nvcc is found, CPU-only otherwise; retried
// CPU-only if the CUDA build fails), else node-gyp with binding.gyp (CPU-only).
// MSM_CUDA_BUILD_FROM_SOURCE=1 (or npm --build-from-source) skips the first step.
'use strict';

const { spawnSync } = require('child_process');
const path = require('path');
const fs = require('fs');

const root = path.resolve(__dirname, '..');
const log = (msg) => console.log(`msm-cuda: ${msg}`);

function loads() {
  // A fresh process: a failed dlopen must not poison this one, and a success must not keep the
  // file locked (Windows) while it is rebuilt.
  const code =
    "const b=require('node-gyp-build')(process.argv[1]);" +
    "const i=b.info();console.log(JSON.stringify({cuda:i.cuda.compiled,reason:i.cuda.reason}))";
  const r = spawnSync(process.execPath, ['-e', code, root], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) return null;
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    return null;
  }
}

function has(cmd, args = ['--version']) {
  const r = spawnSync(cmd, args, { stdio: 'ignore', shell: process.platform === 'win32' });
  return r.status === 0;
}

function run(cmd, args, env) {
  log(`running ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
    shell: process.platform === 'win32',
  });
  return r.status === 0;
}

function cmakeJs() {
  try {
    return require.resolve('cmake-js/bin/cmake-js', { paths: [root] });
  } catch {
    return null;
  }
}

function nodeGyp() {
  if (process.env.npm_config_node_gyp && fs.existsSync(process.env.npm_config_node_gyp))
    return [process.execPath, [process.env.npm_config_node_gyp]];
  // npm bundles node-gyp next to its own cli.
  const bundled = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules',
    'node-gyp', 'bin', 'node-gyp.js');
  if (fs.existsSync(bundled)) return [process.execPath, [bundled]];
  if (has('node-gyp')) return ['node-gyp', []];
  return null;
}

function report(how) {
  const info = loads();
  if (!info) return false;
  log(`${how}; CUDA backend ${info.cuda ? 'compiled in' : `not compiled (${info.reason})`}`);
  return true;
}

function main() {
  const fromSource =
    /^(1|true)$/i.test(process.env.MSM_CUDA_BUILD_FROM_SOURCE || '') ||
    /^(1|true)$/i.test(process.env.npm_config_build_from_source || '');
  if (!fromSource && report('using the native addon that already loads (prebuilt or built before)')) return 0;

  const cmjs = cmakeJs();
  if (cmjs && has('cmake')) {
    if (run(process.execPath, [cmjs, 'compile'], {}) && report('built with cmake-js')) return 0;
    log('cmake-js build failed; retrying without CUDA');
    if (run(process.execPath, [cmjs, 'compile'], { MSM_DISABLE_CUDA: '1' }) && report('built with cmake-js (CPU only)'))
      return 0;
  } else {
    log(cmjs ? 'cmake not found' : 'cmake-js not installed');
  }

  const gyp = nodeGyp();
  if (gyp) {
    // Headers of the running node when its prefix ships them: no download (works offline).
    const prefix = path.resolve(path.dirname(process.execPath), '..');
    const nodedir = fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? [`--nodedir=${prefix}`] : [];
    if (run(gyp[0], [...gyp[1], 'rebuild', ...nodedir], {}) && report('built with node-gyp (CPU only)')) return 0;
  } else {
    log('node-gyp not found');
  }
  console.error('msm-cuda: could not load or build the native addon (needs a C++17 compiler and cmake or node-gyp)');
  return 1;
}

process.exitCode = main();
