// Filters of a LEFT join's right side: the conjuncts of its ON residual that read only
// right-side columns (TPC-H q13's `o_comment NOT LIKE '%special%requests%'`) go below the
// join, as a filter of its right input. A right row failing them can match no left row, and
// a left row without a match is NULL-padded either way, so the result is the same; the
// filter then runs once per right row in the scan (pushed down by the join order), the
// join keeps its keys alone, and the GPU, which takes no left join with a residual, can run
// it. Scalar subqueries' joins (single match) are left alone.
#include <algorithm>

#include "optimizer/optimizer.hpp"

namespace tessera {

void PushLeftJoinRightFilters(LogicalOp& op) {
  for (auto& c : op.children) PushLeftJoinRightFilters(*c);
  if (op.kind != LogicalKind::Join || op.join_type != LJoinType::Left || !op.residual || op.single_match ||
      op.children.size() != 2)
    return;
  const std::vector<ColumnBinding> right = op.children[1]->Bindings();
  std::vector<BoundExprPtr> terms, keep, push;
  SplitConjunction(std::move(op.residual), terms);
  for (auto& t : terms) {
    std::vector<ColumnBinding> used;
    t->CollectBindings(used);
    const bool right_only = !used.empty() && std::all_of(used.begin(), used.end(), [&](const ColumnBinding& b) {
      return std::find(right.begin(), right.end(), b) != right.end();
    });
    if (right_only) push.push_back(std::move(t));
    else keep.push_back(std::move(t));
  }
  if (!keep.empty()) op.residual = MakeAnd(std::move(keep));
  if (push.empty()) return;
  auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
  f->filters = std::move(push);
  f->estimated_rows = op.children[1]->estimated_rows;
  f->children.push_back(std::move(op.children[1]));
  op.children[1] = std::move(f);
}

}  // namespace tessera
