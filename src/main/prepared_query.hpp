// A SELECT prepared for execution: bound and optimised logical plan, physical plan, its
// pipelines and (when the GPU is used) the generated and compiled kernels. It can run
// more than once (the plan cache keeps prepared queries by their SQL text).
#pragma once
#include <memory>
#include <set>
#include <string>

#include "execution/pipeline.hpp"
#include "main/database.hpp"
#include "parser/ast.hpp"
#include "planner/binder.hpp"

namespace tessera {
namespace gpu {
class GpuQuery;
}

struct PreparedQuery {
  BoundQuery bound;
  PhysicalOperatorPtr plan;
  std::unique_ptr<PipelineSet> pipelines;
  std::unique_ptr<gpu::GpuQuery> gpu;  // set when the query uses the GPU
  // Set when the GPU handed this query back once: it was prepared again for the CPU, and
  // every later run of it reports the same note.
  std::string fallback_note;
  bool cacheable = true;   // false when it read files at bind time (Binder::reads_files)
  double plan_ms = 0;      // bind, optimise, physical plan, pipelines
  double gpu_plan_ms = 0;  // GPU code generation (kernels are compiled when first run)
  PreparedQuery();
  ~PreparedQuery();
  PreparedQuery(PreparedQuery&&) noexcept;
  PreparedQuery& operator=(PreparedQuery&&) noexcept;
};

// `chained_joins`: the GPU plan's joins to build with duplicate keys chained (an earlier
// run found duplicates on their build sides; gpu::GpuFallback::duplicate_join).
// `overrides`: tables bound in place of the catalog's (Binder::SetTableOverrides).
PreparedQuery PrepareSelect(Database& db, const ast::SelectStmt& select, bool allow_gpu = true,
                            const std::set<int>& chained_joins = {},
                            const Binder::TableOverrides* overrides = nullptr);

// The plan the GPU would run, with the GPU's query set up (code generated, nothing
// compiled or run), whether or not a GPU is usable here: EXPLAIN (DEVICE gpu).
PreparedQuery PrepareSelectForGpu(Database& db, const ast::SelectStmt& select);

// Runs the prepared query (again, when it ran before) and returns its result, with the
// run and collect phases timed. When the GPU hands the query back (a case its kernels
// cannot answer exactly), `q` is prepared again for the CPU and run there. With
// `free_state` the operators' run state (hash tables, sorted rows) is freed once the
// result is out; EXPLAIN ANALYZE keeps it to print the plan as it ran. With `consumer` the
// rows are handed to it as they come (execution/result_consumer.hpp; on the CPU as the last
// pipeline produces them, from the GPU once it finished) and the result holds no chunks:
// its row_count counts the rows handed over.
QueryResult RunPrepared(Database& db, const ast::SelectStmt& select, PreparedQuery& q, bool free_state = true,
                        ResultConsumer* consumer = nullptr);

}  // namespace tessera
