// Set operations (UNION [ALL] [BY NAME], INTERSECT [ALL], EXCEPT [ALL]) and the ORDER BY/LIMIT/OFFSET
// of query nodes other than the SELECT core (set operations, VALUES).
//
// Both operands are bound as queries of their own; their columns are cast to the common
// types (SetOpType) and the result takes the left operand's column names. Then:
//   UNION ALL      a UnionAll node (the operands' rows one after another);
//   UNION          the same under a DISTINCT (an aggregate grouping by every column);
//   INTERSECT      a semi join of left on right over every column, NULLs equal, DISTINCT;
//   EXCEPT         the same with an anti join;
//   INTERSECT ALL  a semi join, NULLs equal, on the right operand grouped with COUNT(*):
//   EXCEPT ALL     each left row uses up one of its group's count (Semi keeps those that
//                  found one, Anti those that did not), so a row that appears l times on
//                  the left and r times on the right appears min(l, r) times (INTERSECT
//                  ALL) or max(l - r, 0) times (EXCEPT ALL).
#include <algorithm>

#include "common/identifier.hpp"
#include "function/function_registry.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

using ast::SetOpKind;

// The query's plan with its columns cast to `types` (a projection when any differs).
LogicalOpPtr CastColumns(BoundQuery q, const std::vector<Type>& types, uint32_t table_index) {
  if (q.types == types) return std::move(q.plan);
  auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
  proj->table_index = table_index;
  auto b = q.plan->Bindings();
  for (size_t i = 0; i < b.size(); i++) {
    auto col = MakeColumn(b[i], q.types[i], q.names[i]);
    proj->exprs.push_back(q.types[i] == types[i] ? std::move(col) : MakeCast(std::move(col), types[i]));
  }
  proj->children.push_back(std::move(q.plan));
  return proj;
}

namespace {

std::vector<BoundExprPtr> Columns(const LogicalOp& op) {
  std::vector<BoundExprPtr> cols;
  auto b = op.Bindings();
  auto t = op.Types();
  for (size_t i = 0; i < b.size(); i++) cols.push_back(MakeColumn(b[i], t[i], ""));
  return cols;
}

}  // namespace

// UNION [ALL] BY NAME: the operands' columns matched by name (ignoring case), as DuckDB:
// the left operand's columns, then the right's that the left does not have; a column one
// side lacks is NULL there. Each operand becomes a projection in that order.
void Binder::MatchColumnsByName(BoundQuery& l, BoundQuery& r) {
  std::vector<std::string> names = l.names;
  for (const std::string& n : r.names)
    if (std::none_of(names.begin(), names.end(), [&](const std::string& m) { return IdentEquals(m, n); }))
      names.push_back(n);
  auto arrange = [&](BoundQuery& q) {
    auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
    proj->table_index = next_index_++;
    auto b = q.plan->Bindings();
    std::vector<Type> types;
    for (const std::string& n : names) {
      size_t i = 0;
      while (i < q.names.size() && !IdentEquals(q.names[i], n)) i++;
      if (i < q.names.size()) {
        proj->exprs.push_back(MakeColumn(b[i], q.types[i], q.names[i]));
        types.push_back(q.types[i]);
      } else {
        proj->exprs.push_back(MakeConstant(Value::Null()));
        types.push_back(Type::Null());
      }
    }
    proj->children.push_back(std::move(q.plan));
    q.plan = std::move(proj);
    q.types = std::move(types);
    q.names = names;
  };
  arrange(l);
  arrange(r);
}

BoundQuery Binder::BindSetOperation(const ast::SelectStmt& stmt, std::vector<std::string>& other_names) {
  BoundQuery l = BindSelect(*stmt.set_left);
  BoundQuery r = BindSelect(*stmt.set_right);
  if (stmt.set_by_name) MatchColumnsByName(l, r);
  if (l.types.size() != r.types.size())
    throw BindError("set operations can only apply to queries with the same number of result columns (" +
                        std::to_string(l.types.size()) + " and " + std::to_string(r.types.size()) + ")",
                    stmt.set_pos);
  std::vector<Type> types;
  for (size_t i = 0; i < l.types.size(); i++) types.push_back(SetOpType(l.types[i], r.types[i], stmt.set_pos));
  BoundQuery out;
  out.names = l.names;
  out.types = types;
  other_names = r.names;
  LogicalOpPtr left = CastColumns(std::move(l), types, next_index_++);
  LogicalOpPtr right = CastColumns(std::move(r), types, next_index_++);

  if (stmt.set_op == SetOpKind::UnionAll || stmt.set_op == SetOpKind::Union) {
    auto u = std::make_unique<LogicalOp>(LogicalKind::UnionAll);
    u->table_index = next_index_++;
    u->children.push_back(std::move(left));
    u->children.push_back(std::move(right));
    out.plan = std::move(u);
    if (stmt.set_op == SetOpKind::Union) out.plan = MakeDistinct(std::move(out.plan), out.names);
    return out;
  }
  bool all = stmt.set_op == SetOpKind::IntersectAll || stmt.set_op == SetOpKind::ExceptAll;
  if (all) {  // the right operand's distinct rows, each with its count
    right = MakeDistinct(std::move(right), out.names);
    auto count = std::make_unique<BoundExpr>(BExpr::Agg, Type::BigInt());
    count->name = "count_star";
    count->agg_fn = &AggregateFunctionNamed("count_star");
    right->aggs.push_back(std::move(count));
  }
  auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
  bool intersect = stmt.set_op == SetOpKind::Intersect || stmt.set_op == SetOpKind::IntersectAll;
  j->join_type = intersect ? LJoinType::Semi : LJoinType::Anti;
  j->nulls_equal = true;
  j->counted = all;
  j->left_keys = Columns(*left);
  j->right_keys = Columns(*right);
  if (all) j->right_keys.pop_back();  // the count
  j->children.push_back(std::move(left));
  j->children.push_back(std::move(right));
  out.plan = std::move(j);
  if (!all) out.plan = MakeDistinct(std::move(out.plan), out.names);
  return out;
}

BoundQuery Binder::BindNodeTail(const ast::SelectStmt& stmt, BoundQuery q,
                                const std::vector<std::string>& other_names, const char* node) {
  if (!stmt.order_by.empty() || stmt.order_by_all) {
    auto b = q.plan->Bindings();
    auto ord = std::make_unique<LogicalOp>(LogicalKind::Order);
    for (size_t i = 0; stmt.order_by_all && i < q.types.size(); i++) {  // ORDER BY ALL
      OrderSpec spec;
      spec.desc = stmt.order_by_all->desc;
      spec.nulls_first = stmt.order_by_all->nulls_first.value_or(false);
      spec.expr = MakeColumn(b[i], q.types[i], q.names[i]);
      ord->orders.push_back(std::move(spec));
    }
    for (auto& o : stmt.order_by) {
      const ast::Expr& e = *o.expr;
      int idx = -1;
      if (e.kind == ast::ExprKind::Literal && e.lit == ast::LiteralKind::Integer) {
        int64_t k = SelectListPosition(e.text);
        if (k < 1 || k > (int64_t)q.types.size())
          throw BindError("ORDER BY position " + e.text + " is not in the select list", e.pos);
        idx = (int)k - 1;
      } else if (e.kind == ast::ExprKind::Column && e.table.empty()) {
        const std::vector<std::string>* name_sets[] = {&q.names, &other_names};
        for (const auto* names : name_sets)
          for (size_t i = 0; i < names->size() && idx < 0; i++)
            if (IdentEquals((*names)[i], e.name)) idx = (int)i;
      }
      if (idx < 0)
        throw BindError(std::string("ORDER BY over ") + node +
                            " takes output column names or positions only (to order by an expression, "
                            "select it or move the query into a subquery in FROM)",
                        e.pos);
      OrderSpec spec;
      spec.desc = o.desc;
      spec.nulls_first = o.nulls_first.value_or(false);
      spec.expr = MakeColumn(b[idx], q.types[idx], q.names[idx]);
      ord->orders.push_back(std::move(spec));
    }
    ord->children.push_back(std::move(q.plan));
    q.plan = std::move(ord);
  }
  q.plan = ApplyLimit(std::move(q.plan), stmt);
  return q;
}

}  // namespace tessera
