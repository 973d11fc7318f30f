// PREPARE name AS statement, EXECUTE name [(args)], DEALLOCATE [PREPARE] name.
// PREPARE keeps the statement's text with its placeholders (`?`, `$1`, `$name`); it is
// checked and run by main/prepared_statements.cpp with the parameters written in.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParsePrepare() {
  Next();  // PREPARE
  auto st = std::make_unique<PrepareStatement>();
  st->name = ParseIdent();
  if (AtOp("(")) Unsupported(Cur().pos, "PREPARE with parameter types");
  ExpectKw("as");
  const Token& first = Cur();
  if (first.kind == TokenKind::End || AtOp(";")) SyntaxError(first, "expected a statement after AS");
  st->body_pos = first.pos;
  size_t begin = first.begin;
  // The statement runs up to the next ';' (none can stand inside one outside a literal).
  while (Cur().kind != TokenKind::End && !AtOp(";")) Next();
  st->body = std::string(src_.substr(begin, prev_end_ - begin));
  return st;
}

StatementPtr Parser::ParseExecute() {
  Next();  // EXECUTE
  auto st = std::make_unique<ExecuteStatement>();
  st->name = ParseIdent();
  if (AtOp("(")) {
    st->args = std::make_unique<SelectStmt>();
    st->args->pos = Cur().pos;
    Next();
    do {
      st->arg_pos.push_back(Cur().pos);
      std::string name;
      if (IsIdentToken(Cur()) && IsOp(Peek(), ":=")) {
        name = Spelling(Cur());
        Next();
        Next();
      }
      st->arg_names.push_back(std::move(name));
      SelectItem item;
      item.expr = ParseExpr();
      st->args->select_list.push_back(std::move(item));
    } while (AcceptOp(","));
    ExpectOp(")");
  }
  return st;
}

StatementPtr Parser::ParseDeallocate() {
  Next();  // DEALLOCATE
  AcceptKw("prepare");
  auto st = std::make_unique<DeallocateStatement>();
  if (AtKw("all")) Unsupported(Cur().pos, "DEALLOCATE ALL");
  st->name = ParseIdent();
  return st;
}

}  // namespace tessera::parser_internal
