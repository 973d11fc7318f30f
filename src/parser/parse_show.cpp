// SHOW TABLES; DESCRIBE name | SHOW name | DESCRIBE query. Each becomes a SELECT over a
// table the binder makes from the catalog (TableRefKind::ShowTables / Describe), so that the
// result flows like any query's: SHOW TABLES is SELECT * FROM <tables> ORDER BY name, and
// DESCRIBE is SELECT * FROM <the columns of name or query>, with DuckDB's columns.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

// The relation DESCRIBE and SUMMARIZE take: a query (in parentheses or not) into
// ref.subquery, returning true, or a [schema.]name into ref.schema / ref.name.
bool Parser::ParseRelationOrQuery(TableRef& ref) {
  if (AtOp("(") || StartsQuery(0)) {
    ref.subquery = ParseQuery();
    return true;
  }
  ref.name = ParseIdent();
  if (AcceptOp(".")) {
    ref.schema = std::move(ref.name);
    ref.name = ParseIdent();
  }
  return false;
}

StatementPtr Parser::ParseShow() {
  const Token start = Cur();
  const bool describe = start.text == "describe";
  Next();  // SHOW | DESCRIBE
  auto q = std::make_unique<SelectStmt>();
  q->pos = start.pos;
  auto star = std::make_unique<Expr>(ExprKind::Star, start.pos);
  q->select_list.push_back({std::move(star), ""});
  std::unique_ptr<TableRef> ref;
  if (!describe && AtKw("tables")) {
    Next();
    ref = std::make_unique<TableRef>(TableRefKind::ShowTables, start.pos);
    OrderItem order;
    order.expr = std::make_unique<Expr>(ExprKind::Column, start.pos);
    order.expr->name = "name";
    q->order_by.push_back(std::move(order));
  } else if (Cur().kind == TokenKind::End || AtOp(";")) {
    Unsupported(start.pos, Upper(start.text) + " without a table name (use SHOW TABLES)");
  } else if (AtKw("all") || AtKw("databases")) {
    Unsupported(Cur().pos, "SHOW " + Upper(Cur().text));
  } else {
    ref = std::make_unique<TableRef>(TableRefKind::Describe, Cur().pos);
    ParseRelationOrQuery(*ref);
  }
  q->from.push_back(std::move(ref));
  auto st = std::make_unique<SelectStatement>();
  st->select = std::move(q);
  return st;
}

}  // namespace tessera::parser_internal
