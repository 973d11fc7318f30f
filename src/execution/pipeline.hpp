// Pipelines: the unit of execution of both backends. A pipeline is a source, a chain of
// streaming operators and a sink (a pipeline breaker: hash-join build, aggregation,
// sort, limit, result). BuildPipelines splits a physical plan into pipelines; a hash
// join's build side becomes a pipeline the probe side's pipeline depends on.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "execution/physical_operator.hpp"

namespace tessera {

struct Pipeline {
  int id = 0;
  PhysicalOperator* source = nullptr;
  std::vector<PhysicalOperator*> operators;  // in execution order
  PhysicalOperator* sink = nullptr;
  std::vector<Pipeline*> dependencies;
  double elapsed_ms = 0;
  std::string device = "cpu";
  // Rows counted by the CPU executor (counted = true once it ran the pipeline): out of the
  // source, out of each operator (same order as `operators`). The GPU runs a pipeline as
  // one kernel and counts only the sink's rows (sink->rows_out).
  bool counted = false;
  uint64_t source_rows = 0;
  std::vector<uint64_t> operator_rows;
  // GPU: bytes of the join table this build fills, or of the aggregation state.
  double gpu_table_bytes = 0;
  // GPU: device bytes a row of each scanned column (as the scan's columns; a packed
  // column's compressed bytes), for the model's bound.
  std::vector<double> gpu_read_widths;
  std::string ToString() const;
};

class PipelineSet {
 public:
  // Splits the plan rooted at `root` (a PhysicalResult) into pipelines.
  explicit PipelineSet(PhysicalOperator* root);
  // Pipelines in an order that respects dependencies.
  const std::vector<std::unique_ptr<Pipeline>>& pipelines() const { return pipelines_; }
  // Runs every pipeline on up to `threads` workers.
  void Execute(unsigned threads);
  // Clears the per-run figures of every pipeline (times, counts; not `device`).
  void ResetState();
  std::string ToString() const;
  // The rows each operator produced in the last run, where the CPU counted them: a
  // source's rows, a streaming operator's (a hash join's: its probe's output). Operators
  // of pipelines the GPU ran, and build sinks, are absent.
  std::map<const PhysicalOperator*, uint64_t> ActualRows() const;

 private:
  Pipeline* NewPipeline(PhysicalOperator* sink);
  void Build(PhysicalOperator* op, Pipeline* cur);
  // The pipeline that fills a materialisation (a PhysicalMaterialized, or the one a
  // PhysicalSharedScan reads), made when the first of its readers is built.
  Pipeline* MaterializingPipeline(PhysicalOperator* op);
  std::vector<std::unique_ptr<Pipeline>> pipelines_;
  std::vector<std::pair<PhysicalOperator*, Pipeline*>> materializing_;
};

void RunPipeline(Pipeline& p, unsigned threads);

// The q-error of an estimate: max(estimated / actual, actual / estimated), both at least 1.
inline double QError(double estimated, double actual) {
  double e = estimated < 1 ? 1 : estimated, a = actual < 1 ? 1 : actual;
  return e > a ? e / a : a / e;
}

// Renders the physical operator tree (EXPLAIN): each operator's estimated rows and, with
// `actual` (EXPLAIN ANALYZE), the rows it produced.
std::string PhysicalPlanToString(const PhysicalOperator& op, int indent = 0,
                                 const std::map<const PhysicalOperator*, uint64_t>* actual = nullptr);

}  // namespace tessera
