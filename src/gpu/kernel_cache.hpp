// Compiled pipeline kernels, cached in memory and on disk.
//
// The key is a hash of the generated source, the target architecture, NVRTC's version and
// the driver's version: a kernel shape compiles once per machine (query constants are
// kernel parameters, so other constants reuse it). Cubins are kept in
// $TESSERA_KERNEL_CACHE, else $XDG_CACHE_HOME/tessera/kernels, else
// ~/.cache/tessera/kernels; a file that cannot be read or written is only a cache miss.
#pragma once
#include <unordered_map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu/gpu_context.hpp"

namespace tessera::gpu {

// The library module's kernels (tile_library.hpp: LibraryModuleSource), shared by every
// pipeline kernel.
struct LibraryKernels {
  Module module;
  CUfunction init_state = nullptr;     // tsr_init_state
  CUfunction sign_extend_sums = nullptr;  // tsr_sign_extend_sums
  CUfunction compact_groups = nullptr; // tsr_compact_groups
  CUfunction order_keys = nullptr;     // top-N pre-selection (tsr_order_keys,
  CUfunction radix_hist = nullptr;     //   tsr_radix_hist, tsr_select_rows)
  CUfunction select_rows = nullptr;
  CUfunction sort_minmax = nullptr;    // the device sort (tsr_sort_*) and the gather of
  CUfunction sort_iota = nullptr;      //   sorted rows
  CUfunction sort_hist = nullptr;
  CUfunction sort_scan = nullptr;
  CUfunction sort_scatter = nullptr;
  CUfunction sort_small = nullptr;
  CUfunction gather_rows = nullptr;
  CUfunction decode_streams = nullptr;  // tsr_decode_streams (the column cache's encoded uploads)
};

struct CompiledKernel {
  Module module;
  CUfunction pipeline = nullptr;         // tsr_pipeline
  const LibraryKernels* lib = nullptr;   // the library module (KernelCache::Library), never freed
  int blocks_per_sm = 0;                 // pipeline kernel's occupancy (0: not asked yet)
};

struct KernelLookup {
  std::shared_ptr<CompiledKernel> kernel;
  double compile_ms = 0;  // NVRTC time spent now (0 when cached)
  bool from_disk = false;
};

class KernelCache {
 public:
  static KernelCache& Instance();
  // The kernel for `source` on the context's device: from memory, from disk, or compiled;
  // its generic kernels are the library module's (Library).
  KernelLookup Get(const std::string& source, GpuContext& ctx);
  // The library module (tile_library.hpp: LibraryModuleSource), loaded or compiled on first
  // use and kept for the process; thread-safe (a second caller waits for the first).
  const LibraryKernels& Library(GpuContext& ctx, double* compile_ms = nullptr);
  // Compiles without a device (CI: generated kernels must compile for sm_90).
  static std::vector<char> Compile(const std::string& source, int sm_major, int sm_minor, double* ms);
  static std::string DiskDir();
  size_t size();

 private:
  // The module of `source`: the disk cache's cubin, else NVRTC's (then saved to disk).
  Module Load(const std::string& source, GpuContext& ctx, KernelLookup& out);
  std::mutex mu_;
  std::mutex library_mu_;
  std::unique_ptr<LibraryKernels> library_;
  std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> memory_;  // by source
};

}  // namespace tessera::gpu
