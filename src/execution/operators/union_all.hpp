// UNION ALL: a sink for every operand's pipeline (each worker collects its chunks; Combine
// appends them in the order the pipelines run: operand by operand, and Finalize puts each
// operand's chunks in its source's order) and the source of the pipeline above, which reads
// the collected chunks one after another.
#pragma once
#include "execution/physical_operator.hpp"

namespace tessera {

class PhysicalUnionAll : public PhysicalOperator {
 public:
  explicit PhysicalUnionAll(std::vector<Type> t) : PhysicalOperator(PhysKind::UnionAll, std::move(t)) {}
  // For a sink that collects the same way (materialized.hpp).
  PhysicalUnionAll(PhysKind k, std::vector<Type> t) : PhysicalOperator(k, std::move(t)) {}
  std::string Name() const override { return "UNION_ALL"; }

  // sink (one pipeline per operand)
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  void Combine(LocalState& ls) override;
  void Finalize() override;
  // source (chunks numbered in order: DataChunk::batch)
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return rows_.chunks.size() + 1; }
  void ResetState() override {
    PhysicalOperator::ResetState();
    rows_ = ChunkList();
    finalized_ = 0;
  }

 protected:
  ChunkList rows_;
  size_t finalized_ = 0;  // chunks of the operands already finished, in order
};

}  // namespace tessera
