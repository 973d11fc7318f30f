// Small operators: dummy source, filter, projection, limit and the result collector.
#pragma once
#include "execution/physical_operator.hpp"

namespace tessera {

// One row without columns (SELECT without FROM).
class PhysicalDummy : public PhysicalOperator {
 public:
  PhysicalDummy() : PhysicalOperator(PhysKind::Dummy, {}) {}
  std::string Name() const override { return "DUMMY_SCAN"; }
  uint64_t SourceMorsels() const override { return 1; }  // one worker: no thread to start
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
};

class PhysicalFilter : public PhysicalOperator {
 public:
  PhysicalFilter(std::vector<Type> t, BoundExprPtr pred)
      : PhysicalOperator(PhysKind::Filter, std::move(t)), predicate(std::move(pred)) {}
  BoundExprPtr predicate;
  std::string Name() const override { return "FILTER"; }
  std::string Details() const override { return predicate->ToString(); }
  void Execute(DataChunk& in, DataChunk& out, LocalState&) override;
};

class PhysicalProjection : public PhysicalOperator {
 public:
  PhysicalProjection(std::vector<Type> t, std::vector<BoundExprPtr> e)
      : PhysicalOperator(PhysKind::Projection, std::move(t)), exprs(std::move(e)) {}
  std::vector<BoundExprPtr> exprs;
  std::string Name() const override { return "PROJECTION"; }
  std::string Details() const override;
  void Execute(DataChunk& in, DataChunk& out, LocalState&) override;
};

// LIMIT/OFFSET as a sink (keeps the first offset+limit rows it receives) and source.
class PhysicalLimit : public PhysicalOperator {
 public:
  PhysicalLimit(std::vector<Type> t, int64_t limit, int64_t offset)
      : PhysicalOperator(PhysKind::Limit, std::move(t)), limit(limit), offset(offset) {}
  int64_t limit, offset;
  std::string Name() const override { return "LIMIT"; }
  std::string Details() const override;
  void Sink(DataChunk& in, LocalState&) override;
  void Finalize() override;
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  bool SourceOrdered() const override { return true; }
  void ResetState() override {
    PhysicalOperator::ResetState();
    seen_ = 0;
    rows_ = ChunkList();
  }

 private:
  std::mutex mu_;
  uint64_t seen_ = 0;
  ChunkList rows_;
};

// Collects the query result.
class PhysicalResult : public PhysicalOperator {
 public:
  explicit PhysicalResult(std::vector<Type> t) : PhysicalOperator(PhysKind::Result, std::move(t)) {}
  std::string Name() const override { return "RESULT"; }
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState&) override;
  void Combine(LocalState&) override;
  void ResetState() override {
    PhysicalOperator::ResetState();
    result = ChunkList();
  }
  ChunkList result;
};

// Compacts `in` to the rows in sel[0..n) into `out`.
void SliceChunk(const DataChunk& in, const uint32_t* sel, uint32_t n, DataChunk& out);

}  // namespace tessera
