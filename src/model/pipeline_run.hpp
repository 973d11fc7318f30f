// What one executed pipeline did, as the cost model sees it: where it ran, rows in and
// out, its time and the memory traffic it implies (filled by model/pipeline_traffic.cpp
// after a query runs; carried in QueryResult for bench and EXPLAIN ANALYZE).
#pragma once
#include <string>
#include <vector>

#include "model/cost_model.hpp"

namespace tessera::model {

struct PipelineRun {
  int id = 0;
  std::string device;      // "cpu" or "gpu"
  std::string plan;        // "TABLE_SCAN -> HASH_JOIN -> HASH_GROUP_BY"
  bool rows_exact = true;  // false: the rows between operators are optimizer estimates (GPU)
  double rows_in = 0;      // rows the source read (a scan: the rows of its row groups)
  double rows_out = 0;     // rows the sink holds (build rows, groups, result rows)
  double ms = 0;           // CPU: wall time of the pipeline; GPU: kernel time (events)
  PipelineTraffic traffic;
};

}  // namespace tessera::model
