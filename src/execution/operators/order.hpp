// ORDER BY (with an optional top-N limit hint), sorted in parallel: the collected rows are
// cut into runs (contiguous in the order the workers handed them over), each run
// concatenated and sorted on its own thread by (normalised key prefix, full key compare on
// prefix ties, input position), then the runs are merged in parallel, each thread merging
// one range of the output (split by sampled splitters, found in every run by binary
// search), and the output chunks gathered in parallel. Ties keep the input order. A TOP_N
// worker keeps only its first top_n rows as it goes (sorting what it holds each time that
// doubles), so the final sort sees at most top_n rows a worker. Its source is ordered, so
// the pipeline after it runs on one thread.
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
  // Sorts `chunks` on `threads` threads into chunks of at most kVectorSize rows, keeping
  // the first `keep` rows (-1: all); with `own_strings` the output's strings are copied
  // into its own heaps.
  ChunkList SortChunks(std::vector<DataChunk>&& chunks, int64_t keep, unsigned threads, bool own_strings) const;

  ChunkList input_;
  ChunkList sorted_;
};

}  // namespace tessera
