// Window functions (BExpr::Window, planner/bound_window.hpp) on the CPU: a pipeline
// breaker. Sink keeps the input chunks with the window functions' children evaluated
// alongside (in the workers); Finalize computes every window function into a column in
// input order; the source hands out the input columns plus those, in parallel.
//
// Per group of window functions sharing PARTITION BY and ORDER BY: rows are bucketed by the
// hash of their partition keys, each bucket sorted by (partition keys, order keys) and its
// partitions evaluated, buckets in parallel (common/parallel.hpp). Aggregates over frames
// use the hash aggregate's states (GroupTable): a running state where every frame starts at
// the partition's start and ends no earlier than the previous row's, a segment tree of
// states otherwise (O(log n) merges a row, per range left by EXCLUDE); rows with the
// previous row's frame reuse its result. Never O(n * frame).
#pragma once
#include "execution/physical_operator.hpp"

namespace tessera {

class PhysicalWindow : public PhysicalOperator {
 public:
  // `t`: the child's column types followed by one per window function.
  PhysicalWindow(std::vector<Type> t, std::vector<BoundExprPtr> exprs);
  std::string Name() const override { return "WINDOW"; }
  std::string Details() const override;
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  void Combine(LocalState& ls) override;
  void Finalize() override;
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return (rows_ + kVectorSize - 1) / kVectorSize; }
  void ResetState() override {
    PhysicalOperator::ResetState();
    input_ = ChunkList();
    cols_.clear();
    rows_ = 0;
  }

  std::vector<BoundExprPtr> exprs;

 private:
  ChunkList input_;
  // After Finalize: the input's columns, then each window function's children, then the
  // results (one column per window function), `rows_` rows each.
  std::vector<Vector> cols_;
  uint32_t rows_ = 0;
};

}  // namespace tessera
