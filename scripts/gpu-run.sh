#!/usr/bin/env bash
# On the CUDA host, from the project root: restores what scripts/gpu-pack.sh packed (the product
# and test addons, msm_gpu_driver, msm_fieldbench: .gpu/native.tar.xz) under build/Release and runs "$@" through
# .gpu/run.sh (node on the PATH, node_modules unpacked), with the compiled test circuits
# (.gpu/circuits.tar.xz) under test/vectors/snarkjs/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p build/Release
tar -xJf .gpu/native.tar.xz -C build/Release
[ -f .gpu/circuits.tar.xz ] && tar -xJf .gpu/circuits.tar.xz
exec bash .gpu/run.sh "$@"
