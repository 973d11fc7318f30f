// ANALYZE [table]: the statistics of one table, or of every table without a name
// (main/analyze.cpp). DuckDB's optional column list, ANALYZE t (a, b), is accepted (the
// columns must exist) and analyzes the whole table.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseAnalyze() {
  Next();  // ANALYZE | ANALYSE
  auto st = std::make_unique<AnalyzeStatement>();
  AcceptKw("verbose");
  if (Cur().kind == TokenKind::End || AtOp(";")) return st;
  st->table_pos = Cur().pos;
  st->table = ParseIdent();
  if (AtOp("(")) st->columns = ParseIdentList();
  return st;
}

}  // namespace tessera::parser_internal
