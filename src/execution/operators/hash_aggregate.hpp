// Hash aggregation: each worker aggregates into its own GroupTable (no sharing on the hot
// path). Finalize combines them: few groups merge into one table; many groups (on more
// than one thread) are radix-partitioned by their hashes' top bits and partition p of
// every thread's table is merged into result table p on one worker, the partitions in
// parallel. The source emits the result tables' groups, morsels within one partition.
// Without GROUP BY the table has exactly one group, so aggregates over empty input give
// SUM = NULL, COUNT = 0. Where every group key of a chunk is a VARCHAR column in dictionary
// form, its groups are found by the codes (dict_group_keys.hpp). A selected chunk's keys
// and arguments that are plain columns are read in place through their selections
// (hashing, finding groups, updating states: GroupTable's `sels` and AggInput); only the
// columns that computed keys or arguments read are gathered, once a chunk.
#pragma once
#include <atomic>

#include "execution/operators/group_table.hpp"
#include "execution/physical_operator.hpp"

namespace tessera {

class PhysicalHashAggregate : public PhysicalOperator {
 public:
  PhysicalHashAggregate(std::vector<Type> t, std::vector<BoundExprPtr> groups,
                        std::vector<BoundExprPtr> aggs);
  std::string Name() const override { return groups.empty() ? "UNGROUPED_AGGREGATE" : "HASH_GROUP_BY"; }
  std::string Details() const override;
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  // Reads its keys' and arguments' columns through the selection (gathers only the columns
  // of computed ones).
  bool SinkTakesSelection() const override { return true; }
  void Combine(LocalState& ls) override;
  void Finalize() override;
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  void ResetState() override {
    PhysicalOperator::ResetState();
    key_chunks = 0;
    dict_key_chunks = 0;
    locals_.clear();
    parts_.clear();
    morsels_.clear();
  }
  uint64_t SourceMorsels() const override { return std::max<size_t>(morsels_.size(), 1); }

  std::vector<BoundExprPtr> groups, aggs;
  std::unique_ptr<GroupTable> NewTable() const;
  // The aggregation's result computed elsewhere (the GPU backend): the operator then acts
  // as a source over it, as after Finalize.
  void SetResult(std::unique_ptr<GroupTable> table);
  // Groups at least this many (summed over the threads' tables) are merged by partitions.
  static constexpr uint64_t kPartitionedMerge = 16384;
  // Chunks aggregated, and those whose groups were found by dictionary codes
  // (dict_group_keys.hpp); EXPLAIN ANALYZE shows them.
  std::atomic<uint64_t> key_chunks{0}, dict_key_chunks{0};

 private:
  void SetResultParts(std::vector<std::unique_ptr<GroupTable>> parts);
  std::vector<std::unique_ptr<GroupTable>> locals_;  // the workers' tables, until Finalize
  std::vector<std::unique_ptr<GroupTable>> parts_;   // the result: one table, or one a partition
  struct Morsel {
    uint32_t part, from, n;
  };
  std::vector<Morsel> morsels_;  // the source's chunks
};

}  // namespace tessera
