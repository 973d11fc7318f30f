#include "gpu/cuda_driver.hpp"
#include "gpu/dynamic_symbols.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace tessera::gpu {

namespace {

bool EnvFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

std::vector<std::string> DefaultDriverCandidates() {
  if (const char* lib = std::getenv("TESSERA_CUDA_DRIVER_LIB"); lib && *lib) return {lib};
  // The loader's search path first (that is where the driver installs libcuda.so.1), then
  // the folders container runtimes and WSL mount the driver into. Never the toolkit's
  // lib64/stubs/libcuda.so: it only returns CUDA_ERROR_STUB_LIBRARY.
  return {"libcuda.so.1", "libcuda.so", "/usr/local/nvidia/lib64/libcuda.so.1",
          "/usr/lib/wsl/lib/libcuda.so.1"};
}

// For driver errors the driver cannot name (it is a stub, or not loaded yet).
const char* BuiltinErrorName(CUresult r) {
  switch (r) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 35: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 200: return "CUDA_ERROR_INVALID_IMAGE";
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return nullptr;
  }
}

const char* BuiltinErrorString(CUresult r) {
  switch (r) {
    case 0: return "no error";
    case 1: return "invalid argument";
    case 2: return "out of memory";
    case 3: return "initialization error";
    case 4: return "driver shutting down";
    case 34: return "CUDA driver is a stub library";
    case 35: return "CUDA driver version is insufficient for CUDA runtime version";
    case 100: return "no CUDA-capable device is detected";
    case 101: return "invalid device ordinal";
    case 200: return "device kernel image is invalid";
    case 201: return "invalid device context";
    case 209: return "no kernel image is available for execution on the device";
    case 222: return "the provided PTX was compiled with an unsupported toolchain";
    case 500: return "named symbol not found";
    case 700: return "an illegal memory access was encountered";
    case 701: return "too many resources requested for launch";
    default: return nullptr;
  }
}

// "/work/main/src/gpu/x.cpp" -> "src/gpu/x.cpp"
const char* ShortFile(const char* file) {
  const char* best = file;
  for (const char* p = std::strstr(file, "src/"); p; p = std::strstr(p + 1, "src/")) best = p;
  return best;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// DeviceInfo

std::string DeviceInfo::ArchName() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

double DeviceInfo::PeakBandwidthGBs() const {
  if (memory_clock_khz <= 0 || memory_bus_width_bits <= 0) return 0;
  return 2.0 * memory_clock_khz * 1e3 * (memory_bus_width_bits / 8.0) / 1e9;
}

std::string DeviceInfo::ToString() const {
  char buf[160];
  std::ostringstream s;
  s << "device " << ordinal << ": " << name << "\n";
  s << "  compute capability " << cc_major << "." << cc_minor << " (" << ArchName() << "), "
    << sm_count << " SMs, warp " << warp_size << "\n";
  std::snprintf(buf, sizeof buf, "  memory %.1f GiB total", total_memory / double(1ull << 30));
  s << buf;
  if (free_memory) {
    std::snprintf(buf, sizeof buf, ", %.1f GiB free", free_memory / double(1ull << 30));
    s << buf;
  }
  std::snprintf(buf, sizeof buf, "; L2 %.1f MiB; memory clock %d MHz, bus %d bits (%.0f GB/s peak)",
                l2_cache_bytes / double(1 << 20), memory_clock_khz / 1000, memory_bus_width_bits,
                PeakBandwidthGBs());
  s << buf << "\n";
  s << "  max threads/block " << max_threads_per_block << ", max threads/SM "
    << max_threads_per_sm << ", shared/block " << max_shared_per_block / 1024 << " KiB ("
    << max_shared_per_block_optin / 1024 << " KiB opt-in)\n";
  s << "  driver " << CudaDriver::VersionString(driver_version);
  return s.str();
}

// ---------------------------------------------------------------------------------------
// CudaDriver

CudaDriver& CudaDriver::Instance() {
  // Intentionally leaked: buffers and contexts released during static destruction must still
  // find the entry points.
  static CudaDriver* driver = [] {
    auto* d = new CudaDriver(DefaultDriverCandidates());
    d->from_env_disable_ = EnvFlag("TESSERA_NO_GPU");
    return d;
  }();
  return *driver;
}

CudaDriver::CudaDriver(std::vector<std::string> library_candidates)
    : candidates_(std::move(library_candidates)) {}

void CudaDriver::EnsureLoaded() {
  std::call_once(once_, [this] { Load(); });
}

void CudaDriver::SetUnavailable(std::string what, std::string detail) {
  ok_ = false;
  what_ = std::move(what);
  detail_ = std::move(detail);
}

void CudaDriver::Load() noexcept {
  try {
    if (from_env_disable_) {
      SetUnavailable("GPU disabled", "TESSERA_NO_GPU is set");
      return;
    }
    for (const std::string& c : candidates_) {
      dlerror();
      void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h) {
        lib_ = h;
        path_ = c;
        log_ += c + ": loaded\n";
        break;
      }
      const char* err = dlerror();
      log_ += c + ": " + (err ? err : "dlopen failed") + "\n";
    }
    if (!lib_) {
      SetUnavailable("no CUDA driver found", candidates_.empty() ? "no library to try" : candidates_[0]);
      return;
    }
    std::string missing;
    CudaApi& a = api_;
    BindSymbol(lib_, a.cuInit, {"cuInit"}, &missing);
    BindSymbol(lib_, a.cuDriverGetVersion, {"cuDriverGetVersion"}, &missing);
    BindSymbol(lib_, a.cuGetErrorName, {"cuGetErrorName"}, &missing);
    BindSymbol(lib_, a.cuGetErrorString, {"cuGetErrorString"}, &missing);
    BindSymbol(lib_, a.cuDeviceGetCount, {"cuDeviceGetCount"}, &missing);
    BindSymbol(lib_, a.cuDeviceGet, {"cuDeviceGet"}, &missing);
    BindSymbol(lib_, a.cuDeviceGetName, {"cuDeviceGetName"}, &missing);
    BindSymbol(lib_, a.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}, &missing);
    BindSymbol(lib_, a.cuDeviceTotalMem_v2, {"cuDeviceTotalMem_v2"}, &missing);
    BindSymbol(lib_, a.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, &missing);
    BindSymbol(lib_, a.cuDevicePrimaryCtxRelease_v2,
         {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, &missing);
    BindSymbol(lib_, a.cuCtxSetCurrent, {"cuCtxSetCurrent"}, &missing);
    BindSymbol(lib_, a.cuCtxGetCurrent, {"cuCtxGetCurrent"}, &missing);
    BindSymbol(lib_, a.cuCtxSynchronize, {"cuCtxSynchronize"}, &missing);
    BindSymbol(lib_, a.cuMemAlloc_v2, {"cuMemAlloc_v2"}, &missing);
    BindSymbol(lib_, a.cuMemFree_v2, {"cuMemFree_v2"}, &missing);
    BindSymbol(lib_, a.cuMemAllocHost_v2, {"cuMemAllocHost_v2"}, &missing);
    BindSymbol(lib_, a.cuMemFreeHost, {"cuMemFreeHost"}, &missing);
    BindSymbol(lib_, a.cuMemcpyHtoD_v2, {"cuMemcpyHtoD_v2"}, &missing);
    BindSymbol(lib_, a.cuMemcpyDtoH_v2, {"cuMemcpyDtoH_v2"}, &missing);
    BindSymbol(lib_, a.cuMemcpyHtoDAsync_v2, {"cuMemcpyHtoDAsync_v2"}, &missing);
    BindSymbol(lib_, a.cuMemcpyDtoHAsync_v2, {"cuMemcpyDtoHAsync_v2"}, &missing);
    BindSymbol(lib_, a.cuMemsetD8_v2, {"cuMemsetD8_v2"}, &missing);
    BindSymbol(lib_, a.cuMemsetD8Async, {"cuMemsetD8Async"}, &missing);
    BindSymbol(lib_, a.cuMemGetInfo_v2, {"cuMemGetInfo_v2"}, &missing);
    BindSymbol(lib_, a.cuModuleLoadData, {"cuModuleLoadData"}, &missing);
    BindSymbol(lib_, a.cuModuleUnload, {"cuModuleUnload"}, &missing);
    BindSymbol(lib_, a.cuModuleGetFunction, {"cuModuleGetFunction"}, &missing);
    BindSymbol(lib_, a.cuFuncSetAttribute, {"cuFuncSetAttribute"}, &missing);
    BindSymbol(lib_, a.cuOccupancyMaxActiveBlocksPerMultiprocessor, {"cuOccupancyMaxActiveBlocksPerMultiprocessor"}, &missing);
    BindSymbol(lib_, a.cuLaunchKernel, {"cuLaunchKernel"}, &missing);
    BindSymbol(lib_, a.cuStreamCreate, {"cuStreamCreate"}, &missing);
    BindSymbol(lib_, a.cuStreamDestroy_v2, {"cuStreamDestroy_v2"}, &missing);
    BindSymbol(lib_, a.cuStreamSynchronize, {"cuStreamSynchronize"}, &missing);
    BindSymbol(lib_, a.cuEventCreate, {"cuEventCreate"}, &missing);
    BindSymbol(lib_, a.cuEventRecord, {"cuEventRecord"}, &missing);
    BindSymbol(lib_, a.cuEventSynchronize, {"cuEventSynchronize"}, &missing);
    BindSymbol(lib_, a.cuEventElapsedTime_v2, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, &missing);
    BindSymbol(lib_, a.cuEventDestroy_v2, {"cuEventDestroy_v2"}, &missing);

    Dl_info info;
    if (a.cuInit && dladdr(reinterpret_cast<void*>(a.cuInit), &info) && info.dli_fname)
      path_ = info.dli_fname;
    if (!missing.empty()) {
      log_ += path_ + ": lacks " + missing + "\n";
      SetUnavailable("CUDA driver library is unusable", path_ + " lacks " + missing);
      return;
    }
    CUresult r = a.cuInit(0);
    if (r != cu::kSuccess) {
      std::string d = "cuInit: " + ErrorName(r) + " (" + ErrorString(r) + ")";
      log_ += path_ + ": " + d + "\n";
      SetUnavailable(r == cu::kErrorNoDevice ? "no CUDA device found"
                                             : "CUDA driver failed to initialize",
                     d);
      return;
    }
    r = a.cuDriverGetVersion(&driver_version_);
    if (r != cu::kSuccess) {
      SetUnavailable("CUDA driver failed", "cuDriverGetVersion: " + ErrorName(r));
      return;
    }
    r = a.cuDeviceGetCount(&device_count_);
    if (r != cu::kSuccess || device_count_ <= 0) {
      SetUnavailable("no CUDA device found",
                     "driver " + VersionString(driver_version_) + " sees no device" +
                         (r != cu::kSuccess ? " (" + ErrorName(r) + ")" : ""));
      device_count_ = 0;
      return;
    }
    log_ += path_ + ": driver " + VersionString(driver_version_) + ", " +
            std::to_string(device_count_) + " device(s)\n";
    ok_ = true;
    what_.clear();
    detail_.clear();
  } catch (const std::exception& e) {  // std::bad_alloc and the like: stay on the CPU
    SetUnavailable("CUDA driver failed to load", e.what());
  } catch (...) {
    SetUnavailable("CUDA driver failed to load", "unknown exception");
  }
}

bool CudaDriver::Available(std::string* why) {
  try {
    EnsureLoaded();
  } catch (...) {  // std::system_error from call_once: treat as unavailable
    if (why) *why = "CUDA driver failed to load: running on the CPU";
    return false;
  }
  if (!ok_ && why) {
    *why = what_;
    if (!detail_.empty()) *why += " (" + detail_ + ")";
    *why += ": running on the CPU";
  }
  return ok_;
}

const std::string& CudaDriver::UnavailableWhat() {
  Available();
  return what_;
}
const std::string& CudaDriver::UnavailableDetail() {
  Available();
  return detail_;
}
const std::string& CudaDriver::LoadLog() {
  Available();
  return log_;
}
const std::string& CudaDriver::LibraryPath() {
  Available();
  return path_;
}

const CudaApi& CudaDriver::api() {
  std::string why;
  if (!Available(&why)) throw InternalError("CUDA driver not available: " + why);
  return api_;
}

int CudaDriver::DriverVersion() {
  api();
  return driver_version_;
}

int CudaDriver::DeviceCount() {
  api();
  return device_count_;
}

DeviceInfo CudaDriver::QueryDevice(int ordinal) {
  const CudaApi& a = api();
  if (ordinal < 0 || ordinal >= device_count_)
    throw InternalError("CUDA device " + std::to_string(ordinal) + " does not exist (" +
                        std::to_string(device_count_) + " device(s))");
  CUdevice dev = 0;
  Check(a.cuDeviceGet(&dev, ordinal), "cuDeviceGet", __FILE__, __LINE__);
  DeviceInfo d;
  d.ordinal = ordinal;
  d.driver_version = driver_version_;
  char name[256] = {0};
  Check(a.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName", __FILE__, __LINE__);
  d.name = name;
  auto attr = [&](int attrib) {
    int v = 0;
    Check(a.cuDeviceGetAttribute(&v, attrib, dev), "cuDeviceGetAttribute", __FILE__, __LINE__);
    return v;
  };
  // Descriptive attributes a future driver might retire: 0 when the driver refuses them.
  auto soft_attr = [&](int attrib) {
    int v = 0;
    return a.cuDeviceGetAttribute(&v, attrib, dev) == cu::kSuccess ? v : 0;
  };
  d.cc_major = attr(cu::kAttrComputeCapabilityMajor);
  d.cc_minor = attr(cu::kAttrComputeCapabilityMinor);
  d.sm_count = attr(cu::kAttrMultiprocessorCount);
  d.warp_size = attr(cu::kAttrWarpSize);
  d.max_threads_per_block = attr(cu::kAttrMaxThreadsPerBlock);
  d.max_threads_per_sm = attr(cu::kAttrMaxThreadsPerMultiprocessor);
  d.max_grid_dim[0] = attr(cu::kAttrMaxGridDimX);
  d.max_grid_dim[1] = attr(cu::kAttrMaxGridDimY);
  d.max_grid_dim[2] = attr(cu::kAttrMaxGridDimZ);
  d.max_shared_per_block = attr(cu::kAttrMaxSharedMemoryPerBlock);
  d.max_shared_per_block_optin = attr(cu::kAttrMaxSharedMemoryPerBlockOptin);
  d.l2_cache_bytes = soft_attr(cu::kAttrL2CacheSize);
  d.memory_clock_khz = soft_attr(cu::kAttrMemoryClockRate);
  d.memory_bus_width_bits = soft_attr(cu::kAttrGlobalMemoryBusWidth);
  d.clock_khz = soft_attr(cu::kAttrClockRate);
  Check(a.cuDeviceTotalMem_v2(&d.total_memory, dev), "cuDeviceTotalMem_v2", __FILE__, __LINE__);
  return d;
}

std::string CudaDriver::ErrorName(CUresult r) {
  const char* s = nullptr;
  if (api_.cuGetErrorName && api_.cuGetErrorName(r, &s) == cu::kSuccess && s) return s;
  if (const char* b = BuiltinErrorName(r)) return b;
  return "CUresult " + std::to_string(r);
}

std::string CudaDriver::ErrorString(CUresult r) {
  const char* s = nullptr;
  if (api_.cuGetErrorString && api_.cuGetErrorString(r, &s) == cu::kSuccess && s) return s;
  if (const char* b = BuiltinErrorString(r)) return b;
  return "unknown error";
}

void CudaDriver::Check(CUresult r, const char* fn, const char* file, int line) {
  if (r == cu::kSuccess) return;
  throw CudaError(r, std::string(fn) + " failed: " + ErrorName(r) + " (" + ErrorString(r) +
                         ") [" + ShortFile(file) + ":" + std::to_string(line) + "]");
}

std::string CudaDriver::VersionString(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

void ThrowCudaError(CUresult r, const char* fn, const char* file, int line) {
  CudaDriver::Instance().Check(r, fn, file, line);
  throw CudaError(r, std::string(fn) + " failed");  // not reached: Check throws for r != 0
}

}  // namespace tessera::gpu
