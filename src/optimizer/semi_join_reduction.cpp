// Semi-join reduction of grouped aggregates (a simple form of magic sets). A join
//     P  JOIN  [Projection/Filter]  Aggregate(G | aggs)  ON  p_k = g_k
// whose keys on the aggregate's side are group keys keeps only the groups whose keys P
// holds. When P is much smaller than the aggregation, its keys filter the aggregation's
// input first:
//     Aggregate(G | aggs)  over  input SEMI JOIN copy(P) ON g_k = p_k
// A group's rows all share g_k, so a group passes or fails as a whole, and a group that
// fails has no partner in the join above; its aggregates are never seen. This is what
// decorrelated subqueries need (TPC-H q17's avg(l_quantity) per part, q20's
// sum(l_quantity) per part and supplier, q02's min(ps_supplycost) per part): without it
// they aggregate all of lineitem (or partsupp) by the correlation key and then keep the
// few groups the outer query asks about.
//
// Legal for inner joins (either side) and for LEFT joins with the aggregate on the right
// (unmatched right rows are not in a left join's result). P is copied, so it must be
// deterministic (no LIMIT). The copy gets fresh bindings (nothing above its semi join reads
// them, but the passes after this one take every binding for one operator's: the DISTINCT
// rewrite points an aggregation's readers at its branches by binding). Applied only where P's estimated rows (an upper bound of
// its distinct keys) are at most a quarter of the estimated groups, so a reduction that
// keeps nearly every group is not paid for (TPC-H q15: all suppliers).
#include <algorithm>
#include <cmath>
#include <map>

#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

const LogicalOp* FindGet(const LogicalOp& op, uint32_t table_index) {
  if (op.kind == LogicalKind::Get && op.table_index == table_index) return &op;
  for (auto& c : op.children)
    if (auto* g = FindGet(*c, table_index)) return g;
  return nullptr;
}

// Distinct values of an expression over op's output: a scan column's estimate, else `rows`.
double ExprDistinct(const BoundExpr& e, const LogicalOp& op, double rows) {
  if (e.kind == BExpr::Column)
    if (const LogicalOp* g = FindGet(op, e.binding.table)) return std::min(rows, DistinctValues(g, e.binding.column));
  return rows;
}

double Rows(const LogicalOp& op);

double SemiRows(const LogicalOp& op) {
  const double left = Rows(*op.children[0]);
  if (op.left_keys.empty()) return left;
  double dv = 1;
  for (auto& k : op.left_keys) dv = std::max(dv, ExprDistinct(*k, *op.children[0], left));
  return std::max(1.0, left * std::min(1.0, Rows(*op.children[1]) / dv));
}

// Estimated output rows (the join order's estimates where it made them).
double Rows(const LogicalOp& op) {
  switch (op.kind) {
    case LogicalKind::Get: {
      if (op.estimated_rows >= 0) return op.estimated_rows;
      double s = 1;
      for (auto& f : op.filters) s *= EstimateSelectivity(*f, &op);
      return std::max(1.0, (double)op.table->data->row_count * s);
    }
    case LogicalKind::Filter: {
      if (op.estimated_rows >= 0) return op.estimated_rows;
      double s = 1;
      for (auto& f : op.filters) s *= EstimateSelectivity(*f, nullptr);
      return std::max(1.0, Rows(*op.children[0]) * s);
    }
    case LogicalKind::Join:
      switch (op.join_type) {
        case LJoinType::Semi: return SemiRows(op);
        case LJoinType::Anti: return Rows(*op.children[0]);
        case LJoinType::Left:
        case LJoinType::Mark: return std::max(Rows(*op.children[0]), op.estimated_rows);
        default: return op.estimated_rows >= 0 ? op.estimated_rows : Rows(*op.children[0]);
      }
    case LogicalKind::Aggregate: {
      if (op.groups.empty()) return 1;
      const double in = Rows(*op.children[0]);
      double g = 1;
      for (auto& k : op.groups) g *= ExprDistinct(*k, *op.children[0], in);
      return std::max(1.0, std::min(in, g));
    }
    case LogicalKind::Limit:
      if (op.limit_percent >= 0) return std::floor(Rows(*op.children[0]) * op.limit_percent / 100);
      return op.limit < 0 ? Rows(*op.children[0]) : std::min((double)op.limit, Rows(*op.children[0]));
    case LogicalKind::Window: return Rows(*op.children[0]);
    case LogicalKind::Values: return (double)op.values.size();
    case LogicalKind::Dummy: return 1;
    case LogicalKind::UnionAll: {
      double r = 0;
      for (auto& c : op.children) r += Rows(*c);
      return r;
    }
    default: return op.children.empty() ? 1 : Rows(*op.children[0]);
  }
}

// Whether P may be evaluated twice with the same result. The engine has no volatile
// function yet (random(), now()); one added must make this false where it appears.
bool Copyable(const LogicalOp& op) {
  if (op.kind == LogicalKind::Limit) return false;
  return std::all_of(op.children.begin(), op.children.end(), [](const LogicalOpPtr& c) { return Copyable(*c); });
}

// The smallest part of P that still holds all the keys and filters about as well: through
// inner joins, the child that outputs every key column when its estimate is at most twice
// P's (the part side of q17's lineitem JOIN part). An inner join only drops rows, so the
// child's keys are a superset of P's: the reduction stays correct, and the copy avoids
// scanning lineitem a second time.
const LogicalOp* Narrow(const LogicalOp* p, const std::vector<const BoundExpr*>& keys) {
  for (;;) {
    if (p->kind != LogicalKind::Join || (p->join_type != LJoinType::Inner && p->join_type != LJoinType::Cross))
      return p;
    const double rows = Rows(*p);
    const LogicalOp* next = nullptr;
    for (auto& c : p->children) {
      std::vector<ColumnBinding> used, out = c->Bindings();
      for (const BoundExpr* k : keys) k->CollectBindings(used);
      const bool holds = std::all_of(used.begin(), used.end(), [&](const ColumnBinding& b) {
        return std::find(out.begin(), out.end(), b) != out.end();
      });
      if (holds && Rows(*c) <= 2 * rows) next = c.get();
    }
    if (!next) return p;
    p = next;
  }
}

// The aggregation under `side` through projections and filters, and for each join key on
// that side the group key it is (-1 where it is none).
LogicalOp* GroupKeysOf(LogicalOp& side, const std::vector<BoundExprPtr>& keys, std::vector<int>& group_of) {
  std::vector<ColumnBinding> at(keys.size());
  std::vector<bool> ok(keys.size(), false);
  for (size_t i = 0; i < keys.size(); i++)
    if (keys[i]->kind == BExpr::Column) {
      at[i] = keys[i]->binding;
      ok[i] = true;
    }
  LogicalOp* x = &side;
  while (x->kind == LogicalKind::Projection || x->kind == LogicalKind::Filter) {
    if (x->kind == LogicalKind::Projection)
      for (size_t i = 0; i < keys.size(); i++) {
        if (!ok[i] || at[i].table != x->table_index) continue;
        const BoundExpr& e = *x->exprs[at[i].column];
        ok[i] = e.kind == BExpr::Column;
        if (ok[i]) at[i] = e.binding;
      }
    x = x->children[0].get();
  }
  if (x->kind != LogicalKind::Aggregate || x->groups.empty()) return nullptr;
  group_of.assign(keys.size(), -1);
  bool any = false;
  for (size_t i = 0; i < keys.size(); i++)
    if (ok[i] && at[i].table == x->group_index && at[i].column < x->groups.size()) {
      group_of[i] = (int)at[i].column;
      any = true;
    }
  return any ? x : nullptr;
}

// Points e's column references at the copy's bindings.
void RenameTables(BoundExpr& e, const std::map<uint32_t, uint32_t>& fresh) {
  if (e.kind == BExpr::Column)
    if (auto it = fresh.find(e.binding.table); it != fresh.end()) e.binding.table = it->second;
  for (auto& c : e.children) RenameTables(*c, fresh);
}

void Reduce(LogicalOp& op, uint32_t& next) {
  for (auto& c : op.children) Reduce(*c, next);
  if (op.kind != LogicalKind::Join || op.children.size() != 2 || op.left_keys.empty()) return;
  if (op.join_type != LJoinType::Inner && op.join_type != LJoinType::Left) return;
  // The aggregate's side: the right one, or for an inner join either.
  for (int side = 1; side >= (op.join_type == LJoinType::Inner ? 0 : 1); side--) {
    const auto& agg_keys = side == 1 ? op.right_keys : op.left_keys;
    const auto& other_keys = side == 1 ? op.left_keys : op.right_keys;
    std::vector<int> group_of;
    LogicalOp* agg = GroupKeysOf(*op.children[side], agg_keys, group_of);
    if (!agg) continue;
    std::vector<const BoundExpr*> used_keys;
    for (size_t i = 0; i < other_keys.size(); i++)
      if (group_of[i] >= 0) used_keys.push_back(other_keys[i].get());
    const LogicalOp& other = *Narrow(op.children[1 - side].get(), used_keys);
    if (!Copyable(other)) continue;
    const double groups = Rows(*agg), keys = Rows(other);
    if (keys * 4 > groups) continue;
    auto semi = std::make_unique<LogicalOp>(LogicalKind::Join);
    semi->join_type = LJoinType::Semi;
    semi->nulls_equal = op.nulls_equal;  // a decorrelated subquery's join back: NULL keys match
    std::map<uint32_t, uint32_t> fresh;
    LogicalOpPtr copy = CopyWithFreshBindings(other, next, fresh);
    for (size_t i = 0; i < agg_keys.size(); i++) {
      if (group_of[i] < 0) continue;
      const BoundExpr& g = *agg->groups[group_of[i]];
      if (!(g.type == other_keys[i]->type)) continue;
      semi->left_keys.push_back(g.Copy());
      semi->right_keys.push_back(other_keys[i]->Copy());
      RenameTables(*semi->right_keys.back(), fresh);
    }
    if (semi->left_keys.empty()) continue;
    semi->estimated_rows = std::max(1.0, Rows(*agg->children[0]) * std::min(1.0, keys / groups));
    semi->children.push_back(std::move(agg->children[0]));
    semi->children.push_back(std::move(copy));
    agg->children[0] = std::move(semi);
    return;
  }
}

}  // namespace

void ReduceGroupsBySemiJoin(LogicalOp& root) {
  uint32_t next = LargestBindingIndex(root) + 1;
  Reduce(root, next);
}

}  // namespace tessera
