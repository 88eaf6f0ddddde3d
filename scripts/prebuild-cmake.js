#!/usr/bin/env node
// Stands in for node-gyp under prebuildify (`npm run prebuild`): prebuildify calls
// `<node-gyp> rebuild …` and then takes the .node file from build/Release; this builds that file
// with cmake-js, the build of record, instead. A release binary carries the CUDA backend as a
// fatbin for the common GPUs plus PTX for newer ones (MSM_CUDA_ARCH overrides the list), with the
// CUDA runtime linked statically, so it loads on machines without the driver.
'use strict';

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const RELEASE_ARCHS = '75-real;80-real;86-real;89-real;90-real;90-virtual';
const root = path.resolve(__dirname, '..');
const env = { ...process.env, MSM_CUDA_ARCH: process.env.MSM_CUDA_ARCH || RELEASE_ARCHS };
const nvcc = ['/usr/local/cuda/bin/nvcc', 'nvcc'].some((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
if (!nvcc && !/^(1|true)$/i.test(process.env.MSM_PREBUILD_CPU_ONLY || '')) {
  console.error('msm-cuda prebuild: nvcc not found; a release binary must carry the CUDA backend ' +
    '(set MSM_PREBUILD_CPU_ONLY=1 to make a CPU-only one on purpose)');
  process.exit(1);
}
console.log(`msm-cuda prebuild: cmake-js, CUDA architectures ${nvcc ? env.MSM_CUDA_ARCH : '(none: CPU only)'}`);
fs.rmSync(path.join(root, 'build'), { recursive: true, force: true });
const cmakeJs = require.resolve('cmake-js/bin/cmake-js', { paths: [root] });
const r = spawnSync(process.execPath, [cmakeJs, 'compile'], { cwd: root, env, stdio: 'inherit' });
process.exit(r.status ?? 1);
