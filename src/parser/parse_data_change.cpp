// UPDATE t [[AS] a] SET c = e, ... [FROM items] [WHERE p] [RETURNING list]; DELETE FROM
// t [[AS] a] [USING items] [WHERE p] [RETURNING list] (parse_returning.cpp); TRUNCATE [TABLE] t. UPDATE and DELETE become a SELECT over the
// table and its row numbers (ast::UpdateStatement, ast::DeleteStatement), which the
// executor runs; FROM / USING items join that SELECT (a row matched several times is
// changed once).
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {

// SELECT __tessera_row_id FROM t [alias] (the items and WHERE are added by the caller).
std::unique_ptr<SelectStmt> RowIdSelect(const std::string& table, const std::string& alias, SourcePos pos) {
  auto q = std::make_unique<SelectStmt>();
  q->pos = pos;
  auto ref = std::make_unique<TableRef>(TableRefKind::Base, pos);
  ref->name = table;
  ref->alias = alias;
  SelectItem item;
  item.expr = std::make_unique<Expr>(ExprKind::Column, pos);
  item.expr->name = kRowIdColumn;
  if (!alias.empty()) item.expr->table = alias;
  else item.expr->table = table;
  q->select_list.push_back(std::move(item));
  q->from.push_back(std::move(ref));
  return q;
}

}  // namespace

// [AS] alias after the table of UPDATE or DELETE (not a keyword that may follow).
std::string Parser::ParseDataChangeAlias() {
  if (AcceptKw("as")) return ParseIdent();
  if (IsIdentToken(Cur()) && !AtKw("set") && !AtKw("where") && !AtKw("using") && !AtKw("returning")) {
    std::string a = Spelling(Cur());
    Next();
    return a;
  }
  return {};
}

// UPDATE's FROM or DELETE's USING list: more items in the FROM of the row SELECT.
void Parser::ParseDataChangeSources(SelectStmt& select) {
  do {
    int h = 0;
    select.from.push_back(ParseFromItem(&h));
  } while (AcceptOp(","));
}

StatementPtr Parser::ParseUpdate() {
  const SourcePos pos = Cur().pos;
  Next();  // UPDATE
  auto st = std::make_unique<UpdateStatement>();
  st->table = ParseIdent();
  if (AtOp(".")) Unsupported(Cur().pos, "UPDATE of a table qualified by a schema");
  std::string alias = ParseDataChangeAlias();
  st->select = RowIdSelect(st->table, alias, pos);
  ExpectKw("set");
  do {
    st->column_pos.push_back(Cur().pos);
    st->columns.push_back(ParseIdent());
    if (AtOp(".")) Unsupported(Cur().pos, "a qualified column in SET");
    ExpectOp("=");
    SelectItem item;
    item.expr = ParseExpr();
    st->select->select_list.push_back(std::move(item));
  } while (AcceptOp(","));
  if (AcceptKw("from")) ParseDataChangeSources(*st->select);
  if (AcceptKw("where")) st->select->where = ParseExpr();
  if (AtKw("returning")) st->returning = ParseReturning(st->table, alias, /*insert=*/false);
  return st;
}

StatementPtr Parser::ParseDelete() {
  const SourcePos pos = Cur().pos;
  Next();  // DELETE
  ExpectKw("from");
  auto st = std::make_unique<DeleteStatement>();
  st->table = ParseIdent();
  if (AtOp(".")) Unsupported(Cur().pos, "DELETE from a table qualified by a schema");
  std::string alias = ParseDataChangeAlias();
  st->select = RowIdSelect(st->table, alias, pos);
  if (AcceptKw("using")) ParseDataChangeSources(*st->select);
  if (AcceptKw("where")) st->select->where = ParseExpr();
  if (AtKw("returning")) st->returning = ParseReturning(st->table, alias, /*insert=*/false);
  return st;
}

StatementPtr Parser::ParseTruncate() {
  Next();  // TRUNCATE
  AcceptKw("table");
  auto st = std::make_unique<DeleteStatement>();
  st->truncate = true;
  st->table = ParseIdent();
  return st;
}

}  // namespace tessera::parser_internal
