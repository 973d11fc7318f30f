// GpuContext: one device's primary context, the memory pool on it, module loading, kernel
// launches, streams and event timing. Every method makes the context current on the calling
// thread first, so a GpuContext may be used from any thread.
//
//   GpuContext& gpu = GpuContext::Shared();               // throws when no GPU
//   CompileResult cr = NvrtcCompiler::Instance().Compile(src, "q1.cu", gpu.info().cc_major,
//                                                        gpu.info().cc_minor);
//   Module m = gpu.LoadModule(cr.cubin);
//   CUfunction f = m.Function("q1_kernel");
//   gpu.LaunchKernel(f, {blocks}, {256}, 0, stream.get(), in.ptr(), n, out.ptr());
//
// Launches are asynchronous: errors raised by a running kernel (illegal address, ...) surface
// at the next synchronizing call (Synchronize, ElapsedMs, Stream::Synchronize, a synchronous
// copy), which checks them like every other driver call.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gpu/cuda_driver.hpp"
#include "gpu/device_memory.hpp"

namespace tessera::gpu {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT: implicit
};

// A loaded cubin (cuModuleLoadData); unloaded on destruction. Move-only.
class Module {
 public:
  Module() = default;
  ~Module();
  Module(Module&& o) noexcept;
  Module& operator=(Module&& o) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The kernel of that (lowered) name; throws CudaError naming it when absent.
  CUfunction Function(const std::string& name) const;
  CUmodule get() const { return mod_; }
  bool empty() const { return mod_ == nullptr; }

 private:
  friend class GpuContext;
  void Release() noexcept;
  CUmodule mod_ = nullptr;
  CUcontext ctx_ = nullptr;
};

class Stream {
 public:
  Stream() = default;
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  CUstream get() const { return stream_; }
  void Synchronize() const;  // cuStreamSynchronize, checked

 private:
  friend class GpuContext;
  void Release() noexcept;
  CUstream stream_ = nullptr;
  CUcontext ctx_ = nullptr;
};

class Event {
 public:
  Event() = default;
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  CUevent get() const { return event_; }

 private:
  friend class GpuContext;
  void Release() noexcept;
  CUevent event_ = nullptr;
  CUcontext ctx_ = nullptr;
};

class GpuContext {
 public:
  // Retains the primary context of device `ordinal`. Throws InternalError with the reason when
  // the driver or the device is not available.
  explicit GpuContext(int ordinal = 0);
  // Frees the pool's cached blocks and releases the primary context.
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  // Device 0, opened on first use and kept for the life of the process (never destroyed, so
  // nothing depends on static destruction order). Throws like the constructor.
  static GpuContext& Shared();

  const DeviceInfo& info() const { return info_; }  // free_memory as of opening
  int ordinal() const { return info_.ordinal; }
  CUcontext handle() const { return ctx_; }
  // Makes this context current on the calling thread (cheap; every method does it).
  void MakeCurrent() const;
  // Current free and total device memory (cuMemGetInfo_v2).
  size_t FreeMemory() const;
  size_t TotalMemory() const { return info_.total_memory; }

  // Memory. Allocate goes through the pool; AllocateUnpooled calls the driver each time.
  DevicePool& pool() { return *pool_; }
  DeviceBuffer Allocate(size_t bytes);
  DeviceBuffer AllocateUnpooled(size_t bytes);
  PinnedHostBuffer AllocatePinned(size_t bytes);

  // Code.
  Module LoadModule(const std::vector<char>& cubin);
  Module LoadModule(const void* image);  // a cubin/fatbin/PTX image in memory

  // Streams and events. Timing events use the default flags; pass timing = false for events
  // only used to order work (cheaper).
  Stream CreateStream(bool non_blocking = true);
  Event CreateEvent(bool timing = true);
  void Record(const Event& event, CUstream stream = nullptr);
  // Waits for `end` and returns the milliseconds between the two recorded events.
  float ElapsedMs(const Event& start, const Event& end);
  void Synchronize();  // cuCtxSynchronize: waits for all work of this context

  // Launches `f` on `stream` (nullptr: the legacy default stream). `args` holds one pointer
  // per kernel parameter, pointing at the value (cuLaunchKernel's convention). Checks the
  // configuration against the device's limits first, and raises the kernel's dynamic
  // shared memory limit when shared_bytes exceeds the default 48 KiB.
  void Launch(CUfunction f, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
              CUstream stream = nullptr);
  // How many blocks of `f` fit on one multiprocessor at once (registers, shared memory,
  // threads): a grid of sm_count times this is one full wave.
  int MaxActiveBlocksPerSM(CUfunction f, int block_threads, size_t dynamic_shared);
  // Same, with the parameters passed by value: LaunchKernel(f, grid, block, 0, s, ptr, n).
  // Each argument must have exactly the type of the kernel's parameter (int vs long long!).
  template <typename... Args>
  void LaunchKernel(CUfunction f, Dim3 grid, Dim3 block, unsigned shared_bytes, CUstream stream,
                    const Args&... args) {
    void* ptrs[sizeof...(Args) + 1] = {const_cast<void*>(static_cast<const void*>(&args))...,
                                       nullptr};
    Launch(f, grid, block, shared_bytes, ptrs, stream);
  }

 private:
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  DeviceInfo info_;
  std::unique_ptr<DevicePool> pool_;
};

// One line for startup banners and EXPLAIN output, never throws:
//   "GPU: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)"
//   "GPU: none (no CUDA driver found: libcuda.so.1); using the CPU backend"
// Queries the driver only (does not create a context). Mentions a missing NVRTC, without
// which generated kernels cannot be compiled.
std::string GpuStatusLine();

}  // namespace tessera::gpu
