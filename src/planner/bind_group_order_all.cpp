// GROUP BY ALL: the query groups by every select-list item that holds no aggregate, as in
// DuckDB: items with an aggregate are not groups (one that also reads a column outside its
// aggregates is an error), constants and window function calls are not groups either.
// (ORDER BY ALL, every output column left to right, is expanded where ORDER BY is bound:
// bind_select.cpp, bind_set_operation.cpp.)
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

namespace {

// Whether e reads a column outside aggregate calls (not looking into subqueries).
bool ColumnOutsideAggregate(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::Column || (e.kind == ast::ExprKind::Star && e.columns)) return true;
  if (e.kind == ast::ExprKind::Function && IsAggregateName(e.name) && !e.over) return false;
  for (auto& c : e.children)
    if (c && ColumnOutsideAggregate(*c)) return true;
  return false;
}

}  // namespace

bool Binder::GroupByAllItem(const SelectListItem& it) {
  if (!it.expr) return true;  // a column of `*`
  const ast::Expr& e = *it.expr;
  if (AstContainsAggregate(e)) {
    if (ColumnOutsideAggregate(e)) throw BindError("Cannot mix aggregates with non-aggregated columns!", e.pos);
    return false;
  }
  if (AstContainsWindow(e)) return false;
  return ColumnOutsideAggregate(e);
}

}  // namespace tessera
