// What `tessera bench` measured, and its three renderings: the summary table (stdout), the
// JSON report (--json) and the HTML page with inline SVG bars (--plot).
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/ceilings.hpp"
#include "model/pipeline_traffic.hpp"

namespace tessera::cli {

struct PipelineFigures {
  model::PipelineRun run;
  model::PipelineBound bound;
};

struct DuckDbFigures {
  std::optional<double> median, min, max;
  uint64_t rows = 0;
  std::string mismatch;  // "" when the rows equal tessera's
  std::string error;
};

struct QueryFigures {
  std::string name;
  uint64_t rows = 0;
  std::string error;
  std::string device;  // where the warm runs' table scans ran: cpu, gpu, gpu+cpu
  std::string note;
  std::optional<double> cold, median, min, max;  // end to end, ms
  double compile_ms = 0, transfer_ms = 0;        // cold run (GPU)
  double transfer_bytes = 0;                     // cold run (GPU): bytes copied for the columns uploaded
  double column_bytes = 0;                       //   and those columns' device bytes
  std::optional<double> kernel_median;           // warm, GPU kernels
  std::optional<double> cpu_median;              // warm, sum of the CPU pipelines' times
  std::vector<PipelineFigures> pipelines;        // last warm run
  double bound_ms = 0, bound_bytes = 0;
  bool bound_complete = false;
  std::optional<DuckDbFigures> duckdb;
  // Each hash join of the last run the CPU counted: estimated and actual rows (q-errors).
  struct Join {
    std::string join;
    double estimated = -1;
    uint64_t actual = 0;
    bool inner = false;
    double probe_estimated = -1, build_estimated = -1;
    uint64_t probe_actual = 0, build_actual = 0;
  };
  std::vector<Join> joins;
  // Host phases (ms): the cold run's parse/plan/GPU code generation, and the warm runs'
  // medians; warm_plan_cached: every warm run took its plan from the plan cache.
  double cold_parse_ms = 0, cold_plan_ms = 0, cold_gpu_plan_ms = 0;
  std::optional<double> warm_parse_ms, warm_plan_ms, warm_run_ms, warm_collect_ms, warm_release_ms;
  bool warm_plan_cached = false;
  // Percent of the bound reached by the warm median (bound / median x 100).
  std::optional<double> PercentOfBound() const;
};

struct BenchReport {
  std::string benchmark;  // "ssb"
  double sf = 0;
  std::string data;
  std::string device;     // as asked: cpu, gpu, auto
  unsigned threads = 0;
  uint64_t reps = 0;
  bool plan_cache = true;
  std::string duckdb_version;  // "" without --compare
  model::Ceilings ceilings;
  std::vector<QueryFigures> queries;
};

void PrintSummary(std::ostream& out, const BenchReport& r);
std::string ReportJson(const BenchReport& r);
std::string ReportHtml(const BenchReport& r);
std::string Fixed(std::optional<double> v, int digits = 2);

}  // namespace tessera::cli
