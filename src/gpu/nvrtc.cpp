#include "gpu/nvrtc.hpp"
#include "gpu/dynamic_symbols.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace tessera::gpu {

namespace {

using nvrtcResult = int;
struct NvrtcProgramSt;
using nvrtcProgram = NvrtcProgramSt*;
constexpr nvrtcResult kNvrtcSuccess = 0;      // NVRTC_SUCCESS
constexpr nvrtcResult kNvrtcInvalidOption = 5;  // NVRTC_ERROR_INVALID_OPTION
constexpr nvrtcResult kNvrtcCompilation = 6;  // NVRTC_ERROR_COMPILATION

std::vector<std::string> ToolkitRoots() {
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) roots.push_back(v);
  roots.push_back("/usr/local/cuda");
  return roots;
}

std::vector<std::string> DefaultNvrtcCandidates() {
  if (const char* lib = std::getenv("TESSERA_NVRTC_LIB"); lib && *lib) return {lib};
  std::vector<std::string> out;
  auto add = [&](const std::string& c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
    add(name);  // the loader's search path (LD_LIBRARY_PATH, ld.so.cache)
    for (const std::string& root : ToolkitRoots()) add(root + "/lib64/" + name);
  }
  return out;
}

bool IsDir(const std::string& p) {
  std::error_code ec;
  return !p.empty() && std::filesystem::is_directory(p, ec);
}

}  // namespace

struct NvrtcCompiler::Api {
  nvrtcResult (*nvrtcVersion)(int*, int*) = nullptr;
  const char* (*nvrtcGetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int,
                                    const char* const*, const char* const*) = nullptr;
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcAddNameExpression)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*nvrtcGetLoweredName)(nvrtcProgram, const char*, const char**) = nullptr;
  // Optional (NVRTC >= 11.2).
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*nvrtcGetSupportedArchs)(int*) = nullptr;
};

const std::string& CompileResult::LoweredName(const std::string& name_expression) const {
  for (const auto& [expr, lowered] : lowered_names)
    if (expr == name_expression) return lowered;
  throw InternalError("no lowered name for '" + name_expression +
                      "': pass it in Compile's name_expressions");
}

NvrtcCompiler& NvrtcCompiler::Instance() {
  static NvrtcCompiler* compiler = new NvrtcCompiler(DefaultNvrtcCandidates());  // leaked
  return *compiler;
}

NvrtcCompiler::NvrtcCompiler(std::vector<std::string> library_candidates)
    : candidates_(std::move(library_candidates)) {}

NvrtcCompiler::~NvrtcCompiler() = default;

void NvrtcCompiler::EnsureLoaded() {
  std::call_once(once_, [this] { Load(); });
}

void NvrtcCompiler::Load() noexcept {
  try {
    for (const std::string& c : candidates_) {
      dlerror();
      if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        lib_ = h;
        path_ = c;
        log_ += c + ": loaded\n";
        break;
      }
      const char* err = dlerror();
      log_ += c + ": " + (err ? err : "dlopen failed") + "\n";
    }
    if (!lib_) {
      why_ = "NVRTC not found (" + (candidates_.empty() ? std::string("no library to try")
                                                        : candidates_[0]) + ")";
      return;
    }
    auto api = std::make_unique<Api>();
    std::string missing;
    BindSymbol(lib_, api->nvrtcVersion, {"nvrtcVersion"}, &missing);
    BindSymbol(lib_, api->nvrtcGetErrorString, {"nvrtcGetErrorString"}, &missing);
    BindSymbol(lib_, api->nvrtcCreateProgram, {"nvrtcCreateProgram"}, &missing);
    BindSymbol(lib_, api->nvrtcDestroyProgram, {"nvrtcDestroyProgram"}, &missing);
    BindSymbol(lib_, api->nvrtcCompileProgram, {"nvrtcCompileProgram"}, &missing);
    BindSymbol(lib_, api->nvrtcGetProgramLogSize, {"nvrtcGetProgramLogSize"}, &missing);
    BindSymbol(lib_, api->nvrtcGetProgramLog, {"nvrtcGetProgramLog"}, &missing);
    BindSymbol(lib_, api->nvrtcGetCUBINSize, {"nvrtcGetCUBINSize"}, &missing);
    BindSymbol(lib_, api->nvrtcGetCUBIN, {"nvrtcGetCUBIN"}, &missing);
    BindSymbol(lib_, api->nvrtcGetPTXSize, {"nvrtcGetPTXSize"}, &missing);
    BindSymbol(lib_, api->nvrtcGetPTX, {"nvrtcGetPTX"}, &missing);
    BindSymbol(lib_, api->nvrtcAddNameExpression, {"nvrtcAddNameExpression"}, &missing);
    BindSymbol(lib_, api->nvrtcGetLoweredName, {"nvrtcGetLoweredName"}, &missing);
    std::string optional_missing;
    BindSymbol(lib_, api->nvrtcGetNumSupportedArchs, {"nvrtcGetNumSupportedArchs"}, &optional_missing);
    BindSymbol(lib_, api->nvrtcGetSupportedArchs, {"nvrtcGetSupportedArchs"}, &optional_missing);

    Dl_info info;
    if (api->nvrtcVersion && dladdr(reinterpret_cast<void*>(api->nvrtcVersion), &info) &&
        info.dli_fname)
      path_ = info.dli_fname;
    if (!missing.empty()) {
      why_ = "NVRTC library is unusable (" + path_ + " lacks " + missing + ")";
      log_ += path_ + ": lacks " + missing + "\n";
      return;
    }
    if (api->nvrtcVersion(&major_, &minor_) != kNvrtcSuccess) {
      why_ = "NVRTC library is unusable (" + path_ + ": nvrtcVersion failed)";
      return;
    }
    // Toolkit headers for -I: the toolkit named by the environment, the one NVRTC came from,
    // then the default install.
    std::vector<std::string> dirs;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/include");
    {
      std::error_code ec;
      std::filesystem::path lib_dir = std::filesystem::path(path_).parent_path();
      if (!lib_dir.empty()) {
        auto inc = std::filesystem::weakly_canonical(lib_dir / ".." / "include", ec);
        if (!ec) dirs.push_back(inc.string());
      }
    }
    dirs.push_back("/usr/local/cuda/include");
    for (const std::string& d : dirs)
      if (IsDir(d)) {
        include_dir_ = d;
        break;
      }
    log_ += path_ + ": NVRTC " + std::to_string(major_) + "." + std::to_string(minor_) +
            (include_dir_.empty() ? ", no toolkit include folder" : ", -I" + include_dir_) + "\n";
    api_ = std::move(api);
    ok_ = true;
  } catch (const std::exception& e) {
    ok_ = false;
    why_ = std::string("NVRTC failed to load (") + e.what() + ")";
  } catch (...) {
    ok_ = false;
    why_ = "NVRTC failed to load";
  }
}

bool NvrtcCompiler::Available(std::string* why) {
  try {
    EnsureLoaded();
  } catch (...) {
    if (why) *why = "NVRTC failed to load";
    return false;
  }
  if (!ok_ && why) *why = why_;
  return ok_;
}

std::pair<int, int> NvrtcCompiler::Version() {
  std::string why;
  if (!Available(&why)) throw InternalError(why);
  return {major_, minor_};
}

const std::string& NvrtcCompiler::LibraryPath() {
  Available();
  return path_;
}
const std::string& NvrtcCompiler::LoadLog() {
  Available();
  return log_;
}
const std::string& NvrtcCompiler::IncludeDir() {
  Available();
  return include_dir_;
}

std::vector<int> NvrtcCompiler::SupportedArchs() {
  std::string why;
  if (!Available(&why)) throw InternalError(why);
  std::vector<int> archs;
  if (!api_->nvrtcGetNumSupportedArchs || !api_->nvrtcGetSupportedArchs) return archs;
  int n = 0;
  Check(api_->nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
  if (n <= 0) return archs;
  archs.resize(n);
  Check(api_->nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

void NvrtcCompiler::Check(int result, const char* fn) {
  if (result == kNvrtcSuccess) return;
  const char* s = api_ && api_->nvrtcGetErrorString ? api_->nvrtcGetErrorString(result) : nullptr;
  throw InternalError(std::string(fn) + " failed: " + (s ? s : "NVRTC error") + " (" +
                      std::to_string(result) + ")");
}

CompileResult NvrtcCompiler::Compile(const std::string& source, const std::string& name,
                                     int sm_major, int sm_minor,
                                     const std::vector<std::string>& extra_options,
                                     const std::vector<std::string>& name_expressions) {
  std::string why;
  if (!Available(&why)) throw InternalError("cannot compile " + name + ": " + why);
  if (sm_major <= 0 || sm_minor < 0 || sm_minor > 9)
    throw InternalError("bad compute capability " + std::to_string(sm_major) + "." +
                        std::to_string(sm_minor) + " for " + name);
  auto t0 = std::chrono::steady_clock::now();

  CompileResult res;
  res.arch = "sm_" + std::to_string(sm_major) + std::to_string(sm_minor);
  // An explicit architecture among the extra options (e.g. sm_90a) replaces ours.
  bool arch_given = false;
  for (const std::string& o : extra_options)
    if (o.rfind("--gpu-architecture", 0) == 0 || o.rfind("-arch", 0) == 0) {
      arch_given = true;
      auto eq = o.find('=');
      if (eq != std::string::npos) res.arch = o.substr(eq + 1);
    }
  if (!arch_given) {
    std::vector<int> archs = SupportedArchs();
    int cc = sm_major * 10 + sm_minor;
    if (!archs.empty() && std::find(archs.begin(), archs.end(), cc) == archs.end())
      throw InternalError("NVRTC " + std::to_string(major_) + "." + std::to_string(minor_) +
                          " cannot generate code for " + res.arch + " (it supports sm_" +
                          std::to_string(archs.front()) + " to sm_" +
                          std::to_string(archs.back()) + ")");
    res.options.push_back("--gpu-architecture=" + res.arch);
  }
  res.options.push_back("-std=c++17");
  res.options.push_back("--device-int128");  // the scalar core's 64-bit multiply checks and DECIMAL(38)
  res.options.push_back("-default-device");
  // Without the texture and surface functions, the runtime API's device functions and types
  // and device-side launches, none of which a kernel of ours uses: the front end parses
  // about 4 ms less CPU a kernel, and the PTX is the same (docs/PERFORMANCE.md). NVRTC before
  // 12.4 rejects the option: then it is dropped for the rest of the process.
  const bool minimal = minimal_ok_.load(std::memory_order_relaxed);
  if (minimal) res.options.push_back("-minimal");
  if (!include_dir_.empty()) res.options.push_back("-I" + include_dir_);
  for (const std::string& o : extra_options) res.options.push_back(o);
  std::vector<const char*> opts;
  for (const std::string& o : res.options) opts.push_back(o.c_str());

  nvrtcProgram prog = nullptr;
  struct Guard {
    Api* api;
    nvrtcProgram* p;
    ~Guard() {
      if (*p) api->nvrtcDestroyProgram(p);
    }
  } guard{api_.get(), &prog};
  auto create = [&] {
    if (prog) api_->nvrtcDestroyProgram(&prog);
    Check(api_->nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr),
          "nvrtcCreateProgram");
    for (const std::string& e : name_expressions)
      Check(api_->nvrtcAddNameExpression(prog, e.c_str()), "nvrtcAddNameExpression");
  };
  create();
  nvrtcResult cr = api_->nvrtcCompileProgram(prog, (int)opts.size(), opts.data());
  if (cr == kNvrtcInvalidOption && minimal) {
    minimal_ok_.store(false, std::memory_order_relaxed);
    res.options.erase(std::find(res.options.begin(), res.options.end(), "-minimal"));
    opts.clear();
    for (const std::string& o : res.options) opts.push_back(o.c_str());
    create();
    cr = api_->nvrtcCompileProgram(prog, (int)opts.size(), opts.data());
  }

  size_t log_size = 0;
  Check(api_->nvrtcGetProgramLogSize(prog, &log_size), "nvrtcGetProgramLogSize");
  if (log_size > 1) {
    res.log.resize(log_size);
    Check(api_->nvrtcGetProgramLog(prog, res.log.data()), "nvrtcGetProgramLog");
    while (!res.log.empty() && (res.log.back() == '\0' || res.log.back() == '\n' ||
                                res.log.back() == ' '))
      res.log.pop_back();
  }
  if (cr == kNvrtcCompilation) {
    throw NvrtcCompileError("NVRTC could not compile " + name + " for " + res.arch + ":\n" +
                                (res.log.empty() ? "(no compiler log)" : res.log),
                            res.log);
  }
  if (cr != kNvrtcSuccess) {
    const char* s = api_->nvrtcGetErrorString(cr);
    throw NvrtcCompileError("nvrtcCompileProgram failed for " + name + " (" + res.arch +
                                "): " + (s ? s : "NVRTC error") +
                                (res.log.empty() ? "" : "\n" + res.log),
                            res.log);
  }

  if (res.arch.rfind("compute_", 0) == 0) {
    // A virtual architecture: PTX only (measurements and checks: test/bench/nvrtc_bench.cpp).
    size_t ptx_size = 0;
    Check(api_->nvrtcGetPTXSize(prog, &ptx_size), "nvrtcGetPTXSize");
    res.ptx.resize(ptx_size);
    Check(api_->nvrtcGetPTX(prog, res.ptx.data()), "nvrtcGetPTX");
    while (!res.ptx.empty() && res.ptx.back() == '\0') res.ptx.pop_back();
  } else {
    size_t cubin_size = 0;
    Check(api_->nvrtcGetCUBINSize(prog, &cubin_size), "nvrtcGetCUBINSize");
    if (cubin_size == 0) throw InternalError("NVRTC produced no cubin for " + name + " (" + res.arch + ")");
    res.cubin.resize(cubin_size);
    Check(api_->nvrtcGetCUBIN(prog, res.cubin.data()), "nvrtcGetCUBIN");
  }

  for (const std::string& e : name_expressions) {
    const char* lowered = nullptr;
    Check(api_->nvrtcGetLoweredName(prog, e.c_str(), &lowered), "nvrtcGetLoweredName");
    res.lowered_names.emplace_back(e, lowered ? lowered : "");
  }
  res.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace tessera::gpu
