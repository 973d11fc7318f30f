#include <cstdlib>
#include <string>

#include "optimizer/optimizer.hpp"

namespace tessera {

// The GPU runs the CPU's join order (DPccp); TESSERA_GPU_JOIN_ORDER=left-deep gives GPU
// plans the greedy left-deep order instead (for measuring one against the other).
static JoinOrderStrategy GpuJoinOrder() {
  static const JoinOrderStrategy s = [] {
    const char* e = std::getenv("TESSERA_GPU_JOIN_ORDER");
    return e && std::string(e) == "left-deep" ? JoinOrderStrategy::LeftDeep : JoinOrderStrategy::Cost;
  }();
  return s;
}

LogicalOpPtr Optimize(LogicalOpPtr plan, bool for_cpu) {
  FoldConstants(*plan);
  FactorOrPredicates(*plan);
  PushLeftJoinRightFilters(*plan);  // before the join order, which pushes them into the scans
  PushFiltersToPreservedSide(plan);  // the same: filters below LEFT/semi/anti joins reach their regions
  plan = ReorderJoins(std::move(plan), for_cpu ? JoinOrderStrategy::Cost : GpuJoinOrder());
  SimplifyOuterJoins(*plan);  // after the join order: the join keeps its sides and its single-match check
  PushSemiJoinsDown(plan);  // after the join order: a selective semi/anti join filters its relation first
  ReduceGroupsBySemiJoin(*plan);  // after both: the joins of decorrelated subqueries are inner, with their sides
  SplitDistinctAggregates(*plan);
  PruneColumns(*plan);
  EstimateRows(*plan);  // every operator the passes above left without an estimate
  // Last: no other pass meets the RightSemi/RightAnti joins it makes; the GPU does not run them.
  if (for_cpu) ChooseSemiJoinSides(*plan);
  return plan;
}

}  // namespace tessera
