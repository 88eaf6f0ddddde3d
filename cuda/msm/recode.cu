// Recoding kernel, Chen et al. §3.1 (Alg. 3 through the mapping table): one thread per scalar,
// every window's digit, written window-major as the sort's (key, value) pairs (the key with the
// window's place in its sort group, recode.cuh sort_key). Where the windows share one bucket set
// (recode.cuh shared_bucket) the digit is the plain signed one and the value carries the window,
// or with the levels (recode.cuh levels_value) the odd digit and the value its level jc + EXP, and
// the entries are written grouped by their key's low bits, the sort's first radix digit
// (recode.cuh partition_bits): a count over the scalars, then the recode scattering its block's
// entries group by group.
#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "device.cuh"
#include "recode.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

// The digits' layout (Plan): a bucket set per window, one set of plain digits, or one of odd digits
// over every level.
enum class Digits { windows, plain, levels };

// Scalar i's words, little-endian.
__device__ MSM_INLINE void load_scalar(const uint4* __restrict__ scalars, size_t i, uint32_t (&k)[kScalarWords]) {
  const uint4 lo = scalars[2 * i], hi = scalars[2 * i + 1];
  k[0] = lo.x, k[1] = lo.y, k[2] = lo.z, k[3] = lo.w, k[4] = hi.x, k[5] = hi.y, k[6] = hi.z, k[7] = hi.w;
}

// Points [first, first + n): scalar first + i at entry i of each window, its point index in the value.
template <Digits L>
__global__ void recode_kernel(const uint4* __restrict__ scalars, uint32_t first, uint32_t n, int c, int W, int g,
                              int log_m, int shift, const uint32_t* __restrict__ table,
                              uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t k[kScalarWords];
  load_scalar(scalars, size_t(first) + i, k);
  for_each_digit(k, c, W, [&](int j, uint32_t t) {
    if constexpr (L == Digits::plain) {
      keys[size_t(j) * n + i] = shared_bucket(t, c);
      vals[size_t(j) * n + i] = shared_value(t, first + i, j, c);
    } else if constexpr (L == Digits::levels) {
      keys[size_t(j) * n + i] = levels_key(t, c);
      vals[size_t(j) * n + i] = levels_value(t, first + i, j, c, shift);
    } else {
      const uint32_t khat = __ldg(&table[t]);  // Alg. 3 lines 5–7 by table
      keys[size_t(j) * n + i] = sort_key(khat_bucket(khat, c), j, g, log_m);
      vals[size_t(j) * n + i] = sort_value(khat, first + i, c);
    }
  });
}

// The partitioned recode for shared buckets: scalar first + i of the block's threads gives its
// digits' keys in registers (the values follow from them and the carries, entry_value; with the
// levels each key also holds its digit's EXP above kExpAt); the entries go to group
// key & (2^f − 1), in ascending groups.
// counts[0, 2^f) is the count of every group over all the piece's entries (count_kernel), and
// counts[2^f, 2^(f+1)) the entries the blocks so far have placed in each (zero before the launch):
// a block reserves its run in each group there, so the runs of a group follow in no fixed block
// order, which only the order within a bucket (and so the order of its additions) depends on.
// Its entries are staged in shared memory group by group, then written out, consecutive threads
// to consecutive places of a group.
constexpr int kExpAt = 24;  // above every key (c − 1 ≤ 21 bits)
constexpr uint32_t kKeyBits = (1u << kExpAt) - 1;
template <int C, Digits L>
__device__ MSM_INLINE uint32_t shared_entries(const uint4* __restrict__ scalars, uint32_t first, uint32_t i, int D,
                                              uint32_t (&key)[kPartitionMaxDigits]) {
  constexpr int c = C;  // every digit's bits then at fixed words of the scalar
  uint32_t k[kScalarWords], carries = 0;
  load_scalar(scalars, size_t(first) + i, k);
  for_each_digit<kPartitionMaxDigits>(k, c, D, [&](int j, uint32_t t) {
    if constexpr (L == Digits::levels) {
      const uint32_t khat = recode_digit(t, c);
      key[j] = khat_bucket(khat, c) | khat_exp(khat, c) << kExpAt;
    } else {
      key[j] = shared_bucket(t, c);
    }
    carries |= recode_carry(t, c) << j;
  });
  return carries;
}
// Its value (recode.cuh shared_value, levels_value), from the key and the carry bit: for plain
// digits t = 2^c − key where it carried; with the levels the sign is the carry and the level
// jc + EXP, a table level for a zero digit too (the constant-time mode's O reads its point).
template <Digits L>
__device__ MSM_INLINE uint32_t entry_value(uint32_t key, uint32_t carries, uint32_t i, int j, int c, int shift) {
  const uint32_t carry = (carries >> j) & 1;
  if constexpr (L == Digits::levels)
    return (i << shift) | (levels_level(key >> kExpAt, j, c) << 1) | carry;
  else return shared_value(carry ? (1u << c) - key : key, i, j, c);
}

// A warp's lanes adding one to counter[g] each: the rank of each lane's add among those of its
// counter, by a shared-memory atomic per lane; a warp whose lanes all add to one counter (all
// scalars equal, or their digits all zero) adds once through its first lane instead, so that it
// does not serialise 32 atomics on one word. Every lane of the warp calls it.
__device__ MSM_INLINE uint32_t rank_in_group(uint32_t* counter, uint32_t g, bool active) {
  const uint32_t live = __ballot_sync(0xffffffffu, active);
  const uint32_t first = __ffs(live) - 1;
  const uint32_t g0 = __shfl_sync(0xffffffffu, g, first);
  const bool one = __all_sync(0xffffffffu, !active || g == g0);
  if (!active) return 0;
  if (!one) return atomicAdd(&counter[g], 1u);
  const uint32_t lane = threadIdx.x & 31;
  uint32_t base = 0;
  if (lane == first) base = atomicAdd(&counter[g], uint32_t(__popc(live)));
  base = __shfl_sync(live, base, int(first));
  return base + uint32_t(__popc(live & ((1u << lane) - 1)));
}

template <int C, Digits L>
__global__ void __launch_bounds__(kRecodeBlock) count_kernel(const uint4* __restrict__ scalars, uint32_t first,
                                                             uint32_t n, int D, int f,
                                                             uint32_t* __restrict__ counts) {
  __shared__ uint32_t group[1 << kPartitionMaxBits];
  const uint32_t groups = 1u << f, mask = groups - 1;
  for (uint32_t g = threadIdx.x; g < groups; g += blockDim.x) group[g] = 0;
  __syncthreads();
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = i < n;
  uint32_t key[kPartitionMaxDigits];
  if (live) shared_entries<C, L>(scalars, first, i, D, key);
  MSM_UNROLL
  for (int j = 0; j < kPartitionMaxDigits; ++j)
    if (j < D) rank_in_group(group, live ? key[j] & mask : 0, live);
  __syncthreads();
  for (uint32_t g = threadIdx.x; g < groups; g += blockDim.x)
    if (group[g]) atomicAdd(&counts[g], group[g]);
}

template <int C, Digits L>
__global__ void __launch_bounds__(kRecodeBlock, 3) partition_kernel(const uint4* __restrict__ scalars, uint32_t first,
                                                                 uint32_t n, int D, int f, int shift,
                                                                 uint32_t* __restrict__ counts,
                                                                 uint32_t* __restrict__ keys,
                                                                 uint32_t* __restrict__ vals) {
  using Scan = cub::BlockScan<uint32_t, kRecodeBlock>;
  __shared__ typename Scan::TempStorage scan;
  constexpr uint32_t kGroups = 1u << kPartitionMaxBits;
  __shared__ uint32_t group[kGroups], local_at[kGroups], global_at[kGroups];
  __shared__ uint32_t stage_key[kRecodeBlock * kPartitionMaxDigits], stage_val[kRecodeBlock * kPartitionMaxDigits];
  static_assert(kRecodeBlock >= kGroups, "one thread per group for the scans");
  const uint32_t groups = 1u << f, mask = groups - 1, t = threadIdx.x;
  if (t < groups) group[t] = 0;
  __syncthreads();
  const uint32_t i = blockIdx.x * blockDim.x + t;
  const bool live = i < n;
  uint32_t key[kPartitionMaxDigits], rank[kPartitionMaxDigits], carries = 0;
  if (live) carries = shared_entries<C, L>(scalars, first, i, D, key);
  MSM_UNROLL
  for (int j = 0; j < kPartitionMaxDigits; ++j)
    if (j < D) rank[j] = rank_in_group(group, live ? key[j] & mask : 0, live);
  __syncthreads();
  uint32_t local = 0, global = 0;
  Scan(scan).ExclusiveSum(t < groups ? group[t] : 0u, local);
  __syncthreads();
  Scan(scan).ExclusiveSum(t < groups ? counts[t] : 0u, global);
  if (t < groups) {
    local_at[t] = local;
    global_at[t] = global + (group[t] ? atomicAdd(&counts[groups + t], group[t]) : 0u);
  }
  __syncthreads();
  if (live) {
    MSM_UNROLL
    for (int j = 0; j < kPartitionMaxDigits; ++j)
      if (j < D) {
        const uint32_t at = local_at[key[j] & mask] + rank[j];
        stage_key[at] = key[j] & kKeyBits;
        stage_val[at] = entry_value<L>(key[j], carries, first + i, j, C, shift);
      }
  }
  __syncthreads();
  const uint32_t entries = min(uint32_t(blockDim.x), n - blockIdx.x * blockDim.x) * uint32_t(D);
  for (uint32_t e = t; e < entries; e += blockDim.x) {
    const uint32_t k = stage_key[e], g = k & mask;
    const uint32_t at = global_at[g] + (e - local_at[g]);
    keys[at] = k, vals[at] = stage_val[e];
  }
}

template <class G>
void launch_recode(const Workspace<G>& w, const uint32_t* scalars, cudaStream_t s) {
  const uint4* sc = reinterpret_cast<const uint4*>(scalars);
  const unsigned blocks = blocks_for(w.count, kRecodeBlock);
  if (const int f = w.sort_first_bit()) {
    // The groups' counts live at the start of the sort's temporary storage (the plan sizes it for
    // both), which the sort only takes after this recode.
    const size_t count_bytes = partition_count_bytes(f);
    if (w.sort_temp_bytes < count_bytes) throw EngineError("ERR_INTERNAL", "sort storage below the recode's counts");
    uint32_t* counts = static_cast<uint32_t*>(w.sort_temp);
    MSM_CUDA_CHECK(cudaMemsetAsync(counts, 0, count_bytes, s));
    const auto run_as = [&](auto C, auto L) {
      count_kernel<C.value, L.value>
          <<<blocks, kRecodeBlock, 0, s>>>(sc, w.first, w.count, w.D, f, counts);
      MSM_LAUNCH_CHECK("count_kernel");
      partition_kernel<C.value, L.value><<<blocks, kRecodeBlock, 0, s>>>(
          sc, w.first, w.count, w.D, f, w.value_shift(), counts, w.keys_in, w.vals_in);
      MSM_LAUNCH_CHECK("partition_kernel");
    };
    const auto run = [&](auto C) {
      if (w.levels) run_as(C, std::integral_constant<Digits, Digits::levels>{});
      else run_as(C, std::integral_constant<Digits, Digits::plain>{});
    };
    // Compiled per c for the widths partition_bits takes (kPartitionMinKeyBits … kMaxWindowBits):
    // the digits' bit positions are then constants, not selects over the scalar's words.
    static_assert(kPartitionMinKeyBits == 17 && kMaxWindowBits == 22, "one case per partitioned width");
    switch (w.c) {
      case 17: return run(std::integral_constant<int, 17>{});
      case 18: return run(std::integral_constant<int, 18>{});
      case 19: return run(std::integral_constant<int, 19>{});
      case 20: return run(std::integral_constant<int, 20>{});
      case 21: return run(std::integral_constant<int, 21>{});
      case 22: return run(std::integral_constant<int, 22>{});
      default: throw EngineError("ERR_INTERNAL", "the recode's partition is compiled for c = 17 … 22 only");
    }
  }
  const auto kernel = w.levels ? recode_kernel<Digits::levels>
                      : w.shared_buckets ? recode_kernel<Digits::plain>
                                         : recode_kernel<Digits::windows>;
  kernel<<<blocks, kRecodeBlock, 0, s>>>(sc, w.first, w.count, w.c, w.D, w.sort_group, w.log_m(), w.value_shift(),
                                         w.recode_table, w.keys_in, w.vals_in);
  MSM_LAUNCH_CHECK("recode_kernel");
}

#define MSM_INSTANTIATE(G) template void launch_recode<G>(const Workspace<G>&, const uint32_t*, cudaStream_t);
MSM_FOR_EACH_GROUP(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
