// GPU runtime: driver/NVRTC loading, NVRTC compilation (no GPU needed), and, when a GPU is
// present, memory, module loading, launches and event timing.
//
// Exit codes: 0 when everything that could run passed (the GPU part prints
// "gpu: skipped (reason)" on machines without a GPU); 77 (ctest: skipped) when NVRTC itself is
// unavailable; 1 on any failure.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "gpu/cuda_driver.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/gpu_context.hpp"
#include "gpu/nvrtc.hpp"

using namespace tessera;
using namespace tessera::gpu;

namespace {

// A tile-style kernel like the ones the code generator will emit: each block walks tiles of
// BLOCK_THREADS * ITEMS_PER_THREAD values (striped, so loads coalesce), sums the values that
// pass the filter, reduces across the block with warp shuffles and shared memory, and adds
// the block's sum to the result with one atomic.
const char* kFilteredSumSource = R"(
template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void __launch_bounds__(BLOCK_THREADS)
filtered_sum(const int* __restrict__ values, long long n, int threshold,
             unsigned long long* __restrict__ result) {
  static_assert(BLOCK_THREADS % 32 == 0, "whole warps");
  constexpr int kTile = BLOCK_THREADS * ITEMS_PER_THREAD;
  constexpr int kWarps = BLOCK_THREADS / 32;
  __shared__ long long warp_sums[kWarps];

  long long sum = 0;
  for (long long base = (long long)blockIdx.x * kTile; base < n;
       base += (long long)gridDim.x * kTile) {
    if (base + kTile <= n) {  // full tile: no bounds checks
#pragma unroll
      for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        int v = values[base + i * BLOCK_THREADS + threadIdx.x];
        sum += v > threshold ? v : 0;
      }
    } else {  // the last, partial tile
#pragma unroll
      for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        long long idx = base + i * BLOCK_THREADS + threadIdx.x;
        if (idx < n) {
          int v = values[idx];
          sum += v > threshold ? v : 0;
        }
      }
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < kWarps ? warp_sums[lane] : 0;
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) atomicAdd(result, (unsigned long long)sum);  // two's complement: signed sums add up
  }
}
)";

constexpr int kBlockThreads = 256;
constexpr int kItemsPerThread = 8;
const std::string kKernelExpr = "filtered_sum<256, 8>";

bool StartsWithElfMagic(const std::vector<char>& image) {
  return image.size() >= 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' &&
         image[3] == 'F';
}

bool Contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

bool NvrtcAvailable(std::string* why = nullptr) { return NvrtcCompiler::Instance().Available(why); }

}  // namespace

// The driver never throws from Available(), and gives a reason when it says no.
TEST(driver_availability_never_throws) {
  std::string why;
  bool ok = false;
  try {
    ok = CudaDriver::Instance().Available(&why);
  } catch (...) {
    CHECK(false);
  }
  if (ok) {
    CHECK(why.empty());
    CHECK(CudaDriver::Instance().DeviceCount() > 0);
    DeviceInfo info = CudaDriver::Instance().QueryDevice(0);
    std::cout << "gpu: " << info.ToString() << "\n";
    CHECK(info.cc_major >= 3);
    CHECK(info.sm_count > 0);
    CHECK(info.total_memory > 0);
  } else {
    std::cout << "gpu: driver unavailable: " << why << "\n";
    CHECK(!why.empty());
    CHECK(Contains(why, "running on the CPU"));
    CHECK(why.find('\n') == std::string::npos);
    // Everything that needs the driver throws InternalError instead of crashing.
    CHECK_THROWS_WITH(CudaDriver::Instance().DeviceCount(), "CUDA driver not available");
    CHECK_THROWS_WITH(GpuContext ctx(0), "cannot open a GPU");
    CHECK_THROWS_WITH(GpuContext::Shared(), "cannot open a GPU");
    CHECK_THROWS_WITH(DeviceBuffer::Allocate(1024), "CUDA driver not available");
    // Empty buffers and their destructors need no driver.
    DeviceBuffer empty;
    CHECK(empty.empty());
    PinnedHostBuffer pinned;
    CHECK(pinned.empty());
  }
  std::string line = GpuStatusLine();
  std::cout << line << "\n";
  CHECK(line.rfind("GPU: ", 0) == 0);
  if (!ok) {
    CHECK(Contains(line, "GPU: none ("));
    CHECK(Contains(line, "using the CPU backend"));
  }
}

// Libraries that are missing, or are not the driver, are reported and never used.
TEST(driver_bad_libraries) {
  {
    CudaDriver d({"/nonexistent/libcuda.so.1"});
    std::string why;
    CHECK(!d.Available(&why));
    CHECK_EQ(why, std::string("no CUDA driver found (/nonexistent/libcuda.so.1): running on the CPU"));
    CHECK_EQ(d.UnavailableWhat(), std::string("no CUDA driver found"));
    CHECK(Contains(d.LoadLog(), "/nonexistent/libcuda.so.1"));
    CHECK_THROWS_WITH(d.api(), "no CUDA driver found");
  }
  {
    CudaDriver d({"libc.so.6"});  // loads, but has none of the entry points
    std::string why;
    CHECK(!d.Available(&why));
    CHECK(Contains(why, "lacks cuInit"));
  }
  // The toolkit's stub libcuda loads and resolves, but cuInit fails (CUDA_ERROR_STUB_LIBRARY).
  // Only tried when no real driver is loaded, so that the two never share the process.
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  std::FILE* stub_file = CudaDriver::Instance().Available() ? nullptr : std::fopen(stub, "rb");
  if (stub_file) {
    std::fclose(stub_file);
    CudaDriver d({stub});
    std::string why;
    CHECK(!d.Available(&why));
    std::cout << "gpu: stub driver: " << why << "\n";
    CHECK(Contains(why, "cuInit"));
  }
}

TEST(driver_error_text) {
  CudaDriver& d = CudaDriver::Instance();
  CHECK_EQ(d.ErrorName(cu::kErrorOutOfMemory), std::string("CUDA_ERROR_OUT_OF_MEMORY"));
  CHECK(!d.ErrorString(cu::kErrorOutOfMemory).empty());
  CHECK_EQ(d.ErrorName(123456), std::string("CUresult 123456"));
  CHECK_EQ(CudaDriver::VersionString(13000), std::string("13.0"));
  CHECK_EQ(CudaDriver::VersionString(12080), std::string("12.8"));
  bool threw = false;
  try {
    CheckCu(cu::kErrorOutOfMemory, "cuMemAlloc_v2", __FILE__, __LINE__);
  } catch (const CudaError& e) {
    threw = true;
    CHECK_EQ(e.code(), cu::kErrorOutOfMemory);
    std::string w = e.what();
    CHECK(Contains(w, "internal error: cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY"));
    CHECK(Contains(w, "gpu_runtime_test.cpp"));
  }
  CHECK(threw);
  CheckCu(cu::kSuccess, "cuInit", __FILE__, __LINE__);  // no throw
}

TEST(pool_size_classes) {
  CHECK_EQ(DevicePool::SizeClass(1), size_t(256));
  CHECK_EQ(DevicePool::SizeClass(256), size_t(256));
  CHECK_EQ(DevicePool::SizeClass(257), size_t(320));
  CHECK_EQ(DevicePool::SizeClass(512), size_t(512));
  CHECK_EQ(DevicePool::SizeClass(513), size_t(640));
  CHECK_EQ(DevicePool::SizeClass(size_t(1) << 30), size_t(1) << 30);
  size_t prev = 0;
  for (size_t n = 1; n < (size_t(1) << 22); n = n * 5 / 4 + 1) {
    size_t c = DevicePool::SizeClass(n);
    CHECK(c >= n);
    CHECK(c >= prev);
    CHECK(n <= 256 || c - n < n / 4 + 1);  // at most 25% slack
    CHECK_EQ(DevicePool::SizeClass(c), c);  // classes are fixed points
    prev = c;
  }
}

TEST(nvrtc_bad_library) {
  NvrtcCompiler c({"/nonexistent/libnvrtc.so.13"});
  std::string why;
  CHECK(!c.Available(&why));
  CHECK_EQ(why, std::string("NVRTC not found (/nonexistent/libnvrtc.so.13)"));
  CHECK_THROWS_WITH(c.Compile("__global__ void k() {}", "k.cu", 9, 0), "NVRTC not found");
  NvrtcCompiler libc({"libc.so.6"});
  CHECK(!libc.Available(&why));
  CHECK(Contains(why, "lacks nvrtc"));
}

// (a) Compiling needs no GPU.
TEST(nvrtc_compiles_tile_kernel_for_sm90) {
  std::string why;
  if (!NvrtcAvailable(&why)) {
    std::cout << "nvrtc: skipped (" << why << ")\n";
    return;
  }
  NvrtcCompiler& nvrtc = NvrtcCompiler::Instance();
  auto [major, minor] = nvrtc.Version();
  std::cout << "nvrtc: " << major << "." << minor << " from " << nvrtc.LibraryPath()
            << (nvrtc.IncludeDir().empty() ? "" : ", -I" + nvrtc.IncludeDir()) << "\n";
  CHECK(major >= 11);
  std::vector<int> archs = nvrtc.SupportedArchs();
  CHECK(archs.empty() || std::find(archs.begin(), archs.end(), 90) != archs.end());

  CompileResult r = nvrtc.Compile(kFilteredSumSource, "filtered_sum.cu", 9, 0, {}, {kKernelExpr});
  std::printf("nvrtc: compiled %s for %s in %.1f ms (first compile), cubin %zu bytes\n",
              kKernelExpr.c_str(), r.arch.c_str(), r.compile_ms, r.cubin.size());
  CHECK_EQ(r.arch, std::string("sm_90"));
  CHECK(!r.cubin.empty());
  CHECK(StartsWithElfMagic(r.cubin));
  CHECK(r.compile_ms > 0);
  CHECK(std::find(r.options.begin(), r.options.end(), "--gpu-architecture=sm_90") != r.options.end());
  CHECK(std::find(r.options.begin(), r.options.end(), "-std=c++17") != r.options.end());
  CHECK(std::find(r.options.begin(), r.options.end(), "--use_fast_math") == r.options.end());
  const std::string& lowered = r.LoweredName(kKernelExpr);
  std::cout << "nvrtc: " << kKernelExpr << " -> " << lowered << "\n";
  CHECK(lowered.rfind("_Z", 0) == 0);
  CHECK(Contains(lowered, "filtered_sum"));
  CHECK_THROWS_WITH(r.LoweredName("filtered_sum<32, 1>"), "no lowered name");

  // A second compile (warm NVRTC) and a different instantiation through an extra option.
  CompileResult r2 = nvrtc.Compile(kFilteredSumSource, "filtered_sum.cu", 9, 0,
                                   {"-DUNUSED_DEFINE=1"}, {"filtered_sum<128, 4>"});
  std::printf("nvrtc: second compile %.1f ms\n", r2.compile_ms);
  CHECK(StartsWithElfMagic(r2.cubin));

  // An explicit architecture option replaces the default one.
  CompileResult r3 = nvrtc.Compile("extern \"C\" __global__ void k(int* p) { p[0] = 1; }", "k.cu",
                                   9, 0, {"--gpu-architecture=sm_80"});
  CHECK_EQ(r3.arch, std::string("sm_80"));
  CHECK(StartsWithElfMagic(r3.cubin));
}

TEST(nvrtc_syntax_error_carries_log) {
  if (!NvrtcAvailable()) return;
  const std::string broken =
      "extern \"C\" __global__ void broken(int* out) {\n"
      "  out[threadIdx.x] = ;\n"
      "}\n";
  bool threw = false;
  try {
    NvrtcCompiler::Instance().Compile(broken, "broken.cu", 9, 0);
  } catch (const NvrtcCompileError& e) {
    threw = true;
    std::string w = e.what();
    std::cout << "nvrtc: expected failure: " << w << "\n";
    CHECK(!e.log().empty());
    CHECK(Contains(w, e.log()));            // the message carries the whole log
    CHECK(Contains(e.log(), "broken.cu"));  // with file and line
    CHECK(Contains(e.log(), "error"));
    CHECK(Contains(w, "sm_90"));
    const InternalError* as_internal = &e;  // catchable as InternalError
    CHECK(as_internal != nullptr);
  }
  CHECK(threw);
  // Unsupported or bogus targets are errors too, never crashes.
  CHECK_THROWS(NvrtcCompiler::Instance().Compile("__global__ void k() {}", "k.cu", 1, 0));
  CHECK_THROWS(NvrtcCompiler::Instance().Compile("__global__ void k() {}", "k.cu", 9, 0,
                                                 {"--no-such-option"}));
}

// (b) End to end on a GPU: upload random ints, run the compiled kernel, compare with the CPU.
TEST(gpu_filtered_sum_matches_cpu) {
  std::string why;
  if (!CudaDriver::Instance().Available(&why)) {
    std::cout << "gpu: skipped (" << why << ")\n";
    return;
  }
  if (!NvrtcAvailable(&why)) {
    std::cout << "gpu: skipped (" << why << ")\n";
    return;
  }
  GpuContext& gpu = GpuContext::Shared();
  const DeviceInfo& info = gpu.info();
  std::cout << GpuStatusLine() << "\n" << info.ToString() << "\n";

  CompileResult cr = NvrtcCompiler::Instance().Compile(kFilteredSumSource, "filtered_sum.cu",
                                                       info.cc_major, info.cc_minor, {},
                                                       {kKernelExpr});
  std::printf("gpu: compiled for %s in %.1f ms\n", cr.arch.c_str(), cr.compile_ms);
  Module module = gpu.LoadModule(cr.cubin);
  CUfunction kernel = module.Function(cr.LoweredName(kKernelExpr));
  CHECK_THROWS_WITH(module.Function("no_such_kernel"), "no_such_kernel");

  const long long n = (1 << 24) + 12345;  // not a multiple of the tile: exercises the tail
  const int threshold = 100;
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> dist(-1000000, 1000000);
  PinnedHostBuffer host = gpu.AllocatePinned(n * sizeof(int));
  int* values = host.as<int>();
  long long expected = 0;
  for (long long i = 0; i < n; i++) {
    values[i] = dist(rng);
    if (values[i] > threshold) expected += values[i];
  }

  Stream stream = gpu.CreateStream();
  DeviceBuffer d_values = gpu.Allocate(n * sizeof(int));
  DeviceBuffer d_result = gpu.Allocate(sizeof(unsigned long long));
  CHECK(d_values.capacity() >= d_values.size());
  d_values.CopyFromHostAsync(values, n * sizeof(int), stream.get());

  const long long tile = kBlockThreads * kItemsPerThread;
  unsigned blocks = (unsigned)std::min<long long>((n + tile - 1) / tile, 4LL * info.sm_count);
  CUdeviceptr values_ptr = d_values.ptr(), result_ptr = d_result.ptr();

  Event start = gpu.CreateEvent(), stop = gpu.CreateEvent();
  long long got = 0;
  const int kRuns = 5;
  float best_ms = 1e30f;
  for (int run = 0; run < kRuns; run++) {
    d_result.MemsetAsync(0, stream.get());
    gpu.Record(start, stream.get());
    gpu.LaunchKernel(kernel, Dim3(blocks), Dim3(kBlockThreads), 0, stream.get(), values_ptr, n,
                     threshold, result_ptr);
    gpu.Record(stop, stream.get());
    float ms = gpu.ElapsedMs(start, stop);
    best_ms = std::min(best_ms, ms);
    unsigned long long raw = 0;
    d_result.CopyToHostAsync(&raw, sizeof raw, stream.get());
    stream.Synchronize();
    got = (long long)raw;
    CHECK_EQ(got, expected);
  }
  double gbs = n * sizeof(int) / (best_ms * 1e-3) / 1e9;
  std::printf("gpu: filtered sum of %lld ints: %lld (cpu %lld), kernel %.3f ms best of %d, %.0f GB/s"
              " (peak %.0f GB/s), %u blocks x %d threads\n",
              n, got, expected, best_ms, kRuns, gbs, info.PeakBandwidthGBs(), blocks, kBlockThreads);

  // Synchronous copies and the vector helpers.
  std::vector<int> head = d_values.Download<int>(1000);
  CHECK_EQ(head[0], values[0]);
  CHECK_EQ(head[999], values[999]);
  d_values.CopyFromHost(values + 1, sizeof(int), 0);
  int first = 0;
  d_values.CopyToHost(&first, sizeof first, 0);
  CHECK_EQ(first, values[1]);
  CHECK_THROWS_WITH(d_values.CopyToHost(&first, 8, n * sizeof(int) - 4), "out of range");

  // Bad launches are refused before they reach the driver.
  CHECK_THROWS_WITH(gpu.LaunchKernel(kernel, Dim3(blocks), Dim3(4096), 0, stream.get(), values_ptr,
                                     n, threshold, result_ptr),
                    "threads per block");
  CHECK_THROWS_WITH(gpu.LaunchKernel(kernel, Dim3(0), Dim3(kBlockThreads), 0, stream.get(),
                                     values_ptr, n, threshold, result_ptr),
                    "grid dimension");
  gpu.Synchronize();
  CHECK(gpu.FreeMemory() > 0);
}

TEST(gpu_pool_reuses_blocks) {
  std::string why;
  if (!CudaDriver::Instance().Available(&why)) {
    std::cout << "gpu: skipped (" << why << ")\n";
    return;
  }
  GpuContext& gpu = GpuContext::Shared();
  DevicePool& pool = gpu.pool();
  DevicePool::Stats before = pool.stats();
  CUdeviceptr first = 0;
  {
    DeviceBuffer a = gpu.Allocate(1000000);
    CHECK(!a.empty());
    CHECK_EQ(a.capacity(), DevicePool::SizeClass(1000000));
    first = a.ptr();
    DeviceBuffer moved = std::move(a);
    CHECK(a.empty());
    CHECK_EQ(moved.ptr(), first);
  }
  DeviceBuffer b = gpu.Allocate(999999);  // same size class: the same block comes back
  CHECK_EQ(b.ptr(), first);
  DevicePool::Stats after = pool.stats();
  CHECK_EQ(after.reuses, before.reuses + 1);
  CHECK_EQ(after.driver_allocs, before.driver_allocs + 1);
  CHECK(after.bytes_in_use >= b.capacity());
  b.Reset();
  CHECK(b.empty());
  pool.Trim();
  CHECK_EQ(pool.stats().bytes_cached, size_t(0));
  DeviceBuffer zero = gpu.Allocate(0);
  CHECK(zero.empty());
  DeviceBuffer raw = gpu.AllocateUnpooled(4096);
  raw.Memset(0xab);
  std::vector<unsigned char> bytes = raw.Download<unsigned char>(4096);
  CHECK_EQ((int)bytes[4095], 0xab);

  // Buffers carry their context: another thread (with no current context) can use and free
  // them, and allocate through the GpuContext.
  DeviceBuffer shared_buf = gpu.Allocate(64);
  bool thread_ok = false;
  std::thread t([&] {
    try {
      std::vector<long long> v = {1, 2, 3, 4, 5, 6, 7, 8};
      shared_buf.Upload(v);
      DeviceBuffer mine = gpu.Allocate(64);
      mine.CopyFromHost(v.data(), 64);
      std::vector<long long> back = mine.Download<long long>(8);
      thread_ok = back == v && shared_buf.Download<long long>(8) == v;
      shared_buf.Reset();
    } catch (const std::exception& e) {
      std::cout << "gpu: thread failed: " << e.what() << "\n";
    }
  });
  t.join();
  CHECK(thread_ok);
  CHECK(shared_buf.empty());
}

// (c) Exit status: 77 (skipped) when NVRTC itself is unavailable and nothing failed.
TEST(zz_exit_status) {
  std::string why;
  if (!NvrtcAvailable(&why) && tcheck::Failures() == 0) {
    std::cout << "nvrtc: unavailable (" << why << "): exiting 77 (skipped)\n";
    std::cout.flush();
    std::exit(77);
  }
}

TEST_MAIN()
