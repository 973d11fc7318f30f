// Filters above a LEFT, semi, anti or mark join: the terms that read only the join's left
// (preserved) side move below it, as a filter of its left input. Each left row is kept,
// dropped or NULL-padded by its own matches, so dropping a row before the join drops the
// same output rows as dropping them after (TPC-H q22: `c_acctbal > (SELECT avg ...)` above
// NOT EXISTS now filters customer before it builds the right anti join). Terms reading a
// mark join's mark, or a LEFT join's right side, stay above (those are the outer join
// simplification's). INTERSECT ALL / EXCEPT ALL joins (counted) and scalar subqueries'
// joins (single match: a row removed early must still raise its error) are left alone.
//
// To reach them, terms also move below inner and cross joins onto the side they read where
// that leads to such a join's left side (`a LEFT JOIN b ... JOIN c ... WHERE a.x < 5`; the
// other terms stay for the join order, in the order written), and a filter over a filter
// merges into it.
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
    case LJoinType::Mark:
    // ASOF: each left row finds its match whatever the other left rows are.
    case LJoinType::AsOf:
    case LJoinType::AsOfLeft: return true;
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

bool InnerJoin(const LogicalOp& j) {
  return j.kind == LogicalKind::Join && (j.join_type == LJoinType::Inner || j.join_type == LJoinType::Cross) &&
         !j.single_match && !j.nulls_equal && j.children.size() == 2;
}

bool Covers(const LogicalOp& side, const std::vector<ColumnBinding>& used) {
  const std::vector<ColumnBinding> cols = side.Bindings();
  return !used.empty() && std::all_of(used.begin(), used.end(), [&](const ColumnBinding& b) {
    return std::find(cols.begin(), cols.end(), b) != cols.end();
  });
}

// Whether a term reading `used`, pushed into `op` through filters and inner joins, reaches
// the left side of a preserving join (only such terms go down: the rest stay where the
// join order collects them, in the order written).
bool ReachesPreserved(const LogicalOp& op, const std::vector<ColumnBinding>& used) {
  if (op.kind == LogicalKind::Filter && op.children.size() == 1) return ReachesPreserved(*op.children[0], used);
  if (InnerJoin(op)) {
    for (auto& c : op.children)
      if (Covers(*c, used)) return ReachesPreserved(*c, used);
    return false;
  }
  return Preserving(op) && Covers(*op.children[0], used);
}

// Takes the terms of filter `op` that read only `side`'s columns (and, with
// `to_preserved`, reach a preserving join there) out of it.
std::vector<BoundExprPtr> TermsOf(LogicalOp& op, const LogicalOp& side, bool to_preserved) {
  std::vector<BoundExprPtr> keep, push;
  for (auto& t : op.filters) {
    std::vector<ColumnBinding> used;
    t->CollectBindings(used);
    const bool move = Covers(side, used) && (!to_preserved || ReachesPreserved(side, used));
    (move ? push : keep).push_back(std::move(t));
  }
  op.filters = std::move(keep);
  return push;
}

}  // namespace

void PushFiltersToPreservedSide(LogicalOpPtr& op) {
  while (op->kind == LogicalKind::Filter && op->children.size() == 1 && op->children[0]->kind == LogicalKind::Filter) {
    LogicalOpPtr child = std::move(op->children[0]);
    for (auto& t : op->filters) child->filters.push_back(std::move(t));
    child->estimated_rows = -1;
    op = std::move(child);
  }
  if (op->kind == LogicalKind::Filter && op->children.size() == 1 && op->children[0]->kind == LogicalKind::Join) {
    LogicalOp& j = *op->children[0];
    if (InnerJoin(j)) {
      AddFilter(j.children[0], TermsOf(*op, *j.children[0], true));
      AddFilter(j.children[1], TermsOf(*op, *j.children[1], true));
      j.estimated_rows = -1;
      if (op->filters.empty()) op = std::move(op->children[0]);
    }
  }
  if (op->kind == LogicalKind::Filter && op->children.size() == 1 && Preserving(*op->children[0])) {
    LogicalOp& j = *op->children[0];
    std::vector<BoundExprPtr> push = TermsOf(*op, *j.children[0], false);
    if (!push.empty()) {
      std::vector<BoundExprPtr> copies;
      if (!j.null_aware && !j.nulls_equal)
        for (auto& t : push)
          // (an ASOF join's last key pair is its inequality: no equal columns)
          for (size_t k = 0; k + (IsAsOf(j.join_type) ? 1 : 0) < j.left_keys.size() && k < j.right_keys.size(); k++)
            if (auto c = CopyFilterToEqualColumn(*t, *j.left_keys[k], *j.right_keys[k])) copies.push_back(std::move(c));
      AddFilter(j.children[0], std::move(push));
      AddFilter(j.children[1], std::move(copies));
      j.estimated_rows = -1;
    }
    if (op->filters.empty()) op = std::move(op->children[0]);
  }
  for (auto& c : op->children) PushFiltersToPreservedSide(c);
}

}  // namespace tessera
