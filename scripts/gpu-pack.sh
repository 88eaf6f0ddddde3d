#!/usr/bin/env bash
# Packs .gpu/ for the CUDA host like ../shared/gpu/pack.sh, but small enough to travel with a
# CUDA addon (the tree + carried paths must stay under 64 MiB): node_modules without the
# packages and files the GPU suite and benches never load (typescript, circom2, cmake-js, the
# tests of wasmcurves, snarkjs's browser bundles …; snarkjs and ffjavascript stay, for
# bench/prove.ts), and from $BUILD (default build/Release, after `node scripts/build-testing.js`
# with nvcc present) the product addon and the test addon (and on request the standalone GPU
# programs) in one .gpu/native.tar.xz: one xz stream whose 64 MiB dictionary spans the addons, so
# the device code they share (msm_core's kernels, most of each) is stored once.
# On the host, scripts/gpu-run.sh puts them back under build/Release.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
BUILD=${BUILD:-build/Release}
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
node_bin=$(command -v node)
[ -f .gpu/node.xz ] && [ .gpu/node.xz -nt "$node_bin" ] || xz -T0 -6 -c "$node_bin" > .gpu/node.xz
stamp=slim2-$(sha256sum package-lock.json | cut -c1-16)
if [ "$(cat .gpu/node_modules.stamp 2>/dev/null)" != "$stamp" ]; then
  tar -cf - --exclude='node_modules/.cache' --exclude='node_modules/typescript' --exclude='node_modules/wasmcurves/test' \
    --exclude='node_modules/cmake-js' --exclude='node_modules/prebuildify' --exclude='node_modules/node-api-headers' \
    --exclude='node_modules/circom2' --exclude='node_modules/circomlib' --exclude='node_modules/@types' \
    --exclude='node_modules/snarkjs/build/snarkjs.js' --exclude='node_modules/snarkjs/build/snarkjs.min.js' \
    --exclude='node_modules/snarkjs/build/browser.esm.js' node_modules | xz -T0 -9 > .gpu/node_modules.tar.xz
  echo "$stamp" > .gpu/node_modules.stamp
fi
rm -rf .gpu/native .gpu/native.tar.xz .gpu/addon.xz
# The standalone programs only on request (GPU_PACK_PROGRAMS=1): with both addons they would take
# .gpu past what travels to the host.
files="msm_cuda.node msm_cuda_testing.node"
[ "${GPU_PACK_PROGRAMS:-0}" = 1 ] && files="$files msm_gpu_driver msm_fieldbench"
# sppark's harnesses (bench/native/sppark_peer.cu, ~2 MB each) whenever the build has them
for f in sppark_peer_bn254 sppark_peer_bls12_381; do [ -f "$BUILD/$f" ] && files="$files $f"; done
# GPU_PACK_EXTRA: more files of $BUILD (an A/B's base addon, copied there under another name); they
# share the stream's dictionary with the addons, so a second build of the same code costs little.
files="$files ${GPU_PACK_EXTRA:-}"
for f in $files; do
  [ -f "$BUILD/$f" ] || { echo "missing $BUILD/$f: run node scripts/build-testing.js with nvcc present" >&2; exit 1; }
done
# -T1: one block, so that matches reach across files (two minutes on two cores)
tar -cf - -C "$BUILD" $files | xz -T1 -9e > .gpu/native.tar.xz
# The circuits of test/vectors/snarkjs compiled (their build/ folders are ignored, and circom2
# stays behind): test/gpu/groth16.test.ts proves with them.
node -e "for (const c of ['bn254', 'bls12-381']) require('./test/vectors/snarkjs/circuit').ensureCircuit(c)"
tar -cf - test/vectors/snarkjs/bn254/build test/vectors/snarkjs/bls12-381/build | xz -T0 -9 > .gpu/circuits.tar.xz
cp "$(dirname "$root")/shared/gpu/run.sh" .gpu/run.sh 2>/dev/null || true
du -sh .gpu/* | sed 's/^/  /'
echo ".gpu is $(du -sm .gpu | cut -f1) MiB"
