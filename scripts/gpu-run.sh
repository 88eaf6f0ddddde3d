#!/usr/bin/env bash
# On the CUDA host, from the project root: restores the addon packed by scripts/gpu-pack.sh and
# runs "$@" through .gpu/run.sh (node on the PATH, node_modules unpacked).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p build/Release
[ -f .gpu/addon.xz ] && xz -dc .gpu/addon.xz > build/Release/msm_cuda.node
exec bash .gpu/run.sh "$@"
