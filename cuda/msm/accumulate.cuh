// Load-balanced accumulation into compact buffers: Chen et al. §3.3, Alg. 4 (the index logic).
//
// One window's sorted entries (keys = bucket, ascending; values = point | EXP | SIGN) are split
// evenly over T threads: thread tid takes [s, e) = first + [⌈m/T⌉·tid, ⌈m/T⌉·(tid+1)) ∩ [first, n)
// where `first` skips the zero digits (key 0, sorted to the front) and m = n − first. The thread
// sums each run of equal buckets into one point and writes it to the window's buffer at
//   buffer_offset[tid] = tid + key[s]                                    (Eq. (2), Alg. 4 line 3)
// then offset+1, … one slot per run (lines 7–10, 22–23); buffer_index holds the run's bucket and
// buffer_used[tid] the number of runs (line 24). Thread tid's last slot is tid + key[e−1] ≤
// T − 1 + 2^(c−2), and thread tid+1 starts after it, so a buffer of T + 2^(c−2) slots per window
// never overlaps (the paper's ⌈λ/c⌉·(N + 2^(c−2)) in total). Empty threads (only at the tail, as
// ⌈m/T⌉ is the chunk) write buffer_used = 0.
//
// The point arithmetic is a template parameter `Acc` (reset / add(value) / store(slot)): the GPU
// kernel (accumulate.cu) instantiates it with XYZZ points, the host tests (test/native/stages.cpp)
// with integers, so both run this same code.
#pragma once

#include <cstdint>

#include "../ff/common.hpp"

namespace msm::gpu {

struct Span {
  uint32_t s, e;
};

// A window's sorted keys read as buckets: the sort's keys carry the window's place in its sort group
// above the bucket bits (recode.cuh sort_key), the same in all of the window's entries. The host
// tests pass plain bucket arrays, which index alike.
struct WindowKeys {
  const uint32_t* keys;
  uint32_t mask;  // bucket_mask(log_m)
  MSM_HD MSM_INLINE uint32_t operator[](uint32_t i) const { return keys[i] & mask; }
};

// First index in keys[0, n) with key ≥ 1 (the zero digits sort first).
template <class Keys>
MSM_HD MSM_INLINE uint32_t first_nonzero(const Keys& keys, uint32_t n) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + ((hi - lo) >> 1);
    if (keys[mid] == 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Alg. 4 line 1: thread tid's entries among [first, n) split in chunks of ⌈m/T⌉.
MSM_HD MSM_INLINE Span thread_span(uint32_t first, uint32_t n, uint32_t T, uint32_t tid) {
  const uint32_t m = n - first;
  const uint64_t chunk = (uint64_t(m) + T - 1) / T;
  uint64_t s = chunk * tid, e = chunk * (uint64_t(tid) + 1);
  if (s > m) s = m;
  if (e > m) e = m;
  return Span{first + uint32_t(s), first + uint32_t(e)};
}

// Alg. 4's threads in waves. With T = the resident threads every thread has the same share, yet the
// SM's warps do not keep pace with each other: at 2^20 on one H200 Alg. 4's warps averaged 5.9 of
// the 8 a scheduler holds (BN254; the heavy multiply pipe 79 % busy, BLS12-381 82 %), the last ones
// running with too few beside them to fill the pipe. k waves of blocks let an SM start another block
// as one ends (BN254 / BLS12-381 2^20, k = 4: Alg. 4 1.99 → 1.87 ms, 5.11 → 4.73), but each span
// end may split a bucket, and Alg. 5's work grows with the spans (split_kernel and heavy_kernel
// 92 → 608 µs a piece at BN254 2^20, k = 4): a wave more only while each thread keeps at least
// kWaveEntries entries (bench/gpu-notes.md, "Alg. 4 in waves"). The plan sizes T for the most
// waves its largest window takes (Plan::waves); each launch takes those its own entries allow
// (Workspace::span_threads), so that few entries (a call's first piece, mostly-zero or small
// scalars) keep one wave.
// The count is any whole number: in powers of two, BN254 2^24's last piece (~132 M entries) fell
// from four waves to two where 244 entries a thread at four missed kWaveEntries (bench/gpu-notes.md,
// "The pieces' cuts with a fixed cost a piece").
constexpr uint32_t kWaveEntries = 256;
constexpr uint32_t kMaxWaves = 8;
// Waves (1 … `most`) for m entries over `per_wave` threads a wave, each thread keeping at least
// `least` entries (kWaveEntries; 0 where MSM_CUDA_WAVES fixes them at `most`).
MSM_HD MSM_INLINE uint32_t alg4_waves(uint64_t m, uint32_t per_wave, uint32_t most, uint32_t least = kWaveEntries) {
  if (least == 0) return most;
  const uint64_t k = m / (uint64_t(per_wave) * least);
  return k < 1 ? 1u : k > most ? most : uint32_t(k);
}

// Alg. 4 for one thread. Writes buffer_offset[tid], buffer_used[tid] and, for each run of equal
// keys, buffer_index[slot] and (through acc.store) the run's sum at slot.
template <class Acc, class Keys>
MSM_HD MSM_INLINE void accumulate_thread(uint32_t tid, Span sp, const Keys& keys, const uint32_t* values,
                                         uint32_t* buffer_offset, uint32_t* buffer_index, uint32_t* buffer_used,
                                         Acc& acc) {
  if (sp.s >= sp.e) {
    buffer_offset[tid] = 0;
    buffer_used[tid] = 0;
    return;
  }
  uint32_t prev = keys[sp.s];
  const uint32_t offset = tid + prev;  // Eq. (2)
  buffer_offset[tid] = offset;
  uint32_t num = 0;
  acc.reset();
  for (uint32_t i = sp.s; i < sp.e; ++i) {
    const uint32_t key = keys[i];
    if (key != prev) {  // lines 7–11: flush the finished run
      acc.store(offset + num);
      buffer_index[offset + num] = prev;
      ++num;
      acc.reset();
      prev = key;
    }
    acc.add(values[i]);  // lines 13–20
  }
  acc.store(offset + num);  // lines 22–24
  buffer_index[offset + num] = prev;
  buffer_used[tid] = num + 1;
}

// Alg. 4 with the runs a thread holds whole written to their buckets (the default XYZZ mode). Only a
// thread's first run can have begun in the thread before it and only its last one go on into the
// next (the split is even over sorted keys), so every other run is its bucket's whole sum for this
// piece of points and needs no Alg. 5: the thread stores it to the bucket at once. The two runs that
// may cross a span end go to two buffer slots per thread, and the aggregation (aggregate.cuh
// DirectView) sums just those. With random scalars at 2^24 a thread's ~4,000 entries cover ~40
// buckets, so Alg. 5's per-bucket searches and its copy of every run, and for a call split in two
// pieces the merge of two bucket sets (an addition per bucket), give way to a few loads per thread.
//
// The thread's first run is its head piece when the previous entry (thread tid − 1's last) has the
// same key; its last run is its tail piece when the next entry (thread tid + 1's first) has it. A
// head piece goes to slot 2·tid (also when it is the thread's only run and a tail as well), a tail
// piece that is not the head to slot 2·tid + 1; so bucket b split over threads t0 < t1 < … is t0's
// tail slot plus the head slots of the threads after t0 whose first key is b.
//
// Each run's sum starts from acc.begin(bucket, head): O for a head piece, else the bucket's value so
// far (O in a call's first piece; in a later piece the earlier pieces' sum, so whole runs and tail
// pieces add onto it and nothing merges afterwards); acc.bucket(b) and acc.piece(slot) store it.
// For the aggregation the thread also writes lead[tid], its first key (+∞ for an empty span), and
// split[tid], the bucket whose split starts at its tail slot (0: none).
struct RunEnds {
  bool head, tail;
};
template <class Keys>
MSM_HD MSM_INLINE RunEnds run_ends(Span sp, const Keys& keys, uint32_t first, uint32_t n) {
  return RunEnds{sp.s > first && keys[sp.s - 1] == keys[sp.s], sp.e < n && keys[sp.e] == keys[sp.e - 1]};
}
MSM_HD MSM_INLINE uint32_t head_slot(uint32_t tid) { return 2 * tid; }
MSM_HD MSM_INLINE uint32_t tail_slot(uint32_t tid) { return 2 * tid + 1; }
constexpr uint32_t kNoLead = 0xffffffffu;

template <class Acc, class Keys>
MSM_HD MSM_INLINE void accumulate_thread_direct(uint32_t tid, Span sp, const Keys& keys, const uint32_t* values,
                                                uint32_t first, uint32_t n, uint32_t* lead, uint32_t* split,
                                                Acc& acc) {
  split[tid] = 0;
  if (sp.s >= sp.e) {
    lead[tid] = kNoLead;
    return;
  }
  const RunEnds ends = run_ends(sp, keys, first, n);
  uint32_t prev = keys[sp.s];
  lead[tid] = prev;
  bool in_head = ends.head;
  acc.begin(prev, in_head);
  for (uint32_t i = sp.s; i < sp.e; ++i) {
    const uint32_t key = keys[i];
    if (key != prev) {
      if (in_head) acc.piece(head_slot(tid));
      else acc.bucket(prev);
      in_head = false;
      prev = key;
      acc.begin(key, false);
    }
    acc.add(values[i]);
  }
  if (in_head) {
    acc.piece(head_slot(tid));
  } else if (ends.tail) {
    acc.piece(tail_slot(tid));
    split[tid] = prev;
  } else {
    acc.bucket(prev);
  }
}

// Alg. 4 for the constant-time mode (§5): the same even split, but over every entry of the window
// (zero digits included, added as O: thread_span with first = 0), so each thread performs ⌈n/T⌉
// additions whatever the digits are. As in accumulate_thread_direct only a thread's first and last
// runs can be shared with a neighbour, so every run between them is its bucket's whole sum and is
// stored there (acc.bucket); the first goes to slot 2·tid (head_slot) and the last, when it is
// another, to 2·tid + 1 (tail_slot), each slot's bucket in buffer_index. §5 (ct_aggregate.cuh) then
// runs over 2T slots instead of the paper's T + M (tid + k per run): at 2^24 points and 2^21
// buckets, 2^18 padded slots against 2^22. With a single run the tail slot is stored O but takes the
// run's bucket, so that slots read in order never put an index-0 slot between two equal buckets;
// a thread without entries stores O and index 0 in both: every one of the 2T slots is written here,
// so nothing clears them first (a fill of 2T points took 8 µs at BN254 2^16, bench/gpu-notes.md);
// the keys are sorted, so the slots' buckets are too, and a bucket's pieces lie in consecutive
// slots. Acc: begin(b, head) starts a run's sum (accumulate.cu ConstantTimeAcc: from its blinding
// point for a head piece or the zero digits, else from the bucket's value so far: in a later piece
// of a call the earlier pieces' sum, which §5's one output per bucket or the direct store then
// carries on), add(value, skip) always runs its formula and keeps the old sum when skip,
// store(slot), store_infinity(slot), bucket(b). The run ends are the one data-dependent step: a store per run and the next run's
// start, at most M/T + 2 per thread (the paper's Alg. 4 stores alike).
template <class Acc, class Keys>
MSM_HD MSM_INLINE void accumulate_thread_ct(uint32_t tid, Span sp, const Keys& keys, const uint32_t* values,
                                            uint32_t* buffer_index, Acc& acc) {
  if (sp.s >= sp.e) {
    acc.store_infinity(head_slot(tid));
    acc.store_infinity(tail_slot(tid));
    buffer_index[head_slot(tid)] = buffer_index[tail_slot(tid)] = 0;
    return;
  }
  uint32_t prev = keys[sp.s];
  buffer_index[head_slot(tid)] = prev;
  bool first_run = true;
  acc.begin(prev, sp.s > 0 && keys[sp.s - 1] == prev);
  for (uint32_t i = sp.s; i < sp.e; ++i) {
    const uint32_t key = keys[i];
    if (key != prev) {  // prev ≥ 1 past the first run: zero digits sort first
      if (first_run) acc.store(head_slot(tid));
      else acc.bucket(prev);
      first_run = false;
      acc.begin(key, false);
    }
    acc.add(values[i], key == 0);
    prev = key;
  }
  if (first_run) {
    acc.store(head_slot(tid));
    acc.store_infinity(tail_slot(tid));
  } else {
    acc.store(tail_slot(tid));
  }
  buffer_index[tail_slot(tid)] = prev;
}

// Slots per window (buffer and buffer_index): T + M for M = 2^log_m buckets, and at least the 2T of
// accumulate_thread_direct's two per thread (T > M only for the small windows of small inputs).
MSM_HD MSM_INLINE uint32_t buffer_slots(uint32_t T, int log_m) {
  const uint32_t M = 1u << log_m;
  return T + (T > M ? T : M);
}

}  // namespace msm::gpu
