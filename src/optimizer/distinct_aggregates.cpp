// DISTINCT aggregates as two aggregations: an aggregation whose aggregates are all
// DISTINCT over the same argument x (COUNT/SUM/AVG(DISTINCT x), MIN/MAX(x), TPC-H q16's
// count(DISTINCT ps_suppkey)) becomes
//     Aggregate(G | agg(x'))  over  Aggregate(G, x | )
// the inner one de-duplicating (G, x), the outer one aggregating the distinct x' per group
// without DISTINCT. NULLs stay right: the inner aggregation keeps one NULL group of x per
// G, which agg(x') ignores as agg(DISTINCT x) does. Both are plain hash aggregations, so
// both backends run them in parallel (the GPU reads the inner groups in place) instead of
// keeping a set of values per group. The outer aggregation keeps its bindings, so nothing
// above it changes.
#include <algorithm>

#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// The largest binding index the plan uses, so new ones do not collide.
void MaxIndex(const LogicalOp& op, uint32_t& m) {
  m = std::max({m, op.table_index, op.group_index, op.agg_index});
  for (auto& c : op.children) MaxIndex(*c, m);
}

// MIN/MAX count as DISTINCT aggregates of their argument: the binder drops their DISTINCT
// (it changes nothing), and over the distinct x' they give what they give over x.
bool Rewritable(const LogicalOp& a) {
  if (a.kind != LogicalKind::Aggregate || a.aggs.empty()) return false;
  const BoundExpr& first = *a.aggs[0];
  bool any_distinct = false;
  for (auto& g : a.aggs) {
    if (g->kind != BExpr::Agg || g->children.size() != 1) return false;
    const bool extremum = g->name == "min" || g->name == "max";
    if (!g->distinct && !extremum) return false;
    any_distinct |= g->distinct;
    if (g->name != "count" && g->name != "sum" && g->name != "avg" && !extremum) return false;
    if (g->children[0]->ToString() != first.children[0]->ToString() || !(g->children[0]->type == first.children[0]->type))
      return false;
  }
  return any_distinct;
}

void Rewrite(LogicalOp& op, uint32_t& next) {
  for (auto& c : op.children) Rewrite(*c, next);
  if (!Rewritable(op)) return;
  auto inner = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
  inner->group_index = next++;
  inner->agg_index = next++;
  inner->children = std::move(op.children);
  inner->estimated_rows = op.estimated_rows;
  for (auto& g : op.groups) inner->groups.push_back(g->Copy());
  inner->groups.push_back(op.aggs[0]->children[0]->Copy());
  const uint32_t nk = (uint32_t)op.groups.size();
  for (uint32_t k = 0; k < nk; k++) {
    auto col = MakeColumn({inner->group_index, k}, op.groups[k]->type, op.groups[k]->ToString());
    op.groups[k] = std::move(col);
  }
  const BoundExpr& x = *inner->groups.back();
  for (auto& g : op.aggs) {
    g->distinct = false;
    g->children[0] = MakeColumn({inner->group_index, nk}, x.type, x.ToString());
  }
  op.children.clear();
  op.children.push_back(std::move(inner));
}

}  // namespace

void SplitDistinctAggregates(LogicalOp& root) {
  uint32_t m = 0;
  MaxIndex(root, m);
  uint32_t next = m + 1;
  Rewrite(root, next);
}

}  // namespace tessera
