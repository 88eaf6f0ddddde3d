// Fork-join over std::thread for every backend and the glue: fn(t) for t in [0, threads), the
// caller's thread running t = 0; parallel_ranges splits [0, n) into one contiguous range per thread.
// KeptThreads (below) is the same on threads kept for the process, for the short copies of every call.
//
// No exception leaves a thread: an exception escaping a std::thread calls std::terminate and takes
// the whole Node.js process down (a bucket allocation failing in one worker, issue 10). Each fn(t)
// runs under a catch-all; after every thread has joined, the first exception caught is rethrown on
// the calling thread, where the addon turns it into an MsmError (std::bad_alloc → ERR_OUT_OF_MEMORY).
// fn(t) must not wait for another t: a thread that cannot be started (EAGAIN under a process,
// thread or memory limit) is not an error, the calling thread runs that share itself afterwards.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
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

// fork(t_used, g) with g(t) calling fn(lo, hi) over [0, n) in one contiguous range per t; fewer
// than `threads` when n is small.
template <class Fork, class Fn>
void fork_ranges(Fork&& fork, size_t n, int threads, size_t min_per_thread, Fn&& fn) {
  const size_t most = std::max<size_t>(1, n / std::max<size_t>(1, min_per_thread));
  const int t_used = int(std::min<size_t>(size_t(std::max(1, threads)), most));
  fork(t_used, [&](int t) { fn(n * size_t(t) / size_t(t_used), n * size_t(t + 1) / size_t(t_used)); });
}

// fn(lo, hi) over [0, n) in one contiguous range per thread; fewer threads when n is small.
template <class Fn>
void parallel_ranges(size_t n, int threads, size_t min_per_thread, Fn&& fn) {
  fork_ranges([](int t, auto&& g) { parallel(t, g); }, n, threads, min_per_thread, fn);
}

// Fork-join on threads kept for the life of the process, for short jobs run on every call: the
// call-time copy of the scalars (HostBytes::split) takes 0.1–0.5 ms at 2^16–2^18 points, about what
// starting its threads costs (bench/gpu-notes.md, "The API's fixed cost at 2^16"), so parallel()
// could not split it; waking a kept thread costs a few µs. Same contract as parallel(): fn(t) for
// t in [0, threads), the first exception rethrown once all are done, and fn(t) must not wait for
// another t. A share no kept thread has taken when the caller is free runs on the caller, so a
// nested run, or several callers at once, never waits for a thread to come free. At most kMost
// threads are kept (started on first need; one that cannot be started is not an error).
class KeptThreads {
 public:
  static constexpr int kMost = 15;

  static void run(int threads, const std::function<void(int)>& fn) {
    if (threads <= 1) return fn(0);
    get().fork_join(threads, fn);
  }

 private:
  struct Job {
    const std::function<void(int)>* fn;
    int count, next = 0, done = 0;
    std::exception_ptr first;
    std::condition_variable finished;
  };

  // Never destroyed: the kept threads end with the process, and nothing runs at exit.
  static KeptThreads& get() {
    static KeptThreads* const pool = new KeptThreads();
    return *pool;
  }

  void fork_join(int threads, const std::function<void(int)>& fn) {
    Job job;
    job.fn = &fn;
    job.count = threads;
    std::unique_lock<std::mutex> lock(m_);
    start_up_to(threads - 1);
    jobs_.push_back(&job);
    wake_.notify_all();
    for (int t; (t = claim(job)) >= 0;) share(job, t, lock);
    job.finished.wait(lock, [&] { return job.done == job.count; });
    lock.unlock();
    if (job.first) std::rethrow_exception(job.first);
  }

  // The next share of job, or −1 (the job then leaves the queue). Under m_.
  int claim(Job& job) {
    if (job.next == job.count) return -1;
    const int t = job.next++;
    if (job.next == job.count) jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
    return t;
  }

  // Runs share t of job outside m_; the job's caller may return once the last share is done.
  void share(Job& job, int t, std::unique_lock<std::mutex>& lock) {
    lock.unlock();
    std::exception_ptr e;
    try {
      (*job.fn)(t);
    } catch (...) {
      e = std::current_exception();
    }
    lock.lock();
    if (e && !job.first) job.first = e;
    if (++job.done == job.count) job.finished.notify_all();
  }

  void start_up_to(int wanted) {
    wanted = std::min(wanted, kMost);
    while (int(threads_.size()) < wanted) {
      try {
        threads_.emplace_back([this] { serve(); });
      } catch (...) {  // no thread to be had: the callers run those shares
        return;
      }
    }
  }

  void serve() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      wake_.wait(lock, [&] { return !jobs_.empty(); });
      Job& job = *jobs_.front();
      share(job, claim(job), lock);
    }
  }

  std::mutex m_;
  std::condition_variable wake_;
  std::deque<Job*> jobs_;  // jobs with shares not yet taken
  std::vector<std::thread> threads_;
};

// parallel_ranges on KeptThreads.
template <class Fn>
void kept_ranges(size_t n, int threads, size_t min_per_thread, Fn&& fn) {
  fork_ranges([](int t, const std::function<void(int)>& g) { KeptThreads::run(t, g); }, n, threads, min_per_thread, fn);
}

}  // namespace msm
