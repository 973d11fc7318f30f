// NVRTC, CUDA's run-time C++ compiler, loaded at run time.
//
// Generated query pipelines are CUDA C++ source; NvrtcCompiler turns them into a cubin (the
// device's machine code, an ELF image) for one compute capability. Compiling needs no GPU
// and no driver, only libnvrtc (and its libnvrtc-builtins beside it), so this works on CI.
// Like the driver, NVRTC is dlopen()ed: libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so, on the
// loader's path and in $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"

namespace tessera::gpu {

// The generated source did not compile. It is an engine bug (the engine wrote the source), so
// an InternalError; what() holds the program name, target and the whole compiler log.
class NvrtcCompileError : public InternalError {
 public:
  NvrtcCompileError(const std::string& msg, std::string log)
      : InternalError(msg), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

struct CompileResult {
  std::vector<char> cubin;   // ELF image for cuModuleLoadData
  std::string ptx;           // instead, for a virtual architecture (--gpu-architecture=compute_XY)
  std::string log;           // compiler output (warnings); often empty
  double compile_ms = 0;     // wall time of create + compile + fetch
  std::string arch;          // "sm_90"
  std::vector<std::string> options;  // every option passed to NVRTC
  // name expression (e.g. "filtered_sum<256, 4>") -> lowered (mangled) kernel name.
  std::vector<std::pair<std::string, std::string>> lowered_names;

  // The mangled name for a name expression given to Compile; throws InternalError if unknown.
  const std::string& LoweredName(const std::string& name_expression) const;
};

class NvrtcCompiler {
 public:
  // Process-wide compiler: TESSERA_NVRTC_LIB when set (and only that), else the default
  // candidates above. Never unloaded.
  static NvrtcCompiler& Instance();
  // A compiler that tries exactly these libraries, in order (tests, diagnostics).
  explicit NvrtcCompiler(std::vector<std::string> library_candidates);
  NvrtcCompiler(const NvrtcCompiler&) = delete;
  NvrtcCompiler& operator=(const NvrtcCompiler&) = delete;
  ~NvrtcCompiler();  // the library itself stays loaded

  // False, with a one-line reason ("NVRTC not found (libnvrtc.so.13)"), when the library is
  // missing or lacks an entry point. Never throws.
  bool Available(std::string* why = nullptr);
  // NVRTC's version, e.g. {13, 0}; throws when unavailable.
  std::pair<int, int> Version();
  // The library actually opened, and every attempt made (one per line).
  const std::string& LibraryPath();
  const std::string& LoadLog();
  // The toolkit include folder passed with -I ("" when none was found).
  const std::string& IncludeDir();
  // Compute capabilities NVRTC can target (e.g. 75, 80, ..., 120); empty when NVRTC is too old
  // to say.
  std::vector<int> SupportedArchs();

  // Compiles `source` (CUDA C++; `name` is the file name used in messages, e.g.
  // "pipeline_3.cu") into a cubin for sm_<major><minor>. Options: --gpu-architecture=sm_XY,
  // -std=c++17, --device-int128, -default-device, -minimal (where NVRTC knows it: no
  // texture, surface or runtime-API declarations), -I<toolkit include> when it exists, then
  // extra_options.
  // Kernels are looked up by name later: declare them extern "C", or pass their name
  // expressions (e.g. "filtered_sum<256, 4>") and use CompileResult::LoweredName.
  // Throws NvrtcCompileError with the log when the source does not compile, InternalError
  // for anything else (NVRTC unavailable, unsupported architecture, NVRTC failure).
  // Thread-safe: programs are independent.
  CompileResult Compile(const std::string& source, const std::string& name, int sm_major,
                        int sm_minor, const std::vector<std::string>& extra_options = {},
                        const std::vector<std::string>& name_expressions = {});
  // Whether Compile passes -minimal (default: yes, where NVRTC accepts it); off for
  // measurements against the earlier options (test/bench/nvrtc_bench.cpp).
  void SetMinimal(bool on) { minimal_ok_.store(on, std::memory_order_relaxed); }

 private:
  struct Api;
  void EnsureLoaded();
  void Load() noexcept;
  void Check(int result, const char* fn);

  std::vector<std::string> candidates_;
  std::once_flag once_;
  bool ok_ = false;
  std::atomic<bool> minimal_ok_{true};  // -minimal accepted (cleared on NVRTC_ERROR_INVALID_OPTION)
  void* lib_ = nullptr;
  std::unique_ptr<Api> api_;
  int major_ = 0, minor_ = 0;
  std::string why_, path_, log_, include_dir_;
};

}  // namespace tessera::gpu
