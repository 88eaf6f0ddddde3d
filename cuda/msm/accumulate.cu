// Accumulation kernel, Chen et al. §3.3 Alg. 4: T threads per window, each summing its even share
// of the window's sorted entries into XYZZ runs: in the default mode each run a thread holds whole
// straight into its bucket and the two that may be split into the buffer (accumulate_thread_direct;
// the constant-time mode alike for §5: accumulate_thread_ct), in the homogeneous mode every run into
// the compact buffer for Alg. 5 (accumulate_thread); the index logic is in accumulate.cuh, shared
// with the host tests.
//
// Adding an entry (Alg. 4 lines 13–20): the point 2^min(EXP,τ)·P_i comes from the table, is
// negated for SIGN, and when EXP > τ doubled EXP − τ more times (mdbl-2008-s-1 then
// dbl-2008-s-1, EFD) and added with add-2008-s (12M + 2S); otherwise added with madd-2008-s
// (8M + 2S). One accumulator per mode of options.hpp's Accumulation: XyzzAcc (the above, its
// running sum in shared memory as in the paper's Alg. 4 from 2^20 points, in registers below that
// and for G2: SharedSum, RegisterSum), HomogeneousAcc (§3.2's double-point additions in homogeneous
// coordinates) and ConstantTimeAcc (§5: madd-2008-s branch-free from a secret blinding point, its
// runs summed by §5's complete additions). Block size and register budgets: tuning.hpp.
#include <algorithm>
#include <type_traits>

#include "accumulate.cuh"
#include "ct_open.cuh"
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

// Alg. 4's rare paths (an entry beyond τ, the constant-time mode's exceptional addition, the
// homogeneous mode's equal-x pairs and run ends) take their products inline, over
// ff::InlineProducts, while the per-entry addition calls them (ff/ptx.cuh). ptxas shares a kernel's
// register moves and carry additions between the ALU and the IMAD pipe by the kernel's static
// mix, in which a product function counts once however often it is called; with every product a
// call the kernel looks ALU-bound, and ptxas put BLS12-381's madd-2008-s at 443 IMAD-pipe
// instructions beside its 2,604 IMAD.WIDE (the argument moves as IMAD.MOV, the products' own
// carries as IMAD.X), where its 9 Montgomery reductions need 108 (the m_i), on the pipe that the
// products keep busy. Inline, the rare paths' products give the kernel its true mix, and every one
// of those moves and carries goes to the ALU (nvdisasm of sm_90, bench/gpu-notes.md); their size
// costs no instruction fetches, as they seldom run.
template <class G>
struct InlineCurve : G {
  using field = ff::inline_products_t<typename G::field>;
};
template <class G>
using inline_curve_t = std::conditional_t<std::is_same_v<ff::inline_products_t<typename G::field>, typename G::field>, G,
                                          InlineCurve<G>>;
template <class T>
struct Inlined;
template <class F>
struct Inlined<ec::Affine<F>> {
  using type = ec::Affine<ff::inline_products_t<F>>;
};
template <class F>
struct Inlined<ec::XYZZ<F>> {
  using type = ec::XYZZ<ff::inline_products_t<F>>;
};
template <class G>
struct Inlined<ec::Homogeneous<G>> {
  using type = ec::Homogeneous<inline_curve_t<G>>;
};
// The same 64-bit limbs as another type: a point as its inline-products twin, and back.
template <class To, class From>
__device__ __forceinline__ To same_limbs(const From& x) {
  static_assert(sizeof(To) == sizeof(From) && sizeof(To) % 8 == 0, "the twins hold the same limbs");
  To r;
  const uint64_t* from = reinterpret_cast<const uint64_t*>(&x);
  uint64_t* to = reinterpret_cast<uint64_t*>(&r);
#pragma unroll
  for (int k = 0; k < int(sizeof(To) / 8); ++k) to[k] = from[k];
  return r;
}
// The twin's value back as T, and x as its twin (G2's points are their own: x itself).
template <class T, class I>
__device__ __forceinline__ T outlined(const I& x) {
  if constexpr (std::is_same_v<T, I>) return x;
  else return same_limbs<T>(x);
}
template <class T>
__device__ __forceinline__ decltype(auto) inlined(const T& x) {
  if constexpr (std::is_same_v<typename Inlined<T>::type, T>) return (x);
  else return same_limbs<typename Inlined<T>::type>(x);
}

// acc + 2^k·p for k ≥ 1 (Alg. 4's EXP > τ): mdbl-2008-s-1, k − 1 × dbl-2008-s-1, add-2008-s. Out
// of line for every sum's storage: two XYZZ points at once (192 registers for BLS12-381's G2, 96
// for G1 against the shared-memory sum's 128-register budget) would otherwise set the register
// allocation of the whole kernel, spilling on the hot path too (inline in the register-sum kernel,
// BLS12-381's madd-2008-s made 33 local accesses, now none); the call costs a few stores on this
// path only, taken where τ < c − 1.
template <class X, class A>
__device__ __noinline__ X add_doubled(const X& acc, const A& p, uint32_t k) {
  auto q = Inlined<X>::type::dbl(inlined(p));
  for (uint32_t i = 1; i < k; ++i) q = q.dbl();
  return outlined<X>(inlined(acc).add(q));
}

// Alg. 4's running sum, in shared memory as the paper keeps it (§3.3): the registers then hold
// only the addition's temporaries, so more warps fit an SM (the kernel waits on the latency of its
// carry chains; BLS12-381: 128 registers and 4 blocks per SM against 168 and 3, the accumulate
// stage 0.90–0.94× the time: tuning.hpp, bench/gpu-notes.md). Each limb of a coordinate is one row
// of kAccBlock words across the block (64-bit accesses without bank conflicts); volatile, so that
// each use reads the coordinate again instead of holding it in registers across the products.
template <class P>
struct SharedSum {
  using F = typename P::field;
  static_assert(sizeof(P) % 8 == 0, "points of 64-bit limbs");
  volatile uint64_t* base;  // the thread's column
  __device__ __forceinline__ P get() const {
    P p;
    uint64_t* w = reinterpret_cast<uint64_t*>(&p);
#pragma unroll
    for (int k = 0; k < int(sizeof(P) / 8); ++k) w[k] = base[k * kAccBlock];
    return p;
  }
  __device__ __forceinline__ void set(const P& p) const {
    const uint64_t* w = reinterpret_cast<const uint64_t*>(&p);
#pragma unroll
    for (int k = 0; k < int(sizeof(P) / 8); ++k) base[k * kAccBlock] = w[k];
  }
  // Coordinate e alone (ec::XYZZ::madd_into's and ec::Homogeneous::add_into's interface).
  __device__ __forceinline__ F coord(int e) const {
    F f;
#pragma unroll
    for (int k = 0; k < F::N; ++k) f.limb[k] = base[(e * F::N + k) * kAccBlock];
    return f;
  }
  __device__ __forceinline__ void set_coord(int e, const F& f) const {
#pragma unroll
    for (int k = 0; k < F::N; ++k) base[(e * F::N + k) * kAccBlock] = f.limb[k];
  }
};
// The same interface over a sum held in registers.
template <class P>
struct RegisterSum {
  using F = typename P::field;
  P v;
  __device__ __forceinline__ P get() const { return v; }
  __device__ __forceinline__ void set(const P& p) { v = p; }
  __device__ __forceinline__ F coord(int e) const { return v.coord(e); }
  __device__ __forceinline__ void set_coord(int e, const F& f) { v.set_coord(e, f); }
};

// The default mode's accumulator over either storage of its XYZZ sum (RegisterSum, SharedSum), for
// accumulate_thread_direct: whole runs to their buckets, the two that may be split to the buffer.
template <class G, class Sum>
struct XyzzAcc {
  using A = AffineOf<G>;
  using X = XyzzOf<G>;
  const A* __restrict__ table;
  uint32_t n;
  uint32_t tau;
  int shift;  // Workspace::value_shift()
  X* __restrict__ buffer;
  X* __restrict__ buckets;  // the window's, bucket b at b − 1
  bool later;               // the buckets hold an earlier piece's sums: runs start from them
  Sum s;

  __device__ __forceinline__ void begin(uint32_t b, bool head) {
    s.set(head || !later ? X::infinity() : buckets[b - 1]);
  }
  __device__ __forceinline__ void add(uint32_t v) {
    uint32_t e;
    const A p = table_point<G>(table, n, tau, shift, v, &e);
    if (e <= tau) X::madd_into(s, p);
    else s.set(add_doubled(s.get(), p, e - tau));
  }
  __device__ __forceinline__ void bucket(uint32_t b) { buckets[b - 1] = s.get(); }
  __device__ __forceinline__ void piece(uint32_t slot) { buffer[slot] = s.get(); }
};

// The complete addition (RCB Alg. 7, 12M) of the homogeneous accumulation's rare paths (an
// equal-x pair's second point, a span's last run), out of line; for G2 also the per-pair one, which
// inlined made ptxas spill 334 B per thread instead of 102 (BLS12-381). G1 inlines the per-pair
// one: called out of line, its operands went through local memory (ncu, BLS12-381 2^20: 3.4× the
// default mode's local traffic), and calls took 2–5 % longer through the API.
template <class H>
__device__ __noinline__ H add_complete(const H& a, const H& b) {
  return outlined<H>(inlined(a).add(inlined(b)));
}

// 2^k·p in projective form (RCB Alg. 9), for the entries beyond τ (τ < c − 1 only); out of line, as
// the kernel's two uses of it are rare.
template <class H, class A>
__device__ __noinline__ H doubled_from(const A& p, uint32_t k) {
  auto q = Inlined<H>::type::from_affine(inlined(p));
  for (uint32_t i = 0; i < k; ++i) q = q.dbl();
  return outlined<H>(q);
}

// §3.2 double-point accumulation in homogeneous coordinates: two consecutive points of a run are
// summed affine + affine (mmadd-1998-cmo, 5M + 2S) and the sum added to the run's sum with the
// complete projective addition (RCB Alg. 7, 12M): 17M + 2S per two points against 16M + 4S for two
// XYZZ mixed additions. Pairs are formed by the entry's position in the thread's span, not in its
// run, so the threads of a warp stay in step: even entries wait, odd ones make the pair and add it.
// Pairs with equal x (P = ±Q) and O are added one by one; points beyond τ are doubled in projective
// form.
//
// On random scalars the threads of a warp end their runs at different entries (a run is ~64
// entries, so most steps of a 32-thread warp have some thread at a run end), and what a run end
// computes, the warp runs after its main path, not with it: with the pending point's addition and
// the conversion to XYZZ there, the kernel took 1.7× the default mode's (ncu, BLS12-381 2^20;
// bench/gpu-notes.md). So a run end computes nothing: a run whose last point still waits for a
// partner is finished by the next entry's addition, which every thread of the warp makes at that
// step (that entry then starts the new run alone: O + it needs no addition), and runs are stored
// homogeneous and converted to XYZZ (3M + 1S) together after the span (finish), where the threads
// of a warp have about as many runs each. Alg. 5 and §3.4 read XYZZ as in the default mode.
// Sum: the run's projective sum in registers, or for G1 from 2^20 points in shared memory
// (SharedSum, as the default mode's), added to in place (Homogeneous::add_into).
template <class G, class Sum, class Wait>
struct HomogeneousAcc {
  using A = AffineOf<G>;
  using H = ec::HomogeneousOf<G>;
  using X = XyzzOf<G>;
  const A* __restrict__ table;
  uint32_t n;
  uint32_t tau;
  int shift;  // Workspace::value_shift()
  X* __restrict__ buffer;
  Sum acc;
  Wait pending;                // the run's point waiting for a partner; with closing, the finished run's last
  bool has_pending = false;   // pending belongs to the current run
  bool closing = false;       // the previous run (acc + pending) goes to closing_slot at the next addition
  uint32_t position = 0;      // entries seen in this thread's span
  uint32_t closing_slot = 0;

  // The sum as an operand: a reference where it is a register H (a copy taken before the out-of-line
  // calls made ptxas spill 136 B at the tight budget, BLS12-381, where it spills none).
  __device__ __forceinline__ decltype(auto) sum() const {
    if constexpr (std::is_same_v<Sum, H>) return (acc);
    else return acc.get();
  }
  __device__ __forceinline__ decltype(auto) waiting() const {
    if constexpr (std::is_same_v<Wait, A>) return (pending);
    else return pending.get();
  }
  __device__ __forceinline__ void hold(const A& p) {
    if constexpr (std::is_same_v<Wait, A>) pending = p;
    else pending.set(p);
  }
  __device__ __forceinline__ void reset() {
    if (!closing) acc.set(H::infinity());
    has_pending = false;
  }
  __device__ __forceinline__ void add(uint32_t v) {
    uint32_t e;
    const A p = table_point<G>(table, n, tau, shift, v, &e);
    const bool odd = position++ & 1;
    const bool doubled = e > tau;
    H b;
    bool again = false;  // a second point (pending) to add after b
    if (closing) {  // the finished run's last point; this entry starts the next run alone
      b = H::from_affine(waiting());
      hold(p);
    } else if (doubled) {
      b = doubled_from<H>(p, e - tau);
    } else if (!odd && !has_pending) {
      hold(p);
      has_pending = true;
      return;
    } else if (has_pending && waiting().x != p.x && !waiting().is_inf() && !p.is_inf()) {
      b = H::add_distinct(waiting(), p);
      has_pending = false;
    } else if (has_pending) {  // P = ±Q or O: one at a time
      b = H::from_affine(waiting());
      hold(p);
      again = true;
      has_pending = false;
    } else {
      b = H::from_affine(p);
    }
    if constexpr (ff::is_fp2<typename G::field>) acc.set(add_complete(sum(), b));
    else H::add_into(acc, b);
    if (closing) {
      put(closing_slot, sum());
      closing = false;
      acc.set(doubled ? doubled_from<H>(waiting(), e - tau) : H::from_affine(waiting()));
      return;
    }
    if (again) acc.set(add_complete(sum(), H::from_affine(waiting())));
  }
  __device__ __forceinline__ void store(uint32_t slot) {
    if (has_pending) {
      closing = true;
      closing_slot = slot;
      has_pending = false;
    } else {
      put(slot, sum());
    }
  }
  // After the span: the last run's waiting point, then the thread's `runs` runs from slot `first`
  // (Alg. 4's buffer_offset and buffer_used) to XYZZ.
  __device__ __forceinline__ void finish(uint32_t first, uint32_t runs) {
    if (closing) put(closing_slot, add_complete(sum(), H::from_affine(waiting())));
    closing = false;
    for (uint32_t s = first; s < first + runs; ++s) {
      const X x = buffer[s];
      buffer[s] = H{x.X, x.Y, x.ZZ}.to_xyzz();
    }
  }
  // A homogeneous run in an XYZZ slot: (X, Y, Z) in its first three coordinates until finish.
  __device__ __forceinline__ void put(uint32_t slot, const H& h) {
    buffer[slot].X = h.X;
    buffer[slot].Y = h.Y;
    buffer[slot].ZZ = h.Z;
  }
};

// The complete mixed addition (RCB Alg. 8, 11M + 2m_3b) for ConstantTimeAcc's exceptional case,
// out of line: s = O or s = ±q, which madd_blinded_into leaves to it.
template <class G, class X, class A>
__device__ __noinline__ X add_exceptional(const X& s, const A& q) {
  using H = typename Inlined<HomOf<G>>::type;
  H h = H::from_xyzz(inlined(s));
  H::add_into(h, inlined(q), false);
  return outlined<X>(h.to_xyzz());
}

// §5 accumulation: τ = c − 1 (the engine enforces it), so every entry is one table read, a
// branch-free negation and one mixed addition whose result is kept or dropped by select; the runs
// a thread holds whole go to their buckets, its first and last to the §5 slots (accumulate_thread_ct).
//
// The addition is the default mode's madd-2008-s (8M + 2S) on an XYZZ sum, made branch-free
// (ec/xyzz.hpp madd_blinded_into), not RCB Alg. 8 (11M + 2m_3b on a homogeneous sum, whose chains
// left the kernel waiting with too few warps: ncu, bench/gpu-notes.md). madd-2008-s is incomplete,
// so every run starts from the context's blinding point R = k·G, k secret and random (ec/
// blinding.hpp), or from its bucket's earlier sum, which holds R already: a running sum is then R +
// (points the caller chose), and meets s = O or s = ±q only where R = ±q − (a partial sum), a chance
// of about 2/r an addition whoever chose the points and scalars. Should it happen, madd_blinded_into
// says so before writing and add_exceptional adds by RCB Alg. 8 on a branch, so the result is exact
// either way. A run's start and end only move memory: a thread reaches its few run ends at steps
// of its own, so whatever a run end computes, the warp runs lane by lane (converting there, the
// kernel took 1.5–1.7× this one's time: bench/gpu-notes.md). So runs are stored as XYZZ, head pieces
// (a run that goes on from the thread before) start from R too, and what R and §5 ask of the two
// slots is done after the loop, which a warp's threads leave together (⌈n/T⌉ additions each, but
// for the last spans; ct_open.cuh: the slots homogeneous, the head pieces' R counted; as a launch
// of its own it cost ~0.02 ms more a call at 2^16, bench/gpu-notes.md).
// Every bucket starts as R (launch_clear_buckets), so a later piece's run starts from its bucket
// whatever wrote it, each bucket holds R once when §3.4 reads it, and the host takes the
// reduction's multiple of R and the counted ones off the result at once (combine.hpp unblinded).
template <class G, class Sum>
struct ConstantTimeAcc {
  using A = AffineOf<G>;
  using X = XyzzOf<G>;
  using F = typename G::field;
  const A* __restrict__ table;
  uint32_t n;
  int shift;  // Workspace::value_shift()
  X* __restrict__ runs;     // the window's §5 slots (Workspace::ct_runs)
  X* __restrict__ buckets;  // the window's, bucket b at b − 1
  bool later;               // the buckets hold an earlier piece's sums: runs start from them
  A blind;                  // R
  Sum s;                    // RegisterSum<X>, or SharedSum<X>

  __device__ __forceinline__ void begin(uint32_t b, bool head) {
    const X r{blind.x, blind.y, F::one(), F::one()};
    if (head || b == 0 || !later) s.set(r);
    else s.set(buckets[b - 1]);
  }
  __device__ __forceinline__ void add(uint32_t v, bool skip) {
    A p = table[size_t(value_exp(v, shift)) * n + value_point(v, shift)];
    p.y = F::select(value_sign(v) != 0, -p.y, p.y);
    if (X::madd_blinded_into(s, p, skip | p.is_inf())) s.set(add_exceptional<G>(s.get(), p));
  }
  __device__ __forceinline__ void store(uint32_t slot) { runs[slot] = s.get(); }
  __device__ __forceinline__ void store_infinity(uint32_t slot) { runs[slot] = X::infinity(); }
  __device__ __forceinline__ void bucket(uint32_t b) { buckets[b - 1] = s.get(); }
};

template <class G, Budget B, Accumulation Mode>
__global__ void __launch_bounds__(kAccBlock, acc_min_blocks(G::field::N, B, Mode)) accumulate_kernel(Workspace<G> w) {
  const uint32_t j = blockIdx.y;
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= w.T) return;
  const uint32_t count = w.entries();
  const size_t base = size_t(j) * count;
  const WindowKeys keys{w.keys + base, bucket_mask(w.log_m())};
  extern __shared__ uint64_t acc_shared[];  // Budget::shared: kAccBlock sums (accumulate_smem)
  if constexpr (Mode == Accumulation::constant_time) {
    const Span sp = thread_span(0, count, w.span_threads(count), tid);
    using X = XyzzOf<G>;
    using Sum = std::conditional_t<B == Budget::shared, SharedSum<X>, RegisterSum<X>>;
    ConstantTimeAcc<G, Sum> acc{w.table,
                                w.n,
                                w.value_shift(),
                                w.ct_runs + size_t(j) * w.ct_padded(),
                                w.buckets + size_t(j) * w.M(),
                                w.later,
                                w.blind,
                                {}};
    if constexpr (B == Budget::shared) acc.s.base = acc_shared + threadIdx.x;
    accumulate_thread_ct(tid, sp, keys, w.vals + base, w.buf_index + size_t(j) * w.ct_padded(), acc);
    ct_open(w, j, tid, sp, keys);  // §5's level 1 from the two slots just written (ct_open.cuh)
  } else if constexpr (Mode == Accumulation::homogeneous) {
    using H = ec::HomogeneousOf<G>;
    const uint32_t first = first_nonzero(keys, count);
    const Span sp = thread_span(first, count, w.span_threads(count - first), tid);
    using A = AffineOf<G>;
    constexpr bool in_shared = B == Budget::shared;
    HomogeneousAcc<G, std::conditional_t<in_shared, SharedSum<H>, H>, std::conditional_t<in_shared, SharedSum<A>, A>> acc{
        w.table, w.n, uint32_t(w.tau), w.value_shift(), w.buffer + size_t(j) * w.slots()};
    if constexpr (in_shared) {
      acc.acc.base = acc_shared + threadIdx.x;
      acc.pending.base = acc_shared + size_t(kAccBlock) * (sizeof(H) / 8) + threadIdx.x;
    }
    uint32_t* const offset = w.buf_offset + size_t(j) * w.T;
    uint32_t* const used = w.buf_used + size_t(j) * w.T;
    accumulate_thread(tid, sp, keys, w.vals + base, offset, w.buf_index + size_t(j) * w.slots(), used, acc);
    acc.finish(offset[tid], used[tid]);
  } else {
    const uint32_t first = first_nonzero(keys, count);
    using X = XyzzOf<G>;
    using Sum = std::conditional_t<B == Budget::shared, SharedSum<X>, RegisterSum<X>>;
    XyzzAcc<G, Sum> acc{w.table,   w.n,   uint32_t(w.tau), w.value_shift(), w.buffer + size_t(j) * w.slots(),
                        w.buckets + size_t(j) * w.M(), w.later, {}};
    if constexpr (B == Budget::shared) acc.s.base = acc_shared + threadIdx.x;
    accumulate_thread_direct(tid, thread_span(first, count, w.span_threads(count - first), tid), keys, w.vals + base, first, count,
                             w.buf_offset + size_t(j) * w.T, w.buf_used + size_t(j) * w.T, acc);
  }
}

// The kernel a mode launches: G1's modes keep their sums in shared memory where acc_shared_for says
// (`shared`); otherwise, and in every mode of G2, in registers at one budget each (tuning.hpp).
template <class G, Accumulation Mode>
auto accumulate_entry(bool shared) {
  constexpr int limbs = G::field::N;
  constexpr bool fp2 = ff::is_fp2<typename G::field>;
  if constexpr (!acc_has_shared(fp2))
    return accumulate_kernel<G, acc_budget(limbs, fp2), Mode>;
  else
    return shared ? accumulate_kernel<G, Budget::shared, Mode> : accumulate_kernel<G, acc_budget(limbs, fp2), Mode>;
}

// Dynamic shared memory of Alg. 4's kernel: the block's running sums where they live there.
template <class G>
size_t accumulate_smem(bool shared, Accumulation mode) {
  if (!shared) return 0;
  if (mode == Accumulation::homogeneous)  // the sum and the waiting point
    return size_t(kAccBlock) * (sizeof(HomOf<G>) + sizeof(AffineOf<G>));
  return size_t(kAccBlock) * sizeof(XyzzOf<G>);  // an XYZZ sum (the default and constant-time modes)
}

template <class G, Accumulation Mode>
uint32_t accumulate_threads_mode(int device, bool shared) {
  int sms = 0, blocks = 0;
  MSM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  shared = shared && acc_has_shared(ff::is_fp2<typename G::field>);
  const auto kernel = accumulate_entry<G, Mode>(shared);
  const size_t smem = accumulate_smem<G>(shared, Mode);
  if (smem) {  // the carveout that holds the blocks the budget was built for, the rest left to L1
    int per_sm = 0, reserved = 0;
    MSM_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    MSM_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    const size_t want = size_t(acc_min_blocks(G::field::N, Budget::shared, Mode)) * (smem + size_t(reserved));
    const int pct = int(std::min<size_t>(100, (want * 100 + size_t(per_sm) - 1) / size_t(per_sm)));
    MSM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, pct));
  }
  MSM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kAccBlock, smem));
  if (blocks < 1) blocks = 1;
  return uint32_t(sms) * uint32_t(blocks) * kAccBlock;
}

template <class G, Accumulation Mode>
void launch_accumulate_mode(const Workspace<G>& w, cudaStream_t s) {
  const dim3 grid(blocks_for(w.T, kAccBlock), unsigned(w.W));
  accumulate_entry<G, Mode>(w.shared_sum)<<<grid, kAccBlock, accumulate_smem<G>(w.shared_sum, Mode), s>>>(w);
  MSM_LAUNCH_CHECK("accumulate_kernel");
}

#define MSM_HOMOGENEOUS_MODE(prefix, G)                                                                      \
  prefix template uint32_t accumulate_threads_mode<G, Accumulation::homogeneous>(int, bool);              \
  prefix template void launch_accumulate_mode<G, Accumulation::homogeneous>(const Workspace<G>&, cudaStream_t);

#if defined(MSM_ACC_HOMOGENEOUS)
// accumulate_homogeneous.cu: G1's homogeneous mode alone, its products out of line (CMakeLists.txt).
#define MSM_INSTANTIATE(G) MSM_HOMOGENEOUS_MODE(, G)
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE
#else
#if !defined(MSM_STAGE_G2)
#define MSM_INSTANTIATE(G) MSM_HOMOGENEOUS_MODE(extern, G)
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE
#endif

template <class G>
uint32_t accumulate_threads(int device, Accumulation mode, bool shared) {
  if (mode == Accumulation::xyzz) return accumulate_threads_mode<G, Accumulation::xyzz>(device, shared);
  if (mode == Accumulation::homogeneous) return accumulate_threads_mode<G, Accumulation::homogeneous>(device, shared);
  return accumulate_threads_mode<G, Accumulation::constant_time>(device, shared);
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

#define MSM_INSTANTIATE(G)                                          \
  template uint32_t accumulate_threads<G>(int, Accumulation, bool); \
  template void launch_accumulate<G>(const Workspace<G>&, cudaStream_t);
MSM_FOR_EACH_STAGE_CURVE(MSM_INSTANTIATE)
#undef MSM_INSTANTIATE
#endif
#undef MSM_HOMOGENEOUS_MODE

}  // namespace msm::gpu
