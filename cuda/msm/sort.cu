// The sort of (bucket, point|EXP|SIGN) pairs, Chen et al. §3.3 step 1, with CUB's onesweep radix
// sort over only the key bits in use. One SortPairs covers g consecutive windows (the plan's
// sort_group; recode.cuh sort_key puts each window's place in its group above the bucket bits), all
// on one stream and one temp storage: each call costs a fixed ~40 µs on the H100 besides its
// entries, which at 2^16 points made the 26 per-window sorts half the engine. (A segmented sort
// would give each window one thread block, far slower for segments of millions.)
#include <algorithm>

#include <cub/device/device_radix_sort.cuh>

#include "device.cuh"
#include "stages.cuh"

namespace msm::gpu {

size_t sort_temp_bytes(uint32_t n, int key_bits) {
  size_t bytes = 0;
  MSM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const uint32_t*>(nullptr),
                                                 static_cast<uint32_t*>(nullptr), static_cast<const uint32_t*>(nullptr),
                                                 static_cast<uint32_t*>(nullptr), n, 0, key_bits));
  return bytes;
}

void sort_windows(void* temp, size_t temp_bytes, const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* vals_in,
                  uint32_t* vals_out, uint32_t n, int W, int g, int first_bit, int key_bits, cudaStream_t s) {
  for (int j = 0; j < W; j += g) {
    size_t bytes = temp_bytes;
    const size_t off = size_t(j) * n;
    const uint32_t items = uint32_t(std::min(g, W - j)) * n;
    MSM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in + off, keys_out + off, vals_in + off,
                                                   vals_out + off, items, first_bit, key_bits, s));
  }
}

}  // namespace msm::gpu
