// Milliseconds since a steady-clock time point: the timings of queries, uploads, compiles
// and probes.
#pragma once
#include <chrono>

namespace tessera {

inline double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace tessera
