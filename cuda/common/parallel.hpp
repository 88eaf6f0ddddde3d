// Fork-join over std::thread for every backend and the glue: fn(t) for t in [0, threads), the
// caller's thread running t = 0; parallel_ranges splits [0, n) into one contiguous range per thread.
#pragma once

#include <algorithm>
#include <cstddef>
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
  std::vector<std::thread> pool;
  pool.reserve(size_t(threads - 1));
  for (int t = 1; t < threads; ++t) pool.emplace_back([&fn, t] { fn(t); });
  fn(0);
  for (auto& th : pool) th.join();
}

// fn(lo, hi) over [0, n) in one contiguous range per thread; fewer threads when n is small.
template <class Fn>
void parallel_ranges(size_t n, int threads, size_t min_per_thread, Fn&& fn) {
  const size_t most = std::max<size_t>(1, n / std::max<size_t>(1, min_per_thread));
  const int t_used = int(std::min<size_t>(size_t(std::max(1, threads)), most));
  parallel(t_used, [&](int t) { fn(n * size_t(t) / size_t(t_used), n * size_t(t + 1) / size_t(t_used)); });
}

}  // namespace msm
