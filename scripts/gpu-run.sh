#!/usr/bin/env bash
# On the CUDA host, from the project root: restores what scripts/gpu-pack.sh packed (the product
# and test addons, msm_gpu_driver, msm_fieldbench) under build/Release and runs "$@" through
# .gpu/run.sh (node on the PATH, node_modules unpacked).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p build/Release
for f in .gpu/native/*.xz; do
  out=build/Release/$(basename "$f" .xz)
  xz -dc "$f" > "$out"
  case "$out" in *.node) ;; *) chmod +x "$out" ;; esac
done
exec bash .gpu/run.sh "$@"
