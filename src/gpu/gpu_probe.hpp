// Measures the GPU's ceilings for `tessera probe`: device-memory read and copy bandwidth
// with small NVRTC-compiled kernels, host<->device copies from pinned and pageable memory,
// and a kernel reading pinned host memory directly (zero-copy, through unified addressing).
#pragma once
#include <functional>
#include <string>

#include "model/ceilings.hpp"

namespace tessera::gpu {

struct GpuProbeOptions {
  size_t device_mib = 2048;  // device buffer for the read kernel (the copy uses two halves)
  size_t host_mib = 512;     // host buffers for the transfers and the zero-copy read
  int repeats = 5;           // the best repeat counts
  std::function<void(const std::string&)> progress;
};

// The CUDA source of the probe kernels (tsr_probe_read, tsr_probe_copy); compiled by NVRTC.
const char* ProbeKernelSource();
// Fills the GPU fields of `c` when a GPU is usable (has_gpu = true); otherwise sets
// has_gpu = false and gpu_note to the reason. Never throws for a missing GPU; driver errors
// during the measurement do throw.
void ProbeGpu(model::Ceilings& c, const GpuProbeOptions& opt);
// The usable GPU's name ("" when none), without creating a context.
std::string UsableGpuName();

}  // namespace tessera::gpu
