// DISTINCT aggregates as two aggregations: an aggregation whose DISTINCT aggregates are
// all over the same argument x (COUNT/SUM/AVG(DISTINCT x), MIN/MAX(x), TPC-H q16's
// count(DISTINCT ps_suppkey)) becomes
//     Aggregate(G | agg(x'), outer(p))  over  Aggregate(G, x | p)
// the inner one de-duplicating (G, x), the outer one aggregating the distinct x' per group
// without DISTINCT. Plain aggregates beside them that split into a partial per (G, x) and
// a combination of the partials (sum over integers and decimals: the sum of sums; min,
// max: of the partials; count(e), count(*): the sum of the counts, still BIGINT) are
// computed as partials p by the inner aggregation and combined by the outer one. Without
// GROUP BY, an empty input leaves the outer aggregation no partials, and a sum of no counts
// is NULL where the count is 0: a projection above it (holding the aggregation's bindings)
// turns those NULLs into 0 (ZeroWhenNull, as decorrelated counts do). NULLs
// stay right: the inner aggregation keeps one NULL group of x per G, which agg(x') ignores
// as agg(DISTINCT x) does. Both are plain hash aggregations, so both backends run them in
// parallel (the GPU reads the inner groups in place) instead of keeping a set of values
// per group. The outer aggregation keeps its bindings, so nothing above it changes.
//
// Not rewritten (the hash aggregate's per-group sets, sets merged per group): DISTINCT over
// two different arguments, and plain aggregates that do not split so (avg, sum over
// DOUBLE, whose partial sums would round differently, the holistic ones).
#include <algorithm>

#include "function/function_registry.hpp"
#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// The largest binding index the plan uses, so new ones do not collide.
void MaxIndex(const LogicalOp& op, uint32_t& m) {
  m = std::max({m, op.table_index, op.group_index, op.agg_index});
  for (auto& c : op.children) MaxIndex(*c, m);
}

bool SameArgument(const BoundExpr& a, const BoundExpr& b) {
  return a.children[0]->ToString() == b.children[0]->ToString() && a.children[0]->type == b.children[0]->type;
}

// How the outer aggregation computes one aggregate of a rewritten aggregation.
enum class Split {
  OverDistinct,  // agg(x') over the inner groups' x: the DISTINCT ones, min/max(x)
  Partial,       // combine(p) over a partial p the inner aggregation computes
};

bool IsCount(const BoundExpr& g) { return g.name == "count" || g.name == "count_star"; }

// A plain aggregate that splits into a partial and its combination (see the file comment);
// counts only where a count over no rows can be made 0 (`counts`).
bool Splits(const BoundExpr& g, bool counts) {
  if (g.distinct || g.kind != BExpr::Agg) return false;
  if (g.name == "count_star") return counts;
  if (g.children.size() != 1) return false;
  if (g.name == "count") return counts;
  if (g.name == "min" || g.name == "max") return true;
  if (g.name == "sum") return g.children[0]->type.physical() != PhysType::F64 && g.type.physical() != PhysType::F64;
  return false;
}

// The DISTINCT argument's first aggregate, when `a` can be rewritten (else null).
const BoundExpr* DistinctArgument(const LogicalOp& a, bool counts, std::vector<Split>& how) {
  if (a.kind != LogicalKind::Aggregate || a.aggs.empty()) return nullptr;
  const BoundExpr* x = nullptr;
  for (auto& g : a.aggs)
    if (g->kind == BExpr::Agg && g->distinct && g->children.size() == 1) {
      if (g->name != "count" && g->name != "sum" && g->name != "avg") return nullptr;
      if (x && !SameArgument(*x, *g)) return nullptr;
      x = g.get();
    }
  if (!x) return nullptr;
  how.clear();
  for (auto& g : a.aggs) {
    // MIN/MAX count as DISTINCT aggregates of their argument: the binder drops their
    // DISTINCT (it changes nothing), and over the distinct x' they give what they give over x.
    const bool extremum = g->name == "min" || g->name == "max";
    if (g->kind == BExpr::Agg && g->children.size() == 1 && (g->distinct || extremum) && SameArgument(*x, *g))
      how.push_back(Split::OverDistinct);
    else if (Splits(*g, counts))
      how.push_back(Split::Partial);
    else
      return nullptr;
  }
  return x;
}

// The outer aggregate combining g's partials (column `col` of the inner aggregation) into
// what g computes, of g's type (a sum of counts stays BIGINT, as a sum of the partial sums
// of INTEGERs does: the sum's state and result rules take any integer result type).
BoundExprPtr Combine(const BoundExpr& g, BoundExprPtr col) {
  const bool count = IsCount(g);
  auto c = std::make_unique<BoundExpr>(BExpr::Agg, g.type);
  c->name = count ? "sum" : g.name;
  c->agg_fn = count ? &AggregateFunctionNamed("sum") : g.agg_fn;
  c->children.push_back(std::move(col));
  return c;
}

// Rewrites the aggregation `op` (in place). `slot`: where the plan holds it, for the
// projection an ungrouped one with counts gets (null: none may be put above it).
void RewriteOne(LogicalOp& op, LogicalOpPtr* slot, uint32_t& next) {
  std::vector<Split> how;
  const BoundExpr* xp = DistinctArgument(op, !op.groups.empty() || slot, how);
  if (!xp) return;
  std::vector<bool> zero;  // ungrouped counts: NULL over no rows, to be 0
  for (size_t i = 0; i < op.aggs.size(); i++)
    zero.push_back(op.groups.empty() && how[i] == Split::Partial && IsCount(*op.aggs[i]));
  auto inner = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
  inner->group_index = next++;
  inner->agg_index = next++;
  inner->children = std::move(op.children);
  inner->estimated_rows = op.estimated_rows;
  for (auto& g : op.groups) inner->groups.push_back(g->Copy());
  inner->groups.push_back(xp->children[0]->Copy());
  const uint32_t nk = (uint32_t)op.groups.size();
  for (uint32_t k = 0; k < nk; k++) {
    auto col = MakeColumn({inner->group_index, k}, op.groups[k]->type, op.groups[k]->ToString());
    op.groups[k] = std::move(col);
  }
  const BoundExpr& x = *inner->groups.back();
  for (size_t i = 0; i < op.aggs.size(); i++) {
    BoundExprPtr& g = op.aggs[i];
    if (how[i] == Split::OverDistinct) {
      g->distinct = false;
      g->children[0] = MakeColumn({inner->group_index, nk}, x.type, x.ToString());
      continue;
    }
    const uint32_t p = (uint32_t)inner->aggs.size();
    // The partial is g itself, moved to the inner aggregation (its type: g's).
    BoundExprPtr outer = Combine(*g, MakeColumn({inner->agg_index, p}, g->type, g->ToString()));
    inner->aggs.push_back(std::move(g));
    g = std::move(outer);
  }
  op.children.clear();
  op.children.push_back(std::move(inner));
  if (std::find(zero.begin(), zero.end(), true) == zero.end()) return;
  auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
  proj->table_index = op.agg_index;
  op.agg_index = next++;
  proj->estimated_rows = op.estimated_rows;
  for (uint32_t i = 0; i < op.aggs.size(); i++) {
    auto v = MakeColumn({op.agg_index, i}, op.aggs[i]->type, op.aggs[i]->ToString());
    proj->exprs.push_back(zero[i] ? ZeroWhenNull(std::move(v)) : std::move(v));
  }
  proj->children.push_back(std::move(*slot));
  *slot = std::move(proj);
}

void Rewrite(LogicalOp& op, uint32_t& next) {
  for (auto& c : op.children) {
    LogicalOp& child = *c;  // stays alive when a projection takes c's place
    Rewrite(child, next);
    RewriteOne(child, &c, next);
  }
}

}  // namespace

void SplitDistinctAggregates(LogicalOp& root) {
  uint32_t m = 0;
  MaxIndex(root, m);
  uint32_t next = m + 1;
  Rewrite(root, next);
  RewriteOne(root, nullptr, next);
}

}  // namespace tessera
