// The GPU executor: decides for each pipeline of a query whether it runs on the GPU,
// generates and compiles its kernel, and runs the query's pipelines in order — GPU ones on
// the device, the rest on the CPU (RunPipeline).
//
// A join's build pipeline runs on the GPU only when its probe pipeline does (the probe
// kernel reads the device hash table); a probe pipeline runs on the GPU only when every
// build it probes does. A pipeline that cannot run on the GPU keeps the reason, which
// EXPLAIN prints, so a GPU figure is never silently a CPU one.
#pragma once
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "execution/pipeline.hpp"
#include "gpu/pipeline_codegen.hpp"
#include "pipeline_ir/pipeline_ir.hpp"

namespace tessera::gpu {

// Where one pipeline runs under a GPU plan, and why not on the GPU ("" when it does).
struct PipelinePlacement {
  int id = 0;
  std::string plan;  // the pipeline's operators, as PipelineSet::ToString prints them
  bool gpu = false;
  std::string reason;
};

// One GPU pipeline's kernel compiled without a device (EXPLAIN (DEVICE gpu, KERNELS)).
struct KernelCompilation {
  int pipeline = 0;
  bool ok = false;
  double ms = 0;
  size_t cubin_bytes = 0;
  std::string error;        // NVRTC's message when !ok
  std::string kernel_body;  // the generated kernel alone
};

struct GpuQueryStats {
  double compile_ms = 0;   // NVRTC (0 when every kernel was cached)
  double transfer_ms = 0;  // column uploads
  uint64_t transfer_bytes = 0;  // copied over PCIe
  uint64_t column_bytes = 0;    // the columns they made resident (more where decoded on the device)
  double kernel_ms = 0;    // device time of the pipeline kernels (CUDA events)
  double open_ms = 0;      // opening the GPU (driver, context), or waiting for it to open
  int gpu_pipelines = 0, cpu_scan_pipelines = 0;
};

class GpuQuery {
 public:
  // Plans the query's pipelines for the GPU (nothing runs yet).
  // `chained`: joins whose build side had duplicate keys in an earlier run (GpuFallback's
  // duplicate_join): their tables keep every row, chained, and their probes loop over the
  // matches.
  explicit GpuQuery(PipelineSet& pipelines, ChainedJoins chained = {});
  ~GpuQuery();
  // Runs every pipeline in order. Throws GpuFallback when the GPU cannot give the right
  // answer after all (the caller re-runs the query on the CPU), UserError for errors the
  // CPU would raise too (overflow). May be called again (a cached plan): the compiled
  // kernels and uploaded bitmaps are kept, per-run device buffers are freed at its end.
  void Run(unsigned threads);
  // Per pipeline: where it runs and, for CPU pipelines that scan a table, why.
  std::string Describe() const;
  // The generated kernels (EXPLAIN (KERNELS)).
  std::string Kernels() const;
  // Every pipeline with its device and, for the CPU ones, the reason.
  std::vector<PipelinePlacement> Placement() const;
  // Compiles every GPU pipeline's kernel with NVRTC for sm_<major><minor>; needs no GPU
  // and launches nothing. Throws UserError when NVRTC is not available.
  std::vector<KernelCompilation> CompileWithoutDevice(int sm_major, int sm_minor) const;
  // The complete source (the tile library's part it uses + kernel) of every GPU pipeline, in
  // pipeline order; KernelBodies: the generated kernels alone.
  std::vector<std::string> Sources() const;
  std::vector<std::string> KernelBodies() const;
  // "gpu" when every pipeline that scans a table runs on the GPU, "cpu" when none does,
  // else "gpu+cpu".
  std::string DeviceLabel() const;
  const GpuQueryStats& stats() const { return stats_; }

 private:
  // Before the first pipeline runs: compiles (or loads from the kernel cache) every kernel
  // the plan lacks, all in parallel, while this thread uploads every program's columns.
  void PrepareKernels(GpuContext& ctx);
  // Makes a column resident (ColumnCache::EnsureResident), counting its upload.
  void AddUpload(CachedColumn& c, GpuContext& ctx);
  void RunProgram(PipelineProgram& prog, size_t index);
  // A pipeline that materialises rows: the kernel, then the sort (order/top-N) or the
  // download into the query's result.
  void RunMaterialise(PipelineProgram& prog, size_t index);
  void SortRows(PipelineProgram& prog);
  void DownloadResult(PipelineProgram& prog);
  // Raises the first error a kernel reported (errs: every program's error word).
  void RaiseErrors(const std::vector<int>& errs);
  // Reads the kernel times recorded so far (their work must be done) into the pipelines.
  void CollectTimings();
  // Launches prog's pipeline kernel (its parameters evaluated now), timed with events.
  void LaunchPipeline(PipelineProgram& prog, size_t index);
  void ReleaseRunBuffers();
  PipelineSet& pipelines_;
  ir::Query ir_;  // the pipelines as the generator reads them (same order)
  GpuTables tables_;
  ChainedJoins chained_;
  std::vector<std::unique_ptr<PipelineProgram>> programs_;  // by pipeline index (null: CPU)
  std::vector<std::string> why_cpu_;
  GpuQueryStats stats_;
  DeviceBuffer err_;
  DeviceBuffer counts_;  // two words per program: rows seen, rows kept after a sort
  bool ran_ = false;
  struct Timing;
  std::vector<std::unique_ptr<Timing>> timings_;
};

// True when queries should use the GPU under `device` ("auto", "gpu", "cpu"). "gpu" on a
// machine without a usable GPU throws UserError with the reason.
bool UseGpu(const std::string& device);
// Why the GPU cannot be used at all ("" when it can).
std::string GpuUnavailable();
// Opens the GPU (driver, NVRTC, the device's primary context) on a thread of its own, so
// that a process's first GPU query does not wait for it after opening the database and
// planning (the cold path: the context alone takes a large part of 100 ms). Failures are
// left for the query to report. Join the thread before the process exits.
std::thread OpenGpuInBackground();

}  // namespace tessera::gpu
