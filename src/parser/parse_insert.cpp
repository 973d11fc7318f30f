// INSERT [OR REPLACE | OR IGNORE] INTO name [AS alias] [BY NAME | BY POSITION] [(columns)]
// VALUES (...), ... | query
// [ON CONFLICT [(columns)] DO NOTHING | DO UPDATE SET c = e, ... [WHERE p]] [RETURNING list].
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {

ExprPtr ColumnRef(const std::string& table, const std::string& name, SourcePos pos) {
  auto e = std::make_unique<Expr>(ExprKind::Column, pos);
  e->table = table;
  e->name = name;
  return e;
}

// Unqualified columns of DO UPDATE's SET and WHERE name the target table's (not EXCLUDED's).
void QualifyColumns(Expr& e, const std::string& table) {
  if (e.kind == ExprKind::Column && e.table.empty()) e.table = table;
  for (auto& c : e.children)
    if (c) QualifyColumns(*c, table);
}

}  // namespace

StatementPtr Parser::ParseInsert() {
  Next();  // INSERT
  auto st = std::make_unique<InsertStatement>();
  if (AtKw("or")) {
    st->conflict_pos = Cur().pos;
    Next();
    if (AcceptKw("replace")) st->on_conflict = OnConflict::Replace;
    else if (AcceptKw("ignore")) st->on_conflict = OnConflict::Nothing;
    else SyntaxError(Cur(), "expected REPLACE or IGNORE");
  }
  ExpectKw("into");
  st->table = ParseIdent();
  if (AcceptKw("as")) st->alias = ParseIdent();
  if (AtKw("by") && (IsKw(Peek(), "name") || IsKw(Peek(), "position"))) {  // DuckDB's BY NAME / BY POSITION
    Next();
    st->by_name = AtKw("name");
    Next();
  }
  if (!st->by_name && AtOp("(") && !StartsQuery(1) && !IsOp(Peek(), "(")) st->columns = ParseIdentList();
  if (AcceptKw("values")) {
    if (st->by_name) throw UserError(ErrorKind::Syntax, "INSERT BY NAME needs a query, not VALUES", Cur().pos);
    st->rows = ParseValuesRows();
  } else if (AtOp("(") || StartsQuery(0)) {
    st->select = ParseQuery();
  } else {
    SyntaxError(Cur(), "expected VALUES or SELECT");
  }
  if (AtKw("on")) {
    if (st->on_conflict != OnConflict::None)
      throw UserError(ErrorKind::Syntax, "Only ON CONFLICT DO NOTHING or ON CONFLICT DO UPDATE may be given, "
                                         "not both it and INSERT OR REPLACE / OR IGNORE", Cur().pos);
    st->conflict_pos = Cur().pos;
    Next();
    ExpectKw("conflict");
    if (AtOp("(")) st->conflict_columns = ParseIdentList();
    ExpectKw("do");
    if (AcceptKw("nothing")) {
      st->on_conflict = OnConflict::Nothing;
    } else {
      if (!AcceptKw("update")) SyntaxError(Cur(), "expected NOTHING or UPDATE");
      st->on_conflict = OnConflict::Update;
      ParseUpsertSet(*st);
    }
  }
  if (AtKw("returning")) st->returning = ParseReturning(st->table, "", /*insert=*/true);
  return st;
}

// DO UPDATE SET c = e, ... [WHERE p]: the SELECT of the changes (ast::InsertStatement).
void Parser::ParseUpsertSet(InsertStatement& st) {
  const SourcePos pos = Cur().pos;
  ExpectKw("set");
  auto q = std::make_unique<SelectStmt>();
  q->pos = pos;
  const std::string& name = st.alias.empty() ? st.table : st.alias;
  SelectItem row;
  row.expr = ColumnRef(name, kRowIdColumn, pos);
  q->select_list.push_back(std::move(row));
  do {
    st.set_pos.push_back(Cur().pos);
    st.set_columns.push_back(ParseIdent());
    if (AtOp(".")) Unsupported(Cur().pos, "a qualified column in SET");
    ExpectOp("=");
    SelectItem item;
    item.expr = ParseExpr();
    if (AstHasSubquery(*item.expr))
      throw UserError(ErrorKind::Binder, "DO UPDATE SET clause cannot contain a subquery", item.expr->pos);
    QualifyColumns(*item.expr, name);
    q->select_list.push_back(std::move(item));
  } while (AcceptOp(","));
  auto target = std::make_unique<TableRef>(TableRefKind::Base, pos);
  target->name = st.table;
  target->alias = st.alias;
  q->from.push_back(std::move(target));
  auto excluded = std::make_unique<TableRef>(TableRefKind::Base, pos);
  excluded->name = kExcludedTable;
  q->from.push_back(std::move(excluded));
  ExprPtr match = MakeBinary(Op::Eq, ColumnRef(name, kRowIdColumn, pos),
                             ColumnRef(kExcludedTable, kConflictRowColumn, pos));
  if (AcceptKw("where")) {
    ExprPtr cond = ParseExpr();
    if (AstHasSubquery(*cond))
      throw UserError(ErrorKind::Binder, "DO UPDATE WHERE clause cannot contain a subquery", cond->pos);
    QualifyColumns(*cond, name);
    match = MakeBinary(Op::And, std::move(match), std::move(cond));
  }
  q->where = std::move(match);
  st.update_select = std::move(q);
}

// Whether e holds a subquery (IN (SELECT ...), EXISTS, a scalar subquery).
bool Parser::AstHasSubquery(const Expr& e) {
  if (e.subquery) return true;
  for (auto& c : e.children)
    if (c && AstHasSubquery(*c)) return true;
  return false;
}

}  // namespace tessera::parser_internal
