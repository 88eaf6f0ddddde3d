#!/usr/bin/env node
// Builds the test addon (build/Release/msm_cuda_testing.node, or test/native/build/Release with
// node-gyp) the way this checkout's product addon was built, so both link the same core: with
// CMake, the same build tree reconfigured with MSM_BUILD_TESTING=ON (the core is not rebuilt; with
// CUDA the standalone GPU programs msm_gpu_driver and msm_fieldbench come along); without CMake,
// node-gyp over test/native/binding.gyp (CPU only). npm test runs it first (pretest); the install
// step and `npm run prebuild` never do.
'use strict';

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const log = (msg) => console.log(`msm-cuda build-testing: ${msg}`);

function run(cmd, args, opts = {}) {
  log([cmd, ...args].join(' '));
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const cache = path.join(root, 'build', 'CMakeCache.txt');
if (fs.existsSync(cache)) {
  const cmakeJs = require.resolve('cmake-js/bin/cmake-js', { paths: [root] });
  // Keep the product build's CUDA choice: a tree configured CPU-only (no nvcc, MSM_DISABLE_CUDA, or a
  // failed CUDA build retried without it) stays CPU-only.
  const withCuda = /^MSM_WITH_CUDA_BUILT:INTERNAL=ON$/m.test(fs.readFileSync(cache, 'utf8'));
  const env = { ...process.env, ...(withCuda ? {} : { MSM_DISABLE_CUDA: '1' }) };
  run(process.execPath, [cmakeJs, 'configure', '--CDMSM_BUILD_TESTING=ON'], { env });
  run(process.execPath, [cmakeJs, 'build'], { env });
} else {
  // No CMake tree: the product addon came from node-gyp (or a prebuilt binary); build the test
  // addon with the node-gyp that npm ships, as scripts/install.js does.
  const bundled = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules',
    'node-gyp', 'bin', 'node-gyp.js');
  const gyp = process.env.npm_config_node_gyp && fs.existsSync(process.env.npm_config_node_gyp)
    ? process.env.npm_config_node_gyp : bundled;
  if (!fs.existsSync(gyp)) {
    console.error('msm-cuda build-testing: neither a CMake build tree nor node-gyp: cannot build the test addon');
    process.exit(1);
  }
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  const nodedir = fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? [`--nodedir=${prefix}`] : [];
  run(process.execPath, [gyp, 'rebuild', '--directory', path.join('test', 'native'), ...nodedir]);
}
