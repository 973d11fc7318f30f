// The build rows a hash join returns after its probe (PhysicalHashJoin::EmitBuildRows):
//  - of a FULL OUTER join, those no probe row matched, NULL-padded on the probe side. The
//    physical planner puts this source beside the join under a UNION ALL, whose operands'
//    pipelines run in order: the probe pipeline (the join's matches and the probe rows
//    without one) first, then this source's.
//  - of a RIGHT_SEMI / RIGHT_ANTI join, those some probe row matched / none did. The join
//    is this operator's child: the probe pipeline (whose rows only mark build rows) sinks
//    into this operator, which then is the source of the pipeline above (pipeline.cpp).
#pragma once
#include "execution/operators/hash_join.hpp"

namespace tessera {

// `rows` of a join's build columns as a chunk of the join's output: the probe side's
// columns NULL, then the build side's (unmatched rows of a RIGHT or FULL hash or ASOF join).
void NullPaddedBuildRows(const std::vector<Type>& probe_types, const std::vector<Type>& build_types,
                         const std::vector<Vector>& build_cols, const std::vector<uint32_t>& rows, DataChunk& out);

class PhysicalJoinUnmatched : public PhysicalOperator {
 public:
  // `join` is owned by the same plan (a RightSemi/RightAnti join: as this operator's
  // child); its output types are this source's.
  explicit PhysicalJoinUnmatched(const PhysicalHashJoin& join)
      : PhysicalOperator(PhysKind::JoinUnmatched, join.types), join_(join) {}
  std::string Name() const override;
  std::string Details() const override;

  std::unique_ptr<GlobalSourceState> InitSource() override;
  // Ranges of kVectorSize build rows, numbered in order (DataChunk::batch).
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return join_.BuildRows() / kVectorSize + 1; }

 private:
  const PhysicalHashJoin& join_;
};

}  // namespace tessera
