// The CUDA backend behind cuda/engine.hpp: one context = one curve, n resident bases and their
// 2^h·P table (built once on the device when the context is created), and the pipeline's scratch,
// all in the one allocation that plan.hpp lays out. An MSM uploads its scalars, runs the stages
// (stages.cuh) on one stream and combines the window sums on the host by Horner's rule; a batch
// double-buffers the uploads on a second stream so that the next upload overlaps the current
// compute, and a single MSM is a batch of one. Calls on one device are serialised by a per-device
// mutex.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "../common/parallel.hpp"
#include "curve_sizes.hpp"
#include "device.cuh"
#include "plan.hpp"
#include "recode.cuh"
#include "stages.cuh"

namespace msm {
namespace gpu {
namespace {

std::mutex& device_mutex(int device) {
  static std::mutex m[64];
  return m[unsigned(device) % 64];
}

// Pinned host buffers of one context's scalar size, lent to take_scalars for the call-time copy
// (issue 10) so that the upload DMAs straight from it instead of copying it a second time into
// staging memory. Allocated with the context; as many as the host grants, up to `count`.
class PinnedLender final : public BytesLender {
 public:
  PinnedLender(size_t bytes, int count) : bytes_(bytes) {
    free_.reserve(size_t(count));  // give_back never allocates
    for (int i = 0; i < count; ++i) {
      void* p = nullptr;
      if (cudaMallocHost(&p, bytes) != cudaSuccess) {
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
  bool lends(const uint8_t* p) const { return std::find(all_.begin(), all_.end(), p) != all_.end(); }
  size_t size() const { return bytes_; }
  size_t bytes() const { return bytes_ * all_.size(); }

 private:
  const size_t bytes_;
  std::vector<uint8_t*> all_;  // fixed once constructed
  std::mutex m_;
  std::vector<uint8_t*> free_;
};

template <class G>
class CudaEngine final : public Engine {
 public:
  using F = typename G::field;
  using A = AffineOf<G>;
  using X = XyzzOf<G>;

  CudaEngine(CurveId id, AffineBuffer&& pts, const EngineOptions& opt) : id_(id), device_(opt.device) {
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
    in.resident_threads = accumulate_threads<G>(device_, opt.accumulation);
    in.sort_temp_bytes = sort_temp_bytes;
    plan_ = make_plan(in);
    if (plan_.n == 0) return;

    memory_.allocate(plan_.total);
    w_ = Workspace<G>::bind(plan_, memory_.get());
    for (int b = 0; b < 2; ++b) {
      staged_[b] = std::make_unique<Event>();
      consumed_[b] = std::make_unique<Event>();
      done_[b] = std::make_unique<Event>();
    }
    std::vector<uint32_t> rt(table_size(plan_.c));
    build_recode_table(plan_.c, rt.data());
    MSM_CUDA_CHECK(cudaMemcpyAsync(memory_.get() + plan_.recode_table.offset, rt.data(), rt.size() * 4,
                                   cudaMemcpyHostToDevice, stream_->s));
    // Bases → level 0 of the table, then levels 1 … τ on the device.
    A* table = reinterpret_cast<A*>(memory_.get() + plan_.table.offset);
    MSM_CUDA_CHECK(cudaMemcpyAsync(table, pts.limbs.data(), size_t(plan_.n) * sizeof(A), cudaMemcpyHostToDevice,
                                   stream_->s));
    build_table<G>(table, plan_.n, plan_.tau, stream_->s);
    // Two: a call can be copied while the previous one runs (and msmBatch's first two sets).
    if (plan_.n * 32 >= kSlice) lender_ = std::make_shared<PinnedLender>(plan_.n * 32, 2);
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
    if (n != plan_.n) throw EngineError("ERR_LENGTH_MISMATCH", "expected " + std::to_string(plan_.n) + " scalars");
    const size_t K = scalars.size(), out_bytes = 2 * F::BYTES, W = size_t(plan_.W);
    if (plan_.n == 0) {
      for (size_t k = 0; k < K; ++k) write_result(X::infinity(), outs + k * out_bytes);
      return;
    }
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    MSM_CUDA_CHECK(cudaSetDevice(device_));
    if (!pinned_out_.get()) pinned_out_.allocate(2 * W);
    std::vector<X> sums(K * W);
    auto t0 = std::chrono::steady_clock::now();
    prof_.mark("start", stream_->s);
    int b = K > 0 ? place(scalars, 0, -1) : 0;
    for (size_t k = 0; k < K; ++k) {
      MSM_CUDA_CHECK(cudaStreamWaitEvent(stream_->s, staged_[b]->e, 0));
      prof_.mark("upload", stream_->s);
      run(device_scalars(b), consumed_[b]->e);
      X* out = pinned_out_.get() + b * W;
      MSM_CUDA_CHECK(cudaMemcpyAsync(out, w_.window_sums, W * sizeof(X), cudaMemcpyDeviceToHost, stream_->s));
      prof_.mark("download", stream_->s);
      MSM_CUDA_CHECK(cudaEventRecord(done_[b]->e, stream_->s));
      const int next = k + 1 < K ? place(scalars, k + 1, b) : b;  // an upload overlaps compute k
      MSM_CUDA_CHECK(cudaEventSynchronize(done_[b]->e));
      std::copy(out, out + W, &sums[k * W]);
      const auto t1 = std::chrono::steady_clock::now();
      prof_.report(plan_.n, std::chrono::duration<double, std::milli>(t1 - t0).count());
      t0 = t1;
      b = next;
    }
    MSM_CUDA_CHECK(cudaStreamSynchronize(copy_stream_->s));
    for (size_t k = 0; k < K; ++k) write_result(horner(&sums[k * W]), outs + k * out_bytes);
  }

  // The caller's thread (the JS thread) at call time. Into a lent pinned buffer when one is free;
  // when the device is idle too (no call holds it), each chunk is DMA'd to a device scalar buffer
  // as soon as it is copied, so that the upload overlaps the copy (issue 12, lever 5) instead of
  // following it in msm_batch.
  HostBytes take_scalars(const uint8_t* src, size_t bytes, bool upload_now, uint64_t& ticket) override {
    ticket = 0;
    uint8_t* p = lender_ && bytes == lender_->size() ? lender_->take() : nullptr;
    if (!p) return HostBytes::copy_of(src, bytes);
    HostBytes copy = HostBytes::lend(p, bytes, lender_);
    std::unique_lock<std::mutex> lock(device_mutex(device_), std::try_to_lock);
    if (!upload_now || !lock.owns_lock() || environment().cuda_upload_pageable || cudaSetDevice(device_) != cudaSuccess) {
      HostBytes::copy(p, src, bytes);
      return copy;
    }
    const int b = eager_slot_;
    eager_slot_ ^= 1;
    slot_ticket_[b] = 0;
    cudaStream_t cs = copy_stream_->s;
    cudaError_t e = cudaStreamWaitEvent(cs, consumed_[b]->e, 0);
    if (e == cudaSuccess) e = stage_and_copy(reinterpret_cast<uint8_t*>(device_scalars(b)), p, src, bytes);
    if (e == cudaSuccess) e = cudaEventRecord(staged_[b]->e, cs);
    if (e != cudaSuccess) {  // the copy must still be whole; msm_batch meets the error again and reports it
      HostBytes::copy(p, src, bytes);
      return copy;
    }
    slot_ticket_[b] = ticket = ++last_ticket_;
    return copy;
  }

  CurveId curve() const override { return id_; }
  size_t size() const override { return plan_.n; }
  size_t host_memory() const override {
    return pinned_in_[0].bytes() + pinned_in_[1].bytes() + pinned_out_.bytes() + (lender_ ? lender_->bytes() : 0);
  }
  size_t device_memory() const override { return memory_.bytes(); }
  int window_bits() const override { return plan_.c; }
  int tau() const override { return plan_.tau; }

 private:
  uint32_t* device_scalars(int b) const {
    return reinterpret_cast<uint32_t*>(memory_.get() + plan_.scalars[b].offset);
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
  // done (consumed_[b]); staged_[b] marks the upload's end. A lent pinned buffer is DMA'd as it is;
  // other memory goes through pinned staging (stage_and_copy). Small inputs, and
  // MSM_CUDA_UPLOAD=pageable, go in one copy from the caller's memory instead.
  void upload(const uint8_t* src, int b) {
    const size_t bytes = size_t(plan_.n) * 32;
    uint8_t* dst = reinterpret_cast<uint8_t*>(device_scalars(b));
    cudaStream_t cs = copy_stream_->s;
    MSM_CUDA_CHECK(cudaStreamWaitEvent(cs, consumed_[b]->e, 0));
    if (environment().cuda_upload_pageable || bytes < kSlice || (lender_ && lender_->lends(src))) {
      MSM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cs));
    } else {
      PinnedBuffer<uint8_t>& stage = pinned_in_[b];
      if (!stage.get()) stage.allocate(bytes);
      MSM_CUDA_CHECK(cudaEventSynchronize(staged_[b]->e));  // the last DMA out of this staging buffer
      MSM_CUDA_CHECK(stage_and_copy(dst, stage.get(), src, bytes));
    }
    MSM_CUDA_CHECK(cudaEventRecord(staged_[b]->e, cs));
  }

  // src → pinned stage → device dst on copy_stream_: host threads copy a slice each into stage
  // chunk by chunk and queue that chunk's DMA at once, so the copies run in parallel and overlap
  // the transfers. Stops at the first CUDA error, which it returns.
  cudaError_t stage_and_copy(uint8_t* dst, uint8_t* stage, const uint8_t* src, size_t bytes) {
    cudaStream_t cs = copy_stream_->s;
    const unsigned hc = std::max(1u, std::thread::hardware_concurrency());
    std::atomic<int> failed{cudaSuccess};
    parallel_ranges(bytes, int(std::min(hc, 8u)), kSlice, [&](size_t lo, size_t hi) {
      cudaError_t e = cudaSetDevice(device_);
      for (size_t off = lo; off < hi && e == cudaSuccess; off += kChunk) {
        const size_t len = std::min(kChunk, hi - off);
        std::memcpy(stage + off, src + off, len);
        e = cudaMemcpyAsync(dst + off, stage + off, len, cudaMemcpyHostToDevice, cs);
      }
      if (e != cudaSuccess) failed = e;
    });
    return cudaError_t(failed.load());
  }

  // The pipeline on stream_ for scalars on the device (or being copied there before stream_ reaches
  // them); `consumed` is recorded once the scalars are read.
  void run(const uint32_t* d_scalars, cudaEvent_t consumed) {
    cudaStream_t s = stream_->s;
    launch_recode<G>(w_, d_scalars, s);
    prof_.mark("recode", s);
    MSM_CUDA_CHECK(cudaEventRecord(consumed, s));
    sort_windows(w_.sort_temp, w_.sort_temp_bytes, w_.keys_in, w_.keys, w_.vals_in, w_.vals, plan_.n, w_.W,
                 key_bits(w_.c), s);
    prof_.mark("sort", s);
    const bool ct = w_.mode == Accumulation::constant_time;
    if (ct) launch_ct_prepare<G>(w_, s);
    launch_accumulate<G>(w_, s);
    prof_.mark("accumulate", s);
    if (ct) launch_ct_aggregate<G>(w_, s);
    else launch_aggregate<G>(w_, device_, s);
    prof_.mark("aggregate", s);
    launch_reduce<G>(w_, device_, s);
    prof_.mark("reduce", s);
  }

  // Q = Σ_j 2^(jc)·Q_j, top window first.
  X horner(const X* sums) const {
    X acc = sums[w_.W - 1];
    for (int j = w_.W - 2; j >= 0; --j) {
      for (int k = 0; k < w_.c; ++k) acc = acc.dbl();
      acc = acc.add(sums[j]);
    }
    return acc;
  }

  static void write_result(const X& q, uint8_t* out) {
    const A a = q.to_affine();
    F::from_mont(a.x).store_le(out);
    F::from_mont(a.y).store_le(out + F::BYTES);
  }

  CurveId id_;
  int device_;
  Plan plan_;
  DeviceBuffer<unsigned char> memory_;  // the plan's one allocation
  Workspace<G> w_;
  std::unique_ptr<Stream> stream_, copy_stream_;
  static constexpr size_t kSlice = size_t(1) << 20, kChunk = size_t(4) << 20;
  PinnedBuffer<uint8_t> pinned_in_[2];  // staging for scalars not in a lent buffer
  PinnedBuffer<X> pinned_out_;
  std::shared_ptr<PinnedLender> lender_;  // null for inputs under kSlice
  // Guarded by the device mutex: the ticket of the take_scalars copy in device scalar buffer b
  // (0: none), the last ticket given, and the buffer the next eager upload goes to.
  uint64_t slot_ticket_[2] = {0, 0}, last_ticket_ = 0;
  int eager_slot_ = 0;
  // Per scalar buffer b: its upload is done (staged), its recode has read it (consumed), and the
  // window sums of the MSM that used it are on the host (done).
  std::unique_ptr<Event> staged_[2], consumed_[2], done_[2];
  Profiler prof_;
};

}  // namespace
}  // namespace gpu

std::unique_ptr<Engine> make_cuda_engine(CurveId curve, AffineBuffer&& points, const EngineOptions& opt) {
  const CudaStatus st = cuda_status();
  if (!st.available) throw EngineError("ERR_CUDA_UNAVAILABLE", "CUDA is not available: " + st.reason);
  if (opt.device < 0 || size_t(opt.device) >= st.devices.size())
    throw EngineError("ERR_INVALID_OPTION", "option 'device' must be a CUDA device index in [0, " +
                                                std::to_string(st.devices.size() - 1) + "] (got " +
                                                std::to_string(opt.device) + ")");
  return visit_curve(curve, [&](auto g) -> std::unique_ptr<Engine> {
    return std::make_unique<gpu::CudaEngine<decltype(g)>>(curve, std::move(points), opt);
  });
}

}  // namespace msm
