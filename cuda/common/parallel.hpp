// Fork-join over std::thread for every backend and the glue: fn(t) for t in [0, threads), the
// caller's thread running t = 0; parallel_ranges splits [0, n) into one contiguous range per thread.
//
// No exception leaves a thread: an exception escaping a std::thread calls std::terminate and takes
// the whole Node.js process down (a bucket allocation failing in one worker, issue 10). Each fn(t)
// runs under a catch-all; after every thread has joined, the first exception caught is rethrown on
// the calling thread, where the addon turns it into an MsmError (std::bad_alloc → ERR_OUT_OF_MEMORY).
// fn(t) must not wait for another t: a thread that cannot be started (EAGAIN under a process,
// thread or memory limit) is not an error, the calling thread runs that share itself afterwards.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace msm {

inline int default_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hc = std::thread::hardware_concurrency();
  return hc ? int(hc) : 1;
}

template <class Fn>
void parallel(int threads, Fn&& fn) {
  if (threads <= 1) return fn(0);
  std::mutex m;
  std::exception_ptr first;
  auto run = [&](int t) noexcept {
    try {
      fn(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      if (!first) first = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  int started = 1;  // fn(t) for t < started runs on its own thread (t = 0: this one)
  try {
    pool.reserve(size_t(threads - 1));  // so that emplace_back below never reallocates
    for (; started < threads; ++started) pool.emplace_back(run, started);
  } catch (...) {
    // std::system_error from the thread constructor, or bad_alloc from reserve: the threads
    // already running keep their share, the rest is run here.
  }
  run(0);
  for (int t = started; t < threads; ++t) run(t);
  for (auto& th : pool) th.join();
  if (first) std::rethrow_exception(first);
}

// fn(lo, hi) over [0, n) in one contiguous range per thread; fewer threads when n is small.
template <class Fn>
void parallel_ranges(size_t n, int threads, size_t min_per_thread, Fn&& fn) {
  const size_t most = std::max<size_t>(1, n / std::max<size_t>(1, min_per_thread));
  const int t_used = int(std::min<size_t>(size_t(std::max(1, threads)), most));
  parallel(t_used, [&](int t) { fn(n * size_t(t) / size_t(t_used), n * size_t(t + 1) / size_t(t_used)); });
}

}  // namespace msm
