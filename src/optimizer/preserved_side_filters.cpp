// Filters above a LEFT, semi, anti or mark join: the terms that read only the join's left
// (preserved) side move below it, as a filter of its left input. Each left row is kept,
// dropped or NULL-padded by its own matches, so dropping a row before the join drops the
// same output rows as dropping them after (TPC-H q22: `c_acctbal > (SELECT avg ...)` above
// NOT EXISTS now filters customer before it builds the right anti join). Terms reading a
// mark join's mark, or a LEFT join's right side, stay above (those are the outer join
// simplification's). INTERSECT ALL / EXCEPT ALL joins (counted) and scalar subqueries'
// joins (single match: a row removed early must still raise its error) are left alone.
//
// Then each moved term that filters a key column of the left side is copied, read on the
// equal right key column, to the right input (transitive_predicates.hpp): a right row
// failing it can match no remaining left row. Only left to right: the right side's terms
// say nothing about the left rows a LEFT or anti join keeps. Not for a NOT IN's
// null-aware mark join or NULLs-equal keys, where a right row's NULL key counts.
#include <algorithm>

#include "optimizer/optimizer.hpp"
#include "optimizer/transitive_predicates.hpp"

namespace tessera {

namespace {

bool Preserving(const LogicalOp& j) {
  if (j.kind != LogicalKind::Join || j.children.size() != 2 || j.counted || j.single_match) return false;
  switch (j.join_type) {
    case LJoinType::Left:
    case LJoinType::Semi:
    case LJoinType::Anti:
    case LJoinType::Mark: return true;
    default: return false;
  }
}

// Puts `terms` in a filter on top of `op` (into its own terms when `op` is a filter).
void AddFilter(LogicalOpPtr& op, std::vector<BoundExprPtr> terms) {
  if (terms.empty()) return;
  if (op->kind == LogicalKind::Filter) {
    for (auto& t : terms) op->filters.push_back(std::move(t));
    op->estimated_rows = -1;
    return;
  }
  auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
  f->filters = std::move(terms);
  f->children.push_back(std::move(op));
  op = std::move(f);
}

}  // namespace

void PushFiltersToPreservedSide(LogicalOpPtr& op) {
  if (op->kind == LogicalKind::Filter && op->children.size() == 1 && Preserving(*op->children[0])) {
    LogicalOp& j = *op->children[0];
    const std::vector<ColumnBinding> left = j.children[0]->Bindings();
    std::vector<BoundExprPtr> keep, push;
    for (auto& t : op->filters) {
      std::vector<ColumnBinding> used;
      t->CollectBindings(used);
      const bool left_only = !used.empty() && std::all_of(used.begin(), used.end(), [&](const ColumnBinding& b) {
        return std::find(left.begin(), left.end(), b) != left.end();
      });
      (left_only ? push : keep).push_back(std::move(t));
    }
    if (!push.empty()) {
      std::vector<BoundExprPtr> copies;
      if (!j.null_aware && !j.nulls_equal)
          for (auto& t : push)
            for (size_t k = 0; k < j.left_keys.size() && k < j.right_keys.size(); k++)
              if (auto c = CopyFilterToEqualColumn(*t, *j.left_keys[k], *j.right_keys[k])) copies.push_back(std::move(c));
      AddFilter(j.children[0], std::move(push));
      AddFilter(j.children[1], std::move(copies));
      j.estimated_rows = -1;
    }
    op->filters = std::move(keep);
    if (op->filters.empty()) op = std::move(op->children[0]);
  }
  for (auto& c : op->children) PushFiltersToPreservedSide(c);
}

}  // namespace tessera
