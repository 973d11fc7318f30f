// Work distribution over threads: ParallelFor hands out task indices [0, n) from an atomic
// counter to `threads` workers (morsel-driven: fast workers take more tasks). The calling
// thread is worker 0. The first exception thrown by any task is rethrown after all
// workers stop; remaining tasks are skipped once one failed.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera {

inline unsigned HardwareThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

// fn(task, worker): task in [0, n), worker in [0, threads).
inline void ParallelFor(uint64_t n, unsigned threads,
                        const std::function<void(uint64_t, unsigned)>& fn) {
  if (threads == 0) threads = HardwareThreads();
  if (threads > n) threads = (unsigned)(n ? n : 1);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mu;
  auto work = [&](unsigned w) {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      uint64_t t = next.fetch_add(1);
      if (t >= n) return;
      try {
        fn(t, w);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < threads; w++) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tessera
