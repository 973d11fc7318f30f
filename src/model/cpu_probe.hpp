// Measures the CPU's memory ceilings: read bandwidth over a buffer larger than any cache on
// all hardware threads and on one, memcpy bandwidth on all threads; reads the CPU model and
// the last-level cache size from the system.
#pragma once
#include <functional>
#include <string>

#include "model/ceilings.hpp"

namespace tessera::model {

struct CpuProbeOptions {
  size_t buffer_mib = 512;  // per buffer (raised to twice the last-level cache); the copy uses two
  int repeats = 5;          // the best repeat counts
  std::function<void(const std::string&)> progress;  // one line per measurement
};

// Fills the CPU fields of `c` (cpu_model, cpu_threads, cpu_llc_bytes, cpu_*_gbps).
void ProbeCpu(Ceilings& c, const CpuProbeOptions& opt);
// Last-level cache size in bytes from sysfs / sysconf (0 when unknown).
double CpuLastLevelCache();

}  // namespace tessera::model
