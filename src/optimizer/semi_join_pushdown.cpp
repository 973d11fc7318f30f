// Semi/anti joins pushed down through inner joins (issue 12, item 2: semi joins reordered
// where legal). A decorrelated EXISTS / NOT EXISTS / IN is a semi or anti join above the
// whole inner-join region of its outer query (TPC-H q18: `o_orderkey IN (... HAVING ...)`
// above lineitem ⋈ orders ⋈ customer), so the region joins every row before the few that
// qualify are kept. A semi or anti join keeps or drops each row of its left input by
// columns of that row alone, so it may be applied to the relation of the region those
// columns come from instead, before its joins: the rows it drops could only have produced
// joined rows it drops too. Applied when the subquery side is estimated at most a quarter
// of that relation's rows (it then acts as a cheap, selective filter there; a large
// subquery side stays where the joins have reduced the rows it meets, q21).
//
// Runs after the join order (scans carry their filters, the tree is fixed): the relation
// R becomes Semi(R, subquery) in place, the join is removed from above the region, and the
// estimates of the joins between are cleared for EstimateRows to make again, and an inner
// join between whose build side is now the larger swaps its sides. Not for the
// joins of INTERSECT/EXCEPT (NULLs equal, counted), NOT IN (null-aware), scalar subqueries'
// single-match joins or keyless ones.
#include <algorithm>

#include "optimizer/cardinality.hpp"
#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// The subquery side must be estimated at most 1/kSelectiveRatio of the relation's rows.
constexpr double kSelectiveRatio = 4.0;

bool Pushable(const LogicalOp& j) {
  return j.kind == LogicalKind::Join && (j.join_type == LJoinType::Semi || j.join_type == LJoinType::Anti) &&
         !j.left_keys.empty() && !j.nulls_equal && !j.counted && !j.null_aware && !j.single_match;
}

bool InnerRegion(const LogicalOp& op) {
  return op.kind == LogicalKind::Filter ||
         (op.kind == LogicalKind::Join && (op.join_type == LJoinType::Inner || op.join_type == LJoinType::Cross));
}

bool Covers(const LogicalOp& op, const std::vector<ColumnBinding>& need) {
  const std::vector<ColumnBinding> have = op.Bindings();
  for (const ColumnBinding& b : need)
    if (std::find(have.begin(), have.end(), b) == have.end()) return false;
  return true;
}

// The deepest operator under `slot`, through inner joins and filters, whose output holds
// every binding of `need`; `path` receives the region operators passed on the way.
LogicalOpPtr* FindRelation(LogicalOpPtr& slot, const std::vector<ColumnBinding>& need, std::vector<LogicalOp*>& path) {
  if (!InnerRegion(*slot)) return &slot;
  for (auto& c : slot->children)
    if (Covers(*c, need)) {
      path.push_back(slot.get());
      return FindRelation(c, need, path);
    }
  return &slot;
}

double Rows(LogicalOp& op) {
  if (op.estimated_rows < 0) EstimateRows(op);
  return op.estimated_rows;
}

void Push(LogicalOpPtr& slot) {
  for (auto& c : slot->children) Push(c);
  LogicalOp& j = *slot;
  if (!Pushable(j) || !InnerRegion(*j.children[0])) return;
  // The left columns the join reads: its left keys and its residual's left-side columns.
  std::vector<ColumnBinding> need, used;
  for (const auto& k : j.left_keys) k->CollectBindings(need);
  if (j.residual) {
    j.residual->CollectBindings(used);
    const std::vector<ColumnBinding> left = j.children[0]->Bindings();
    for (const ColumnBinding& b : used)
      if (std::find(left.begin(), left.end(), b) != left.end()) need.push_back(b);
  }
  std::vector<LogicalOp*> path;
  LogicalOpPtr* rel = FindRelation(j.children[0], need, path);
  if (path.empty()) return;  // the whole region is needed: nothing to push into
  if (!(Rows(*j.children[1]) * kSelectiveRatio <= Rows(**rel))) return;
  // Semi(R, subquery) in R's place; the join's own node becomes that operator.
  LogicalOpPtr region = std::move(j.children[0]);
  j.children[0] = std::move(*rel);
  j.estimated_rows = -1;
  *rel = std::move(slot);
  for (LogicalOp* p : path) p->estimated_rows = -1;
  slot = std::move(region);
  // The relation shrank after the join order chose the build sides: an inner join on the
  // way whose build side is now estimated larger than its probe side swaps them (q18:
  // customer no longer builds for the few orders left).
  EstimateRows(*slot);
  for (LogicalOp* p : path)
    if (p->kind == LogicalKind::Join && p->join_type == LJoinType::Inner && !p->single_match && !p->residual &&
        p->children[1]->estimated_rows > p->children[0]->estimated_rows) {
      std::swap(p->children[0], p->children[1]);
      std::swap(p->left_keys, p->right_keys);
    }
}

}  // namespace

void PushSemiJoinsDown(LogicalOpPtr& root) { Push(root); }

}  // namespace tessera
