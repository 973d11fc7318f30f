#include "execution/expression_executor.hpp"
#include "optimizer/optimizer.hpp"

namespace tessera {

BoundExprPtr FoldExpression(BoundExprPtr e) {
  for (auto& c : e->children) c = FoldExpression(std::move(c));
  if (e->kind != BExpr::Constant && e->kind != BExpr::Agg && e->IsConstant()) {
    // A constant whose evaluation fails (191691735 * 2945 overflows) stays as it is: it
    // raises its error where a row evaluates it, not in a CASE branch no row takes or a
    // query without rows, as in DuckDB.
    Value v;
    try {
      v = EvaluateConstant(*e);
    } catch (const UserError&) {
      return e;
    }
    auto c = MakeConstant(v.is_null() ? Value::Null(e->type) : v);
    c->type = e->type;
    return c;
  }
  if (e->kind == BExpr::Compare) return NarrowDateComparison(std::move(e));
  return e;
}

static void FoldList(std::vector<BoundExprPtr>& v) {
  for (auto& e : v) e = FoldExpression(std::move(e));
}

void FoldConstants(LogicalOp& op) {
  FoldList(op.filters);
  FoldList(op.exprs);
  FoldList(op.groups);
  for (auto& a : op.aggs) FoldList(a->children);
  FoldList(op.left_keys);
  FoldList(op.right_keys);
  if (op.residual) op.residual = FoldExpression(std::move(op.residual));
  for (auto& o : op.orders) o.expr = FoldExpression(std::move(o.expr));
  // Filter terms that folded to TRUE disappear.
  std::vector<BoundExprPtr> kept;
  for (auto& f : op.filters) {
    if (f->kind == BExpr::Constant && !f->value.is_null() && f->value.int_value() != 0) continue;
    kept.push_back(std::move(f));
  }
  op.filters = std::move(kept);
  for (auto& c : op.children) FoldConstants(*c);
}

}  // namespace tessera
