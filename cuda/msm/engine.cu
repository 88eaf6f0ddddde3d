// The CUDA backend behind cuda/engine.hpp: one context = one (curve, group), n resident bases and their
// 2^h·P table (built once on the device when the context is created), and the pipeline's scratch,
// all in the one allocation that plan.hpp lays out. An MSM uploads its scalars, runs the stages
// (stages.cuh) on one stream and combines the window sums on the host (combine.hpp); a batch
// double-buffers the uploads on a second stream so that the next upload overlaps the current
// compute, and a single MSM is a batch of one. When the device is idle at call time, the scalars
// are uploaded as they are copied and the call's pipeline is queued from the calling thread: a
// large call starts on its first piece of points while the rest is still being copied, and each
// later piece but the last follows as soon as its copy is done (Plan::pieces); the next copy
// (another call's, or the next set of a batch) first queues the rest of that call's pipeline; a
// smaller call is queued whole. So the device computes while the calling thread copies. Calls on
// one device are serialised by a per-device mutex. A context over several devices (SplitEngine) is
// one such context per device, each on its share of the bases.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../common/parallel.hpp"
#include "../ec/blinding.hpp"
#include "combine.hpp"
#include "curve_sizes.hpp"
#include "device.cuh"
#include "plan.hpp"
#include "recode.cuh"
#include "reduce.cuh"
#include "stages.cuh"
#include "tuning.hpp"

namespace msm {
namespace gpu {
namespace {

std::mutex& device_mutex(int device) {
  static std::mutex m[64];
  return m[unsigned(device) % 64];
}

// Pinned host buffers of one context's scalar size, lent to take_scalars for the call-time copy
// (issue 10) so that the upload DMAs straight from it instead of copying it a second time into
// staging memory. Allocated with the context; as many as the host grants, up to `count`; portable
// (pinned for every device), for a context split over several.
class PinnedLender final : public BytesLender {
 public:
  PinnedLender(size_t bytes, int count) : bytes_(bytes) {
    free_.reserve(size_t(count));  // give_back never allocates
    for (int i = 0; i < count; ++i) {
      void* p = nullptr;
      if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        break;
      }
      all_.push_back(static_cast<uint8_t*>(p));
      free_.push_back(static_cast<uint8_t*>(p));
    }
  }
  ~PinnedLender() override {
    for (uint8_t* p : all_) cudaFreeHost(p);
  }
  // A free buffer, or null.
  uint8_t* take() {
    std::lock_guard<std::mutex> lock(m_);
    if (free_.empty()) return nullptr;
    uint8_t* p = free_.back();
    free_.pop_back();
    return p;
  }
  void give_back(uint8_t* p) noexcept override {
    std::lock_guard<std::mutex> lock(m_);
    free_.push_back(p);
  }
  size_t size() const { return bytes_; }
  size_t bytes() const { return bytes_ * all_.size(); }

 private:
  const size_t bytes_;
  std::vector<uint8_t*> all_;  // fixed once constructed
  std::mutex m_;
  std::vector<uint8_t*> free_;
};

// How many buffers of `bytes` a context lends: two, so that a call is copied while the previous one
// runs; a small context up to 8 within 64 MiB, so that a msmBatch of up to 8 sets is copied whole into
// pinned memory (with two, sets 3 … 8 went to pageable memory and were staged again at upload: a
// batch of 8 at BN254 2^16 took 1.4× separate calls per MSM, bench/gpu-notes.md).
int lent_buffers(size_t bytes) {
  constexpr size_t kBudget = size_t(64) << 20;
  return int(std::clamp<size_t>(kBudget / bytes, 2, 8));
}

// One of lender's buffers for a call-time copy of `bytes`, or an empty HostBytes where there is
// no lender, the size is not its size, or none is free.
HostBytes borrow(const std::shared_ptr<PinnedLender>& lender, size_t bytes) {
  uint8_t* p = lender && bytes == lender->size() ? lender->take() : nullptr;
  return p ? HostBytes::lend(p, bytes, lender) : HostBytes();
}

// Tickets of take_scalars copies, unique across engines: a context split over several devices
// gives each device's share of one copy the same ticket.
uint64_t new_ticket() {
  static std::atomic<uint64_t> last{0};
  return ++last;
}

// Page-locked host memory (a lent buffer, or the caller's own pinned memory): DMA'd as it is.
bool is_pinned(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

// The group of the curve struct G: G2 where its field is Fp2.
template <class G>
constexpr Group group_of() {
  return ff::is_fp2<typename G::field> ? Group::g2 : Group::g1;
}

template <class G>
class CudaEngine final : public Engine {
 public:
  using F = typename G::field;
  using A = AffineOf<G>;
  using X = XyzzOf<G>;

  // lend: this context lends pinned buffers to take_scalars (a share of a split context does not:
  // the split context lends whole ones).
  CudaEngine(CurveId id, AffineBuffer&& pts, const EngineOptions& opt, bool lend = true)
      : id_(id), device_(opt.device) {
    check_options(Backend::cuda, opt);
    check_size(Backend::cuda, pts.n);
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    require_kernel_image(device_);
    stream_ = std::make_unique<Stream>();
    copy_stream_ = std::make_unique<Stream>();
    PlanInput in;
    in.n = pts.n;
    in.curve = curve_sizes<G>();
    in.options = opt;
    size_t total = 0;
    MSM_CUDA_CHECK(cudaMemGetInfo(&in.free_memory, &total));
    in.shared_sum = acc_shared_for(in.n, ff::is_fp2<typename G::field>);
    in.resident_threads = accumulate_threads<G>(device_, opt.accumulation, in.shared_sum);
    in.chunk_threads = accumulate_threads<G>(device_, opt.accumulation, false);
    in.sort_temp_bytes = sort_temp_bytes;
    in.buckets = environment().cuda_buckets;
    plan_ = make_plan(in);
    if (plan_.n == 0) return;

    memory_.allocate(plan_.total);
    w_ = Workspace<G>::bind(plan_, memory_.get());
    w_.blind = blinding_point(pts);
    if (opt.accumulation == Accumulation::constant_time) {
      // Each of a window's buckets starts as R (launch_clear_buckets) and ends holding it once, so
      // Q_j holds Σ_p (a·p + 1)·R (reduce.cuh bucket_weights); a count adds at most T heads a
      // piece, each of a weight below bucket_weight(M)
      blind_multiple_ = bucket_weights(w_.log_m(), !w_.plain());
      const uint64_t top = blind_multiple_ + uint64_t(plan_.T) * Plan::kMaxPieces * bucket_weight(w_.M(), !w_.plain());
      unblind_table_ = unblind_table<G>(w_.blind, unblind_digits(top, w_.W, w_.c));
    }
    for (int b = 0; b < 2; ++b) {
      staged_[b] = std::make_unique<Event>();
      consumed_[b] = std::make_unique<Event>();
      done_[b] = std::make_unique<Event>();
    }
    piece_staged_ = std::make_unique<Event>();
    std::vector<uint32_t> rt;
    if (!plan_.shared_buckets) {  // shared buckets compute their digits, no mapping table
      rt.resize(table_size(plan_.c));
      build_recode_table(plan_.c, rt.data());
      MSM_CUDA_CHECK(cudaMemcpyAsync(memory_.get() + plan_.recode_table.offset, rt.data(), rt.size() * 4,
                                     cudaMemcpyHostToDevice, stream_->s));
    }
    // Bases → level 0 of the table, then levels 1 … τ on the device (2^c apart for plain shared digits).
    A* table = reinterpret_cast<A*>(memory_.get() + plan_.table.offset);
    MSM_CUDA_CHECK(cudaMemcpyAsync(table, pts.limbs.data(), size_t(plan_.n) * sizeof(A), cudaMemcpyHostToDevice,
                                   stream_->s));
    build_table<G>(table, plan_.n, plan_.tau, plan_.shared_buckets && !plan_.levels ? plan_.c : 1, stream_->s);
    if (lend && plan_.n * 32 >= kSlice)
      lender_ = std::make_shared<PinnedLender>(plan_.n * 32, lent_buffers(plan_.n * 32));
    MSM_CUDA_CHECK(cudaStreamSynchronize(stream_->s));
    std::vector<uint64_t>().swap(pts.limbs);
  }

  ~CudaEngine() override {
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_->s);
    if (copy_stream_) cudaStreamSynchronize(copy_stream_->s);
  }

  void msm_batch(const std::vector<ScalarSet>& scalars, size_t n, uint8_t* outs) override {
    std::vector<X> q(scalars.size());
    results(scalars, n, q.data());
    for (size_t k = 0; k < q.size(); ++k) write_affine<G>(q[k], outs + k * 2 * F::BYTES);
  }

  // msm_batch's results, before conversion to affine.
  void results(const std::vector<ScalarSet>& scalars, size_t n, X* q) {
    if (n != plan_.n) throw EngineError("ERR_LENGTH_MISMATCH", "expected " + std::to_string(plan_.n) + " scalars");
    // A result's download: its W window sums, and in the constant-time mode the heads' weights after
    // them (Plan::sums_slots).
    const size_t K = scalars.size(), S = size_t(plan_.sums_slots);
    if (plan_.n == 0) {
      std::fill(q, q + K, X::infinity());
      return;
    }
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    MSM_CUDA_CHECK(cudaSetDevice(device_));
    if (!pinned_out_.get()) pinned_out_.allocate(2 * S);
    std::vector<X> sums(K * S);
    // Sets whose whole pipeline a call-time copy has queued (queue_pipeline: their own copy, or for a
    // first piece the next one) are only collected; the others run here, in order.
    std::vector<ScalarSet> sets;
    std::vector<size_t> at;
    for (size_t k = 0; k < K; ++k)
      if (!take_queued(scalars[k].ticket, &sums[k * S])) sets.push_back(scalars[k]), at.push_back(k);
    const size_t L = sets.size();
    auto t0 = std::chrono::steady_clock::now();
    prof_.mark("start", stream_->s);
    int b = L > 0 ? place(sets, 0, -1) : 0;
    // The first set's first piece ran at call time if its copy started it and is still in buffer b.
    const uint64_t first = first_ticket_;
    const bool ran = L > 0 && first != 0 && sets[0].ticket == first && slot_ticket_[b] == first;
    const uint32_t from = ran ? plan_.last_from() : 0;
    first_ticket_ = 0;  // this call's pipeline writes over the workspace
    for (size_t k = 0; k < L; ++k) {
      MSM_CUDA_CHECK(cudaStreamWaitEvent(stream_->s, staged_[b]->e, 0));
      prof_.mark("upload", stream_->s);
      run(device_scalars(b), consumed_[b]->e, k == 0 ? from : 0);
      X* out = pinned_out_.get() + b * S;
      MSM_CUDA_CHECK(cudaMemcpyAsync(out, w_.window_sums, S * sizeof(X), cudaMemcpyDeviceToHost, stream_->s));
      prof_.mark("download", stream_->s);
      MSM_CUDA_CHECK(cudaEventRecord(done_[b]->e, stream_->s));
      const int next = k + 1 < L ? place(sets, k + 1, b) : b;  // an upload overlaps compute k
      MSM_CUDA_CHECK(cudaEventSynchronize(done_[b]->e));
      std::copy(out, out + S, &sums[at[k] * S]);
      const auto t1 = std::chrono::steady_clock::now();
      prof_.report(plan_.n, std::chrono::duration<double, std::milli>(t1 - t0).count());
      t0 = t1;
      b = next;
    }
    if (L == 0) {
      const auto t1 = std::chrono::steady_clock::now();
      prof_.report(plan_.n, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    MSM_CUDA_CHECK(cudaStreamSynchronize(copy_stream_->s));
    for (size_t k = 0; k < K; ++k) q[k] = finish(&sums[k * S]);
  }

  // The caller's thread (the JS thread) at call time. Into a lent pinned buffer when one is free;
  // when the device is idle too (no call holds it), each chunk is DMA'd to a device scalar buffer
  // as soon as it is copied, so that the upload overlaps the copy (issue 12, lever 5) instead of
  // following it in msm_batch, and the first piece's compute overlaps the rest of the copy.
  HostBytes take_scalars(const uint8_t* src, size_t bytes, bool upload_now, uint64_t& ticket,
                         const HostBytes::Inspect& inspect) override {
    ticket = 0;
    HostBytes copy = borrow(lender_, bytes);
    if (!copy.data()) {
      finish_pending();
      return HostBytes::copy_of(src, bytes, inspect);
    }
    const uint64_t t = new_ticket();
    if (copy_uploading(copy.data(), src, bytes, upload_now, t, inspect)) ticket = t;
    return copy;
  }

  // finish_pieces, when the device is idle (no call holds it): before a copy that takes no
  // lent buffer, so that the device computes while it is made.
  void finish_pending() {
    std::unique_lock<std::mutex> lock(device_mutex(device_), std::try_to_lock);
    if (lock.owns_lock() && cudaSetDevice(device_) == cudaSuccess) finish_pieces();
  }

  // src → dst (pinned host memory, n·32 bytes), whole, always. When upload_now and the device is
  // idle (no call holds it), each chunk is also DMA'd to a device scalar buffer as soon as it is
  // copied, and that buffer is marked with ticket: true then. An earlier call's first pieces
  // waiting in the workspace get the rest of their pipeline queued first (finish_pieces); then,
  // where the plan splits the call, the buckets' O is queued (clear_first_piece) and each piece but
  // the last has its Alg. 3–5 queued on stream_ as soon as its DMA is, while the copy goes on
  // (stage_and_copy's at_end); where it does not, the whole pipeline is queued after the
  // copy, so that a batch's first sets compute while its later ones are copied (a batch of 8 at
  // 2^16–2^19: 6–14 % less per MSM on the H100; a single call's time to the result did not move,
  // bench/gpu-notes.md). Each piece is shown to inspect once copied (again, if a CUDA error makes
  // the copy start over).
  bool copy_uploading(uint8_t* dst, const uint8_t* src, size_t bytes, bool upload_now, uint64_t ticket,
                      const HostBytes::Inspect& inspect) {
    HostLaps laps;
    std::unique_lock<std::mutex> lock(device_mutex(device_), std::try_to_lock);
    const bool idle = lock.owns_lock() && cudaSetDevice(device_) == cudaSuccess;
    if (idle) finish_pieces();
    laps.lap("lock");
    if (!upload_now || !idle || bytes != plan_.n * 32 || environment().cuda_upload_pageable) {
      HostBytes::stream(dst, src, bytes, inspect);
      return false;
    }
    const int b = eager_slot_;
    eager_slot_ ^= 1;
    slot_ticket_[b] = 0;
    const bool split = plan_.pieces > 1;
    uint8_t* d = reinterpret_cast<uint8_t*>(device_scalars(b));
    cudaStream_t cs = copy_stream_->s;
    cudaError_t e = cudaStreamWaitEvent(cs, consumed_[b]->e, 0);
    if (e == cudaSuccess && split) e = clear_first_piece();
    dma_queue_ns_ = 0, piece_launch_ns_ = 0;
    std::vector<size_t> ends;  // each piece's end but the last's, in bytes
    for (int i = 0; i + 1 < plan_.pieces; ++i) ends.push_back(size_t(plan_.cuts[i]) * 32);
    if (e == cudaSuccess) e = stage_and_copy(d, dst, src, 0, bytes, inspect, ends, [&](int i) { return start_piece(b, i); });
    if (e == cudaSuccess) e = cudaEventRecord(staged_[b]->e, cs);
    laps.lap("copy");
    if (e != cudaSuccess) {  // the copy must still be whole; msm_batch meets the error again and reports it
      if (split) first_ticket_ = 0;
      HostBytes::stream(dst, src, bytes, inspect);
      return false;
    }
    slot_ticket_[b] = ticket;
    if (split) first_ticket_ = ticket, first_buffer_ = b;
    else queue_pipeline(b, ticket, 0, false);
    laps.lap("launch");
    laps.print(plan_.n, dma_queue_ns_.load() * 1e-6);
    if (split && environment().cuda_profile)
      std::fprintf(stderr, "[msm-cuda profile] call-time piece launches %.3f ms (on the copy threads)\n",
                   piece_launch_ns_.load() * 1e-6);
    return true;
  }

  CurveId curve() const override { return id_; }
  Group group() const override { return group_of<G>(); }
  size_t size() const override { return plan_.n; }
  size_t host_memory() const override {
    return pinned_in_[0].bytes() + pinned_in_[1].bytes() + pinned_out_.bytes() + queued_out_.bytes() +
           (lender_ ? lender_->bytes() : 0);
  }
  size_t device_memory() const override { return memory_.bytes(); }
  int window_bits() const override { return plan_.c; }
  int tau() const override { return plan_.tau; }

 private:
  uint32_t* device_scalars(int b) const {
    return reinterpret_cast<uint32_t*>(memory_.get() + plan_.scalars[b].offset);
  }

  // The first pieces waiting in the workspace (first_ticket_), whose whole upload is queued, get
  // the rest of their pipeline queued now.
  void finish_pieces() {
    const uint64_t t = first_ticket_;
    const int b = first_buffer_;
    first_ticket_ = 0;
    if (t == 0 || slot_ticket_[b] != t) return;
    queue_pipeline(b, t, plan_.last_from(), true);
  }

  // Queues on stream_ the pipeline of the set with ticket t from point `from` on (its scalars
  // uploaded, or being uploaded, into buffer b), §3.4, and the download of its window sums into a
  // queued_ entry, which msm_batch then only collects (take_queued). A free entry; else, with
  // `evict`, the oldest (the call it held, if it still comes, runs whole), or none (the set is left
  // to msm_batch). A failure leaves the set to msm_batch, which meets the error again.
  void queue_pipeline(int b, uint64_t t, uint32_t from, bool evict) {
    Queued* e = nullptr;
    for (Queued& c : queued_) {
      if (c.ticket == 0) {
        e = &c;
        break;
      }
      if (evict && (!e || c.age < e->age)) e = &c;
    }
    if (!e) return;
    e->ticket = 0;
    const size_t S = size_t(plan_.sums_slots);
    try {
      if (!queued_out_.get()) queued_out_.allocate(kQueued * S);
      if (!e->done) e->done = std::make_unique<Event>();
      MSM_CUDA_CHECK(cudaStreamWaitEvent(stream_->s, staged_[b]->e, 0));
      run(device_scalars(b), consumed_[b]->e, from);
      MSM_CUDA_CHECK(cudaMemcpyAsync(queued_out_.get() + size_t(e - queued_) * S, w_.window_sums, S * sizeof(X),
                                     cudaMemcpyDeviceToHost, stream_->s));
      MSM_CUDA_CHECK(cudaEventRecord(e->done->e, stream_->s));
      e->ticket = t;
      e->age = ++queued_age_;
    } catch (const std::exception&) {
      cudaGetLastError();
    }
  }

  // The window sums of the set with this ticket, if queue_pipeline queued its whole pipeline:
  // into out, once downloaded (the entry is then free).
  bool take_queued(uint64_t ticket, X* out) {
    if (ticket == 0) return false;
    for (Queued& e : queued_) {
      if (e.ticket != ticket) continue;
      e.ticket = 0;
      MSM_CUDA_CHECK(cudaEventSynchronize(e.done->e));
      const X* sums = queued_out_.get() + size_t(&e - queued_) * size_t(plan_.sums_slots);
      std::copy(sums, sums + plan_.sums_slots, out);
      return true;
    }
    return false;
  }

  // The buckets set to O (R) on stream_ for the first piece that copy_uploading starts, before its
  // copy: off the path from the call to the device's first piece (27 µs at BN254 2^20).
  cudaError_t clear_first_piece() {
    try {
      launch_clear_buckets<G>(w_, stream_->s);
      prof_.mark("clear", stream_->s);
    } catch (const std::exception&) {
      const cudaError_t e = cudaGetLastError();
      return e != cudaSuccess ? e : cudaErrorLaunchFailure;
    }
    return cudaSuccess;
  }

  // Piece i's Alg. 3–5 on stream_ once its scalars are in device buffer b (copy_uploading has
  // queued their DMA on copy_stream_, and the buckets' O before it: clear_first_piece); consumed_[b]
  // marks its recode, so that an upload into b waits for it. A launch error comes back as a CUDA
  // error, for copy_uploading's fallback.
  cudaError_t start_piece(int b, int i) {
    cudaError_t e = cudaEventRecord(piece_staged_->e, copy_stream_->s);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(stream_->s, piece_staged_->e, 0);
    if (e != cudaSuccess) return e;
    try {
      prof_.mark("piece", stream_->s);
      const uint32_t from = i > 0 ? plan_.cuts[i - 1] : 0;
      run_piece(device_scalars(b), from, plan_.cuts[i] - from, i > 0, consumed_[b]->e, true);
    } catch (const std::exception&) {
      e = cudaGetLastError();
      return e != cudaSuccess ? e : cudaErrorLaunchFailure;
    }
    return cudaSuccess;
  }

  // Set k's scalars into a device buffer other than `busy` (the one compute k−1 reads), which is
  // returned: where take_scalars already put them, if that copy is still in place; else an upload
  // into a buffer no later set of the batch has its copy in.
  int place(const std::vector<ScalarSet>& sets, size_t k, int busy) {
    const uint64_t t = sets[k].ticket;
    for (int b = 0; b < 2; ++b)
      if (b != busy && t != 0 && slot_ticket_[b] == t) return b;
    int b = busy < 0 ? 0 : 1 - busy;
    if (busy < 0)
      for (size_t j = k + 1; j < sets.size(); ++j)
        if (sets[j].ticket != 0 && sets[j].ticket == slot_ticket_[b]) b = 1 - b;
    slot_ticket_[b] = 0;
    upload(sets[k].data, b);
    return b;
  }

  // Host scalars → device buffer b on copy_stream_, once the recode that last read that buffer is
  // done (consumed_[b]); staged_[b] marks the upload's end. Pinned memory (a lent buffer) is DMA'd
  // as it is; other memory goes through pinned staging (stage_and_copy). Small inputs, and
  // MSM_CUDA_UPLOAD=pageable, go in one copy from the caller's memory instead.
  void upload(const uint8_t* src, int b) {
    const size_t bytes = size_t(plan_.n) * 32;
    uint8_t* dst = reinterpret_cast<uint8_t*>(device_scalars(b));
    cudaStream_t cs = copy_stream_->s;
    MSM_CUDA_CHECK(cudaStreamWaitEvent(cs, consumed_[b]->e, 0));
    if (environment().cuda_upload_pageable || bytes < kSlice || is_pinned(src)) {
      MSM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cs));
    } else {
      PinnedBuffer<uint8_t>& stage = pinned_in_[b];
      if (!stage.get()) stage.allocate(bytes);
      MSM_CUDA_CHECK(cudaEventSynchronize(staged_[b]->e));  // the last DMA out of this staging buffer
      MSM_CUDA_CHECK(stage_and_copy(dst, stage.get(), src, 0, bytes, nullptr));
    }
    MSM_CUDA_CHECK(cudaEventRecord(staged_[b]->e, cs));
  }

  // Bytes [from, to) of src → pinned stage → device dst (all three at the same offsets) on
  // copy_stream_: host threads copy it into stage with non-temporal stores (HostBytes::stream_range,
  // which shows inspect the pieces its filter flags), and the DMA follows the copy's front. Up to
  // kOneDma bytes the threads only copy and the caller queues the DMAs: the threads' DMAs of ≥ 256
  // KiB each kept the calling thread, the JS thread at call time, 0.3–0.8 ms at 2^16–2^18 scalars
  // against 0.19–0.35 ms so, for the same time to the result (bench/gpu-notes.md). Above it the
  // threads take kFlow chunks in ascending order (HostBytes::split_chunks), and whichever thread
  // finds, after its chunk, at least kChunk copied ahead of the DMAs queued so far, or the next of
  // `ends` reached (and the queue free), queues one DMA up to there; the rest is queued once the
  // copy is done. So the first DMA starts after ~kChunk is copied, not after each thread's whole
  // share (BN254 2^20's first piece: 9.4 MB, whose DMA waited for its copy, 0.4–0.6 ms,
  // bench/gpu-notes.md). Once the DMAs reach ends[i] (ascending, inside (from, to)), and before any
  // DMA past it, at_end(i) runs on the thread that queued them, holding the queue: a piece's
  // launches, which so no longer stop the copy of the next piece (0.10–0.15 ms a piece on the
  // calling thread before, bench/gpu-notes.md). Stops queueing at the first CUDA error, which it
  // returns; the copy is whole either way.
  cudaError_t stage_and_copy(uint8_t* dst, uint8_t* stage, const uint8_t* src, size_t from, size_t to,
                             const HostBytes::Inspect& inspect, const std::vector<size_t>& ends = {},
                             const std::function<cudaError_t(int)>& at_end = {}) {
    std::mutex queueing;
    size_t queued = from;  // bytes [from, queued) have their DMA queued; under `queueing`
    size_t next_end = 0;   // the first of `ends` not yet reached; under `queueing`
    cudaError_t failed = cudaSuccess;  // under `queueing`
    // Under `queueing`: DMAs for bytes [queued, front), one to each end reached, the last only if it
    // is at an end or at least `least` bytes. True if it ran at_end (the copy went on meanwhile).
    const auto queue_to = [&](size_t front, size_t least) {
      bool launched = false;
      while (failed == cudaSuccess) {
        const size_t end = next_end < ends.size() ? ends[next_end] : to;
        const size_t hi = std::min(front, end);
        if (hi <= queued || (hi < end && hi - queued < least)) break;
        cudaError_t e = cudaSetDevice(device_);
        if (e == cudaSuccess) e = queue_dma(dst + queued, stage + queued, hi - queued);
        queued = hi;
        if (e == cudaSuccess && hi == end && next_end < ends.size()) {
          const auto t = std::chrono::steady_clock::now();
          e = at_end(int(next_end++));
          launched = true;
          if (environment().cuda_profile)
            piece_launch_ns_ += uint64_t(
                std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t).count());
        }
        failed = e;
      }
      return launched;
    };
    if (to - from <= kOneDma) {
      HostBytes::split(to - from, [&](size_t lo, size_t hi) {
        HostBytes::stream_range(stage, src, from + lo, from + hi, inspect);
      });
      queue_to(to, 1);
      return failed;
    }
    const size_t chunks = (to - from + kFlow - 1) / kFlow;
    std::unique_ptr<std::atomic<bool>[]> copied(new std::atomic<bool>[chunks]);
    for (size_t k = 0; k < chunks; ++k) copied[k].store(false, std::memory_order_relaxed);
    size_t front = 0;  // chunks copied, a prefix; under `queueing`
    const auto queue_copied = [&](size_t least) {
      do
        while (front < chunks && copied[front].load(std::memory_order_acquire)) ++front;
      while (queue_to(std::min(to, from + front * kFlow), least));
    };
    HostBytes::split_chunks(to - from, kFlow, [&](size_t lo, size_t hi) {
      HostBytes::stream_range(stage, src, from + lo, from + hi, inspect);  // fenced before it returns
      copied[lo / kFlow].store(true, std::memory_order_release);
      std::unique_lock<std::mutex> lock(queueing, std::try_to_lock);
      if (lock.owns_lock()) queue_copied(kChunk);
    });
    std::lock_guard<std::mutex> lock(queueing);
    queue_copied(1);
    return failed;
  }

  // Host → device on copy_stream_; under MSM_CUDA_PROFILE the call's own time is added to dma_queue_ns_.
  cudaError_t queue_dma(uint8_t* dst, const uint8_t* src, size_t bytes) {
    const auto t = std::chrono::steady_clock::now();
    const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, copy_stream_->s);
    if (environment().cuda_profile)
      dma_queue_ns_ += uint64_t(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t).count());
    return e;
  }

  // The pipeline on stream_ for scalars on the device (or being copied there before stream_ reaches
  // them), from point `from` on: 0 for all of it, else the first piece's buckets are already in
  // the workspace and the rest's are added to them. `consumed` is recorded once the scalars are read.
  void run(const uint32_t* d_scalars, cudaEvent_t consumed, uint32_t from) {
    cudaStream_t s = stream_->s;
    run_piece(d_scalars, from, plan_.n - from, from > 0, consumed);
    launch_reduce<G>(w_, device_, s);
    prof_.mark("reduce", s);
  }

  // Alg. 3–5 on points [first, first + count) into the context's buckets: a later piece's added onto
  // them (Workspace::later: by Alg. 4 in the default and constant-time modes, whose runs start from
  // the bucket values, by Alg. 5 in the homogeneous one). Alg. 4 and 5 write only the buckets that
  // have entries, so the first piece sets them all to O, or R in the constant-time mode (unless
  // `cleared`: clear_first_piece did).
  void run_piece(const uint32_t* d_scalars, uint32_t first, uint32_t count, bool later, cudaEvent_t consumed,
                 bool cleared = false) {
    cudaStream_t s = stream_->s;
    Workspace<G> w = w_;
    w.first = first, w.count = count;
    w.later = later;
    const bool ct = w.mode == Accumulation::constant_time;
    launch_recode<G>(w, d_scalars, s);
    prof_.mark("recode", s);
    MSM_CUDA_CHECK(cudaEventRecord(consumed, s));
    sort_windows(w.sort_temp, w.sort_temp_bytes, w.keys_in, w.keys, w.vals_in, w.vals, w.entries(), w.W, w.sort_group,
                 w.sort_first_bit(), sort_key_bits(w.log_m(), w.sort_group), s);
    prof_.mark("sort", s);
    if (!later && !cleared) {
      launch_clear_buckets<G>(w, s);
      prof_.mark("clear", s);
    }
    launch_accumulate<G>(w, s);
    prof_.mark("accumulate", s);
    if (ct) launch_ct_aggregate<G>(w, device_, s);
    else launch_aggregate<G>(w, device_, s);
    prof_.mark("aggregate", s);
  }

  // The constant-time mode's blinding point (ec/blinding.hpp) from 256 bits of std::random_device;
  // MSM_CUDA_BLIND=base0 takes the first base instead (not O), so that tests reach the accumulation's
  // exceptional additions (accumulate.cu ConstantTimeAcc) on purpose.
  static A blinding_point(const AffineBuffer& pts) {
    const A* bases = reinterpret_cast<const A*>(pts.limbs.data());
    if (environment().cuda_blind_base0 && pts.n > 0 && !bases[0].is_inf()) return bases[0];
    std::random_device rd;
    uint64_t k[4];
    for (uint64_t& word : k) word = (uint64_t(rd()) << 32) | rd();
    return ec::blinding_point<G>(k);
  }

  // Q from a result's download (Plan::sums_slots): Horner over its window sums, and in the
  // constant-time mode the multiples of R off, the public one and the head pieces' (combine.hpp
  // unblinded; in combine.cpp, whose arithmetic is x86-64's, not this file's portable one).
  X finish(const X* sums) const {
    const X q = combine_windows<G>(sums, w_.W, w_.c);
    if (unblind_table_.empty()) return q;
    const auto* counts = reinterpret_cast<const uint64_t*>(sums + w_.W);
    return unblinded<G>(q, unblind_table_, counts, blind_multiple_, w_.W, w_.c);
  }

  CurveId id_;
  int device_;
  Plan plan_;
  DeviceBuffer<unsigned char> memory_;  // the plan's one allocation
  Workspace<G> w_;
  // the constant-time mode's public multiple of R in each window sum, and unblind_table(R) (combine.hpp)
  uint64_t blind_multiple_ = 0;
  std::vector<ec::HomogeneousOf<G>> unblind_table_;
  std::unique_ptr<Stream> stream_, copy_stream_;
  static constexpr size_t kSlice = size_t(1) << 20, kChunk = size_t(2) << 20;
  static constexpr size_t kOneDma = size_t(8) << 20, kFlow = size_t(128) << 10;  // stage_and_copy
  PinnedBuffer<uint8_t> pinned_in_[2];  // staging for scalars not in a lent buffer
  PinnedBuffer<X> pinned_out_;
  std::shared_ptr<PinnedLender> lender_;  // null for inputs under kSlice
  // Guarded by the device mutex: the ticket of the take_scalars copy in device scalar buffer b
  // (0: none), and the buffer the next upload at call time goes to.
  uint64_t slot_ticket_[2] = {0, 0};
  int eager_slot_ = 0;
  // Guarded by the device mutex: the ticket whose first pieces copy_uploading ran (their buckets in
  // the workspace, the last piece to follow; 0: none) and the scalar buffer it read; the sets whose
  // whole pipeline a call-time copy queued (queue_pipeline), each with its window sums' download.
  uint64_t first_ticket_ = 0;
  int first_buffer_ = -1;
  struct Queued {
    uint64_t ticket = 0;  // 0: free
    uint64_t age = 0;
    std::unique_ptr<Event> done;  // the download of its sums is done
  };
  static constexpr int kQueued = 4;
  Queued queued_[kQueued];
  PinnedBuffer<X> queued_out_;  // [kQueued·sums_slots] their window sums (and heads' weights)
  uint64_t queued_age_ = 0;
  // Per scalar buffer b: its upload is done (staged), its recode has read it (consumed), and the
  // window sums of the MSM that used it are on the host (done).
  std::unique_ptr<Event> staged_[2], consumed_[2], done_[2];
  std::unique_ptr<Event> piece_staged_;  // a piece's DMA is done (copy_uploading, recorded again per piece)
  Profiler prof_;
  std::atomic<uint64_t> dma_queue_ns_{0};  // MSM_CUDA_PROFILE: stage_and_copy's DMA calls, all threads
  std::atomic<uint64_t> piece_launch_ns_{0};  // MSM_CUDA_PROFILE: its pieces' launches (at_end)
};

// Runs f(i) for i in [0, count) on a thread each and waits for all. An exception of f(i) is
// rethrown as an EngineError of the same code whose message names CUDA device devices[i] (the
// first such, by i).
template <class Fn>
void on_each_device(const std::vector<int>& devices, Fn&& f) {
  std::vector<std::exception_ptr> failed(devices.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < devices.size(); ++i) {
    auto body = [&, i] {
      try {
        f(i);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    };
    try {
      threads.emplace_back(body);
    } catch (...) {  // no thread to be had: run it here
      body();
    }
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!failed[i]) continue;
    const std::string where = "CUDA device " + std::to_string(devices[i]) + ": ";
    try {
      std::rethrow_exception(failed[i]);
    } catch (const EngineError& e) {
      throw EngineError(e.code, where + e.what(), e.index);
    } catch (const std::bad_alloc&) {
      throw EngineError("ERR_OUT_OF_MEMORY", where + "host memory exhausted");
    } catch (const std::exception& e) {
      throw EngineError("ERR_CUDA", where + e.what());
    }
  }
}

// One context over several devices (issue 13). The bases are split into contiguous shares in
// proportion to each device's speed (share_weights), each share a CudaEngine of its own on its
// device with its own plan (its memory decides its τ), streams and host thread; an MSM runs all
// shares at once and adds their results on the host. The call-time copy goes into a whole lent
// buffer (portable pinned memory), each device's share of it uploaded while it is copied when
// that device is idle, under one ticket.
template <class G>
class SplitEngine final : public Engine {
 public:
  using Share = CudaEngine<G>;
  using A = AffineOf<G>;
  using X = XyzzOf<G>;

  SplitEngine(CurveId id, AffineBuffer&& pts, const EngineOptions& opt, const std::vector<int>& devices,
              const std::vector<double>& weights)
      : id_(id), n_(pts.n) {
    // Shares by cumulative rounding: Σ = n, equal weights give sizes within one of each other.
    double total = 0;
    for (double w : weights) total += w;
    double acc = 0;
    size_t lo = 0;
    for (size_t i = 0; i < devices.size(); ++i) {
      acc += weights[i];
      const size_t hi = i + 1 == devices.size() ? n_ : size_t(double(n_) * acc / total + 0.5);
      if (hi > lo) {
        devices_.push_back(devices[i]);
        offsets_.push_back(lo);
        sizes_.push_back(hi - lo);
      }
      lo = std::max(lo, hi);
    }
    const size_t limbs_per_point = sizeof(A) / sizeof(uint64_t);
    shares_.resize(devices_.size());
    on_each_device(devices_, [&](size_t i) {
      AffineBuffer part;
      part.n = sizes_[i];
      part.limbs.assign(pts.limbs.begin() + ptrdiff_t(offsets_[i] * limbs_per_point),
                        pts.limbs.begin() + ptrdiff_t((offsets_[i] + sizes_[i]) * limbs_per_point));
      EngineOptions o = opt;
      o.device = devices_[i];
      o.devices.clear();
      shares_[i] = std::make_unique<Share>(id, std::move(part), o, false);
    });
    std::vector<uint64_t>().swap(pts.limbs);
    if (n_ * 32 >= (size_t(1) << 20)) lender_ = std::make_shared<PinnedLender>(n_ * 32, lent_buffers(n_ * 32));
  }

  void msm_batch(const std::vector<ScalarSet>& scalars, size_t n, uint8_t* outs) override {
    if (n != n_) throw EngineError("ERR_LENGTH_MISMATCH", "expected " + std::to_string(n_) + " scalars");
    const size_t K = scalars.size();
    std::vector<X> q(shares_.size() * K);
    on_each_device(devices_, [&](size_t i) {
      std::vector<ScalarSet> mine(K);
      for (size_t k = 0; k < K; ++k) mine[k] = ScalarSet{scalars[k].data + 32 * offsets_[i], scalars[k].ticket};
      shares_[i]->results(mine, sizes_[i], &q[i * K]);
    });
    for (size_t k = 0; k < K; ++k) {
      X sum = X::infinity();
      for (size_t i = 0; i < shares_.size(); ++i) sum = sum.add(q[i * K + k]);
      write_affine<G>(sum, outs + k * 2 * G::field::BYTES);
    }
  }

  HostBytes take_scalars(const uint8_t* src, size_t bytes, bool upload_now, uint64_t& ticket,
                         const HostBytes::Inspect& inspect) override {
    ticket = 0;
    HostBytes copy = borrow(lender_, bytes);
    if (!copy.data()) {
      for (auto& s : shares_) s->finish_pending();
      return HostBytes::copy_of(src, bytes, inspect);
    }
    const uint64_t t = new_ticket();
    std::atomic<bool> any{false};
    // CUDA failures here only cost the early upload (copy_uploading still copies); what can throw
    // (no memory for a thread) rejects the call through on_each_device, never a partial copy.
    on_each_device(devices_, [&](size_t i) {
      uint8_t* p = copy.data();
      const size_t off = 32 * offsets_[i];
      HostBytes::Inspect at_share;  // the share's pieces at their offsets in the whole copy
      if (inspect)
        at_share = HostBytes::Inspect(
            [&, off](const uint8_t* piece, size_t o, size_t len) { inspect(piece, off + o, len); }, inspect.top);
      if (shares_[i]->copy_uploading(p + off, src + off, 32 * sizes_[i], upload_now, t, at_share)) any = true;
    });
    if (any) ticket = t;
    return copy;
  }

  CurveId curve() const override { return id_; }
  Group group() const override { return group_of<G>(); }
  size_t size() const override { return n_; }
  size_t host_memory() const override {
    size_t m = lender_ ? lender_->bytes() : 0;
    for (auto& s : shares_) m += s->host_memory();
    return m;
  }
  size_t device_memory() const override {
    size_t m = 0;
    for (auto& s : shares_) m += s->device_memory();
    return m;
  }
  // Of the first share (every share plans its own).
  int window_bits() const override { return shares_.empty() ? 0 : shares_[0]->window_bits(); }
  int tau() const override { return shares_.empty() ? 0 : shares_[0]->tau(); }

 private:
  CurveId id_;
  size_t n_;
  std::vector<int> devices_;  // those with a non-empty share
  std::vector<size_t> offsets_, sizes_;
  std::vector<std::unique_ptr<Share>> shares_;
  std::shared_ptr<PinnedLender> lender_;
};

// A device's speed for the split: multiprocessors × SM clock (equal GPUs get equal shares).
double share_weight(const CudaDevice& d) {
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d.index) != cudaSuccess || khz <= 0) {
    cudaGetLastError();
    khz = 1;
  }
  return double(std::max(d.multiprocessors, 1)) * double(khz);
}

}  // namespace
}  // namespace gpu

std::unique_ptr<Engine> make_cuda_engine(CurveId curve, AffineBuffer&& points, const EngineOptions& opt) {
  const CudaStatus st = cuda_status();
  if (!st.available) throw EngineError("ERR_CUDA_UNAVAILABLE", "CUDA is not available: " + st.reason);
  const std::vector<int> devices = opt.devices.empty() ? std::vector<int>{opt.device} : opt.devices;
  for (int d : devices)
    if (d < 0 || size_t(d) >= st.devices.size())
      throw EngineError("ERR_INVALID_OPTION", std::string("option '") + (opt.devices.empty() ? "device" : "devices") +
                                                  "' must name CUDA device indices in [0, " +
                                                  std::to_string(st.devices.size() - 1) + "] (got " +
                                                  std::to_string(d) + ")");
  return visit_group(curve, opt.group, [&](auto g) -> std::unique_ptr<Engine> {
    using G = decltype(g);
    if (devices.size() == 1) {
      EngineOptions o = opt;
      o.device = devices[0];
      return std::make_unique<gpu::CudaEngine<G>>(curve, std::move(points), o);
    }
    std::vector<double> weights;
    for (int d : devices) weights.push_back(gpu::share_weight(st.devices[size_t(d)]));
    return std::make_unique<gpu::SplitEngine<G>>(curve, std::move(points), opt, devices, weights);
  });
}

}  // namespace msm
