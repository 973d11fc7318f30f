// Logical optimizer passes, in order:
//  1. constant folding (constant_folding.cpp)
//  2. OR factoring (or_factoring.cpp): terms common to all disjuncts leave the OR; each
//     relation every disjunct restricts gets the implied OR of those restrictions.
//  2b. LEFT join residual terms over the right side only become a filter of that side
//     (left_join_filters.cpp).
//  2c. filters above LEFT/semi/anti/mark joins reading only the left side move below them,
//     copied through equal keys to the right side (preserved_side_filters.cpp).
//  3. join ordering + filter pushdown (join_order.cpp): inner/cross join regions are
//     flattened into relations and predicates; single-table predicates go into the scans;
//     equi-join predicates become hash-join keys; the join tree is chosen by dynamic
//     programming over the join graph (join_enumerator.cpp: bushy, the smaller estimated
//     side of each join builds, or the larger on a direct-mapped key where cheaper; LEFT,
//     semi, anti and mark joins are units placed where legal; greedy left-deep beyond 12
//     relations). `for_cpu`: a semi/anti join is costed with the build side
//     semi_join_side.cpp will give it. Per region, the equivalence classes of joined
//     columns add implied edges and copy constant filters to every column of a class
//     (transitive_predicates.cpp; not through a LEFT/semi/anti/mark unit's columns).
//  4. outer join simplification (outer_join_simplification.cpp): LEFT joins under
//     NULL-rejecting filters become inner joins.
//  4b. semi-join reduction (semi_join_reduction.cpp): an aggregation joined on its group
//     keys to a much smaller side is filtered by that side's keys before it groups.
//  5. DISTINCT aggregates (distinct_aggregates.cpp): an aggregation whose aggregates are
//     all DISTINCT over one argument becomes two plain aggregations.
//  6. projection pruning (column_pruning.cpp): scans read only referenced columns.
//  7. cardinality estimates (cardinality.cpp) for every operator still without one.
//  8. CPU plans only: the side of a semi/anti join that builds (semi_join_side.cpp).
#pragma once
#include "optimizer/cardinality.hpp"  // estimates: distinct counts, selectivities, join sizes
#include "planner/logical_plan.hpp"

namespace tessera {

// `for_cpu`: the plan runs on the CPU only (SET device = 'cpu', EXPLAIN (DEVICE cpu), no
// usable GPU, a query the GPU handed back); then the passes shaping plans the GPU backend
// does not run apply too (semi_join_side.cpp).
LogicalOpPtr Optimize(LogicalOpPtr plan, bool for_cpu = false);

void FoldConstants(LogicalOp& op);
void FactorOrPredicates(LogicalOp& op);
void SimplifyOuterJoins(LogicalOp& op);
BoundExprPtr FoldExpression(BoundExprPtr e);
// CAST(date AS TIMESTAMP) CMP timestamp constant -> date CMP' date constant (exactly
// equivalent; date_comparison.cpp); anything else is returned as it is.
BoundExprPtr NarrowDateComparison(BoundExprPtr e);
LogicalOpPtr ReorderJoins(LogicalOpPtr op, bool for_cpu = false);
void SplitDistinctAggregates(LogicalOp& root);
void PushLeftJoinRightFilters(LogicalOp& root);
void PushFiltersToPreservedSide(LogicalOpPtr& root);
void PruneColumns(LogicalOp& root);
// The columns the plan's operators read, sorted and unique: their expressions' references,
// every column of a UNION ALL's (a recursive CTE's) inputs, the root's outputs (the
// client's); not what a Materialized node's subplan reads inside (column_pruning.cpp).
std::vector<ColumnBinding> ColumnsUsed(const LogicalOp& root);
void ReduceGroupsBySemiJoin(LogicalOp& root);
void ChooseSemiJoinSides(LogicalOp& root);
// Equal subplans (up to their bindings) computed once: Materialized / SharedScan
// (shared_subplans.cpp; CPU plans only).
void ShareEqualSubplans(LogicalOpPtr& root);

}  // namespace tessera
