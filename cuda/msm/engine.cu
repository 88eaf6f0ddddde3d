// The CUDA backend behind cuda/engine.hpp: one context = one curve, n resident bases and their
// 2^h·P table (built once on the device when the context is created), and the scratch memory of
// the pipeline sized once for n. msm() uploads the scalars, runs the stages (stages.cuh) on one
// stream and combines the window sums on the host by Horner's rule; msm_batch() double-buffers
// the scalar uploads through pinned staging on a second stream so the next upload overlaps the
// current compute. Calls on one device are serialised by a per-device mutex.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "device.cuh"
#include "dispatch.hpp"
#include "recode.cuh"
#include "stages.cuh"

namespace msm {
namespace gpu {
namespace {

std::mutex& device_mutex(int device) {
  static std::mutex m[64];
  return m[unsigned(device) % 64];
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { MSM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s) cudaStreamDestroy(s);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};
struct Event {
  cudaEvent_t e = nullptr;
  Event() { MSM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

__global__ void probe_kernel() {}

// MSM_CUDA_PROFILE=1: per-stage device times of every msm() on stderr (events between stages).
class Profiler {
 public:
  Profiler() : on_(std::getenv("MSM_CUDA_PROFILE") != nullptr) {}
  void mark(const char* name, cudaStream_t s) {
    if (!on_) return;
    if (count_ == kMax) return;
    if (!ev_[count_]) MSM_CUDA_CHECK(cudaEventCreate(&ev_[count_]));
    MSM_CUDA_CHECK(cudaEventRecord(ev_[count_], s));
    names_[count_++] = name;
  }
  void reset() { count_ = 0; }
  void report(size_t n, double host_ms) {
    if (!on_ || count_ < 2) return;
    MSM_CUDA_CHECK(cudaEventSynchronize(ev_[count_ - 1]));
    std::fprintf(stderr, "[msm-cuda profile] n=%zu", n);
    for (int i = 1; i < count_; ++i) {
      float ms = 0;
      MSM_CUDA_CHECK(cudaEventElapsedTime(&ms, ev_[i - 1], ev_[i]));
      std::fprintf(stderr, " %s %.3f", names_[i], ms);
    }
    std::fprintf(stderr, " | host total %.3f ms\n", host_ms);
    count_ = 0;
  }
  ~Profiler() {
    for (auto e : ev_)
      if (e) cudaEventDestroy(e);
  }

 private:
  static constexpr int kMax = 16;
  bool on_;
  int count_ = 0;
  cudaEvent_t ev_[kMax] = {};
  const char* names_[kMax] = {};
};

template <class G>
class CudaEngine final : public Engine {
 public:
  using F = typename G::field;
  using Fr = typename G::scalar;
  using A = AffineOf<G>;
  using X = XyzzOf<G>;

  CudaEngine(CurveId id, AffineBuffer&& pts, const EngineOptions& opt) : id_(id), device_(opt.device) {
    check_options(Backend::cuda, opt);
    check_size(Backend::cuda, pts.n);
    w_.mode = opt.accumulation;
    n_ = uint32_t(pts.n);
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    MSM_CUDA_CHECK(cudaSetDevice(device_));
    {
      cudaFuncAttributes fa;
      const cudaError_t e = cudaFuncGetAttributes(&fa, probe_kernel);
      if (e != cudaSuccess) {
        cudaGetLastError();
        throw EngineError("ERR_CUDA_UNAVAILABLE", std::string("no kernel image for CUDA device ") +
                                                      std::to_string(device_) + ": " + cudaGetErrorString(e));
      }
    }
    MSM_CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
    stream_ = std::make_unique<Stream>();
    copy_stream_ = std::make_unique<Stream>();

    // r − 1 (r is odd) and λ for the window count.
    for (int i = 0; i < kScalarWords; ++i) rm1_[i] = i < 2 * Fr::N ? Fr::params::modulus::at32(i) : 0;
    rm1_[0] -= 1;
    const int bits = int(Fr::params::BITS);

    int c = opt.window_bits > 0 ? opt.window_bits : choose_window_bits(std::max<size_t>(n_, 1), rm1_, bits);
    if (opt.tau > c - 1)
      throw EngineError("ERR_INVALID_OPTION", "option 'tau' must be at most windowBits − 1 (" + std::to_string(c - 1) + ")");
    const bool ct = w_.mode == Accumulation::constant_time;
    if (ct && opt.tau >= 0 && opt.tau != c - 1)
      throw EngineError("ERR_INVALID_OPTION", "constantTime needs tau = windowBits − 1 (" + std::to_string(c - 1) +
                                                  "): a doubling step would depend on the digits");

    // τ: as asked, else c − 1 (no doublings during accumulation) when the table fits in half the
    // device's free memory, else the largest depth that does. The constant-time mode needs τ = c − 1,
    // so where its table does not fit, a cost-model c is lowered until it does.
    size_t free_b = 0, total_b = 0;
    MSM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const auto fits = [&](int depth) { return double(depth + 1) * n_ * sizeof(A) <= 0.5 * double(free_b); };
    if (ct && opt.window_bits <= 0)
      while (c > kMinWindowBits + 2 && !fits(c - 1)) --c;
    int tau = opt.tau;
    if (tau < 0) {
      tau = c - 1;
      if (!ct)
        while (tau > 0 && !fits(tau)) --tau;
    }
    w_.c = c;
    w_.W = num_windows(rm1_, kScalarWords, bits, c);
    w_.n = n_;
    w_.tau = tau;
    const uint32_t resident = accumulate_threads<G>(device_, w_.mode);
    w_.T = std::max<uint32_t>(1, std::min<uint32_t>(resident / uint32_t(w_.W), std::max<uint32_t>(n_, 1)));

    if (n_ == 0) return;
    allocate();
    // Bases → level 0 of the table, then levels 1 … τ on the device.
    MSM_CUDA_CHECK(cudaMemcpyAsync(table_.get(), pts.limbs.data(), size_t(n_) * sizeof(A), cudaMemcpyHostToDevice,
                                   stream_->s));
    build_table<G>(table_.get(), n_, w_.tau, stream_->s);
    MSM_CUDA_CHECK(cudaStreamSynchronize(stream_->s));
    std::vector<uint64_t>().swap(pts.limbs);
  }

  ~CudaEngine() override {
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_->s);
    if (copy_stream_) cudaStreamSynchronize(copy_stream_->s);
    // DeviceBuffer / PinnedBuffer / Stream members free themselves.
  }

  void msm(const uint8_t* scalars, size_t n, uint8_t* out) override {
    check_size(n);
    if (n_ == 0) return write_result(X::infinity(), out);
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    const auto t0 = std::chrono::steady_clock::now();
    MSM_CUDA_CHECK(cudaSetDevice(device_));
    prof_.reset();
    prof_.mark("start", stream_->s);
    upload(scalars, scalars_[0].get());
    prof_.mark("upload", stream_->s);
    run(scalars_[0].get());
    MSM_CUDA_CHECK(cudaMemcpyAsync(pinned_out_.get(), w_.window_sums, size_t(w_.W) * sizeof(X),
                                   cudaMemcpyDeviceToHost, stream_->s));
    prof_.mark("download", stream_->s);
    MSM_CUDA_CHECK(cudaStreamSynchronize(stream_->s));
    write_result(horner(pinned_out_.get()), out);
    prof_.report(n_, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }

  void msm_batch(const std::vector<const uint8_t*>& scalars, size_t n, uint8_t* outs) override {
    check_size(n);
    const size_t out_bytes = 2 * F::BYTES;
    if (n_ == 0) {
      for (size_t k = 0; k < scalars.size(); ++k) write_result(X::infinity(), outs + k * out_bytes);
      return;
    }
    std::lock_guard<std::mutex> lock(device_mutex(device_));
    MSM_CUDA_CHECK(cudaSetDevice(device_));
    prof_.reset();
    ensure_staging();
    const size_t bytes = size_t(n_) * 32;
    const size_t K = scalars.size();
    std::vector<X> sums(K * size_t(w_.W));
    // Upload k: host copy into pinned[k%2] once its previous DMA is done, DMA on copy_stream once
    // the recode that read scalars_[k%2] last is done. Compute k waits for its upload.
    auto upload = [&](size_t k) {
      const int b = int(k % 2);
      MSM_CUDA_CHECK(cudaEventSynchronize(staged_[b]->e));
      std::memcpy(pinned_in_[b].get(), scalars[k], bytes);
      MSM_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_->s, consumed_[b]->e, 0));
      MSM_CUDA_CHECK(cudaMemcpyAsync(scalars_[b].get(), pinned_in_[b].get(), bytes, cudaMemcpyHostToDevice,
                                     copy_stream_->s));
      MSM_CUDA_CHECK(cudaEventRecord(staged_[b]->e, copy_stream_->s));
    };
    if (K > 0) upload(0);
    for (size_t k = 0; k < K; ++k) {
      const int b = int(k % 2);
      MSM_CUDA_CHECK(cudaStreamWaitEvent(stream_->s, staged_[b]->e, 0));
      run(scalars_[b].get(), consumed_[b]->e);
      MSM_CUDA_CHECK(cudaMemcpyAsync(pinned_out_.get() + (k % 2) * w_.W, w_.window_sums, size_t(w_.W) * sizeof(X),
                                     cudaMemcpyDeviceToHost, stream_->s));
      MSM_CUDA_CHECK(cudaEventRecord(done_[b]->e, stream_->s));
      if (k + 1 < K) upload(k + 1);  // overlaps compute k
      MSM_CUDA_CHECK(cudaEventSynchronize(done_[b]->e));
      std::copy(pinned_out_.get() + (k % 2) * w_.W, pinned_out_.get() + (k % 2 + 1) * w_.W, &sums[k * w_.W]);
    }
    MSM_CUDA_CHECK(cudaStreamSynchronize(copy_stream_->s));
    for (size_t k = 0; k < K; ++k) write_result(horner(&sums[k * w_.W]), outs + k * out_bytes);
  }

  CurveId curve() const override { return id_; }
  size_t size() const override { return n_; }
  size_t host_memory() const override { return pinned_in_[0].bytes() + pinned_in_[1].bytes() + pinned_out_.bytes(); }
  size_t device_memory() const override { return device_bytes_; }
  int window_bits() const override { return w_.c; }
  int tau() const override { return w_.tau; }

 private:
  void check_size(size_t n) const {
    if (n != n_) throw EngineError("ERR_LENGTH_MISMATCH", "expected " + std::to_string(n_) + " scalars");
  }

  template <class T>
  void alloc(DeviceBuffer<T>& b, size_t count) {
    b.allocate(count);
    device_bytes_ += b.bytes();
  }

  void allocate() {
    const size_t n = n_, W = size_t(w_.W), M = w_.M(), S = w_.slots(), T = w_.T;
    alloc(table_, size_t(w_.tau + 1) * n);
    w_.table = table_.get();
    std::vector<uint32_t> rt(table_size(w_.c));
    build_recode_table(w_.c, rt.data());
    alloc(recode_table_, rt.size());
    MSM_CUDA_CHECK(cudaMemcpy(recode_table_.get(), rt.data(), rt.size() * 4, cudaMemcpyHostToDevice));
    w_.recode_table = recode_table_.get();
    alloc(scalars_[0], n * kScalarWords);
    alloc(keys_in_, W * n);
    alloc(vals_in_, W * n);
    alloc(keys_, W * n);
    alloc(vals_, W * n);
    w_.keys_in = keys_in_.get(), w_.vals_in = vals_in_.get(), w_.keys = keys_.get(), w_.vals = vals_.get();
    w_.sort_temp_bytes = sort_temp_bytes(n_, key_bits(w_.c));
    alloc(sort_temp_, w_.sort_temp_bytes);
    w_.sort_temp = sort_temp_.get();
    // The constant-time mode keeps each window's buffer as P ≥ S homogeneous points (ct_padded).
    const bool ct = w_.mode == Accumulation::constant_time;
    const size_t P = ct ? w_.ct_padded() : S;
    alloc(buffer_, ct ? (W * P * sizeof(HomOf<G>) + sizeof(X) - 1) / sizeof(X) : W * S);
    alloc(buf_offset_, W * T);
    alloc(buf_index_, W * std::max(S, P));
    alloc(buf_used_, W * T);
    w_.buffer = buffer_.get(), w_.buf_offset = buf_offset_.get(), w_.buf_index = buf_index_.get();
    w_.buf_used = buf_used_.get();
    alloc(buckets_, W * M);
    alloc(heavy_, W * M);
    alloc(heavy_count_, 1);
    alloc(bhat0_, W);
    alloc(window_sums_, W);
    w_.buckets = buckets_.get(), w_.heavy = heavy_.get(), w_.heavy_count = heavy_count_.get();
    w_.bhat0 = bhat0_.get(), w_.window_sums = window_sums_.get();
    pinned_out_.allocate(2 * W);
  }

  void ensure_staging() {
    if (scalars_[1].get()) return;
    alloc(scalars_[1], size_t(n_) * kScalarWords);
    pinned_in_[0].allocate(size_t(n_) * 32);
    pinned_in_[1].allocate(size_t(n_) * 32);
    for (int b = 0; b < 2; ++b) {
      staged_[b] = std::make_unique<Event>();
      consumed_[b] = std::make_unique<Event>();
      done_[b] = std::make_unique<Event>();
      // Recorded once so the first waits return at once.
      MSM_CUDA_CHECK(cudaEventRecord(staged_[b]->e, copy_stream_->s));
      MSM_CUDA_CHECK(cudaEventRecord(consumed_[b]->e, stream_->s));
    }
  }

  // Host scalars → d (on stream_'s order). Through pinned staging: the host threads each copy
  // a slice into the staging buffer chunk by chunk and queue that chunk's DMA at once, so the
  // copies run in parallel and overlap the transfers. MSM_CUDA_UPLOAD=pageable: one plain
  // cudaMemcpyAsync from the caller's memory instead (for comparison).
  void upload(const uint8_t* src, uint32_t* d) {
    const size_t bytes = size_t(n_) * 32;
    static const bool pageable = [] {
      const char* e = std::getenv("MSM_CUDA_UPLOAD");
      return e && std::string(e) == "pageable";
    }();
    if (pageable || bytes < (size_t(1) << 20)) {
      MSM_CUDA_CHECK(cudaMemcpyAsync(d, src, bytes, cudaMemcpyHostToDevice, stream_->s));
      return;
    }
    if (!pinned_in_[0].get()) pinned_in_[0].allocate(bytes);
    uint8_t* stage = pinned_in_[0].get();
    uint8_t* dst = reinterpret_cast<uint8_t*>(d);
    const unsigned hc = std::max(1u, std::thread::hardware_concurrency());
    const size_t threads = std::min<size_t>(std::min(hc, 8u), bytes >> 20);
    constexpr size_t kChunk = size_t(4) << 20;
    std::vector<cudaError_t> err(threads, cudaSuccess);
    auto work = [&](size_t k) {
      const size_t lo = bytes * k / threads, hi = bytes * (k + 1) / threads;
      cudaError_t e = cudaSetDevice(device_);
      for (size_t off = lo; off < hi && e == cudaSuccess; off += kChunk) {
        const size_t len = std::min(kChunk, hi - off);
        std::memcpy(stage + off, src + off, len);
        e = cudaMemcpyAsync(dst + off, stage + off, len, cudaMemcpyHostToDevice, copy_stream_->s);
      }
      err[k] = e;
    };
    std::vector<std::thread> pool;
    for (size_t k = 1; k < threads; ++k) pool.emplace_back(work, k);
    work(0);
    for (auto& t : pool) t.join();
    for (cudaError_t e : err) MSM_CUDA_CHECK(e);
    if (!uploaded_) uploaded_ = std::make_unique<Event>();
    MSM_CUDA_CHECK(cudaEventRecord(uploaded_->e, copy_stream_->s));
    MSM_CUDA_CHECK(cudaStreamWaitEvent(stream_->s, uploaded_->e, 0));
  }

  // The pipeline on stream_ for scalars already on the device (or being copied before `stream_`).
  void run(const uint32_t* d_scalars, cudaEvent_t consumed = nullptr) {
    cudaStream_t s = stream_->s;
    launch_recode<G>(w_, d_scalars, s);
    prof_.mark("recode", s);
    if (consumed) MSM_CUDA_CHECK(cudaEventRecord(consumed, s));
    sort_windows(w_.sort_temp, w_.sort_temp_bytes, w_.keys_in, w_.keys, w_.vals_in, w_.vals, n_, w_.W, key_bits(w_.c),
                 s);
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
  uint32_t n_ = 0;
  cudaDeviceProp props_{};
  uint32_t rm1_[kScalarWords] = {};
  Workspace<G> w_;
  size_t device_bytes_ = 0;
  std::unique_ptr<Stream> stream_, copy_stream_;
  DeviceBuffer<A> table_;
  DeviceBuffer<uint32_t> recode_table_, scalars_[2], keys_in_, vals_in_, keys_, vals_;
  DeviceBuffer<unsigned char> sort_temp_;
  DeviceBuffer<X> buffer_, buckets_, bhat0_, window_sums_;
  DeviceBuffer<uint32_t> buf_offset_, buf_index_, buf_used_, heavy_count_;
  DeviceBuffer<uint4> heavy_;
  PinnedBuffer<uint8_t> pinned_in_[2];
  PinnedBuffer<X> pinned_out_;
  std::unique_ptr<Event> staged_[2], consumed_[2], done_[2], uploaded_;
  Profiler prof_;
};

}  // namespace
}  // namespace gpu

CudaStatus cuda_status() {
  CudaStatus s;
  s.compiled = true;
  cudaRuntimeGetVersion(&s.runtime_version);
  if (cudaDriverGetVersion(&s.driver_version) != cudaSuccess) s.driver_version = 0;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    s.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    return s;
  }
  if (count == 0) {
    s.reason = "no CUDA device found";
    return s;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    s.devices.push_back(CudaDevice{i, p.name, p.major, p.minor, p.totalGlobalMem, p.multiProcessorCount});
  }
  s.available = !s.devices.empty();
  if (!s.available) s.reason = "no CUDA device could be queried";
  return s;
}

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
