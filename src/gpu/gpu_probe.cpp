#include "gpu/gpu_probe.hpp"
#include "common/stopwatch.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "gpu/cuda_driver.hpp"
#include "gpu/gpu_context.hpp"
#include "gpu/nvrtc.hpp"

namespace tessera::gpu {

namespace {
using Clock = std::chrono::steady_clock;

constexpr const char* kSource = R"cuda(
struct alignas(16) W4 { unsigned x, y, z, w; };
// Reads n 16-byte words (grid-stride, coalesced); the XOR keeps every load alive.
extern "C" __global__ void tsr_probe_read(const W4* __restrict__ p, unsigned long long n,
                                          unsigned* __restrict__ out) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long stride = gridDim.x * (unsigned long long)blockDim.x;
  unsigned acc = 0;
  for (; i < n; i += stride) {
    W4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) out[0] = acc;
}
// Copies n 16-byte words.
extern "C" __global__ void tsr_probe_copy(const W4* __restrict__ src, W4* __restrict__ dst,
                                          unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long stride = gridDim.x * (unsigned long long)blockDim.x;
  for (; i < n; i += stride) dst[i] = src[i];
}
)cuda";

// Best GB/s of `repeats` timed calls of `run` (which returns milliseconds) moving `bytes`.
template <class F>
double Best(int repeats, double bytes, F run) {
  double best = 0;
  run();  // warm-up
  for (int r = 0; r < repeats; r++) best = std::max(best, bytes / (run() / 1e3) / 1e9);
  return best;
}
}  // namespace

const char* ProbeKernelSource() { return kSource; }

std::string UsableGpuName() {
  std::string why;
  if (!CudaDriver::Instance().Available(&why) || !NvrtcCompiler::Instance().Available(&why)) return "";
  try {
    return GpuContext::Shared().info().name;
  } catch (const std::exception&) {
    return "";
  }
}

void ProbeGpu(model::Ceilings& c, const GpuProbeOptions& opt) {
  std::string why;
  if (!CudaDriver::Instance().Available(&why) || !NvrtcCompiler::Instance().Available(&why)) {
    c.has_gpu = false;
    c.gpu_note = why;
    return;
  }
  auto say = [&](const std::string& s) { if (opt.progress) opt.progress(s); };
  GpuContext& gpu = GpuContext::Shared();
  const DeviceInfo& info = gpu.info();
  c.has_gpu = true;
  c.gpu_note.clear();
  c.gpu_name = info.name;
  c.gpu_l2_bytes = info.l2_cache_bytes;
  c.gpu_peak_gbps = info.PeakBandwidthGBs();

  say("GPU: compiling the probe kernels (NVRTC) ...");
  CompileResult cr = NvrtcCompiler::Instance().Compile(kSource, "tsr_probe.cu", info.cc_major, info.cc_minor);
  Module mod = gpu.LoadModule(cr.cubin);
  CUfunction read = mod.Function("tsr_probe_read"), copy = mod.Function("tsr_probe_copy");
  const int block = 256;
  auto grid_of = [&](CUfunction f) {
    return (unsigned)(info.sm_count * std::max(1, gpu.MaxActiveBlocksPerSM(f, block, 0)));
  };
  unsigned read_grid = grid_of(read), copy_grid = grid_of(copy);

  // Device memory: at most a quarter of what is free.
  size_t dev_bytes = std::min<size_t>(opt.device_mib << 20, gpu.FreeMemory() / 4) / 64 * 64;
  c.gpu_buffer_mib = (double)(dev_bytes >> 20);
  DeviceBuffer a = gpu.AllocateUnpooled(dev_bytes), out = gpu.AllocateUnpooled(64);
  a.Memset(1);
  Event e0 = gpu.CreateEvent(), e1 = gpu.CreateEvent();
  auto timed = [&](auto launch) {
    gpu.Record(e0);
    launch();
    gpu.Record(e1);
    return (double)gpu.ElapsedMs(e0, e1);
  };
  say("GPU: device memory read ...");
  unsigned long long words = dev_bytes / 16;
  c.gpu_read_gbps = Best(opt.repeats, (double)dev_bytes, [&] {
    return timed([&] { gpu.LaunchKernel(read, {read_grid}, {block}, 0, nullptr, a.ptr(), words, out.ptr()); });
  });
  say("GPU: device memory copy ...");
  unsigned long long half = words / 2;
  CUdeviceptr dst = a.ptr() + half * 16;
  c.gpu_copy_gbps = Best(opt.repeats, 2.0 * (double)half * 16, [&] {
    return timed([&] { gpu.LaunchKernel(copy, {copy_grid}, {block}, 0, nullptr, a.ptr(), dst, half); });
  });

  // Host <-> device.
  size_t host_bytes = std::min<size_t>(opt.host_mib << 20, dev_bytes) / 64 * 64;
  PinnedHostBuffer pinned = gpu.AllocatePinned(host_bytes);
  std::memset(pinned.data(), 1, host_bytes);
  std::vector<char> pageable(host_bytes, 1);
  auto wall = [&](auto fn) {
    auto t0 = Clock::now();
    fn();
    return MsSince(t0);
  };
  say("GPU: host -> device and device -> host copies ...");
  c.h2d_pinned_gbps = Best(opt.repeats, (double)host_bytes, [&] { return wall([&] { a.CopyFromHost(pinned.data(), host_bytes); }); });
  c.d2h_pinned_gbps = Best(opt.repeats, (double)host_bytes, [&] { return wall([&] { a.CopyToHost(pinned.data(), host_bytes); }); });
  c.h2d_pageable_gbps = Best(opt.repeats, (double)host_bytes, [&] { return wall([&] { a.CopyFromHost(pageable.data(), host_bytes); }); });
  c.d2h_pageable_gbps = Best(opt.repeats, (double)host_bytes, [&] { return wall([&] { a.CopyToHost(pageable.data(), host_bytes); }); });

  // Zero-copy: with unified addressing (every 64-bit platform CUDA 13 supports), pinned host
  // memory is addressed by the kernel at its host address.
  say("GPU: kernel reading pinned host memory (zero-copy) ...");
  CUdeviceptr host_ptr = (CUdeviceptr)(uintptr_t)pinned.data();
  unsigned long long host_words = host_bytes / 16;
  c.zero_copy_gbps = Best(opt.repeats, (double)host_bytes, [&] {
    return timed([&] { gpu.LaunchKernel(read, {read_grid}, {block}, 0, nullptr, host_ptr, host_words, out.ptr()); });
  });
}

}  // namespace tessera::gpu
