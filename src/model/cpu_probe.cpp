#include "model/cpu_probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "common/parallel.hpp"

namespace tessera::model {

namespace {
using Clock = std::chrono::steady_clock;

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t c = line.find(':');
      return c == std::string::npos ? line : line.substr(line.find_first_not_of(' ', c + 1));
    }
  return "unknown CPU";
}

// Sums 64-bit words with four independent accumulators (so the loop streams, not chains).
uint64_t SumWords(const uint64_t* p, size_t n) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a += p[i];
    b += p[i + 1];
    c += p[i + 2];
    d += p[i + 3];
  }
  for (; i < n; i++) a += p[i];
  return a + b + c + d;
}

// Best GB/s of `repeats` runs of `threads` workers, each handling its slice of `bytes`;
// `scale` counts bytes moved per byte of buffer (2 for a copy).
template <class F>
double BestGbps(unsigned threads, size_t bytes, int repeats, double scale, F slice) {
  double best = 0;
  for (int r = 0; r < repeats; r++) {
    auto t0 = Clock::now();
    ParallelFor(threads, threads, [&](uint64_t w, unsigned) {
      size_t per = bytes / threads / 64 * 64;
      size_t begin = w * per, end = w + 1 == threads ? bytes : begin + per;
      slice(begin, end);
    });
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, scale * (double)bytes / s / 1e9);
  }
  return best;
}
}  // namespace

double CpuLastLevelCache() {
  double best = 0;
  for (int idx = 0; idx < 8; idx++) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/size");
    std::string s;
    if (!(in >> s)) continue;
    double v = std::atof(s.c_str());
    if (s.back() == 'K') v *= 1024;
    if (s.back() == 'M') v *= 1024 * 1024;
    best = std::max(best, v);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) best = (double)std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE));
#endif
  return best;
}

void ProbeCpu(Ceilings& c, const CpuProbeOptions& opt) {
  c.cpu_model = CpuModel();
  c.cpu_threads = HardwareThreads();
  c.cpu_llc_bytes = CpuLastLevelCache();
  // Twice the last-level cache at least, so that the figure is memory's, not the cache's.
  size_t llc_mib = (size_t)(c.cpu_llc_bytes / (1 << 20));
  size_t bytes = std::max<size_t>({opt.buffer_mib, 2 * llc_mib + 64, 16}) << 20;
  c.cpu_buffer_mib = (double)(bytes >> 20);
  auto say = [&](const std::string& s) { if (opt.progress) opt.progress(s); };
  std::unique_ptr<uint64_t[]> src(new uint64_t[bytes / 8]), dst(new uint64_t[bytes / 8]);
  unsigned threads = c.cpu_threads;
  // First touch in parallel (pages land near the threads that use them), non-zero content.
  ParallelFor(threads, threads, [&](uint64_t w, unsigned) {
    size_t n = bytes / 8, per = n / threads, b = w * per, e = w + 1 == threads ? n : b + per;
    for (size_t i = b; i < e; i++) src[i] = i, dst[i] = 0;
  });
  std::atomic<uint64_t> sink{0};
  auto read = [&](size_t b, size_t e) { sink += SumWords(src.get() + b / 8, (e - b) / 8); };
  say("CPU: memory read, " + std::to_string(threads) + " threads ...");
  c.cpu_read_gbps = BestGbps(threads, bytes, opt.repeats, 1, read);
  say("CPU: memory read, one thread ...");
  c.cpu_read_1t_gbps = BestGbps(1, bytes, opt.repeats, 1, read);
  say("CPU: memory copy, " + std::to_string(threads) + " threads ...");
  c.cpu_copy_gbps = BestGbps(threads, bytes, opt.repeats, 2, [&](size_t b, size_t e) {
    std::memcpy(reinterpret_cast<char*>(dst.get()) + b, reinterpret_cast<const char*>(src.get()) + b, e - b);
  });
  if (sink.load() == 42) std::fprintf(stderr, " ");  // keeps the sums alive
}

}  // namespace tessera::model
