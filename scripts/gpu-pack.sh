#!/usr/bin/env bash
# Packs .gpu/ for the CUDA host like ../shared/gpu/pack.sh, but small enough to travel with a
# CUDA addon (the tree + carried paths must stay under 64 MiB): node_modules without the
# packages the GPU suite and bench never load (typescript, ffjavascript/wasmcurves, cmake-js …),
# and the addon from $BUILD (default build-gpu/Release) stored xz-compressed in .gpu/addon.xz.
# On the host:  xz -dc .gpu/addon.xz > build/Release/msm_cuda.node  (scripts/gpu-run.sh does it).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
BUILD=${BUILD:-build-gpu/Release}
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
node_bin=$(command -v node)
[ -f .gpu/node.xz ] && [ .gpu/node.xz -nt "$node_bin" ] || xz -T0 -6 -c "$node_bin" > .gpu/node.xz
stamp=slim-$(sha256sum package-lock.json | cut -c1-16)
if [ "$(cat .gpu/node_modules.stamp 2>/dev/null)" != "$stamp" ]; then
  tar -cf - --exclude='node_modules/.cache' --exclude='node_modules/typescript' --exclude='node_modules/wasmcurves' \
    --exclude='node_modules/ffjavascript' --exclude='node_modules/cmake-js' --exclude='node_modules/prebuildify' \
    --exclude='node_modules/web-worker' --exclude='node_modules/node-api-headers' node_modules | xz -T0 -6 > .gpu/node_modules.tar.xz
  echo "$stamp" > .gpu/node_modules.stamp
fi
rm -rf .gpu/native
xz -T0 -6 -c "$BUILD/msm_cuda.node" > .gpu/addon.xz
cp "$(dirname "$root")/shared/gpu/run.sh" .gpu/run.sh 2>/dev/null || true
du -sh .gpu/* | sed 's/^/  /'
echo ".gpu is $(du -sm .gpu | cut -f1) MiB"
