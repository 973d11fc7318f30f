// WITH RECURSIVE on the CPU. PhysicalRecursiveCte is a source: before its pipeline reads it,
// it runs the anchor's plan (children[0]) and then the recursive part's (children[1]), each
// a plan of its own under a result collector with pipelines of its own, again and again:
// every run reads, through a PhysicalWorkingTableScan, the rows the run before added
// (UNION ALL: all of its rows; UNION: those not seen yet), until a run adds none. Every row
// added is the output. The GPU does not run it (its source is an intermediate result).
#pragma once
#include <algorithm>
#include <memory>

#include "execution/physical_operator.hpp"

namespace tessera {

class PipelineSet;
class GroupTable;

// The rows a recursive part's run reads (its working table).
struct WorkingRows {
  ChunkList rows;
};

class PhysicalRecursiveCte : public PhysicalOperator {
 public:
  // `anchor` and `recursive` are PhysicalResult roots.
  PhysicalRecursiveCte(std::vector<Type> t, bool distinct_rows, std::shared_ptr<WorkingRows> working,
                       std::unique_ptr<PhysicalOperator> anchor, std::unique_ptr<PhysicalOperator> recursive);
  ~PhysicalRecursiveCte() override;
  std::string Name() const override { return "RECURSIVE_CTE"; }
  std::string Details() const override { return distinct_rows_ ? "UNION" : "UNION ALL"; }

  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return rows_.chunks.size() + 1; }
  void ResetState() override;

  // Runs of the recursive part before it is an error (a query that never stops adding rows).
  static constexpr uint64_t kMaxIterations = 100000;

 private:
  void Compute();
  // Moves the rows of `result` (a PhysicalResult's) that are new into `out`.
  void TakeNew(ChunkList& result, ChunkList& out);

  bool distinct_rows_;
  std::shared_ptr<WorkingRows> working_;
  std::unique_ptr<PipelineSet> anchor_pipelines_, recursive_pipelines_;
  std::unique_ptr<GroupTable> seen_;  // UNION: every row added so far
  ChunkList rows_;
};

class PhysicalWorkingTableScan : public PhysicalOperator {
 public:
  PhysicalWorkingTableScan(std::vector<Type> t, std::shared_ptr<WorkingRows> working)
      : PhysicalOperator(PhysKind::WorkingTable, std::move(t)), working_(std::move(working)) {}
  std::string Name() const override { return "WORKING_TABLE_SCAN"; }
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  // A worker per chunk (one, with no thread started, for the few rows of most runs).
  uint64_t SourceMorsels() const override { return std::max<uint64_t>(1, working_->rows.chunks.size()); }

 private:
  std::shared_ptr<WorkingRows> working_;
};

}  // namespace tessera
