// Constant-time aggregation of the buffered runs into buckets: Chen et al. §5 (papers/000), the
// index logic shared by the kernels (ct_aggregate.cu) and the host tests (test/native/stages_ct.cpp).
//
// The buffer comes from accumulate_thread_ct (accumulate.cuh): thread tid's first run sits at slot
// 2·tid and its last at 2·tid + 1 (O with the first run's bucket when it has one run); every other
// run went to its bucket directly and never reaches §5. Unused slots hold O with index 0 (the
// paper's redundant bucket at offset 0; our bucket indices already start at 1, 0 being the zero
// digit, whose runs are O too). A bucket split over threads tid, tid+1, … therefore lies in
// consecutive slots, and index-0 slots sit only before the smallest index (zero digits) and after
// the largest (empty threads, padding), as §5 requires. Index 0 compares "equal to the preceding
// value and smaller than the following one", so it joins the run before it and adds O there.
//
// Chen et al. run §5 as rounds of groups of four elements (Table 5: two complete additions and two
// copies per group, operands chosen by table lookup), so that each round's survivors, two of four,
// hold the partial sums that may continue on either side. Each round is two chained additions, and
// the rounds are latency-bound (~2^17 elements, one or two groups a thread after the first few
// rounds): §5 took 0.3–0.6 ms a piece whatever n (bench/gpu-notes.md). Here the same reduction is
// a tree of one addition per level. A node of span d, elements [base, base + d), holds its first
// key kf and the sum h of its elements of that key at base, its last key kl and their sum t at
// base + d/2 (an element, d = 1: both at itself); single (kf = kl) means one key throughout, h = t
// the whole sum. Index 0 joins the key before it (ct_eq), so a node's kl is its last non-zero key (0
// only for all-zero nodes). Two nodes L, R of span d combine into one of span 2d with s = t_L + h_R,
// the only addition:
//   kl_L "=" kf_R:  h = single_L ? s : h_L,  t = single_R ? s : t_R,  and where neither is single,
//                   s is the whole sum of bucket kl_L (nothing left of it elsewhere): OUT(s).
//   otherwise:      h = h_L, t = t_R, and t_L (unless single_L: then it is h) and h_R (unless
//                   single_R) are whole: OUT(t_L), OUT(h_R).
// After log2(P) levels the root OUTs h, and t unless single. Every thread runs one PADD, three
// selects and two OUTs per level whatever the keys are (an OUT not taken, or of index 0, goes to a
// sink; level d = 1 has none, its elements being single; the upper levels' OUTs wait in the buffer
// for one pass, StagedOuts): the data decide addresses, never the instruction stream; and every
// bucket reaching §5 is written exactly once. An OUT overwrites its bucket: the bucket's first run
// in Alg. 4 started from the bucket's earlier value (accumulate.cu ConstantTimeAcc), so s already
// holds it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../ff/common.hpp"

namespace msm::gpu {

// "=" between consecutive indices u, v: equal, or v = 0 (a redundant slot joins the run before it).
MSM_HD MSM_INLINE uint32_t ct_eq(uint32_t u, uint32_t v) { return uint32_t(v == 0) | uint32_t(u == v); }

// Padded element count of one window: a power of two ≥ max(slots, 4) (the padding is O, index 0).
MSM_HD MSM_INLINE uint32_t ct_padded(uint32_t slots) {
  uint32_t p = 4;
  while (p < slots) p <<= 1;
  return p;
}
// The window's §5 buffer for T Alg. 4 threads: their head and tail slots, padded.
MSM_HD MSM_INLINE uint32_t ct_window_slots(uint32_t T) { return ct_padded(2 * T); }

// Where the OUTs go: bucket v ≥ 1 at bucket(v), and an OUT not taken (or of index 0, the redundant
// bucket) at sink(slot), slot being the buffer slot the value comes from, so that every thread makes
// the same stores. The sinks lie outside the buffer (on the device in ct_runs, dead by then), so
// that ct_pair may store the new nodes before its OUTs, their operands no longer live during the
// OUTs' products. The buckets' points may be of another type than the buffer's (on the device XYZZ
// buckets, homogeneous §5 elements): Op::put converts. (A local sink, as the paper's, let the
// compiler drop every OUT: the kernel then wrote no bucket at all; nvcc 13.0, sm_90.)
template <class BucketAt, class SinkAt>
struct OutTargets {
  BucketAt bucket;
  SinkAt sink;
  MSM_HD MSM_INLINE auto at(uint32_t key, bool on, uint32_t slot) const {
    auto* const b = bucket(key | uint32_t(key == 0));
    auto* const k = sink(slot);
    return on && key != 0 ? b : k;
  }
  template <class Op, class V>
  MSM_HD MSM_INLINE void put(const Op& op, uint32_t key, bool on, uint32_t slot, const V& v) const {
    op.put(at(key, on, slot), v);
  }
};
template <class BucketAt, class SinkAt>
MSM_HD MSM_INLINE OutTargets<BucketAt, SinkAt> out_targets(BucketAt bucket, SinkAt sink) {
  return {bucket, sink};
}

// OUTs staged in the buffer itself, for the upper levels (ct_stage_from), where a launch holds a
// pair for few of its workers: there each level waits on one pair's chain, and an OUT's conversion
// to the buckets' type (on the device 1S + 1M a lane of a quad, after a shuffle) is about a third of
// it (bench/gpu-notes.md). The OUT stores its point and its key (0 where not taken) as they are, and
// ct_put_pair later sends them to their bucket or sink, every pair's two at once, all in one launch.
// A node [s, s + span) stores its OUT at s + offset, off its node positions (multiples of span/2,
// the only ones this level and the later ones read or write: offset = span/2 − 1 for a level's
// pair, span = d), so no later level reads it; the records of level d lie at span/2 − 1 mod span,
// those of every later level and the root's (span = P/2, offset = span − 1) at −1 mod d, so no two
// records meet (test/native/stages_ct.cpp checks both on every layout it builds).
template <class P>
struct StagedOuts {
  P* buf;
  uint32_t* index;
  uint32_t span, offset;
  MSM_HD MSM_INLINE uint32_t record(uint32_t slot) const { return (slot & ~(span - 1)) + offset; }
  template <class Op, class V>
  MSM_HD MSM_INLINE void put(const Op& op, uint32_t key, bool on, uint32_t slot, const V& v) const {
    const uint32_t at = record(slot);
    op.store(buf + at, v);
    if (op.lead()) index[at] = on && key != 0 ? key : 0;
  }
};
// Level d's, and the root's (d = P).
template <class P>
MSM_HD MSM_INLINE StagedOuts<P> staged_outs(P* buf, uint32_t* index, uint32_t d, uint32_t padded) {
  return d < padded ? StagedOuts<P>{buf, index, d, d / 2 - 1} : StagedOuts<P>{buf, index, padded / 2, padded / 2 - 1};
}
// The first distance whose OUTs may be staged: a record needs a free position below span/2.
constexpr uint32_t kCtStageFrom = 4;

// One thread of one level: nodes [base, base + d) and [base + d, base + 2d) into one (d = 1: two
// elements). P: point type with add (complete: O, P = ±Q) and select; buf/index: the window's padded
// buffer; outs: OutTargets.
// `op` says how the thread takes part in the pair: WholePoints (the default) reads, adds, selects
// and stores whole points; on the device G1's pairs run by a quad of lanes (ct_aggregate.cu QuadPart:
// the addition by the quad, ec/quad.cuh, each lane then reading, selecting and storing one
// coordinate), every lane calling ct_pair with the same arguments.
struct WholePoints {
  template <class P>
  using Part = P;
  template <class P>
  MSM_HD MSM_INLINE static P sum(const P* a, const P* b) {
    return a->add(*b);
  }
  template <class P>
  MSM_HD MSM_INLINE static P load(const P* p) {
    return *p;
  }
  template <class P>
  MSM_HD MSM_INLINE static void store(P* p, const P& v) {
    *p = v;
  }
  // An OUT: the point itself, or as XYZZ where the buckets are (Homogeneous::to_xyzz, 3M + 1S).
  template <class Q, class P>
  MSM_HD MSM_INLINE static void put(Q* q, const P& v) {
    if constexpr (std::is_same_v<Q, P>) *q = v;
    else *q = v.to_xyzz();
  }
  MSM_HD MSM_INLINE static bool lead() { return true; }  // stores the index
};
template <class P, class Outs, class Op = WholePoints>
MSM_HD MSM_INLINE void ct_pair(P* buf, uint32_t* index, uint32_t base, uint32_t d, Outs outs, Op op = {}) {
  const uint32_t q = d >> 1;  // a node of span d keeps its t at d/2 (an element: at itself)
  const uint32_t kf1 = index[base], kl1 = index[base + q], kf2 = index[base + d], kl2 = index[base + d + q];
  const bool eq = ct_eq(kl1, kf2) != 0, single1 = kf1 == kl1, single2 = kf2 == kl2;
  using V = typename Op::template Part<P>;
  const V s = op.sum(buf + base + q, buf + base + d);
  const V t1 = op.load(buf + base + q), h2 = op.load(buf + base + d);
  const V h1 = q ? op.load(buf + base) : t1;  // h_L and t_R (an element: t_L and h_R)
  const V t2 = q ? op.load(buf + base + d + q) : h2;
  const V o1 = V::select(eq, s, t1);
  op.store(buf + base, V::select(eq && single1, s, h1));
  op.store(buf + base + d, V::select(eq && single2, s, t2));
  if (q) {  // elements are single, so d = 1 takes no OUT: a branch on the level, never on the data
    outs.put(op, kl1, eq ? !single1 && !single2 : !single1, base + q, o1);
    outs.put(op, kf2, !eq && !single2, base + d, h2);
  }
  if (op.lead()) index[base + d] = kl2 == 0 ? kl1 : kl2;
}

// Level d = 1 over Alg. 4 thread tid's two slots (base = 2·tid), h and t its head and tail points,
// without ct_pair's addition: the slots' keys are "equal" only where the thread holds one run (its
// tail slot O with the head's key; accumulate_thread_ct) or none but zero digits (tail index 0, O),
// so that s = h + t is h wherever ct_pair would select it. The node is then h at base and, at
// base + 1, h where single over both slots and t otherwise; this returns the latter and stores the
// node's last key as ct_pair does. Same instructions whatever the keys (a select, no branch), and
// one complete addition a pair less: level 1 holds half of §5's pairs (ct_open.cuh).
// test/native/stages_ct.cpp runs it beside ct_pair at d = 1 on every layout it builds.
template <class P>
MSM_HD MSM_INLINE P ct_first_level(uint32_t* index, uint32_t base, const P& h, const P& t) {
  const uint32_t kh = index[base], kt = index[base + 1];
  index[base + 1] = kt == 0 ? kh : kt;
  return P::select(ct_eq(kh, kt) != 0, h, t);
}
// The distance §5's launches start from: level 1 is ct_first_level's, in ct_open.
constexpr uint32_t kCtFirstDistance = 2;

// The root (h at 0, t at P/2): OUT(h), and OUT(t) unless single.
template <class P, class Outs, class Op = WholePoints>
MSM_HD MSM_INLINE void ct_root(P* buf, uint32_t* index, uint32_t half, Outs outs, Op op = {}) {
  const uint32_t kf = index[0], kl = index[half];
  const auto h = op.load(buf), t = op.load(buf + half);
  outs.put(op, kf, true, 0, h);
  outs.put(op, kl, kf != kl, half, t);
}

// The staged levels (distances ds, 2·ds, …, P/2) have P/ds − 1 pairs, numbered as a heap: pair h ≥ 1
// of level P/(2·N), N the largest power of two ≤ h, is that level's pair h − N; h = 0 is the root.
// ct_put_pair sends pair h's two records to their targets (`outs`, an OutTargets) by `op`'s put,
// whatever they hold, but for the pairs that start past the `live` elements: their records hold O
// and key 0 (whether a launch ran them on the padding or not), which would go to a sink. Which pairs
// those are depends on T alone.
MSM_HD MSM_INLINE uint32_t ct_staged_pairs(uint32_t padded, uint32_t ds) { return ds > padded / 2 ? 1 : padded / ds; }
struct CtRecords {
  uint32_t base, a, b;  // the pair's first element, its two records
};
MSM_HD MSM_INLINE CtRecords ct_staged_records(uint32_t padded, uint32_t h) {
  uint32_t span = padded / 2, offset = span - 1, base = 0;  // the root: records at P/2 − 1 and P − 1
  if (h > 0) {
    uint32_t N = 1;
    while (2 * N <= h) N <<= 1;
    span = padded / (2 * N), offset = span / 2 - 1, base = 2 * span * (h - N);
  }
  return {base, base + offset, base + span + offset};
}
template <class P, class Outs, class Op = WholePoints>
MSM_HD MSM_INLINE void ct_put_pair(const P* buf, const uint32_t* index, uint32_t padded, uint32_t live, uint32_t h,
                                   Outs outs, Op op = {}) {
  const CtRecords r = ct_staged_records(padded, h);
  if (h > 0 && r.base >= live) return;
  outs.put(op, index[r.a], true, r.a, op.load(buf + r.a));
  outs.put(op, index[r.b], true, r.b, op.load(buf + r.b));
}

// Levels for P padded elements: distances 1, 2, …, P/2, then ct_root.
MSM_HD MSM_INLINE int ct_rounds(uint32_t padded) {
  int r = 0;
  while ((2u << r) <= padded) ++r;
  return r;
}

// The levels in launches (ct_aggregate.cu), the first from kCtFirstDistance. A launch runs
// distances d0, 2·d0, …, d1, its block b owning the elements [2·d1·b, 2·d1·(b + 1)), which hold
// d1/d pairs at distance d (its `block` workers, a thread or a quad of lanes each, take them in
// turn), with a barrier of the block between its levels; the next launch starts at 2·d1. A level's
// pairs lie inside one block's elements up to d1, so the order is the tree's. Each level costs one
// complete addition's latency, and between launches the device drains and refills: so a launch
// spans as many levels as keep every worker busy in its first (d1 = d0·block), more where the
// blocks it runs (ct_launch_blocks: those holding any of the `live` elements) would not all be
// resident at once (`resident`: a second wave would repeat every level), and the last launch takes
// every remaining level once its first has at most two pairs a worker, ending with ct_root. For
// 2^17 live of P = 2^18 and 128 workers: d = 2 … 256 at 396 resident blocks, 2 … 512 at 132 (G1's
// quads on an H100: one block of 512 threads an SM), then the rest.
MSM_HD MSM_INLINE uint32_t ct_launch_blocks(uint32_t padded, uint32_t d1, uint32_t live);
MSM_HD MSM_INLINE uint32_t ct_launch_last(uint32_t d0, uint32_t padded, uint32_t block, uint32_t resident,
                                          uint32_t live) {
  const uint32_t top = padded / 2;
  if (top / d0 <= 2 * block) return top;
  uint32_t d1 = d0 * block;
  while (d1 < top && ct_launch_blocks(padded, d1, live) > resident) d1 *= 2;
  return d1 < top ? d1 : top;
}
// The first staged distance (StagedOuts): from kCtStageFrom, where the first launch (from
// kCtFirstDistance) holds at most kCtStagedPairs pairs a block, and every later level, so that the
// staged levels are one run of distances (ct_put_pair's heap). A staged level saves ~2 µs of its
// launch and costs its pairs' share of ct_put_kernel (BN254 2^16, one H200: 24 µs from d = 4, 10
// from d = 32; bench/gpu-notes.md), so it pays from a few thousand pairs down. Depends on T, device.
constexpr uint32_t kCtStagedPairs = 16;
MSM_HD MSM_INLINE uint32_t ct_stage_from(uint32_t padded, uint32_t block, uint32_t resident, uint32_t live) {
  const uint32_t d1 = ct_launch_last(kCtFirstDistance, padded, block, resident, live), ds = d1 / kCtStagedPairs;
  return ds > kCtStageFrom ? ds : kCtStageFrom;
}
// Blocks of the launch ending at d1 that hold any of the first `live` elements (the 2T slots Alg. 4
// wrote; at least one, for ct_root). A block past them would only combine padding (O, index 0) into
// padding, as ct_open stores it; a node over live elements and padding is still
// combined, in the block that holds its live part. At T = 67,584 (an H100's resident Alg. 4 threads)
// the 135,168 slots pad to 262,144, so about half the first launch's blocks. Which blocks run depends
// on T alone, never on the scalars.
MSM_HD MSM_INLINE uint32_t ct_launch_blocks(uint32_t padded, uint32_t d1, uint32_t live) {
  const uint32_t span = 2 * d1, all = padded / span, held = (live + span - 1) / span;
  return held == 0 ? 1 : held < all ? held : all;
}
// The base of the k-th pair (k < d1/d) of block b at distance d in the launch ending at d1.
MSM_HD MSM_INLINE uint32_t ct_launch_base(uint32_t b, uint32_t k, uint32_t d, uint32_t d1) {
  return 2 * d * (b * (d1 / d) + k);
}

}  // namespace msm::gpu
