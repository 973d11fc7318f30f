// The second half of a FULL OUTER hash join: a source emitting the build rows no probe row
// matched, NULL-padded on the probe side. The physical planner puts it beside the join
// under a UNION ALL, whose operands' pipelines run in order: the probe pipeline (the join's
// matches and the probe rows without one) first, then this source's.
#pragma once
#include "execution/operators/hash_join.hpp"

namespace tessera {

class PhysicalJoinUnmatched : public PhysicalOperator {
 public:
  // `join` (a Full join) is owned by the same plan; its output types are this source's.
  explicit PhysicalJoinUnmatched(const PhysicalHashJoin& join)
      : PhysicalOperator(PhysKind::JoinUnmatched, join.types), join_(join) {}
  std::string Name() const override { return "FULL_JOIN_UNMATCHED"; }
  std::string Details() const override { return "build rows of " + join_.Details() + " without a match"; }

  std::unique_ptr<GlobalSourceState> InitSource() override;
  // Ranges of kVectorSize build rows, numbered in order (DataChunk::batch).
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return join_.BuildRows() / kVectorSize + 1; }

 private:
  const PhysicalHashJoin& join_;
};

}  // namespace tessera
