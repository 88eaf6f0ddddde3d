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
// Round r (distance d = 2^r) gives each thread the four elements A, B, C, D at base + {0, d, 2d, 3d}
// (base = 4d·q) and the three relations a?b, b?c, c?d (bit 1 for "=", 0 for "<"; Table 5 row i =
// r1·4 + r2·2 + r3). The row's entry in op_index drives the same four operations on every row:
//   OP1  aux1[δ1] = PADD(aux1[δ2], aux1[δ3])      OP2  OUT(aux1[δ4]) → aux2[δ4]
//   OP3  OUT(aux1[δ5]) → aux2[δ5]                  OP4  aux1[δ6] = PADD(aux1[δ7], aux1[δ8])
// with aux1 = {&A, &B, &C, &D, &O, &D} (points) and aux2 = {&bucket(a), &bucket(b), &bucket(c),
// &bucket(d), &sink, &C} (OUT destinations: a finished run goes to its bucket, OUT(O) to a sink,
// row "=,=,<" copies D into C), and OP5–OP7 the same on the indices aux3 = {a, b, c, d, 0}.
// The survivors A and C (base and base + 2d) carry on to round r + 1; after log2(P) − 1 rounds two
// remain, combined by one more PADD and two OUTs. Every thread runs 2 PADD and 2 OUT per round
// whatever the indices are: the data decide addresses, never the instruction stream.
#pragma once

#include <cstdint>

#include "../ff/common.hpp"

namespace msm::gpu {

MSM_HD constexpr uint32_t ct_pack(uint32_t d1, uint32_t d2, uint32_t d3, uint32_t d4, uint32_t d5, uint32_t d6,
                                  uint32_t d7, uint32_t d8) {
  return d1 << 28 | d2 << 24 | d3 << 20 | d4 << 16 | d5 << 12 | d6 << 8 | d7 << 4 | d8;
}
// Table 5 as op_index: (δ1 ≪ 28) | (δ2 ≪ 24) | … | δ8, rows "<,<,<" (0) … "=,=,=" (7).
MSM_HD MSM_INLINE uint32_t ct_op_index(uint32_t row) {
  constexpr uint32_t A = 0, B = 1, C = 2, D = 3, O = 4, D2C = 5;
  // clang-format off
  constexpr uint32_t table[8] = {
      ct_pack(A, A, O,  B,   C,  C, D, O),  // <,<,<  A = A + O; OUT(B); OUT(C); C = D + O
      ct_pack(A, A, O,  B,   O,  C, C, D),  // <,<,=  A = A + O; OUT(B); OUT(O); C = C + D
      ct_pack(B, B, C,  B,   O,  C, D, O),  // <,=,<  B = B + C; OUT(B); OUT(O); C = D + O
      ct_pack(C, C, B,  O,   O,  C, C, D),  // <,=,=  C = C + B; OUT(O); OUT(O); C = C + D
      ct_pack(A, A, B,  C,   O,  C, D, O),  // =,<,<  A = A + B; OUT(C); OUT(O); C = D + O
      ct_pack(A, A, B,  O,   O,  C, C, D),  // =,<,=  A = A + B; OUT(O); OUT(O); C = C + D
      ct_pack(A, A, C,  D2C, O,  A, A, B),  // =,=,<  A = A + C; OUT(D) → C; OUT(O); A = A + B
      ct_pack(A, A, B,  O,   O,  C, C, D),  // =,=,=  A = A + B; OUT(O); OUT(O); C = C + D
  };
  // clang-format on
  return table[row & 7];
}
MSM_HD MSM_INLINE uint32_t ct_delta(uint32_t op, int k) { return (op >> (4 * (8 - k))) & 15; }  // δ_k, k = 1…8

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

// One thread of one round. P: point type with add (complete: O, P = ±Q) and copy; buf/index: the
// window's padded buffer; bucket(v): address of bucket v ≥ 1 (index 0, the redundant bucket, goes
// to a sink).
template <class P, class BucketAt>
MSM_HD MSM_INLINE void ct_group(P* buf, uint32_t* index, uint32_t base, uint32_t d, BucketAt bucket_at) {
  P O = P::infinity(), sink;
  auto bucket = [&](uint32_t v) {
    P* b = bucket_at(v | uint32_t(v == 0));
    return v ? b : &sink;
  };
  const uint32_t pa = base, pb = base + d, pc = base + 2 * d, pd = base + 3 * d;
  uint32_t aux3[5] = {index[pa], index[pb], index[pc], index[pd], 0};
  const uint32_t row = ct_eq(aux3[0], aux3[1]) << 2 | ct_eq(aux3[1], aux3[2]) << 1 | ct_eq(aux3[2], aux3[3]);
  const uint32_t op = ct_op_index(row);
  P* aux1[6] = {buf + pa, buf + pb, buf + pc, buf + pd, &O, buf + pd};
  P* aux2[6] = {bucket(aux3[0]), bucket(aux3[1]), bucket(aux3[2]), bucket(aux3[3]), &sink, buf + pc};
  const uint32_t d1 = ct_delta(op, 1), d2 = ct_delta(op, 2), d3 = ct_delta(op, 3), d4 = ct_delta(op, 4);
  const uint32_t d5 = ct_delta(op, 5), d6 = ct_delta(op, 6), d7 = ct_delta(op, 7), d8 = ct_delta(op, 8);
  *aux1[d1] = aux1[d2]->add(*aux1[d3]);  // OP1
  *aux2[d4] = *aux1[d4];                 // OP2
  *aux2[d5] = *aux1[d5];                 // OP3
  *aux1[d6] = aux1[d7]->add(*aux1[d8]);  // OP4
  aux3[d1] = aux3[d2] | aux3[d3];                            // OP5
  aux3[2] = aux3[2] + (aux3[3] - aux3[2]) * uint32_t(d4 == 5);  // OP6 (row "=,=,<": C takes D's index)
  aux3[d6] = aux3[d7] | aux3[d8];                            // OP7
  index[pa] = aux3[0];
  index[pc] = aux3[2];
}

// The last two elements (A at 0, C at P/2): A = PADD(A, C or O); OUT(A); OUT(C or O).
template <class P, class BucketAt>
MSM_HD MSM_INLINE void ct_final(P* buf, uint32_t* index, uint32_t half, BucketAt bucket_at) {
  P O = P::infinity(), sink;
  auto bucket = [&](uint32_t v) {
    P* b = bucket_at(v | uint32_t(v == 0));
    return v ? b : &sink;
  };
  const uint32_t a = index[0], c = index[half];
  const uint32_t eq = ct_eq(a, c);
  P* src[2] = {&O, buf + half};  // [eq]: what A takes in
  P* out[2] = {buf + half, &O};  // [eq]: what goes out second
  P* dst[2] = {bucket(c), &sink};
  buf[0] = buf[0].add(*src[eq]);
  *bucket(a) = buf[0];
  *dst[eq] = *out[eq];
}

// Rounds for P padded elements: distances 1, 2, …, P/4, then ct_final at P/2.
MSM_HD MSM_INLINE int ct_rounds(uint32_t padded) {
  int r = 0;
  while ((4u << r) <= padded) ++r;
  return r;
}

// The rounds in launches (ct_aggregate.cu). A launch runs distances d0, 2·d0, …, d1, its block b
// owning the elements [4·d1·b, 4·d1·(b + 1)), which hold d1/d groups at distance d (its threads take
// them in turn), with a barrier of the block between its rounds; the next launch starts at 2·d1. A
// round's groups lie inside one block's elements up to d1, so the order is §5's. Each round costs
// two complete additions' latency, and between launches the device drains and refills: so a launch
// spans as many rounds as keep every thread busy in its first (d1 = d0·block), more where that many
// blocks would not all be resident at once (`resident`: a second wave would repeat every round),
// and the last launch takes every remaining round once its first has at most two groups a thread,
// ending with ct_final. For P = 2^18 and 128 threads: d = 1 … 128 or 1 … 256, then the rest.
MSM_HD MSM_INLINE uint32_t ct_launch_last(uint32_t d0, uint32_t padded, uint32_t block, uint32_t resident) {
  const uint32_t top = padded / 4;
  if (top / d0 <= 2 * block) return top;
  uint32_t d1 = d0 * block;
  while (d1 < top && top / d1 > resident) d1 *= 2;
  return d1 < top ? d1 : top;
}
// The base of the k-th group (k < d1/d) of block b at distance d in the launch ending at d1.
MSM_HD MSM_INLINE uint32_t ct_launch_base(uint32_t b, uint32_t k, uint32_t d, uint32_t d1) {
  return 4 * d * (b * (d1 / d) + k);
}

}  // namespace msm::gpu
