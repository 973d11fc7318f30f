// The CUDA driver API, loaded at run time.
//
// tessera never links libcuda: the binary has to start (and run every query on the CPU) on
// machines without an NVIDIA driver, and CI has none. CudaDriver dlopen()s libcuda.so.1 on
// first use, resolves the entry points the engine needs with dlsym and reports through
// Available() whether a GPU can be used. No CUDA header is included here: the few types,
// enum values and signatures the engine needs are declared below (values checked against
// cuda.h of CUDA 13.0; the driver ABI keeps them stable).
//
// Every driver call goes through TESSERA_CU(fn, args...), which turns a non-zero CUresult into
// a CudaError (an InternalError) naming the entry point, the error name and its description.
#pragma once
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.hpp"

// Opaque handle types, with the same struct tags as cuda.h so that handles stay compatible
// with code that does include cuda.h (e.g. a future .cu translation unit).
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace tessera::gpu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;

// Constants from cuda.h (CUDA 13.0).
namespace cu {
constexpr CUresult kSuccess = 0;                  // CUDA_SUCCESS
constexpr CUresult kErrorInvalidValue = 1;        // CUDA_ERROR_INVALID_VALUE
constexpr CUresult kErrorOutOfMemory = 2;         // CUDA_ERROR_OUT_OF_MEMORY
constexpr CUresult kErrorNotInitialized = 3;      // CUDA_ERROR_NOT_INITIALIZED
constexpr CUresult kErrorDeinitialized = 4;       // CUDA_ERROR_DEINITIALIZED
constexpr CUresult kErrorStubLibrary = 34;        // CUDA_ERROR_STUB_LIBRARY
constexpr CUresult kErrorNoDevice = 100;          // CUDA_ERROR_NO_DEVICE
constexpr CUresult kErrorInvalidDevice = 101;     // CUDA_ERROR_INVALID_DEVICE
constexpr CUresult kErrorInvalidImage = 200;      // CUDA_ERROR_INVALID_IMAGE
constexpr CUresult kErrorInvalidContext = 201;    // CUDA_ERROR_INVALID_CONTEXT
constexpr CUresult kErrorNoBinaryForGpu = 209;    // CUDA_ERROR_NO_BINARY_FOR_GPU
constexpr CUresult kErrorUnsupportedPtxVersion = 222;  // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
constexpr CUresult kErrorNotFound = 500;          // CUDA_ERROR_NOT_FOUND
constexpr CUresult kErrorLaunchOutOfResources = 701;   // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
constexpr CUresult kErrorIllegalAddress = 700;    // CUDA_ERROR_ILLEGAL_ADDRESS
constexpr CUresult kErrorInsufficientDriver = 35; // CUDA_ERROR_INSUFFICIENT_DRIVER

// CUdevice_attribute values used by DeviceInfo.
enum DeviceAttribute : int {
  kAttrMaxThreadsPerBlock = 1,            // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  kAttrMaxGridDimX = 5,                   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X
  kAttrMaxGridDimY = 6,                   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y
  kAttrMaxGridDimZ = 7,                   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z
  kAttrMaxSharedMemoryPerBlock = 8,       // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
  kAttrWarpSize = 10,                     // CU_DEVICE_ATTRIBUTE_WARP_SIZE
  kAttrClockRate = 13,                    // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz)
  kAttrMultiprocessorCount = 16,          // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  kAttrMemoryClockRate = 36,              // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz)
  kAttrGlobalMemoryBusWidth = 37,         // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH (bits)
  kAttrL2CacheSize = 38,                  // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE (bytes)
  kAttrMaxThreadsPerMultiprocessor = 39,  // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
  kAttrComputeCapabilityMajor = 75,       // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  kAttrComputeCapabilityMinor = 76,       // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
  kAttrMaxSharedMemoryPerBlockOptin = 97, // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
};

// CUfunction_attribute
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
// CUstream_flags / CUevent_flags
constexpr unsigned kStreamDefault = 0x0;      // CU_STREAM_DEFAULT
constexpr unsigned kStreamNonBlocking = 0x1;  // CU_STREAM_NON_BLOCKING
constexpr unsigned kEventDefault = 0x0;       // CU_EVENT_DEFAULT
constexpr unsigned kEventBlockingSync = 0x1;  // CU_EVENT_BLOCKING_SYNC
constexpr unsigned kEventDisableTiming = 0x2; // CU_EVENT_DISABLE_TIMING
}  // namespace cu

// A driver call failed. code() is the CUresult.
class CudaError : public InternalError {
 public:
  CudaError(CUresult code, const std::string& msg) : InternalError(msg), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

// Static properties of one device (CudaDriver::QueryDevice) plus, when read through a
// GpuContext, the free memory (which needs a context; 0 = not known).
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  size_t total_memory = 0;
  size_t free_memory = 0;
  int l2_cache_bytes = 0;
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  int clock_khz = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_grid_dim[3] = {0, 0, 0};
  int max_shared_per_block = 0;        // without opt-in (usually 48 KiB)
  int max_shared_per_block_optin = 0;  // with cuFuncSetAttribute (227 KiB on sm_90)
  int driver_version = 0;              // 13000 for CUDA 13.0

  std::string ArchName() const;       // "sm_90"
  // Theoretical DRAM bandwidth from memory clock and bus width (DDR), GB/s; 0 if unknown.
  double PeakBandwidthGBs() const;
  std::string ToString() const;       // multi-line description
};

// Entry points resolved from libcuda. Members are named after the exact symbol used: where
// cuda.h maps a name to a versioned entry point (cuMemAlloc -> cuMemAlloc_v2) the member has
// the versioned name.
struct CudaApi {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** str) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char** str) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int len, CUdevice dev) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, int attrib, CUdevice dev) = nullptr;
  CUresult (*cuDeviceTotalMem_v2)(size_t* bytes, CUdevice dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* ctx, CUdevice dev) = nullptr;
  // cuDevicePrimaryCtxRelease_v2, or the unversioned symbol on old drivers.
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice dev) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext ctx) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext* ctx) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc_v2)(CUdeviceptr* dptr, size_t bytes) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr dptr) = nullptr;
  CUresult (*cuMemAllocHost_v2)(void** pp, size_t bytes) = nullptr;
  CUresult (*cuMemFreeHost)(void* p) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void* src, size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void* dst, CUdeviceptr src, size_t bytes) = nullptr;
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr dst, const void* src, size_t bytes,
                                   CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync_v2)(void* dst, CUdeviceptr src, size_t bytes,
                                   CUstream stream) = nullptr;
  CUresult (*cuMemsetD8_v2)(CUdeviceptr dst, unsigned char value, size_t n) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n,
                              CUstream stream) = nullptr;
  CUresult (*cuMemGetInfo_v2)(size_t* free_bytes, size_t* total_bytes) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* fn, CUmodule module, const char* name) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction fn, int attrib, int value) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int* blocks, CUfunction fn, int block_size,
                                                          size_t dynamic_shared) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void** params,
                             void** extra) = nullptr;
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy_v2)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  // cuEventElapsedTime_v2, or the unversioned symbol on drivers older than 12.8.
  CUresult (*cuEventElapsedTime_v2)(float* ms, CUevent start, CUevent end) = nullptr;
  CUresult (*cuEventDestroy_v2)(CUevent event) = nullptr;
};

class CudaDriver {
 public:
  // The process-wide driver, loaded on first use from TESSERA_CUDA_DRIVER_LIB when that is
  // set, else libcuda.so.1, libcuda.so and the usual driver folders (never the toolkit's
  // stubs). TESSERA_NO_GPU=1 makes it unavailable without looking.
  static CudaDriver& Instance();

  // A driver that tries exactly these libraries (tests, diagnostics). Loads lazily too.
  explicit CudaDriver(std::vector<std::string> library_candidates);
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;
  // The library is never dlclose()d: driver objects may outlive any owner at exit.
  ~CudaDriver() = default;

  // True when the library loaded, every entry point resolved, cuInit succeeded and at least
  // one device exists. Otherwise false, with a one-line reason in *why, e.g.
  // "no CUDA driver found (libcuda.so.1): running on the CPU". Never throws.
  bool Available(std::string* why = nullptr);
  // The reason alone, e.g. what = "no CUDA driver found", detail = "libcuda.so.1"; empty
  // when available.
  const std::string& UnavailableWhat();
  const std::string& UnavailableDetail();
  // Every library tried and what happened, one per line (for --verbose diagnostics).
  const std::string& LoadLog();
  // The library actually opened ("" if none).
  const std::string& LibraryPath();

  // The resolved entry points; throws InternalError when !Available().
  const CudaApi& api();

  int DriverVersion();  // e.g. 13000; throws when unavailable
  int DeviceCount();    // throws when unavailable
  // Static properties of a device (free_memory stays 0: that needs a context).
  DeviceInfo QueryDevice(int ordinal);

  // "CUDA_ERROR_OUT_OF_MEMORY" / "out of memory"; falls back to a built-in table and then to
  // "CUresult 123" when the driver cannot say (never throws).
  std::string ErrorName(CUresult r);
  std::string ErrorString(CUresult r);

  // Throws CudaError("<fn> failed: <name> (<description>) [<file>:<line>]") when r != 0.
  void Check(CUresult r, const char* fn, const char* file, int line);

  static std::string VersionString(int version);  // 13000 -> "13.0"

 private:
  void EnsureLoaded();
  void Load() noexcept;
  void SetUnavailable(std::string what, std::string detail);

  std::vector<std::string> candidates_;
  bool from_env_disable_ = false;
  bool ok_ = false;
  void* lib_ = nullptr;
  CudaApi api_;
  int driver_version_ = 0;
  int device_count_ = 0;
  std::string what_, detail_, log_, path_;
  std::once_flag once_;
};

// Throws CudaError for a non-zero result (see CudaDriver::Check).
[[noreturn]] void ThrowCudaError(CUresult r, const char* fn, const char* file, int line);
inline void CheckCu(CUresult r, const char* fn, const char* file, int line) {
  if (r != cu::kSuccess) ThrowCudaError(r, fn, file, line);
}

}  // namespace tessera::gpu

// TESSERA_CU(cuMemAlloc_v2, &ptr, bytes): calls the entry point of the process-wide driver and
// throws CudaError naming it when the result is not CUDA_SUCCESS. Throws InternalError when
// the driver is not available.
#define TESSERA_CU(fn, ...)                                                          \
  ::tessera::gpu::CheckCu(::tessera::gpu::CudaDriver::Instance().api().fn(__VA_ARGS__), #fn, \
                          __FILE__, __LINE__)
