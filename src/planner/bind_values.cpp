// VALUES (...), (...) as a query node: a Values operator holding the rows' expressions,
// columns named col0, col1, ... (as DuckDB names them).
//
// A column's type is CommonType over its rows, where a string literal takes the type of
// the other rows (as in comparisons: VALUES (DATE '2020-01-01'), ('2020-02-02') is DATE;
// VALUES (1), ('a') fails to convert 'a'); a column of string literals only is VARCHAR.
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

BoundQuery Binder::BindValues(const ast::SelectStmt& stmt) {
  const auto& rows = stmt.values;
  size_t width = rows[0].size();
  std::vector<std::vector<BoundExprPtr>> bound(rows.size());
  Ctx ctx;
  ctx.clause = "VALUES";
  for (size_t r = 0; r < rows.size(); r++)
    for (auto& e : rows[r]) bound[r].push_back(Bind(*e, ctx));

  BoundQuery q;
  auto values = std::make_unique<LogicalOp>(LogicalKind::Values);
  values->table_index = next_index_++;
  for (size_t c = 0; c < width; c++) {
    Type t = Type::Null();
    bool any_string = false;
    for (size_t r = 0; r < rows.size(); r++) {
      const BoundExpr& e = *bound[r][c];
      if (e.kind == BExpr::Constant && e.type.id == TypeId::Varchar) any_string = true;
      else t = CommonType(t, e.type, rows[r][c]->pos);
    }
    if (any_string && t.id == TypeId::Null) t = Type::Varchar();
    q.names.push_back("col" + std::to_string(c));
    q.types.push_back(t);
  }
  for (size_t r = 0; r < rows.size(); r++) {
    std::vector<BoundExprPtr> row;
    for (size_t c = 0; c < width; c++) row.push_back(Coerce(std::move(bound[r][c]), q.types[c], rows[r][c]->pos));
    values->values.push_back(std::move(row));
  }
  values->estimated_rows = (double)rows.size();
  q.plan = std::move(values);
  return q;
}

}  // namespace tessera
