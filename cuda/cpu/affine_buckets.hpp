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

#include <cstdint>
#include <vector>

#include "../ec/xyzz.hpp"

namespace msm::cpu {

template <class F>
class AffineBuckets {
  using A = ec::Affine<F>;
  using X = ec::XYZZ<F>;

  struct Entry {
    uint32_t bucket;
    bool dbl;
    A p;
  };
  struct Pending {
    uint32_t bucket;
    A p;
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

  // B_k ← B_k + p.
  void add(uint32_t k, const A& p) {
    classify(k, p);
    if (batch_.size() >= batch_size_) flush();
  }

  // Σ_k (k+1)·B_k after the last add, by running sums (mixed additions into XYZZ).
  X weighted_sum() {
    // Drain: batches while the queue re-fills them well enough to pay for an inversion, then the
    // last batch without re-queueing, and what still waits goes to the side sums.
    flush();
    while (batch_.size() >= 64) flush();
    flush(false);
    for (const Pending& q : pending_) to_side(q.bucket, q.p);
    pending_.clear();
    X running = X::infinity(), total = X::infinity();
    for (size_t k = bucket_.size(); k-- > 0;) {
      if (used_[k] & 1) running = running.add(bucket_[k]);
      if (used_[k] & 2) running = running.add(side_[k]);
      total = total.add(running);
    }
    return total;
  }

 private:
  // used_[k]: bit 0 = the affine bucket holds a point, bit 1 = the side sum is in use.
  void classify(uint32_t k, const A& p) {
    if (stamp_[k] == generation_) {  // already in this batch: wait for the next one
      if (pending_.size() < batch_size_)
        pending_.push_back(Pending{k, p});
      else
        to_side(k, p);
      return;
    }
    if (!(used_[k] & 1)) {
      bucket_[k] = p;
      used_[k] |= 1;
      return;
    }
    const A& b = bucket_[k];
    bool dbl = false;
    if (b.x == p.x) {
      if (b.y != p.y || p.y.is_zero()) {  // P = −B, or a 2-torsion point doubled: O
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
    if (den_.size() < n) den_.resize(n), prefix_.resize(n);
    F acc = F::one();
    for (size_t i = 0; i < n; ++i) {
      const Entry& e = batch_[i];
      const A& b = bucket_[e.bucket];
      den_[i] = e.dbl ? b.y.dbl() : e.p.x - b.x;  // non-zero: x_P = x_B was settled in classify
      prefix_[i] = acc;
      acc = acc * den_[i];
    }
    F inv = acc.inverse();
    for (size_t i = n; i-- > 0;) {
      const Entry& e = batch_[i];
      A& b = bucket_[e.bucket];
      const F d_inv = inv * prefix_[i];
      inv = inv * den_[i];
      F num;
      if (e.dbl) {
        const F x2 = b.x.sqr();
        num = x2.dbl() + x2;
      } else {
        num = e.p.y - b.y;
      }
      const F lambda = num * d_inv;
      const F x3 = lambda.sqr() - b.x - e.p.x;
      b.y = lambda * (b.x - x3) - b.y;
      b.x = x3;
    }
    batch_.clear();
    ++generation_;
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
};

}  // namespace msm::cpu
