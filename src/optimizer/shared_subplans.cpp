// Equal subplans computed once (CPU plans only).
//
// A query can hold the same subplan twice: a view or CTE read in two places (TPC-H q15
// reads its revenue view in the join and in the scalar subquery's max, both an
// aggregation of lineitem), or the copies of one input the DISTINCT rewrite makes
// (distinct_aggregates.cpp). Each copy was bound on its own, so the copies read the same
// tables and compute the same expressions under different table indexes. This pass finds
// such copies, keeps the first one (in a pre-order walk) under a Materialized node, whose
// rows are collected once, and replaces the others by SharedScans of those rows under the
// replaced copy's bindings (planner/logical_plan.hpp; execution/operators/materialized.hpp).
//
// Equal means: the same operators with the same fields, over the same tables and columns,
// and expressions equal (BoundExpr::Equals) once each column reference of one copy is
// translated to the binding the other copy gives the same column. Only Get, Filter,
// Projection, Join, Aggregate, Order and Limit nodes compare; a subplan with anything
// else (a window, VALUES, a UNION, a recursive CTE's working table), or a volatile call
// (random()), or a reference to a column it does not produce itself, is never shared.
// Nothing under a recursive CTE is shared (its plans run once per iteration).
//
// Worth sharing: a subplan with a join or an aggregation (or an ORDER BY inside): reading
// a table again with its filters costs about what reading the collected rows costs, so
// bare scans are recomputed; a subplan ending in ORDER BY or LIMIT is not shared. The largest equal subplans are shared first; what lies
// inside a shared subplan is not considered again.
//
// Applied last, after the estimates, only to plans for the CPU: the GPU backend runs the
// copies as they are.
#include <algorithm>
#include <map>

#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// Whether two subplans are equal up to their bindings; `tables` maps the table indexes
// the first one produces to the second one's.
class SubplanMatcher {
 public:
  bool Same(const LogicalOp& a, const LogicalOp& b) {
    if (a.kind != b.kind || a.children.size() != b.children.size()) return false;
    for (size_t i = 0; i < a.children.size(); i++)
      if (!Same(*a.children[i], *b.children[i])) return false;
    switch (a.kind) {
      case LogicalKind::Get:
        if (a.table != b.table || a.column_ids != b.column_ids || a.count_only != b.count_only) return false;
        Produce(a.table_index, b.table_index);
        return Exprs(a.filters, b.filters);
      case LogicalKind::Filter: return Exprs(a.filters, b.filters);
      case LogicalKind::Projection:
        if (!Exprs(a.exprs, b.exprs)) return false;
        Produce(a.table_index, b.table_index);
        return true;
      case LogicalKind::Aggregate:
        if (!Exprs(a.groups, b.groups) || !Exprs(a.aggs, b.aggs)) return false;
        Produce(a.group_index, b.group_index);
        Produce(a.agg_index, b.agg_index);
        return true;
      case LogicalKind::Join:
        if (a.join_type != b.join_type || a.single_match != b.single_match || a.null_aware != b.null_aware ||
            a.nulls_equal != b.nulls_equal || a.counted != b.counted || !Exprs(a.left_keys, b.left_keys) ||
            !Exprs(a.right_keys, b.right_keys) || !Expr(a.residual.get(), b.residual.get()))
          return false;
        if (a.join_type == LJoinType::Mark) Produce(a.table_index, b.table_index);
        return true;
      case LogicalKind::Order:
        if (a.orders.size() != b.orders.size()) return false;
        for (size_t i = 0; i < a.orders.size(); i++)
          if (a.orders[i].desc != b.orders[i].desc || a.orders[i].nulls_first != b.orders[i].nulls_first ||
              !Expr(a.orders[i].expr.get(), b.orders[i].expr.get()))
            return false;
        return true;
      case LogicalKind::Limit: return a.limit == b.limit && a.offset == b.offset;
      default: return false;
    }
  }

 private:
  void Produce(uint32_t a, uint32_t b) { tables_[a] = b; }
  bool Expr(const BoundExpr* a, const BoundExpr* b) {
    if (!a || !b) return a == b;
    if (a->CallsVolatile() || b->CallsVolatile()) return false;
    return a->Equals(*b, [&](ColumnBinding x, ColumnBinding y) {
      auto it = tables_.find(x.table);
      return it != tables_.end() && it->second == y.table && x.column == y.column;
    });
  }
  bool Exprs(const std::vector<BoundExprPtr>& a, const std::vector<BoundExprPtr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++)
      if (!Expr(a[i].get(), b[i].get())) return false;
    return true;
  }
  std::map<uint32_t, uint32_t> tables_;
};

// A node with its place in the plan (the owning pointer, to replace it) and its size.
struct Candidate {
  LogicalOpPtr* slot;
  size_t nodes;
  size_t order;  // pre-order position
  bool taken = false;
};

size_t CountNodes(const LogicalOp& op) {
  size_t n = 1;
  for (auto& c : op.children) n += CountNodes(*c);
  return n;
}

bool Computes(const LogicalOp& op) {
  if (op.kind == LogicalKind::Join || op.kind == LogicalKind::Aggregate || op.kind == LogicalKind::Order) return true;
  for (auto& c : op.children)
    if (Computes(*c)) return true;
  return false;
}

// A subplan whose rows' order matters (an ORDER BY, a LIMIT) is not shared: the collected
// rows are handed out in order, but the operators above would not know it.
bool WorthSharing(const LogicalOp& op) {
  return op.kind != LogicalKind::Order && op.kind != LogicalKind::Limit && Computes(op);
}

void Collect(LogicalOpPtr& slot, std::vector<Candidate>& out) {
  if (slot->kind == LogicalKind::RecursiveCte) return;  // its plans run once per iteration
  out.push_back({&slot, CountNodes(*slot), out.size()});
  for (auto& c : slot->children) Collect(c, out);
}

bool Inside(const LogicalOp& outer, const LogicalOp* inner) {
  if (&outer == inner) return true;
  for (auto& c : outer.children)
    if (Inside(*c, inner)) return true;
  return false;
}

void Take(const LogicalOp& root, std::vector<Candidate>& all) {
  for (auto& c : all)
    if (!c.taken && Inside(root, c.slot->get())) c.taken = true;
}

}  // namespace

void ShareEqualSubplans(LogicalOpPtr& root) {
  std::vector<Candidate> all;
  Collect(root, all);
  std::vector<size_t> by_size(all.size());
  for (size_t i = 0; i < all.size(); i++) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t x, size_t y) { return all[x].nodes > all[y].nodes; });
  uint32_t next_id = 1;
  for (size_t xi = 0; xi < by_size.size(); xi++) {
    Candidate& first = all[by_size[xi]];
    if (first.taken || first.nodes < 2 || !WorthSharing(**first.slot)) continue;
    // The later (pre-order) copies of the same size, disjoint from it and from each other.
    std::vector<Candidate*> copies;
    for (size_t yi = xi + 1; yi < by_size.size() && all[by_size[yi]].nodes == first.nodes; yi++) {
      Candidate& other = all[by_size[yi]];
      if (other.taken) continue;
      SubplanMatcher m;
      if (m.Same(**first.slot, **other.slot)) copies.push_back(&other);
    }
    if (copies.empty()) continue;
    // The earliest copy in the plan materialises (it runs first in most plans; any order is
    // correct, the pipelines wait for the materialisation).
    copies.push_back(&first);
    std::sort(copies.begin(), copies.end(), [](const Candidate* p, const Candidate* q) { return p->order < q->order; });
    const uint32_t id = next_id++;
    for (Candidate* c : copies) Take(**c->slot, all);
    for (size_t i = 1; i < copies.size(); i++) {
      LogicalOpPtr& slot = *copies[i]->slot;
      auto scan = std::make_unique<LogicalOp>(LogicalKind::SharedScan);
      scan->shared_id = id;
      scan->shared_bindings = slot->Bindings();
      scan->column_types = slot->Types();
      scan->estimated_rows = slot->estimated_rows;
      slot = std::move(scan);
    }
    LogicalOpPtr& slot = *copies[0]->slot;
    auto mat = std::make_unique<LogicalOp>(LogicalKind::Materialized);
    mat->shared_id = id;
    mat->estimated_rows = slot->estimated_rows;
    mat->children.push_back(std::move(slot));
    slot = std::move(mat);
  }
}

}  // namespace tessera
