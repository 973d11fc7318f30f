#include "gpu/kernel_cache.hpp"
#include "common/stopwatch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "gpu/nvrtc.hpp"
#include "gpu/tile_library.hpp"

namespace tessera::gpu {

static uint64_t Fnv1a(const std::string& s, uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

KernelCache& KernelCache::Instance() {
  static KernelCache* cache = new KernelCache();  // never destroyed: modules outlive static destruction
  return *cache;
}

std::string KernelCache::DiskDir() {
  if (const char* d = std::getenv("TESSERA_KERNEL_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tessera/kernels";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tessera/kernels";
  return "";
}

static void MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); i++)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
}

// TESSERA_NVRTC_OPTIONS: more NVRTC options (space-separated; experiments, e.g.
// --Ofast-compile=mid). They are part of the disk cache's key.
static const std::vector<std::string>& ExtraOptions() {
  static const std::vector<std::string> opts = [] {
    std::vector<std::string> v;
    if (const char* e = std::getenv("TESSERA_NVRTC_OPTIONS")) {
      std::string s = e, w;
      for (char c : s + " ") {
        if (c == ' ') {
          if (!w.empty()) v.push_back(w);
          w.clear();
        } else {
          w += c;
        }
      }
    }
    return v;
  }();
  return opts;
}

std::vector<char> KernelCache::Compile(const std::string& source, int sm_major, int sm_minor, double* ms) {
  auto r = NvrtcCompiler::Instance().Compile(source, "tessera_pipeline.cu", sm_major, sm_minor, ExtraOptions());
  if (ms) *ms = r.compile_ms;
  return std::move(r.cubin);
}

// TESSERA_GPU_TRACE=1: each kernel's NVRTC and module-load time on stderr (measurements).
static bool TraceKernels() {
  static const bool trace = [] {
    const char* e = std::getenv("TESSERA_GPU_TRACE");
    return e && std::string(e) == "1";
  }();
  return trace;
}

KernelLookup KernelCache::Get(const std::string& source, GpuContext& ctx) {
  KernelLookup out;
  {
    // In memory the source itself is the key (one device and toolkit per process). The
    // lock is not held while compiling or loading, so a query's kernels compile in
    // parallel (GpuQuery::PrepareKernels); two threads asking for the same new source both
    // compile it and the first to finish is kept.
    std::lock_guard<std::mutex> g(mu_);
    if (auto it = memory_.find(source); it != memory_.end()) {
      out.kernel = it->second;
      return out;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  ctx.MakeCurrent();
  auto k = std::make_shared<CompiledKernel>();
  k->module = Load(source, ctx, out);
  k->pipeline = k->module.Function("tsr_pipeline");
  if (TraceKernels())
    std::fprintf(stderr, "kernel %016llx: %s %.2f ms (NVRTC %.2f ms), %zu bytes of source\n",
                 (unsigned long long)Fnv1a(source, 14695981039346656037ull), out.from_disk ? "from disk" : "compiled",
                 MsSince(t0), out.compile_ms, source.size());
  k->lib = &Library(ctx, &out.compile_ms);
  std::lock_guard<std::mutex> g(mu_);
  out.kernel = memory_.emplace(source, std::move(k)).first->second;
  return out;
}

Module KernelCache::Load(const std::string& source, GpuContext& ctx, KernelLookup& out) {
  double ms = 0;
  auto ver = NvrtcCompiler::Instance().Version();
  std::string key_text = source + "|" + ctx.info().ArchName() + "|nvrtc " + std::to_string(ver.first) + "." +
                         std::to_string(ver.second) + "|driver " + std::to_string(ctx.info().driver_version);
  for (const std::string& o : ExtraOptions()) key_text += "|" + o;
  char key[48];
  std::snprintf(key, sizeof key, "%016llx%016llx", (unsigned long long)Fnv1a(key_text, 14695981039346656037ull),
                (unsigned long long)Fnv1a(key_text, 0x9e3779b97f4a7c15ull));
  std::vector<char> cubin;
  std::string dir = DiskDir(), path = dir.empty() ? "" : dir + "/" + key + ".cubin";
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    if (in) cubin.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    out.from_disk = cubin.size() > 4;
  }
  if (!out.from_disk) {
    cubin = Compile(source, ctx.info().cc_major, ctx.info().cc_minor, &ms);
    out.compile_ms += ms;
    if (!path.empty()) {
      MakeDirs(dir);
      std::string tmp = path + ".tmp" + std::to_string(::getpid());
      std::ofstream o(tmp, std::ios::binary);
      if (o.write(cubin.data(), (std::streamsize)cubin.size()) && (o.close(), true)) std::rename(tmp.c_str(), path.c_str());
      else std::remove(tmp.c_str());
    }
  }
  try {
    return ctx.LoadModule(cubin);
  } catch (...) {
    if (!out.from_disk) throw;
    std::remove(path.c_str());  // a damaged cache file: compile afresh
    cubin = Compile(source, ctx.info().cc_major, ctx.info().cc_minor, &ms);
    out.compile_ms += ms;
    out.from_disk = false;
    return ctx.LoadModule(cubin);
  }
}

const LibraryKernels& KernelCache::Library(GpuContext& ctx, double* compile_ms) {
  std::lock_guard<std::mutex> g(library_mu_);
  if (library_) return *library_;
  const auto t0 = std::chrono::steady_clock::now();
  ctx.MakeCurrent();
  KernelLookup out;
  auto k = std::make_unique<LibraryKernels>();
  k->module = Load(LibraryModuleSource(), ctx, out);
  if (TraceKernels())
    std::fprintf(stderr, "library module: %s %.2f ms (NVRTC %.2f ms)\n", out.from_disk ? "from disk" : "compiled",
                 MsSince(t0), out.compile_ms);
  if (compile_ms) *compile_ms += out.compile_ms;
  k->init_state = k->module.Function("tsr_init_state");
  k->sign_extend_sums = k->module.Function("tsr_sign_extend_sums");
  k->compact_groups = k->module.Function("tsr_compact_groups");
  k->order_keys = k->module.Function("tsr_order_keys");
  k->radix_hist = k->module.Function("tsr_radix_hist");
  k->select_rows = k->module.Function("tsr_select_rows");
  k->sort_minmax = k->module.Function("tsr_sort_minmax");
  k->sort_iota = k->module.Function("tsr_sort_iota");
  k->sort_hist = k->module.Function("tsr_sort_hist");
  k->sort_scan = k->module.Function("tsr_sort_scan");
  k->sort_scatter = k->module.Function("tsr_sort_scatter");
  k->sort_small = k->module.Function("tsr_sort_small");
  k->gather_rows = k->module.Function("tsr_gather_rows");
  k->decode_streams = k->module.Function("tsr_decode_streams");
  library_ = std::move(k);
  return *library_;
}

size_t KernelCache::size() {
  std::lock_guard<std::mutex> g(mu_);
  return memory_.size();
}

}  // namespace tessera::gpu
