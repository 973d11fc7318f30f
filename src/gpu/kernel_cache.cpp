#include "gpu/kernel_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "gpu/nvrtc.hpp"

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

std::vector<char> KernelCache::Compile(const std::string& source, int sm_major, int sm_minor, double* ms) {
  auto r = NvrtcCompiler::Instance().Compile(source, "tessera_pipeline.cu", sm_major, sm_minor);
  if (ms) *ms = r.compile_ms;
  return std::move(r.cubin);
}

KernelLookup KernelCache::Get(const std::string& source, GpuContext& ctx) {
  KernelLookup out;
  std::lock_guard<std::mutex> g(mu_);
  // In memory the source itself is the key (one device and toolkit per process).
  if (auto it = memory_.find(source); it != memory_.end()) {
    out.kernel = it->second;
    return out;
  }
  auto ver = NvrtcCompiler::Instance().Version();
  std::string key_text = source + "|" + ctx.info().ArchName() + "|nvrtc " + std::to_string(ver.first) + "." +
                         std::to_string(ver.second) + "|driver " + std::to_string(ctx.info().driver_version);
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
    cubin = Compile(source, ctx.info().cc_major, ctx.info().cc_minor, &out.compile_ms);
    if (!path.empty()) {
      MakeDirs(dir);
      std::string tmp = path + ".tmp" + std::to_string(::getpid());
      std::ofstream o(tmp, std::ios::binary);
      if (o.write(cubin.data(), (std::streamsize)cubin.size()) && (o.close(), true)) std::rename(tmp.c_str(), path.c_str());
      else std::remove(tmp.c_str());
    }
  }
  auto k = std::make_shared<CompiledKernel>();
  try {
    k->module = ctx.LoadModule(cubin);
  } catch (...) {
    if (!out.from_disk) throw;
    std::remove(path.c_str());  // a damaged cache file: compile afresh
    cubin = Compile(source, ctx.info().cc_major, ctx.info().cc_minor, &out.compile_ms);
    out.from_disk = false;
    k->module = ctx.LoadModule(cubin);
  }
  k->pipeline = k->module.Function("tsr_pipeline");
  k->init_state = k->module.Function("tsr_init_state");
  k->compact_groups = k->module.Function("tsr_compact_groups");
  k->order_keys = k->module.Function("tsr_order_keys");
  k->radix_hist = k->module.Function("tsr_radix_hist");
  k->select_rows = k->module.Function("tsr_select_rows");
  if (source.find("tsr_sort_small(") != std::string::npos) {  // the sort library is in order sinks' kernels only
    k->sort_minmax = k->module.Function("tsr_sort_minmax");
    k->sort_iota = k->module.Function("tsr_sort_iota");
    k->sort_hist = k->module.Function("tsr_sort_hist");
    k->sort_scan = k->module.Function("tsr_sort_scan");
    k->sort_scatter = k->module.Function("tsr_sort_scatter");
    k->sort_small = k->module.Function("tsr_sort_small");
    k->gather_rows = k->module.Function("tsr_gather_rows");
  }
  memory_[source] = k;
  out.kernel = k;
  return out;
}

size_t KernelCache::size() {
  std::lock_guard<std::mutex> g(mu_);
  return memory_.size();
}

}  // namespace tessera::gpu
