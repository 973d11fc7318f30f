// SUMMARIZE name | SUMMARIZE query: DuckDB's per-column statistics, a query node (so it may
// stand where a query may: `SELECT * FROM (SUMMARIZE t) WHERE ...`): SELECT * FROM a
// TableRefKind::Summarize item naming the table or view, or holding the query (and its
// text), which the binder turns into the statistics query (planner/bind_summarize.cpp).
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

std::unique_ptr<SelectStmt> Parser::ParseSummarize() {
  const Token start = Cur();
  Next();  // SUMMARIZE
  auto q = std::make_unique<SelectStmt>();
  q->pos = start.pos;
  q->select_list.push_back({std::make_unique<Expr>(ExprKind::Star, start.pos), ""});
  auto ref = std::make_unique<TableRef>(TableRefKind::Summarize, Cur().pos);
  const size_t begin = Cur().begin;
  if (ParseRelationOrQuery(*ref)) ref->query_text = std::string(src_.substr(begin, prev_end_ - begin));
  q->from.push_back(std::move(ref));
  return q;
}

}  // namespace tessera::parser_internal
