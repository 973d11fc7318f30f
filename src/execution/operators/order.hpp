// ORDER BY (with an optional top-N limit hint): collects all rows, sorts row indices by
// the keys, emits rows in order. Its source is ordered, so the pipeline after it runs on
// one thread.
#pragma once
#include "execution/physical_operator.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

class PhysicalOrder : public PhysicalOperator {
 public:
  PhysicalOrder(std::vector<Type> t, std::vector<OrderSpec> orders, int64_t top_n)
      : PhysicalOperator(PhysKind::Order, std::move(t)), orders(std::move(orders)), top_n(top_n) {}
  std::string Name() const override { return top_n >= 0 ? "TOP_N" : "ORDER_BY"; }
  std::string Details() const override;
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  void Combine(LocalState& ls) override;
  void Finalize() override;
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  bool SourceOrdered() const override { return true; }
  void ResetState() override {
    PhysicalOperator::ResetState();
    input_ = ChunkList();
    sorted_ = ChunkList();
  }

  std::vector<OrderSpec> orders;
  int64_t top_n;  // keep only the first top_n rows (-1: all)

 private:
  ChunkList input_;
  ChunkList sorted_;
};

}  // namespace tessera
