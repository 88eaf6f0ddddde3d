// merge.cu's launchers for G2 (MSM_G2_CURVES), in a translation unit of their own so that they
// compile in parallel with G1's (stages.cuh, MSM_FOR_EACH_STAGE_CURVE).
#define MSM_STAGE_G2 1
#include "merge.cu"
