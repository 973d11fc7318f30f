// The backend-neutral pipeline IR: one description of each pipeline of a query, between
// the physical plan and the backends.
//
// A pipeline is a source, streaming steps and a sink:
//   source  a table scan (its table snapshot, columns, pushed-down filter conjuncts and
//           estimated rows) or an intermediate result (what another node produced, or
//           the rows of a VALUES list);
//   steps   filter, projection, probe {join type, key expressions, residual predicate,
//           the build side's column types};
//   sink    a join build {join type, key expressions}, an aggregation {group keys,
//           aggregates, estimated groups}, an order / top-N {keys, limit}, or another
//           materialisation (a result collector, a limit, a UNION ALL).
// Expressions are the binder's BoundExpr trees (their column indices refer to the input
// of the step or sink that holds them, as in the physical plan). Nodes shared between
// pipelines (a join: built by one, probed by another; an aggregation: filled by one, read
// by another) carry the same NodeId.
//
// The GPU code generator reads only this (src/gpu includes no CPU operator class); the
// lowering from the physical plan (lower.cpp) is the one place that knows both. Results
// the GPU computes for a CPU pipeline to read go back through GroupResultWriter, which the
// lowering implements over the CPU aggregation. The CPU executor still runs its physical
// operators directly (docs/ARCHITECTURE.md says what is left).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "common/value.hpp"
#include "common/vector.hpp"
#include "planner/bound_expr.hpp"
#include "planner/logical_plan.hpp"
#include "storage/row_group.hpp"

namespace tessera {
struct Pipeline;
class PipelineSet;
}  // namespace tessera

namespace tessera::ir {

using NodeId = int;

struct ScanSource {
  std::string table;                        // the table's name
  std::shared_ptr<const TableData> data;    // the snapshot the query reads
  std::vector<int> column_ids;              // schema column of each output column
  std::vector<std::string> column_names;
  std::vector<Type> column_types;
  std::vector<const BoundExpr*> filters;    // pushed-down conjuncts (ANDs flattened)
  double estimated_rows = -1;               // after the filters (-1: unknown)
};

struct Source {
  enum class Kind { TableScan, Intermediate };
  Kind kind = Kind::TableScan;
  ScanSource scan;          // TableScan
  NodeId from = -1;         // Intermediate: the node whose result is read
  std::string what;         // Intermediate: that node's kind (HASH_GROUP_BY, ORDER_BY, ...)
  bool aggregate = false;   // Intermediate: `from` is an aggregation (its groups: keys, then aggregates)
  bool rows = false;        // Intermediate: `from` is an order, top-N or limit sink (its rows, in order)
  std::vector<Type> types;  // output columns
};

// A hash join as both its sides see it: the probe step and the build sink each hold the
// keys over their own input.
struct JoinSpec {
  LJoinType type = LJoinType::Inner;
  std::vector<const BoundExpr*> keys;  // over this side's input
  const BoundExpr* residual = nullptr;  // over probe columns ++ build columns
  bool null_aware = false;              // Mark for NOT IN: NULL when unknown
  bool nulls_equal = false;             // INTERSECT/EXCEPT: NULL keys match NULL keys
  bool counted = false;                 // INTERSECT/EXCEPT ALL: see LogicalOp::counted
  bool single_match = false;            // scalar subquery: two build rows for a probe row is an error
};

struct Step {
  enum class Kind { Filter, Project, Probe, Other };
  Kind kind = Kind::Other;
  const BoundExpr* predicate = nullptr;          // Filter
  std::vector<const BoundExpr*> exprs;           // Project: one per output column
  // Probe: the join's output is the input's columns, then the build side's.
  NodeId join = -1;
  JoinSpec on;                                   // keys over the step's input
  std::vector<Type> build_types;
  double estimated_in = -1, estimated_out = -1;  // rows into and out of the step
  std::string what;                              // Other: the operator's name
  std::vector<Type> types;                       // output columns
};

struct OrderKey {
  const BoundExpr* expr = nullptr;
  bool desc = false;
  bool nulls_first = false;
};

// Where an aggregation computed elsewhere (the GPU) leaves its groups, for the pipelines
// that read the aggregation afterwards: groups are found or created by their keys, then
// each aggregate's partial state is set; Finish hands the table over.
class GroupResultWriter {
 public:
  virtual ~GroupResultWriter() = default;
  virtual void FindOrCreate(const std::vector<Vector>& keys, uint32_t n, std::vector<uint32_t>& gids) = 0;
  // Aggregate a of group g: rows counted, integer/decimal sum (bool_and, bool_or,
  // count_if: the TRUE rows), double sum, MIN/MAX's value (nullptr: none).
  virtual void SetState(size_t a, uint32_t g, int64_t count, int128_t isum, double dsum, const Value* ext) = 0;
  // `all_groups`: the groups the aggregation produced (also those not handed over).
  virtual void Finish(uint64_t all_groups) = 0;
};

// Where rows computed elsewhere (the GPU) go for a sink that materialises them: the
// result collector takes them in order (Append); every such sink is told how many rows it
// ended with (Finish), for EXPLAIN ANALYZE.
class RowResultWriter {
 public:
  virtual ~RowResultWriter() = default;
  virtual void Append(DataChunk&& rows) = 0;
  virtual void Finish(uint64_t rows) = 0;
};

struct Sink {
  enum class Kind { JoinBuild, Aggregate, Order, Limit, Result, Other };
  Kind kind = Kind::Other;
  NodeId node = -1;
  // JoinBuild: keys over the sink's input.
  JoinSpec build;
  // Aggregate: output = group keys, then aggregates (BExpr::Agg).
  std::vector<const BoundExpr*> groups, aggs;
  double estimated_groups = -1;
  std::function<std::unique_ptr<GroupResultWriter>()> new_result;
  // Order: keys, and the rows kept (-1: all). Limit: the rows kept after `offset` skipped.
  std::vector<OrderKey> orders;
  int64_t limit = -1, offset = 0;
  // Order, Limit, Result: the receiver of rows computed elsewhere.
  std::function<std::unique_ptr<RowResultWriter>()> new_rows;
  std::string what;  // the operator's name
};

struct Pipeline {
  int id = 0;        // as EXPLAIN numbers it
  size_t index = 0;  // position in the query's run order
  Source source;
  std::vector<Step> steps;
  Sink sink;
  std::string ToString() const;  // one line: source -> steps -> sink
};

struct Query {
  std::vector<Pipeline> pipelines;  // in run order (dependencies first)
};

// The IR of a query's pipelines (execution/pipeline.hpp), in the same order. The IR points
// into the physical plan (expressions, table snapshots), which must outlive it.
Query Lower(const PipelineSet& pipelines);

}  // namespace tessera::ir
