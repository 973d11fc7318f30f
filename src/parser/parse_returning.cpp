// RETURNING item, ... after INSERT, UPDATE and DELETE: the SELECT of the list over the
// target table (SELECT list FROM t [AS a]), which the executor runs over the rows the
// statement inserted, updated or deleted (main/returning.cpp). As in DuckDB, subqueries
// are not allowed in it, nor columns of an upsert's EXCLUDED.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {

// The first expression in e that holds a subquery (IN (SELECT ...), EXISTS, a scalar subquery).
const Expr* FindSubquery(const Expr& e) {
  if (e.subquery) return &e;
  for (auto& c : e.children)
    if (c)
      if (const Expr* s = FindSubquery(*c)) return s;
  return nullptr;
}

// The first column (or star) in e qualified by EXCLUDED.
const Expr* FindExcluded(const Expr& e) {
  if ((e.kind == ExprKind::Column || e.kind == ExprKind::Star) && IdentEquals(e.table, kExcludedTable)) return &e;
  for (auto& c : e.children)
    if (c)
      if (const Expr* s = FindExcluded(*c)) return s;
  return nullptr;
}

}  // namespace

std::unique_ptr<SelectStmt> Parser::ParseReturning(const std::string& table, const std::string& alias, bool insert) {
  const SourcePos pos = Cur().pos;
  ExpectKw("returning");
  auto q = std::make_unique<SelectStmt>();
  q->pos = pos;
  do {
    q->select_list.push_back(ParseSelectItem());
  } while (AcceptOp(","));
  for (auto& item : q->select_list) {
    if (const Expr* s = FindSubquery(*item.expr))
      throw UserError(ErrorKind::Binder, "SUBQUERY is not supported in returning statements", s->pos);
    if (insert)
      if (const Expr* x = FindExcluded(*item.expr))
        throw UserError(ErrorKind::Unsupported,
                        "'excluded' qualified columns are not supported in the RETURNING clause yet", x->pos);
  }
  auto target = std::make_unique<TableRef>(TableRefKind::Base, pos);
  target->name = table;
  target->alias = alias;
  q->from.push_back(std::move(target));
  return q;
}

}  // namespace tessera::parser_internal
