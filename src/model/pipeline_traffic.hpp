// From an executed pipeline to the cost model's input: which columns its source read and
// how many of their rows were wanted, the random accesses of its probes and aggregation,
// and the bytes its sink wrote (model/cost_model.hpp); and the per-query summary.
#pragma once
#include <string>
#include <vector>

#include "execution/pipeline.hpp"
#include "model/ceilings.hpp"
#include "model/pipeline_run.hpp"

namespace tessera::model {

// Row counts: the CPU executor's counts; for a GPU pipeline (one kernel) the optimizer's
// estimates between the operators and the sink's actual rows.
PipelineRun DescribeRun(const Pipeline& p);
std::vector<PipelineRun> DescribeRuns(const PipelineSet& set);

// The memory system a pipeline on `device` runs against, from the probed ceilings: the GPU
// (L2, 32-byte sectors) or the CPU with `threads` workers (LLC, 64-byte lines).
MemorySystem MemoryFor(const std::string& device, const Ceilings& c, unsigned threads);

struct QueryBound {
  std::vector<PipelineBound> pipelines;  // as the runs
  double bound_ms = 0;                   // sum over pipelines
  double bytes = 0;
  bool complete = true;                  // false: a pipeline's device was not probed
};
QueryBound BoundQuery(const std::vector<PipelineRun>& runs, const Ceilings& c, unsigned threads);

// EXPLAIN ANALYZE's table: per pipeline rows in/out, ms, bytes, GB/s, bound, % of bound.
std::string RenderModel(const std::vector<PipelineRun>& runs, const Ceilings* c, unsigned threads);

}  // namespace tessera::model
