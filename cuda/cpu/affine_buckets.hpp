// Pippenger buckets kept in affine coordinates and filled in batches that share one field
// inversion (Montgomery's simultaneous-inversion trick: Montgomery, "Speeding the Pollard and
// elliptic curve methods of factorization", Math. Comp. 48 (1987), §10.3.1; its use for bucket
// accumulation as in Aztec's barretenberg and gnark-crypto's "batch affine" MSM).
//
// An affine addition B ← B + P costs λ = (y_P − y_B)/(x_P − x_B), x = λ² − x_B − x_P,
// y = λ(x_B − x) − y_B: 2M + 1S, plus 3M per element for the shared inversion (prefix products,
// then two multiplications on the way back) and 1/batch of an inversion: ≈ 6M + 1S against 8M + 2S
// for the XYZZ mixed addition (madd-2008-s). A batch may touch each bucket once: a point whose
// bucket is already in the open batch waits in a queue for the next batch (as gnark-crypto's
// batch-affine MSM does); only when the queue is full does it go to the bucket's XYZZ side sum.
// So batches can be large (the inversion shared widely) without paying madd for collisions.
// x_P = x_B is settled before the batch: P = −B empties the bucket, P = B becomes a doubling entry
// (λ = 3x²/2y).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../ec/xyzz.hpp"
#include "affine_simd.hpp"
#include "inverse.hpp"

namespace msm::cpu {

// A point to add, by reference to where it lies, negated when neg: the bucket pass queues a
// pointer and a flag per point instead of a copy of ±P.
template <class A>
struct PointRef {
  const A* p;
  bool neg;
  A value() const { return neg ? -*p : *p; }
  auto y() const { return neg ? -p->y : p->y; }
};

template <class F>
class AffineBuckets {
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;

  using Ref = PointRef<A>;
  struct Entry {
    uint32_t bucket;
    bool dbl;
    Ref p;
  };
  struct Pending {
    uint32_t bucket;
    Ref p;
  };

 public:
  AffineBuckets(size_t buckets, size_t batch)
      : bucket_(buckets), side_(buckets), used_(buckets), stamp_(buckets), batch_size_(batch) {
    batch_.reserve(batch);
    pending_.reserve(batch);
    requeue_.reserve(batch);
    den_.resize(batch);
    prefix_.resize(batch);
  }

  void reset() {
    std::fill(used_.begin(), used_.end(), uint8_t(0));
    std::fill(stamp_.begin(), stamp_.end(), uint32_t(0));
    generation_ = 1;
    batch_.clear();
    pending_.clear();
  }

  // B_k ← B_k ± *p (− when neg); *p stays put until weighted_sum returns.
  void add(uint32_t k, const A* p, bool neg) {
    classify(k, Ref{p, neg});
    if (batch_.size() >= batch_size_) flush();
  }

  // Σ_k (k+1)·B_k after the last add.
  X weighted_sum() {
    // Drain: batches while the queue re-fills them well enough to pay for an inversion, then the
    // last batch without re-queueing, and what still waits goes to the side sums.
    flush();
    while (batch_.size() >= 64) flush();
    flush(false);
    for (const Pending& q : pending_) to_side(q.bucket, q.p.value());
    pending_.clear();
    fold_sides();
    return reduce();
  }

 private:
  // used_[k]: bit 0 = the affine bucket holds a point, bit 1 = the side sum is in use.
  void classify(uint32_t k, Ref p) {
    if (stamp_[k] == generation_) {  // already in this batch: wait for the next one
      if (pending_.size() < batch_size_)
        pending_.push_back(Pending{k, p});
      else
        to_side(k, p.value());
      return;
    }
    if (!(used_[k] & 1)) {
      bucket_[k] = p.value();
      used_[k] |= 1;
      return;
    }
    const A& b = bucket_[k];
    bool dbl = false;
    if (b.x == p.p->x) {
      if (b.y != p.y() || b.y.is_zero()) {  // P = −B, or a 2-torsion point doubled: O
        used_[k] &= uint8_t(~1u);
        return;
      }
      dbl = true;
    }
    stamp_[k] = generation_;
    batch_.push_back(Entry{k, dbl, p});
  }

  void to_side(uint32_t k, const A& p) {
    side_[k] = (used_[k] & 2) ? side_[k].add(p) : X::from_affine(p);
    used_[k] |= 2;
  }

  // Applies the open batch; then (requeue) the queued points start the next one.
  void flush(bool requeue = true) {
    flush_batch();
    if (!requeue || pending_.empty()) return;
    requeue_.swap(pending_);
    for (const Pending& q : requeue_) classify(q.bucket, q.p);
    requeue_.clear();
  }

  void flush_batch() {
    const size_t n = batch_.size();
    if (n == 0) return;
    apply(
        n, [&](size_t i) -> A& { return bucket_[batch_[i].bucket]; }, [&](size_t i) { return batch_[i].p; },
        [&](size_t i) { return batch_[i].dbl; });
    batch_.clear();
    ++generation_;
  }

  // dst(i) ← dst(i) + src(i) for i < n (src(i) a PointRef), the dst(i) distinct, x_dst ≠ x_src
  // unless dbl(i) (then src = dst and it doubles), sharing one inversion (Montgomery's trick: 3M per entry).
  // The entries run as two interleaved chains (even and odd i; one inversion for both:
  // 1/a = b·(ab)⁻¹, 1/b = a·(ab)⁻¹) and the loops handle one entry of each chain per step, their
  // products written next to each other: a 4-limb product takes ~72 cycles of latency but issues
  // every ~60, and only two independent products in the instruction window let them overlap.
  template <class Dst, class Src, class Dbl>
  void apply(size_t n, Dst dst, Src src, Dbl dbl) {
    if (n == 0) return;
#if defined(MSM_HAVE_IFMA)
    if constexpr (kSimd)
      if (cpu_simd_enabled()) return simd_.apply(n, dst, src, dbl);
#endif
    if (den_.size() < n + 1) den_.resize(n + 1), prefix_.resize(n + 1);
    auto den = [&](size_t i) {
      const A& b = dst(i);
      return dbl(i) ? b.y.dbl() : src(i).p->x - b.x;
    };
    F acc0 = F::one(), acc1 = F::one();
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
      den_[i] = den(i), den_[i + 1] = den(i + 1);
      prefix_[i] = acc0, prefix_[i + 1] = acc1;
      acc0 = acc0 * den_[i];
      acc1 = acc1 * den_[i + 1];
    }
    if (i < n) den_[i] = den(i), prefix_[i] = acc0, acc0 = acc0 * den_[i];
    const F inv01 = fast_inverse(acc0 * acc1);
    F inv0 = inv01 * acc1, inv1 = inv01 * acc0;
    auto num = [&](size_t k) {
      const A& b = dst(k);
      if (dbl(k)) {
        const F x2 = b.x.sqr();
        return x2.dbl() + x2;
      }
      return src(k).y() - b.y;
    };
    if (n & 1) {  // the last entry (even chain) alone
      const size_t k = n - 1;
      A& b = dst(k);
      const F lambda = num(k) * (inv0 * prefix_[k]);
      inv0 = inv0 * den_[k];
      const F x3 = lambda.sqr() - b.x - src(k).p->x;
      b.y = lambda * (b.x - x3) - b.y;
      b.x = x3;
    }
    for (size_t k = n & ~size_t(1); k >= 2; k -= 2) {
      const size_t e = k - 2, o = k - 1;  // even-chain and odd-chain entries
      A& be = dst(e);
      A& bo = dst(o);
      const F ne = num(e), no = num(o);
      const F de = inv0 * prefix_[e];
      const F dO = inv1 * prefix_[o];
      inv0 = inv0 * den_[e];
      inv1 = inv1 * den_[o];
      const F le = ne * de;
      const F lo = no * dO;
      const F se = le.sqr();
      const F so = lo.sqr();
      const F xe = se - be.x - src(e).p->x;
      const F xo = so - bo.x - src(o).p->x;
      const F ye = le * (be.x - xe);
      const F yo = lo * (bo.x - xo);
      be.y = ye - be.y, be.x = xe;
      bo.y = yo - bo.y, bo.x = xo;
    }
  }

  // The side sums (XYZZ, rare: only points that found the queue full) into the affine buckets:
  // one shared inversion for their affine forms (t = (ZZ·ZZZ)⁻¹, x = X·ZZZ·t, y = Y·ZZ·t), then
  // one batch (each bucket at most once).
  void fold_sides() {
    side_keys_.clear();
    for (uint32_t k = 0; k < uint32_t(used_.size()); ++k)
      if ((used_[k] & 2) && !side_[k].is_inf()) side_keys_.push_back(k);
    for (auto& u : used_) u &= 1;
    const size_t n = side_keys_.size();
    if (n == 0) return;
    if (den_.size() < n) den_.resize(n), prefix_.resize(n);
    F acc = F::one();
    for (size_t i = 0; i < n; ++i) {
      const X& q = side_[side_keys_[i]];
      den_[i] = q.ZZ * q.ZZZ;
      prefix_[i] = acc;
      acc = acc * den_[i];
    }
    F inv = fast_inverse(acc);
    side_affine_.resize(n);
    for (size_t i = n; i-- > 0;) {
      const X& q = side_[side_keys_[i]];
      const F t = inv * prefix_[i];
      inv = inv * den_[i];
      side_affine_[i] = A{q.X * (q.ZZZ * t), q.Y * (q.ZZ * t)};
    }
    for (size_t i = 0; i < n; ++i) classify(side_keys_[i], Ref{&side_affine_[i], false});
    flush_batch();
  }

  // O-aware accumulation for the reduction chains: acc ← acc + p, acc O when inf.
  struct Acc {
    A p;
    bool inf = true;
  };
  // Queues acc += p into the open job list (or settles it at once when it needs no inversion).
  void queue(Acc& acc, const A& p) {
    if (acc.inf) {
      acc.p = p, acc.inf = false;
      return;
    }
    bool dbl = false;
    if (acc.p.x == p.x) {
      if (acc.p.y != p.y || p.y.is_zero()) {
        acc.inf = true;
        return;
      }
      dbl = true;
    }
    jobs_.push_back(Job{&acc.p, &p, dbl});
  }
  void run_jobs() {
    apply(
        jobs_.size(), [&](size_t i) -> A& { return *jobs_[i].dst; }, [&](size_t i) { return Ref{jobs_[i].src, false}; },
        [&](size_t i) { return jobs_[i].dbl; });
    jobs_.clear();
  }

  // Σ_k (k+1)·B_k by running sums on S segments of L buckets at once, so that their additions
  // batch too (one inversion per step across the segments): segment s holds B_(sL..sL+L−1), its
  // running sum R_s = Σ_j B_(sL+j) and its total T_s = Σ_j (j+1)·B_(sL+j), and
  //   Σ_k (k+1)·B_k = Σ_s T_s + L·Σ_s s·R_s,
  // the last sum by running sums over the segments in XYZZ (madd-2008-s / add-2008-s), then
  // log2 L doublings (dbl-2008-s-1). 2 affine additions per bucket (≈ 6M + 1S + 3M/S for the
  // inversion each) instead of a mixed and a full XYZZ addition (8M + 2S, 12M + 2S).
  X reduce() {
    const size_t m = bucket_.size();
    size_t S = std::max(std::min<size_t>(256, m / 4), m / 16);
    while (S > 1 && m % S) S /= 2;  // m is a power of two in practice
    const size_t L = m / S;
    R_.assign(S, Acc{});
    T_.assign(S, Acc{});
    snap_.resize(S);
    // One batch per step: T_s takes R_s as it was before the step (a snapshot, since R_s changes
    // in the same batch), so after the steps T_s lacks the last running sum: one more batch.
    for (size_t j = L; j-- > 0;) {
      for (size_t s = 0; s < S; ++s) {
        if (!R_[s].inf) snap_[s] = R_[s].p, queue(T_[s], snap_[s]);
        if (used_[s * L + j] & 1) queue(R_[s], bucket_[s * L + j]);
      }
      run_jobs();
    }
    for (size_t s = 0; s < S; ++s)
      if (!R_[s].inf) queue(T_[s], R_[s].p);
    run_jobs();
    X run = X::infinity(), acc = X::infinity(), tsum = X::infinity();
    for (size_t s = S; s-- > 0;) {
      if (!T_[s].inf) tsum = tsum.add(T_[s].p);
      if (s == 0) break;
      if (!R_[s].inf) run = run.add(R_[s].p);
      acc = acc.add(run);
    }
    for (size_t l = L; l > 1; l /= 2) acc = acc.dbl();
    return acc.add(tsum);
  }

  std::vector<A> bucket_;
  std::vector<X> side_;
  std::vector<uint8_t> used_;
  std::vector<uint32_t> stamp_;  // generation of the batch a bucket is in
  uint32_t generation_ = 1;
  size_t batch_size_;
  std::vector<Entry> batch_;
  std::vector<Pending> pending_, requeue_;
  std::vector<F> den_, prefix_;
  struct Job {
    A* dst;
    const A* src;
    bool dbl;
  };
  std::vector<Job> jobs_;
  std::vector<Acc> R_, T_;
  std::vector<A> snap_;
  std::vector<uint32_t> side_keys_;
  std::vector<A> side_affine_;
#if defined(MSM_HAVE_IFMA)
  // The IFMA lanes hold prime-field elements (ff/ifma.hpp): Fp2 (G2) takes the scalar path.
  static constexpr bool kSimd = !ff::is_fp2<F>;
  struct NoSimd {};
  std::conditional_t<kSimd, AffineSimd<F>, NoSimd> simd_;
#endif
};

}  // namespace msm::cpu
