// Which side of a semi, anti or left outer join builds the hash table (CPU plans only).
//
// A decorrelated EXISTS / NOT EXISTS / IN (SELECT ...) is a Semi or Anti join whose left
// side (the outer query's rows, the ones returned) probes a hash table built on the right
// side (the subquery's rows). When the subquery side is much larger, that build is the
// expensive part: TPC-H q04 builds 3.8 M lineitem rows for 57 K orders, q22 1.5 M
// orders for 19 K customers, q21 6 M and 3.8 M lineitem rows for 32 K rows. Such a join
// becomes a RightSemi / RightAnti join (planner/logical_plan.hpp): its sides swapped, so
// that the outer side builds and the subquery side probes, marking the build rows it
// matches (where the residual is TRUE); after the probe the marked (semi) or unmarked
// (anti) build rows are the result (execution/operators/hash_join.hpp).
//
// A LEFT join likewise builds its NULL-supplying side: TPC-H q13 builds 1.5 M orders for
// 150 K customers. It becomes a Right join: the preserved side builds, the other side
// probes as in an inner join and marks the build rows it matched (where the residual is
// TRUE); after the probe the unmarked build rows come out with NULLs for the other side.
//
// Semantics kept: every outer row is returned at most once by a semi or anti join either
// way (a build row is emitted once however many probe rows marked it); a left join's
// preserved row comes out once per match or once with NULLs either way; NULL keys match
// nothing on either side (a NULL-keyed outer row is never marked: an anti join returns it,
// as NOT EXISTS does; a left join returns it with NULLs).
// Not converted: the joins of INTERSECT/EXCEPT (NULLs equal, counted), null-aware ones
// (NOT IN is a mark join anyway), keyless ones (every pair is tried either way), the left
// joins of scalar subqueries (a preserved row matching twice is an error, found while
// probing).
//
// Cost: building a row (materialising it, inserting it) costs about two to three probes
// (hashing, one lookup), and the build side now carries the outer side's payload columns,
// so the swap pays when the outer side is estimated at most half the other side (the
// estimates EstimateRows, run just before, left on every operator): OuterSideBuilds
// (join_enumerator.hpp), the rule the join order costs a semi or anti join with too.
//
// Applied last (after column pruning), only to plans for the CPU: the GPU backend runs
// the joins as they were (gpu/gpu_support.cpp refuses these join types).
#include <utility>

#include "optimizer/join_enumerator.hpp"
#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// The estimate EstimateRows (optimizer/cardinality.hpp), run before this pass, left on the
// operator; 1 when a plan was never estimated.
double Rows(const LogicalOp& op) { return op.estimated_rows >= 0 ? op.estimated_rows : 1; }

bool Swappable(const LogicalOp& j) {
  return j.kind == LogicalKind::Join && (ReturnsLeftOnly(j.join_type) || j.join_type == LJoinType::Left) &&
         !j.left_keys.empty() && !j.nulls_equal && !j.counted && !j.null_aware && !j.single_match;
}

LJoinType Swapped(LJoinType t) {
  switch (t) {
    case LJoinType::Semi: return LJoinType::RightSemi;
    case LJoinType::Anti: return LJoinType::RightAnti;
    default: return LJoinType::Right;
  }
}

void Choose(LogicalOp& op) {
  for (auto& c : op.children) Choose(*c);
  if (!Swappable(op)) return;
  const double outer = Rows(*op.children[0]);
  const double other = Rows(*op.children[1]);
  if (!OuterSideBuilds(outer, other)) return;
  // The estimate of the join as it was (parents' estimates read it; EXPLAIN shows it).
  op.estimated_rows = Rows(op);
  std::swap(op.children[0], op.children[1]);
  std::swap(op.left_keys, op.right_keys);
  op.join_type = Swapped(op.join_type);
}

}  // namespace

void ChooseSemiJoinSides(LogicalOp& root) { Choose(root); }

}  // namespace tessera
