// Per-window sort of (bucket, point|EXP|SIGN) pairs, Chen et al. §3.3 step 1, with CUB's
// onesweep radix sort over only the key bits in use: buckets ∈ [0, 2^(c−2)] need c − 1 bits.
// One SortPairs per window on the same stream and temp storage (a segmented sort would give each
// window one thread block, far slower for segments of millions).
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
                  uint32_t* vals_out, uint32_t n, int W, int key_bits, cudaStream_t s) {
  for (int j = 0; j < W; ++j) {
    size_t bytes = temp_bytes;
    const size_t off = size_t(j) * n;
    MSM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in + off, keys_out + off, vals_in + off,
                                                   vals_out + off, n, 0, key_bits, s));
  }
}

}  // namespace msm::gpu
