#!/usr/bin/env bash
# Builds the standalone GPU driver (test/gpu/driver.cu + cuda/msm/*.cu) into .gpubin/driver,
# with objects cached in .gpubin/obj (make -j). Run .gpubin/driver [big] on the CUDA host.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
grep -qx '/.gpubin/' .git/info/exclude 2>/dev/null || echo '/.gpubin/' >> .git/info/exclude
mkdir -p .gpubin/obj
NVCC=${NVCC:-nvcc}
FLAGS="-std=c++17 -arch=sm_90 -O3 --expt-relaxed-constexpr -Icuda"
cat > .gpubin/Makefile <<MK
SRCS := \$(wildcard cuda/msm/*.cu) test/gpu/driver.cu
OBJS := \$(patsubst %.cu,.gpubin/obj/%.o,\$(notdir \$(SRCS))) .gpubin/obj/shape.o
vpath %.cu cuda/msm test/gpu
.gpubin/driver: \$(OBJS)
	$NVCC -arch=sm_90 -o \$@ \$^ -lpthread
.gpubin/obj/%.o: %.cu \$(wildcard cuda/msm/*.cuh cuda/msm/*.hpp cuda/ff/*.hpp cuda/ff/*.cuh cuda/ec/*.hpp cuda/curves/*.hpp cuda/cpu/pippenger.hpp)
	$NVCC $FLAGS -c \$< -o \$@
.gpubin/obj/shape.o: cuda/curves/shape.cpp
	g++ -std=c++17 -O2 -c \$< -o \$@
MK
make -f .gpubin/Makefile -j"$(nproc)" .gpubin/driver
