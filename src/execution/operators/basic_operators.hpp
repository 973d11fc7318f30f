// Small operators: dummy source, filter, projection, limit and the result collector.
#pragma once
#include <map>

#include "execution/physical_operator.hpp"
#include "execution/result_consumer.hpp"

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
  std::unique_ptr<LocalState> InitLocalOperator() override;
  void Execute(DataChunk& in, DataChunk& out, LocalState&) override;
  bool ExecuteTakesSelection() const override { return true; }
};

class PhysicalProjection : public PhysicalOperator {
 public:
  PhysicalProjection(std::vector<Type> t, std::vector<BoundExprPtr> e)
      : PhysicalOperator(PhysKind::Projection, std::move(t)), exprs(std::move(e)) {}
  std::vector<BoundExprPtr> exprs;
  std::string Name() const override { return "PROJECTION"; }
  std::string Details() const override;
  std::unique_ptr<LocalState> InitLocalOperator() override;
  void Execute(DataChunk& in, DataChunk& out, LocalState&) override;
  bool ExecuteTakesSelection() const override { return true; }
};

// LIMIT/OFFSET as a sink (keeps the first offset+limit rows in the source's order) and
// source.
class PhysicalLimit : public PhysicalOperator {
 public:
  PhysicalLimit(std::vector<Type> t, int64_t limit, int64_t offset, double percent = -1)
      : PhysicalOperator(PhysKind::Limit, std::move(t)), limit(limit), offset(offset), percent(percent) {}
  int64_t limit, offset;
  // LIMIT p% (limit is -1): all rows are kept until the input ends, then the first
  // floor(rows * p / 100) after the offset go out (DuckDB's rule: p% of all the rows).
  double percent;
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
    pending_.clear();
    rows_ = ChunkList();
  }

 private:
  std::mutex mu_;
  uint64_t seen_ = 0;                          // rows in pending_
  std::multimap<uint64_t, DataChunk> pending_;  // by DataChunk::batch
  ChunkList rows_;
};

// Collects the query result, or with `consumer` set hands it over as it comes (streaming:
// see result_consumer.hpp). Streaming keeps the result's order (that of DataChunk::batch):
// where the pipeline's source hands out its morsels in increasing batch order, each worker
// going through its own in increasing order (table scans; one-thread sources), a chunk goes
// out once no worker can still produce a smaller batch (the lowest batch each worker last
// sank: a low watermark); other sources' chunks go out when their pipeline finishes.
class PhysicalResult : public PhysicalOperator {
 public:
  explicit PhysicalResult(std::vector<Type> t) : PhysicalOperator(PhysKind::Result, std::move(t)) {}
  std::string Name() const override { return "RESULT"; }
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState&) override;
  void Combine(LocalState&) override;
  // Puts the chunks the finished pipeline added back in their source's order
  // (DataChunk::batch; stable); streaming, hands over those still held.
  void Finalize() override;
  bool SinkDone() const override { return stopped_.load(std::memory_order_relaxed); }
  void ResetState() override {
    PhysicalOperator::ResetState();
    result = ChunkList();
    finalized_ = 0;
    pending_.clear();
    watermarks_.clear();
    stopped_ = false;
    streamed_rows = 0;
  }
  ChunkList result;
  // Set for a streamed run (main/prepared_query.cpp); the rows it was handed so far.
  ResultConsumer* consumer = nullptr;
  const std::atomic<bool>* interrupt = nullptr;  // the statement's (checked between slices)
  uint64_t streamed_rows = 0;
  // Hands `c` to the consumer unless it stopped (under mu_ when workers run), in slices of
  // at most kVectorSize rows (an operator may emit a larger chunk: a cross join's pairs),
  // checking `interrupt` before each.
  void Deliver(DataChunk& c);

 private:
  void DeliverBelow(uint64_t watermark);  // pending chunks of smaller batches, in order
  size_t finalized_ = 0;  // chunks already in order (earlier pipelines')
  std::mutex mu_;
  bool ordered_source_ = false;               // the running pipeline streams as it goes
  std::multimap<uint64_t, DataChunk> pending_;  // streamed chunks waiting for their turn
  std::vector<uint64_t> watermarks_;          // per worker: the batch it last sank
  std::atomic<bool> stopped_{false};
};
// Compacts `in` to the rows in sel[0..n) into `out`.
void SliceChunk(const DataChunk& in, const uint32_t* sel, uint32_t n, DataChunk& out);

}  // namespace tessera
