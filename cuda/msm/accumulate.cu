// Accumulation kernel, Chen et al. §3.3 Alg. 4: T threads per window, each summing its even share
// of the window's sorted entries into XYZZ runs written to the compact buffer (the index logic is
// accumulate_thread in accumulate.cuh, shared with the host tests).
//
// Adding an entry (Alg. 4 lines 13–20): the point 2^min(EXP,τ)·P_i comes from the table, is
// negated for SIGN, and when EXP > τ doubled EXP − τ more times (mdbl-2008-s-1 then
// dbl-2008-s-1, EFD) and added with add-2008-s (12M + 2S); otherwise added with madd-2008-s
// (8M + 2S). The running sum lives in registers rather than the paper's shared-memory slots.
// One accumulator per mode of options.hpp's Accumulation: XyzzAcc (the above), HomogeneousAcc
// (§3.2's double-point additions in homogeneous coordinates) and ConstantTimeAcc (§5's complete
// additions). Block size and register budgets: tuning.hpp.
#include <type_traits>

#include "accumulate.cuh"
#include "device.cuh"
#include "recode.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm::gpu {

// Entry v's point from the table: 2^h·P_i, h = min(EXP, τ), negated for SIGN; *exp = EXP.
template <class G>
__device__ __forceinline__ AffineOf<G> table_point(const AffineOf<G>* table, uint32_t n, uint32_t tau, int shift,
                                                   uint32_t v, uint32_t* exp) {
  const uint32_t i = value_point(v, shift), e = value_exp(v, shift);
  const uint32_t h = e < tau ? e : tau;
  *exp = e;
  const AffineOf<G> p = table[size_t(h) * n + i];
  return value_sign(v) ? -p : p;
}

// acc + 2^k·p for k ≥ 1 (Alg. 4's EXP > τ): mdbl-2008-s-1, k − 1 × dbl-2008-s-1, add-2008-s.
template <class X, class A>
__device__ __forceinline__ X add_doubled(const X& acc, const A& p, uint32_t k) {
  X q = X::dbl(p);
  for (uint32_t i = 1; i < k; ++i) q = q.dbl();
  return acc.add(q);
}
// The same out of line, for G2: its two XYZZ points at once (192 registers on BLS12-381) would
// otherwise set the register allocation of the whole kernel, spilling on the hot path (a mixed
// addition per entry) too; the call costs a few stores on this path only, taken where τ < c − 1.
template <class X, class A>
__device__ __noinline__ X add_doubled_out_of_line(const X& acc, const A& p, uint32_t k) {
  return add_doubled(acc, p, k);
}

template <class G>
struct XyzzAcc {
  using A = AffineOf<G>;
  using X = XyzzOf<G>;
  const A* __restrict__ table;
  uint32_t n;
  uint32_t tau;
  int shift;  // value_shift(c)
  X* __restrict__ buffer;
  X acc;

  __device__ __forceinline__ void reset() { acc = X::infinity(); }
  __device__ __forceinline__ void add(uint32_t v) {
    uint32_t e;
    const A p = table_point<G>(table, n, tau, shift, v, &e);
    if (e <= tau) acc = acc.add(p);
    else if constexpr (ff::is_fp2<typename G::field>) acc = add_doubled_out_of_line(acc, p, e - tau);
    else acc = add_doubled(acc, p, e - tau);
  }
  __device__ __forceinline__ void store(uint32_t slot) { buffer[slot] = acc; }
};

// The complete addition (RCB Alg. 7, 12M) of the homogeneous accumulation, out of line: every path
// of HomogeneousAcc (a pair, a point alone, the pending point at a run's end) calls this one copy.
// On random scalars the threads of a warp reach their run ends at different entries, so the warp
// runs the end-of-run path and the main one in turn; with a second, inlined (mixed) addition in the
// former, the two paths' code missed the instruction cache (ncu, BLS12-381 2^20: 5.7 of 10.4
// cycles per issued instruction stalled on instruction fetch, against 0.5 of 5.5 on identical
// scalars).
template <class H>
__device__ __noinline__ H add_complete(const H& a, const H& b) {
  return a.add(b);
}

// §3.2 double-point accumulation in homogeneous coordinates: two consecutive points of a run are
// summed affine + affine (mmadd-1998-cmo, 5M + 2S) and the sum added to the bucket with the complete
// projective addition (RCB Alg. 7, 12M): 17M + 2S per two points against 16M + 4S for two XYZZ
// mixed additions. Pairs are formed by the entry's position in the thread's span, not in its run,
// so the threads of a warp stay in step (the even entry waits, the odd one completes the pair) and
// diverge only at run ends: a point left alone (a run ending on an even position or starting on an
// odd one), pairs with equal x (P = ±Q) and O are added one by one with the same complete addition
// (12M); points beyond τ are doubled in projective form (RCB Alg. 9). The run is stored in XYZZ
// (3M + 1S), so Alg. 5 and §3.4 are shared with the default mode.
template <class G>
struct HomogeneousAcc {
  using A = AffineOf<G>;
  using H = ec::HomogeneousOf<G>;
  using X = XyzzOf<G>;
  const A* __restrict__ table;
  uint32_t n;
  uint32_t tau;
  int shift;  // value_shift(c)
  X* __restrict__ buffer;
  H acc;
  A pending;
  bool has_pending;
  uint32_t position;  // entries seen in this thread's span

  __device__ __forceinline__ void reset() {
    acc = H::infinity();
    has_pending = false;
  }
  // One call site of the complete addition for every case: the kernel is large (each 6-limb
  // product inlines to ~560 instructions), and with the single, pair and fallback paths each
  // inlined separately, warps on different paths missed the instruction cache (accumulation ~9×
  // slower on random scalars than on identical ones, measured on the H100).
  __device__ __forceinline__ void add(uint32_t v) {
    uint32_t e;
    const A p = table_point<G>(table, n, tau, shift, v, &e);
    const bool odd = position++ & 1;
    H q;
    bool again = false;  // a second point (p) to add after q
    if (e > tau) {
      q = H::from_affine(p);
      for (uint32_t k = tau; k < e; ++k) q = q.dbl();
    } else if (!odd && !has_pending) {
      pending = p;
      has_pending = true;
      return;
    } else if (has_pending && pending.x != p.x && !pending.is_inf() && !p.is_inf()) {
      q = H::add_distinct(pending, p);
      has_pending = false;
    } else if (has_pending) {  // P = ±Q or O: one at a time
      q = H::from_affine(pending);
      pending = p;
      again = true;
      has_pending = false;
    } else {
      q = H::from_affine(p);
    }
    for (;;) {
      acc = add_complete(acc, q);
      if (!again) break;
      again = false;
      q = H::from_affine(pending);
    }
  }
  __device__ __forceinline__ void store(uint32_t slot) {
    if (has_pending) acc = add_complete(acc, H::from_affine(pending));
    has_pending = false;
    buffer[slot] = acc.to_xyzz();
  }
};

// §5 accumulation: τ = c − 1 (the engine enforces it), so every entry is one table read, a
// branch-free negation and one complete mixed addition (RCB Alg. 8, 11M) whose result is kept or
// dropped by select; the runs stay homogeneous for the constant-time aggregation.
template <class G>
struct ConstantTimeAcc {
  using A = AffineOf<G>;
  using H = ec::HomogeneousOf<G>;
  using F = typename G::field;
  const A* __restrict__ table;
  uint32_t n;
  int shift;  // value_shift(c)
  H* __restrict__ buffer;
  H acc;

  __device__ __forceinline__ void restart(bool cond) { acc = H::select(cond, H::infinity(), acc); }
  __device__ __forceinline__ void add(uint32_t v, bool skip) {
    A p = table[size_t(value_exp(v, shift)) * n + value_point(v, shift)];
    p.y = F::select(value_sign(v) != 0, -p.y, p.y);
    acc = H::select(skip, acc, acc.add(p));
  }
  __device__ __forceinline__ void store(uint32_t slot) { buffer[slot] = acc; }
};

template <class G, Budget B, Accumulation Mode>
__global__ void __launch_bounds__(kAccBlock, acc_min_blocks(G::field::N, B)) accumulate_kernel(Workspace<G> w) {
  const uint32_t j = blockIdx.y;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= w.T) return;
  const size_t base = size_t(j) * w.count;
  const WindowKeys keys{w.keys + base, bucket_mask(w.c)};
  if constexpr (Mode == Accumulation::constant_time) {
    const Span sp = thread_span(0, w.count, w.T, tid);
    ConstantTimeAcc<G> acc{w.table, w.n, value_shift(w.c), w.ct_buffer() + size_t(j) * w.ct_padded()};
    accumulate_thread_ct(tid, sp, keys, w.vals + base, w.buf_index + size_t(j) * w.ct_padded(), acc);
  } else {
    const uint32_t first = first_nonzero(keys, w.count);
    const Span sp = thread_span(first, w.count, w.T, tid);
    std::conditional_t<Mode == Accumulation::homogeneous, HomogeneousAcc<G>, XyzzAcc<G>> acc{w.table, w.n, uint32_t(w.tau), value_shift(w.c),
                                                                                                     w.buffer + size_t(j) * w.slots()};
    accumulate_thread(tid, sp, keys, w.vals + base, w.buf_offset + size_t(j) * w.T,
                      w.buf_index + size_t(j) * w.slots(), w.buf_used + size_t(j) * w.T, acc);
  }
}

// The kernel a mode launches: the other modes, and every mode of G2, are built with one budget
// each (tuning.hpp).
template <class G, Accumulation Mode>
auto accumulate_entry() {
  constexpr int limbs = G::field::N;
  constexpr bool fp2 = ff::is_fp2<typename G::field>;
  if constexpr (Mode != Accumulation::xyzz || !acc_both_budgets(fp2))
    return accumulate_kernel<G, acc_budget(limbs, Mode, fp2), Mode>;
  else
    return acc_budget_now(limbs) == Budget::tight ? accumulate_kernel<G, Budget::tight, Mode>
                                                  : accumulate_kernel<G, Budget::wide, Mode>;
}

template <class G>
uint32_t accumulate_threads(int device, Accumulation mode) {
  int sms = 0, blocks = 0;
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const auto kernel = mode == Accumulation::xyzz          ? accumulate_entry<G, Accumulation::xyzz>()
                      : mode == Accumulation::homogeneous ? accumulate_entry<G, Accumulation::homogeneous>()
                                                     : accumulate_entry<G, Accumulation::constant_time>();
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kAccBlock, 0));
  if (blocks < 1) blocks = 1;
  return uint32_t(sms) * uint32_t(blocks) * kAccBlock;
}

template <class G, Accumulation Mode>
void launch_accumulate_mode(const Workspace<G>& w, cudaStream_t s) {
  const dim3 grid(blocks_for(w.T, kAccBlock), unsigned(w.W));
  accumulate_entry<G, Mode>()<<<grid, kAccBlock, 0, s>>>(w);
  MSM_LAUNCH_CHECK("accumulate_kernel");
}

template <class G>
void launch_accumulate(const Workspace<G>& w, cudaStream_t s) {
  switch (w.mode) {
    case Accumulation::xyzz:
      return launch_accumulate_mode<G, Accumulation::xyzz>(w, s);
    case Accumulation::homogeneous:
      return launch_accumulate_mode<G, Accumulation::homogeneous>(w, s);
    case Accumulation::constant_time:
      return launch_accumulate_mode<G, Accumulation::constant_time>(w, s);
  }
}

#define MSM_INSTANTIATE(G)                         \
  template uint32_t accumulate_threads<G>(int, Accumulation); \
  template void launch_accumulate<G>(const Workspace<G>&, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE

}  // namespace msm::gpu
