// accumulate.cu's homogeneous mode for G1 (§3.2), in a translation unit of its own: its products
// stay out of line for every field (CMakeLists.txt), where G1's default and constant-time modes
// inline BN254's (4 limbs); inline, this mode's larger loop ran slower (bench/gpu-notes.md).
#define MSM_ACC_HOMOGENEOUS 1
#include "accumulate.cu"
