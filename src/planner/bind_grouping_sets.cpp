// GROUPING SETS, ROLLUP and CUBE (the parser expands them into SelectStmt::grouping_sets)
// and GROUPING()/GROUPING_ID(). Each grouping set is an aggregation of its own over a copy
// of the query's input (FROM/WHERE), its result padded to every group column with NULLs;
// one UNION ALL puts the sets' rows together, and HAVING, the select list and ORDER BY
// read its columns. GROUPING(a, b, ...) is known per set: bit k (counted from the last
// argument) is 1 where the k-th last argument is not grouped by, as DuckDB numbers them.
#include <algorithm>

#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

BoundExprPtr Binder::BindGrouping(const ast::Expr& e, Ctx& ctx) {
  if (!ctx.agg) throw BindError("GROUPING is not allowed in " + std::string(ctx.clause), e.pos);
  if (e.children.empty()) throw BindError("GROUPING needs at least one argument", e.pos);
  if (e.children.size() > 63) throw BindError("GROUPING takes at most 63 arguments", e.pos);
  if (e.distinct || e.has_filter) throw BindError("DISTINCT and FILTER do not apply to GROUPING", e.pos);
  std::vector<uint32_t> args;
  for (auto& c : e.children) {
    Ctx plain;
    plain.scope = ctx.scope;
    plain.clause = "GROUPING";
    BoundExprPtr b = BindInner(*c, plain);
    uint32_t g = 0;
    while (g < ctx.agg->groups.size() && !ctx.agg->groups[g]->Equals(*b)) g++;
    if (g == ctx.agg->groups.size())
      throw BindError("GROUPING argument \"" + b->ToString() + "\" must be a GROUP BY expression", c->pos);
    args.push_back(g);
  }
  auto& calls = ctx.agg->grouping_calls;
  uint32_t k = 0;
  while (k < calls.size() && calls[k] != args) k++;
  if (k == calls.size()) calls.push_back(std::move(args));
  return MakeColumn({ctx.agg->grouping_index, k}, Type::BigInt(), "GROUPING");
}

LogicalOpPtr Binder::ApplyGroupingSets(LogicalOpPtr input, const AggState& agg,
                                       const std::vector<std::vector<uint32_t>>& sets, uint32_t out_index) {
  std::vector<LogicalOpPtr> branches;
  for (size_t s = 0; s < sets.size(); s++) {
    const std::vector<uint32_t>& set = sets[s];
    auto a = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
    a->group_index = next_index_++;
    a->agg_index = next_index_++;
    for (uint32_t g : set) a->groups.push_back(agg.groups[g]->Copy());
    for (auto& x : agg.aggs) a->aggs.push_back(x->Copy());
    // Every set reads its own copy of the input (the same bindings: no operator sees two).
    a->children.push_back(s + 1 < sets.size() ? input->Copy() : std::move(input));
    auto p = std::make_unique<LogicalOp>(LogicalKind::Projection);
    p->table_index = out_index;
    for (uint32_t g = 0; g < agg.groups.size(); g++) {
      const Type& t = agg.groups[g]->type;
      auto at = std::find(set.begin(), set.end(), g);
      if (at != set.end()) {
        p->exprs.push_back(MakeColumn({a->group_index, (uint32_t)(at - set.begin())}, t, agg.groups[g]->ToString()));
      } else {
        auto null = MakeConstant(Value::Null(t));
        null->type = t;
        p->exprs.push_back(std::move(null));
      }
    }
    for (uint32_t i = 0; i < agg.aggs.size(); i++)
      p->exprs.push_back(MakeColumn({a->agg_index, i}, agg.aggs[i]->type, agg.aggs[i]->ToString()));
    for (const auto& call : agg.grouping_calls) {
      int64_t v = 0;
      for (uint32_t g : call) v = (v << 1) | (std::find(set.begin(), set.end(), g) == set.end() ? 1 : 0);
      auto c = MakeConstant(Value::BigInt(v));
      c->type = Type::BigInt();
      p->exprs.push_back(std::move(c));
    }
    p->children.push_back(std::move(a));
    branches.push_back(std::move(p));
  }
  if (branches.size() == 1) return std::move(branches[0]);
  auto u = std::make_unique<LogicalOp>(LogicalKind::UnionAll);
  u->table_index = out_index;
  for (auto& b : branches) {
    b->table_index = next_index_++;  // the union's columns are (out_index, i)
    u->children.push_back(std::move(b));
  }
  return u;
}

void RebindGroupingOutput(BoundExpr& e, uint32_t group_index, uint32_t agg_index, uint32_t grouping_index,
                          size_t ngroups, size_t naggs, uint32_t out_index) {
  if (e.kind == BExpr::Column) {
    ColumnBinding& b = e.binding;
    if (b.table == group_index) b = {out_index, b.column};
    else if (b.table == agg_index) b = {out_index, (uint32_t)ngroups + b.column};
    else if (b.table == grouping_index) b = {out_index, (uint32_t)(ngroups + naggs) + b.column};
  }
  for (auto& c : e.children)
    RebindGroupingOutput(*c, group_index, agg_index, grouping_index, ngroups, naggs, out_index);
}

}  // namespace tessera
