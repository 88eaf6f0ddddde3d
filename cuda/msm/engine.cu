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
    MSM_CUDA_CHECK(cudaStreamSynchronize(stream_->s));
    std::vector<uint64_t>().swap(pts.limbs);
  }

  ~CudaEngine() override {
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_->s);
    if (copy_stream_) cudaStreamSynchronize(copy_stream_->s);
  }

  void msm_batch(const std::vector<const uint8_t*>& scalars, size_t n, uint8_t* outs) override {
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
    if (K > 0) upload(scalars[0], 0);
    for (size_t k = 0; k < K; ++k) {
      const int b = int(k % 2);
      MSM_CUDA_CHECK(cudaStreamWaitEvent(stream_->s, staged_[b]->e, 0));
      prof_.mark("upload", stream_->s);
      run(device_scalars(b), consumed_[b]->e);
      X* out = pinned_out_.get() + b * W;
      MSM_CUDA_CHECK(cudaMemcpyAsync(out, w_.window_sums, W * sizeof(X), cudaMemcpyDeviceToHost, stream_->s));
      prof_.mark("download", stream_->s);
      MSM_CUDA_CHECK(cudaEventRecord(done_[b]->e, stream_->s));
      if (k + 1 < K) upload(scalars[k + 1], 1 - b);  // overlaps compute k
      MSM_CUDA_CHECK(cudaEventSynchronize(done_[b]->e));
      std::copy(out, out + W, &sums[k * W]);
      const auto t1 = std::chrono::steady_clock::now();
      prof_.report(plan_.n, std::chrono::duration<double, std::milli>(t1 - t0).count());
      t0 = t1;
    }
    MSM_CUDA_CHECK(cudaStreamSynchronize(copy_stream_->s));
    for (size_t k = 0; k < K; ++k) write_result(horner(&sums[k * W]), outs + k * out_bytes);
  }

  CurveId curve() const override { return id_; }
  size_t size() const override { return plan_.n; }
  size_t host_memory() const override { return pinned_in_[0].bytes() + pinned_in_[1].bytes() + pinned_out_.bytes(); }
  size_t device_memory() const override { return memory_.bytes(); }
  int window_bits() const override { return plan_.c; }
  int tau() const override { return plan_.tau; }

 private:
  uint32_t* device_scalars(int b) const {
    return reinterpret_cast<uint32_t*>(memory_.get() + plan_.scalars[b].offset);
  }

  // Host scalars → device buffer b on copy_stream_, once the recode that last read that buffer is
  // done (consumed_[b]); staged_[b] marks the upload's end. Through pinned staging: host threads
  // copy a slice each into the staging buffer chunk by chunk and queue that chunk's DMA at once,
  // so the copies run in parallel and overlap the transfers. Small inputs, and
  // MSM_CUDA_UPLOAD=pageable, go in one copy from the caller's memory instead.
  void upload(const uint8_t* src, int b) {
    const size_t bytes = size_t(plan_.n) * 32;
    uint8_t* dst = reinterpret_cast<uint8_t*>(device_scalars(b));
    cudaStream_t cs = copy_stream_->s;
    MSM_CUDA_CHECK(cudaStreamWaitEvent(cs, consumed_[b]->e, 0));
    constexpr size_t kSlice = size_t(1) << 20, kChunk = size_t(4) << 20;
    if (environment().cuda_upload_pageable || bytes < kSlice) {
      MSM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cs));
    } else {
      PinnedBuffer<uint8_t>& stage = pinned_in_[b];
      if (!stage.get()) stage.allocate(bytes);
      MSM_CUDA_CHECK(cudaEventSynchronize(staged_[b]->e));  // the last DMA out of this staging buffer
      const unsigned hc = std::max(1u, std::thread::hardware_concurrency());
      std::atomic<int> failed{cudaSuccess};
      parallel_ranges(bytes, int(std::min(hc, 8u)), kSlice, [&](size_t lo, size_t hi) {
        cudaError_t e = cudaSetDevice(device_);
        for (size_t off = lo; off < hi && e == cudaSuccess; off += kChunk) {
          const size_t len = std::min(kChunk, hi - off);
          std::memcpy(stage.get() + off, src + off, len);
          e = cudaMemcpyAsync(dst + off, stage.get() + off, len, cudaMemcpyHostToDevice, cs);
        }
        if (e != cudaSuccess) failed = e;
      });
      MSM_CUDA_CHECK(cudaError_t(failed.load()));
    }
    MSM_CUDA_CHECK(cudaEventRecord(staged_[b]->e, cs));
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
  PinnedBuffer<uint8_t> pinned_in_[2];
  PinnedBuffer<X> pinned_out_;
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
