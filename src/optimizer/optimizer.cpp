#include "optimizer/optimizer.hpp"

namespace tessera {

LogicalOpPtr Optimize(LogicalOpPtr plan, bool for_cpu) {
  FoldConstants(*plan);
  FactorOrPredicates(*plan);
  PushLeftJoinRightFilters(*plan);  // before the join order, which pushes them into the scans
  PushFiltersToPreservedSide(plan);  // the same: filters below LEFT/semi/anti joins reach their regions
  // Also places LEFT/semi/anti/mark joins among the inner joins (a selective semi join
  // filters its relation first).
  plan = ReorderJoins(std::move(plan), for_cpu);
  SimplifyOuterJoins(*plan);  // after the join order: the join keeps its sides and its single-match check
  ReduceGroupsBySemiJoin(*plan);  // after both: the joins of decorrelated subqueries are inner, with their sides
  SplitDistinctAggregates(*plan);
  PruneColumns(*plan);
  EstimateRows(*plan);  // every operator the passes above left without an estimate
  // Last: no other pass meets the RightSemi/RightAnti/Right joins it makes; the GPU does not run them.
  if (for_cpu) ChooseSemiJoinSides(*plan);
  // After it: the copies of a subplan have their sides chosen alike, and compare equal.
  if (for_cpu) ShareEqualSubplans(plan);
  return plan;
}

}  // namespace tessera
