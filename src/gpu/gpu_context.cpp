#include "gpu/gpu_context.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "gpu/nvrtc.hpp"

namespace tessera::gpu {

namespace {

// For destructors: the driver's entry points with ctx current, or null when unusable.
template <typename F>
void WithContextQuietly(CUcontext ctx, F&& fn) noexcept {
  try {
    CudaDriver& d = CudaDriver::Instance();
    if (!d.Available()) return;
    const CudaApi& a = d.api();
    CUcontext prev = nullptr;
    if (a.cuCtxGetCurrent(&prev) != cu::kSuccess) prev = nullptr;
    bool switched = ctx && prev != ctx && a.cuCtxSetCurrent(ctx) == cu::kSuccess;
    fn(a);
    if (switched) a.cuCtxSetCurrent(prev);
  } catch (...) {
  }
}

std::string DimString(Dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Module / Stream / Event

Module::~Module() { Release(); }
Module::Module(Module&& o) noexcept : mod_(o.mod_), ctx_(o.ctx_) {
  o.mod_ = nullptr;
  o.ctx_ = nullptr;
}
Module& Module::operator=(Module&& o) noexcept {
  if (this != &o) {
    Release();
    mod_ = o.mod_;
    ctx_ = o.ctx_;
    o.mod_ = nullptr;
    o.ctx_ = nullptr;
  }
  return *this;
}
void Module::Release() noexcept {
  if (!mod_) return;
  CUmodule m = mod_;
  mod_ = nullptr;
  WithContextQuietly(ctx_, [&](const CudaApi& a) { a.cuModuleUnload(m); });
  ctx_ = nullptr;
}

CUfunction Module::Function(const std::string& name) const {
  if (!mod_) throw InternalError("Module::Function('" + name + "') on an empty module");
  ScopedContext sc(ctx_);
  CUfunction f = nullptr;
  CUresult r = CudaDriver::Instance().api().cuModuleGetFunction(&f, mod_, name.c_str());
  if (r != cu::kSuccess) {
    CudaDriver& d = CudaDriver::Instance();
    throw CudaError(r, "cuModuleGetFunction('" + name + "') failed: " + d.ErrorName(r) + " (" +
                           d.ErrorString(r) +
                           "); kernels need extern \"C\" or their lowered (mangled) name");
  }
  return f;
}

Stream::~Stream() { Release(); }
Stream::Stream(Stream&& o) noexcept : stream_(o.stream_), ctx_(o.ctx_) {
  o.stream_ = nullptr;
  o.ctx_ = nullptr;
}
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    Release();
    stream_ = o.stream_;
    ctx_ = o.ctx_;
    o.stream_ = nullptr;
    o.ctx_ = nullptr;
  }
  return *this;
}
void Stream::Release() noexcept {
  if (!stream_) return;
  CUstream s = stream_;
  stream_ = nullptr;
  WithContextQuietly(ctx_, [&](const CudaApi& a) { a.cuStreamDestroy_v2(s); });
  ctx_ = nullptr;
}
void Stream::Synchronize() const {
  if (!stream_) throw InternalError("Stream::Synchronize on an empty stream");
  ScopedContext sc(ctx_);
  TESSERA_CU(cuStreamSynchronize, stream_);
}

Event::~Event() { Release(); }
Event::Event(Event&& o) noexcept : event_(o.event_), ctx_(o.ctx_) {
  o.event_ = nullptr;
  o.ctx_ = nullptr;
}
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    Release();
    event_ = o.event_;
    ctx_ = o.ctx_;
    o.event_ = nullptr;
    o.ctx_ = nullptr;
  }
  return *this;
}
void Event::Release() noexcept {
  if (!event_) return;
  CUevent e = event_;
  event_ = nullptr;
  WithContextQuietly(ctx_, [&](const CudaApi& a) { a.cuEventDestroy_v2(e); });
  ctx_ = nullptr;
}

// ---------------------------------------------------------------------------------------
// GpuContext

GpuContext::GpuContext(int ordinal) {
  CudaDriver& d = CudaDriver::Instance();
  std::string why;
  if (!d.Available(&why)) throw InternalError("cannot open a GPU: " + why);
  info_ = d.QueryDevice(ordinal);
  TESSERA_CU(cuDeviceGet, &device_, ordinal);
  TESSERA_CU(cuDevicePrimaryCtxRetain, &ctx_, device_);
  try {
    TESSERA_CU(cuCtxSetCurrent, ctx_);
    size_t free_bytes = 0, total_bytes = 0;
    TESSERA_CU(cuMemGetInfo_v2, &free_bytes, &total_bytes);
    info_.free_memory = free_bytes;
    // Keep up to a quarter of the device in freed blocks; the rest goes back to the driver.
    pool_ = std::make_unique<DevicePool>(ctx_, info_.total_memory / 4);
  } catch (...) {
    d.api().cuDevicePrimaryCtxRelease_v2(device_);
    ctx_ = nullptr;
    throw;
  }
}

GpuContext::~GpuContext() {
  pool_.reset();  // frees cached blocks while the context is alive
  if (ctx_) {
    WithContextQuietly(nullptr, [&](const CudaApi& a) {
      CUcontext cur = nullptr;
      if (a.cuCtxGetCurrent(&cur) == cu::kSuccess && cur == ctx_) a.cuCtxSetCurrent(nullptr);
      a.cuDevicePrimaryCtxRelease_v2(device_);
    });
  }
}

GpuContext& GpuContext::Shared() {
  // Not a function-local static object: a failed open must be retried (and rethrown) on the
  // next call, and the context must never be destroyed during static destruction.
  static std::mutex mu;
  static GpuContext* shared = nullptr;
  std::lock_guard<std::mutex> g(mu);
  if (!shared) shared = new GpuContext(0);
  return *shared;
}

void GpuContext::MakeCurrent() const { TESSERA_CU(cuCtxSetCurrent, ctx_); }

size_t GpuContext::FreeMemory() const {
  MakeCurrent();
  size_t free_bytes = 0, total_bytes = 0;
  TESSERA_CU(cuMemGetInfo_v2, &free_bytes, &total_bytes);
  return free_bytes;
}

DeviceBuffer GpuContext::Allocate(size_t bytes) {
  MakeCurrent();
  return pool_->Allocate(bytes);
}

DeviceBuffer GpuContext::AllocateUnpooled(size_t bytes) {
  MakeCurrent();
  return DeviceBuffer::Allocate(bytes);
}

PinnedHostBuffer GpuContext::AllocatePinned(size_t bytes) {
  MakeCurrent();
  return PinnedHostBuffer::Allocate(bytes);
}

Module GpuContext::LoadModule(const std::vector<char>& cubin) {
  if (cubin.empty()) throw InternalError("GpuContext::LoadModule: empty image");
  return LoadModule(static_cast<const void*>(cubin.data()));
}

Module GpuContext::LoadModule(const void* image) {
  if (!image) throw InternalError("GpuContext::LoadModule: null image");
  MakeCurrent();
  Module m;
  CUresult r = CudaDriver::Instance().api().cuModuleLoadData(&m.mod_, image);
  if (r != cu::kSuccess) {
    CudaDriver& d = CudaDriver::Instance();
    std::string hint;
    if (r == cu::kErrorNoBinaryForGpu || r == cu::kErrorInvalidImage ||
        r == cu::kErrorUnsupportedPtxVersion)
      hint = "; the image must be built for " + info_.ArchName() + " by a compiler not newer than driver " +
             CudaDriver::VersionString(info_.driver_version);
    throw CudaError(r, "cuModuleLoadData failed: " + d.ErrorName(r) + " (" + d.ErrorString(r) +
                           ")" + hint);
  }
  m.ctx_ = ctx_;
  return m;
}

Stream GpuContext::CreateStream(bool non_blocking) {
  MakeCurrent();
  Stream s;
  TESSERA_CU(cuStreamCreate, &s.stream_, non_blocking ? cu::kStreamNonBlocking : cu::kStreamDefault);
  s.ctx_ = ctx_;
  return s;
}

Event GpuContext::CreateEvent(bool timing) {
  MakeCurrent();
  Event e;
  TESSERA_CU(cuEventCreate, &e.event_, timing ? cu::kEventDefault : cu::kEventDisableTiming);
  e.ctx_ = ctx_;
  return e;
}

void GpuContext::Record(const Event& event, CUstream stream) {
  if (!event.get()) throw InternalError("GpuContext::Record on an empty event");
  MakeCurrent();
  TESSERA_CU(cuEventRecord, event.get(), stream);
}

float GpuContext::ElapsedMs(const Event& start, const Event& end) {
  if (!start.get() || !end.get()) throw InternalError("GpuContext::ElapsedMs on an empty event");
  MakeCurrent();
  TESSERA_CU(cuEventSynchronize, end.get());
  float ms = 0;
  TESSERA_CU(cuEventElapsedTime_v2, &ms, start.get(), end.get());
  return ms;
}

void GpuContext::Synchronize() {
  MakeCurrent();
  TESSERA_CU(cuCtxSynchronize);
}

void GpuContext::Launch(CUfunction f, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
                        CUstream stream) {
  auto config = [&] {
    return "grid " + DimString(grid) + ", block " + DimString(block) + ", " +
           std::to_string(shared_bytes) + " bytes of shared memory";
  };
  if (!f) throw InternalError("GpuContext::Launch: null kernel");
  const unsigned grid_dims[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; i++)
    if (grid_dims[i] == 0 || (info_.max_grid_dim[i] > 0 && grid_dims[i] > (unsigned)info_.max_grid_dim[i]))
      throw InternalError("bad kernel launch (" + config() + "): grid dimension " +
                          std::to_string(i) + " must be in 1.." + std::to_string(info_.max_grid_dim[i]));
  unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (threads == 0 || threads > (unsigned long long)info_.max_threads_per_block)
    throw InternalError("bad kernel launch (" + config() + "): " + std::to_string(threads) +
                        " threads per block, the device allows 1.." +
                        std::to_string(info_.max_threads_per_block));
  if (shared_bytes > (unsigned)info_.max_shared_per_block_optin)
    throw InternalError("bad kernel launch (" + config() + "): the device allows at most " +
                        std::to_string(info_.max_shared_per_block_optin) +
                        " bytes of shared memory per block");
  MakeCurrent();
  if (shared_bytes > (unsigned)info_.max_shared_per_block)
    TESSERA_CU(cuFuncSetAttribute, f, cu::kFuncAttrMaxDynamicSharedSizeBytes, (int)shared_bytes);
  CUresult r = CudaDriver::Instance().api().cuLaunchKernel(
      f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes, stream, args, nullptr);
  if (r != cu::kSuccess) {
    CudaDriver& d = CudaDriver::Instance();
    throw CudaError(r, "cuLaunchKernel failed: " + d.ErrorName(r) + " (" + d.ErrorString(r) +
                           ") with " + config());
  }
}

// ---------------------------------------------------------------------------------------

int GpuContext::MaxActiveBlocksPerSM(CUfunction f, int block_threads, size_t dynamic_shared) {
  MakeCurrent();
  int blocks = 0;
  TESSERA_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, f, block_threads, dynamic_shared);
  return std::max(blocks, 1);
}

std::string GpuStatusLine() {
  try {
    CudaDriver& d = CudaDriver::Instance();
    if (!d.Available()) {
      std::string reason = d.UnavailableWhat();
      if (!d.UnavailableDetail().empty()) reason += ": " + d.UnavailableDetail();
      return "GPU: none (" + reason + "); using the CPU backend";
    }
    DeviceInfo i = d.QueryDevice(0);
    char mem[32];
    std::snprintf(mem, sizeof mem, "%.1f GiB", i.total_memory / double(size_t(1) << 30));
    std::string line = "GPU: " + i.name + " (" + i.ArchName() + ", " + std::to_string(i.sm_count) +
                       " SMs, " + mem;
    int n = d.DeviceCount();
    if (n > 1) line += ", device 0 of " + std::to_string(n);
    line += ")";
    std::string why;
    if (!NvrtcCompiler::Instance().Available(&why)) line += "; " + why + ": using the CPU backend";
    return line;
  } catch (const std::exception& e) {
    return std::string("GPU: none (") + e.what() + "); using the CPU backend";
  } catch (...) {
    return "GPU: none (unknown error); using the CPU backend";
  }
}

}  // namespace tessera::gpu
