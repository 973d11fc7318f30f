// A subplan computed once and read in several places (optimizer/shared_subplans.cpp).
//
// PhysicalMaterialized: the sink of its subplan's pipeline (UNION ALL's sink, of one
// operand: each worker collects its chunks as they come, selections and views of a hash
// join's build columns included, nothing copied; Finalize puts them in the source's order)
// and a source over the collected rows;
// PhysicalSharedScan: another source over the same rows, elsewhere in the plan. Both
// hand out the collected chunks' columns each reads (`columns`: the subplan computes what
// all its readers read) as views (Vector::SetView, as a hash join hands on its build
// columns) under their selections (an identity one where a column had none): the rows
// stay for every reader until the plan runs again (as the build columns they may view),
// a reader that writes a column copies it first, and the pipeline flattens a chunk into
// copies before a sink that keeps it (one that takes no selection). Both sources'
// pipelines depend on the one pipeline that fills them (pipeline.cpp), which runs once.
// The rows are freed by ResetState.
#pragma once
#include "execution/operators/union_all.hpp"

namespace tessera {

class PhysicalMaterialized : public PhysicalUnionAll {
 public:
  PhysicalMaterialized(std::vector<Type> t, uint32_t id, std::vector<uint32_t> columns)
      : PhysicalUnionAll(PhysKind::Materialized, std::move(t)), id(id), columns(std::move(columns)) {}
  std::string Name() const override { return "MATERIALIZED"; }
  std::string Details() const override { return "#" + std::to_string(id) + ColumnsRead(columns); }

  void Sink(DataChunk& in, LocalState& ls) override;
  bool SinkTakesSelection() const override { return true; }
  // source: copies of the collected chunks, in order (they stay for the shared scans)
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;

  // The next collected chunk (views of its `columns`) for a reader whose position is `gs`.
  bool CopyNext(GlobalSourceState& gs, const std::vector<uint32_t>& columns, DataChunk& out) const;
  size_t Chunks() const { return rows_.chunks.size(); }
  // EXPLAIN: which of the collected columns a reader reads, where not all in order.
  std::string ColumnsRead(const std::vector<uint32_t>& read) const;

  const uint32_t id;
  const std::vector<uint32_t> columns;  // of the collected rows, this source's
};

class PhysicalSharedScan : public PhysicalOperator {
 public:
  PhysicalSharedScan(std::vector<Type> t, uint32_t id, std::vector<uint32_t> columns)
      : PhysicalOperator(PhysKind::SharedScan, std::move(t)), id(id), columns(std::move(columns)) {}
  std::string Name() const override { return "SHARED_SCAN"; }
  std::string Details() const override {
    return "rows of MATERIALIZED #" + std::to_string(id) + (source ? source->ColumnsRead(columns) : "");
  }
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return source ? source->Chunks() + 1 : 1; }

  const uint32_t id;
  const std::vector<uint32_t> columns;  // of the collected rows
  // Set once the whole plan is built (physical_planner.cpp); not owned.
  PhysicalMaterialized* source = nullptr;
};

}  // namespace tessera
