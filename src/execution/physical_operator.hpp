// Physical operators of the CPU backend. An operator plays up to three roles in the
// pipelines it belongs to (see pipeline.hpp): source (produces chunks), streaming
// operator (chunk in, chunk out) and sink (consumes chunks; a pipeline breaker). Sinks
// keep their global state in the operator itself; ResetState() clears it, so a plan can be
// executed again (the plan cache runs a cached plan once per query, never concurrently).
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/vector.hpp"
#include "planner/bound_expr.hpp"

namespace tessera {

enum class PhysKind { TableScan, Dummy, Values, Filter, Projection, HashJoin, HashAggregate, Order, Limit, UnionAll, Result, Window, JoinUnmatched,
                      RecursiveCte, WorkingTable, Materialized, SharedScan, AsOfJoin };

struct LocalState {
  virtual ~LocalState() = default;
};
struct GlobalSourceState {
  virtual ~GlobalSourceState() = default;
};

class PhysicalOperator {
 public:
  PhysicalOperator(PhysKind k, std::vector<Type> t) : kind(k), types(std::move(t)) {}
  virtual ~PhysicalOperator() = default;

  PhysKind kind;
  std::vector<Type> types;  // output column types
  std::vector<std::unique_ptr<PhysicalOperator>> children;
  double estimated_rows = -1;

  virtual std::string Name() const = 0;
  virtual std::string Details() const { return ""; }

  // Source role.
  virtual std::unique_ptr<GlobalSourceState> InitSource() { return std::make_unique<GlobalSourceState>(); }
  virtual std::unique_ptr<LocalState> InitLocalSource() { return std::make_unique<LocalState>(); }
  // Fills `out` with the next chunk; returns false when the source is exhausted.
  virtual bool GetChunk(GlobalSourceState&, LocalState&, DataChunk& out) { return false; }
  // True when the source's chunk order matters (sorted output): run it on one thread.
  virtual bool SourceOrdered() const { return false; }
  // How many morsels the source hands out at most (asked when its pipeline starts, after
  // the pipelines it depends on ran): a pipeline gets no more workers than that, so a
  // small source (a few hundred groups) does not start a thread per core.
  virtual uint64_t SourceMorsels() const { return UINT64_MAX; }

  // Streaming-operator role.
  virtual std::unique_ptr<LocalState> InitLocalOperator() { return std::make_unique<LocalState>(); }
  virtual void Execute(DataChunk& in, DataChunk& out, LocalState&) {}
  // Whether Execute takes a selected chunk (DataChunk::sel, execution/selection.hpp); the
  // pipeline flattens the chunk before an operator that does not. Execute may hand on a
  // selected chunk either way (a filter, a join probe).
  virtual bool ExecuteTakesSelection() const { return false; }

  // Sink role.
  virtual std::unique_ptr<LocalState> InitLocalSink() { return std::make_unique<LocalState>(); }
  virtual void Sink(DataChunk& in, LocalState&) {}
  // Whether Sink takes a selected chunk (as ExecuteTakesSelection).
  virtual bool SinkTakesSelection() const { return false; }
  virtual void Combine(LocalState&) {}  // called under the pipeline's lock
  virtual void Finalize() {}
  // True once the sink wants no more rows (a streamed result whose consumer stopped it):
  // the pipeline's workers stop pulling chunks from the source.
  virtual bool SinkDone() const { return false; }
  // Rows the sink holds after Finalize (for EXPLAIN ANALYZE-style reporting).
  uint64_t rows_out = 0;
  // The threads the sink's pipeline was given (set before Finalize, for a sink that
  // finalizes in parallel: the window operator).
  unsigned threads = 1;

  // Forgets (and frees) what the last execution left in this operator: sink state, result
  // rows, counters. Overrides call the base.
  virtual void ResetState() { rows_out = 0; }
};

// ResetState() on every operator of the tree rooted at `op`.
void ResetPlanState(PhysicalOperator& op);

using PhysicalOperatorPtr = std::unique_ptr<PhysicalOperator>;

// A chunk collection shared by sinks that materialise rows (aggregate results, sort).
struct ChunkList {
  std::vector<DataChunk> chunks;
  uint64_t rows = 0;
  void Add(DataChunk&& c) {
    rows += c.size;
    chunks.push_back(std::move(c));
  }
};

// Source over a materialised ChunkList: hands out chunks in order.
struct ChunkListSourceState : GlobalSourceState {
  std::mutex mu;
  size_t next = 0;
};
bool NextChunkFromList(ChunkList& list, GlobalSourceState& gs, DataChunk& out);

}  // namespace tessera
