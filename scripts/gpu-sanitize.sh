#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over the CUDA pipeline at n = 2^12, through node
# (scripts/gpu-sanitize.js). On the CUDA host, from the project root, with the packed .gpu/:
#   bash scripts/gpu-sanitize.sh            (uses `bash .gpu/run.sh` when .gpu/ exists)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUN=()
[ -f .gpu/run.sh ] && RUN=(bash .gpu/run.sh)
SAN=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$SAN" >/dev/null || SAN=/usr/local/cuda/bin/compute-sanitizer
status=0
for tool in memcheck racecheck; do
  echo "=== compute-sanitizer --tool $tool"
  "${RUN[@]}" "$SAN" --tool "$tool" --error-exitcode 99 node scripts/gpu-sanitize.js || status=$?
done
exit $status
