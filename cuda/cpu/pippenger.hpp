// Multi-threaded Pippenger bucket method on the host (Pippenger 1976; the signed-digit, bucket and
// running-sum form as in Bernstein, Doumen, Lange, Oosterwijk, "Faster batch forgery
// identification", INDOCRYPT 2012, §4, and Chen et al. §2 in papers/):
//   1. recode every scalar into W signed c-bit digits d ∈ [−2^(c−1), 2^(c−1)];
//   2. per window, add ±P_i into bucket |d_i| (2^(c−1) XYZZ buckets, no bucket for 0);
//   3. per window, Σ_k k·B_k by running sums (2 additions per bucket);
//   4. combine the windows by Horner's rule: Σ_w 2^(wc)·S_w.
// Work is split into (window, point range) tasks handed out to the threads by an atomic counter.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "../ec/xyzz.hpp"
#include "affine_buckets.hpp"
#include "../common/parallel.hpp"

namespace msm::cpu {

// W = ⌈(bits + 1)/c⌉ windows: one more bit than the scalar so the carry out of the top window is
// always absorbed (see SignedDigits), for every bit length, multiples of c included.
inline int window_count(unsigned scalar_bits, int c) { return int((scalar_bits + 1 + c - 1) / c); }

// c minimising the addition count W(c)·(n + 2·2^(c−1)): n bucket additions per window plus the
// running-sum reduction's two additions per bucket.
inline int choose_window(size_t n, unsigned scalar_bits) {
  int best = 1;
  double best_cost = 1e300;
  for (int c = 1; c <= 20; ++c) {
    const double cost = double(window_count(scalar_bits, c)) * (double(n) + 2.0 * double(1u << (c - 1)));
    if (cost < best_cost) best_cost = cost, best = c;
  }
  return best;
}

// Signed c-bit digits without a carry chain: with H = Σ_w (2^(c−1) − 1)·2^(wc), the c-bit chunks
// of t = k + H, less 2^(c−1) − 1 each, are digits d_w ∈ [−(2^(c−1) − 1), 2^(c−1)] with
// Σ_w d_w·2^(wc) = k (adding 2^(c−1) − 1 to a chunk carries exactly when the chunk plus the
// incoming carry exceeds 2^(c−1), the usual recoding rule). t < 2^(Wc) since k < 2^(Wc−1) and
// H < 2^(Wc−1), so the top window absorbs every carry. Each window reads its digit straight from t:
// n·kLimbs words in all instead of n·W digits.
struct SignedDigits {
  static constexpr int kLimbs = 5;  // Wc ≤ bits + c ≤ 256 + 20 < 320
  int c, windows;
  uint64_t offset[kLimbs] = {};  // H

  SignedDigits(int c_, int windows_) : c(c_), windows(windows_) {
    for (int w = 0; w < windows; ++w) set_bits(offset, unsigned(w) * unsigned(c), (uint64_t(1) << (c - 1)) - 1);
  }
  // t = k + H for a little-endian scalar of up to 32 bytes; k = 0 (or a skipped point) gives H.
  void encode(const uint8_t* k_le, size_t bytes, uint64_t* t) const {
    uint64_t k[kLimbs] = {};
    for (size_t b = 0; b < bytes && b < 32; ++b) k[b / 8] |= uint64_t(k_le[b]) << (8 * (b % 8));
    uint64_t carry = 0;
    for (int i = 0; i < kLimbs; ++i) t[i] = ff::adc(k[i], offset[i], carry);
  }
  // d_w for the encoded t.
  int32_t digit(const uint64_t* t, int w) const {
    const unsigned bit = unsigned(w) * unsigned(c), li = bit / 64, sh = bit % 64;
    uint64_t v = t[li] >> sh;
    if (sh + unsigned(c) > 64 && li + 1 < unsigned(kLimbs)) v |= t[li + 1] << (64 - sh);
    return int32_t(uint32_t(v) & ((1u << c) - 1)) - int32_t((1u << (c - 1)) - 1);
  }

 private:
  static void set_bits(uint64_t* x, unsigned bit, uint64_t v) {
    x[bit / 64] |= v << (bit % 64);
    if (bit % 64 && bit / 64 + 1 < unsigned(kLimbs)) x[bit / 64 + 1] |= v >> (64 - bit % 64);
  }
};

template <class F>
class Pippenger {
 public:
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;

  // points: n affine points; skip[i] (optional) marks O, skipped; scalars: n × scalar_bytes canonical.
  static X run(const A* points, const uint8_t* skip, const uint8_t* scalars, size_t scalar_bytes, size_t n,
               unsigned scalar_bits, int c, int threads) {
    if (n == 0) return X::infinity();
    const int W = window_count(scalar_bits, c);
    threads = std::max(1, std::min<int>(threads, int((n + 255) / 256)));
    const SignedDigits sd(c, W);
    constexpr int L = SignedDigits::kLimbs;
    std::vector<uint64_t> t(n * L);
    parallel_ranges(n, threads, 4096, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) sd.encode(scalars + i * scalar_bytes, skip && skip[i] ? 0 : scalar_bytes, &t[i * L]);
    });

    // Tasks: W windows × parts point ranges, ≥ 4 tasks per thread so the last ones balance.
    const int parts = std::max(1, std::min<int>((4 * threads + W - 1) / W, int(n / 1024) + 1));
    const int tasks = W * parts;
    std::vector<X> task_sum(size_t(tasks), X::infinity());
    std::atomic<int> next{0};
    const size_t m = size_t(1) << (c - 1);
    // Batch-affine buckets pay off once a task's range is large against the bucket count (each
    // batch needs an inversion; the buckets' first points cost nothing in either form).
    // Batch of m/4 entries: a point meets its bucket already in the open batch (and waits for the
    // next batch) 1/8 of the time on average, while the inversion is shared by ≥ 256 additions
    // (measured at 2^16, c = 13: m/4 ~6% faster than m/8; m/2 slower again).
    const size_t batch = m / 4;
    const bool batch_affine = batch >= 256 && n / size_t(parts) >= 2 * m;
    parallel(threads, [&](int) {
      try {
        std::vector<X> buckets;
        std::unique_ptr<AffineBuckets<F>> affine;
        if (batch_affine)
          affine = std::make_unique<AffineBuckets<F>>(m, std::min<size_t>(batch, 2048));
        else
          buckets.resize(m);
        for (int task; (task = next.fetch_add(1)) < tasks;) {
          const int w = task / parts, part = task % parts;
          const size_t lo = n * part / parts, hi = n * (part + 1) / parts;
          task_sum[size_t(task)] = batch_affine ? window_sum_affine(points, sd, t.data(), w, lo, hi, *affine)
                                                : window_sum(points, sd, t.data(), w, lo, hi, buckets);
        }
      } catch (...) {
        // The MSM has failed (its buckets did not fit: ERR_OUT_OF_MEMORY): the other threads
        // take no new task, so the failure is reported now rather than after all the work.
        next.store(tasks);
        throw;
      }
    });

    // Horner over the windows, top first.
    X acc = X::infinity();
    for (int w = W - 1; w >= 0; --w) {
      if (w != W - 1)
        for (int k = 0; k < c; ++k) acc = acc.dbl();
      for (int part = 0; part < parts; ++part) acc = acc.add(task_sum[size_t(w * parts + part)]);
    }
    return acc;
  }

 private:
  static X window_sum_affine(const A* points, const SignedDigits& sd, const uint64_t* t, int w, size_t lo, size_t hi,
                             AffineBuckets<F>& b) {
    b.reset();
    for (size_t i = lo; i < hi; ++i) {
      const int32_t d = sd.digit(t + i * SignedDigits::kLimbs, w);
      if (d != 0) b.add(uint32_t((d > 0 ? d : -d) - 1), &points[i], d < 0);
    }
    return b.weighted_sum();
  }

  static X window_sum(const A* points, const SignedDigits& sd, const uint64_t* t, int w, size_t lo, size_t hi,
                      std::vector<X>& buckets) {
    for (auto& b : buckets) b = X::infinity();
    for (size_t i = lo; i < hi; ++i) {
      const int32_t d = sd.digit(t + i * SignedDigits::kLimbs, w);
      if (d > 0)
        buckets[size_t(d - 1)] = buckets[size_t(d - 1)].add(points[i]);
      else if (d < 0)
        buckets[size_t(-d - 1)] = buckets[size_t(-d - 1)].sub(points[i]);
    }
    // Σ_k (k+1)·B_k = Σ_k running_k with running_k = B_m + … + B_k (two additions per bucket).
    X running = X::infinity(), total = X::infinity();
    for (size_t k = buckets.size(); k-- > 0;) {
      running = running.add(buckets[k]);
      total = total.add(running);
    }
    return total;
  }
};

}  // namespace msm::cpu
