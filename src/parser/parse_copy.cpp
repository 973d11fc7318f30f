// COPY name FROM 'file' [WITH] [(option value, ...) | option [value] ...]
// COPY name TO 'file' [options], COPY (query) TO 'file' [options].
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {

// SELECT * FROM name: what COPY name TO writes.
std::unique_ptr<SelectStmt> SelectAllFrom(const std::string& name, SourcePos pos) {
  auto ref = std::make_unique<TableRef>(TableRefKind::Base, pos);
  ref->name = name;
  return SelectStarFrom(std::move(ref), pos);
}

}  // namespace

StatementPtr Parser::ParseCopy() {
  Next();  // COPY
  auto st = std::make_unique<CopyStatement>();
  if (AcceptOp("(")) {
    st->query = ParseQuery();
    ExpectOp(")");
    st->to = true;
    ExpectKw("to");
  } else {
    SourcePos name_pos = Cur().pos;
    st->table = ParseIdent();
    if (AcceptKw("to")) {
      st->to = true;
      st->query = SelectAllFrom(st->table, name_pos);
    } else {
      ExpectKw("from");
    }
  }
  if (Cur().kind != TokenKind::String) SyntaxError(Cur(), "expected a file name in single quotes");
  st->path = Cur().text;
  st->path_pos = Cur().pos;
  Next();
  AcceptKw("with");
  if (AcceptOp("(")) {
    do {
      st->options.push_back(ParseCopyOption(true));
    } while (AcceptOp(","));
    ExpectOp(")");
  } else {
    while (Cur().kind == TokenKind::Word) st->options.push_back(ParseCopyOption(false));
  }
  return st;
}

std::pair<std::string, std::string> Parser::ParseCopyOption(bool parenthesised) {
  const Token& n = Cur();
  if (n.kind != TokenKind::Word) SyntaxError(n, "expected a COPY option");
  std::string name = n.text;
  Next();
  const Token& v = Cur();
  switch (v.kind) {
    case TokenKind::String:
    case TokenKind::QuotedIdent: {
      std::string val = v.text;
      Next();
      return {name, val};
    }
    case TokenKind::Integer:
    case TokenKind::Decimal:
    case TokenKind::Float: {
      std::string val = v.text;
      Next();
      return {name, val};
    }
    case TokenKind::Word: {
      // Without parentheses a following word may be the next option (HEADER DELIMITER '|').
      bool take = parenthesised || v.text == "true" || v.text == "false" || v.text == "on" ||
                  v.text == "off" || name == "format" || name == "encoding" ||
                  name == "compression";
      if (take) {
        std::string val = Raw(v);
        Next();
        return {name, val};
      }
      return {name, "true"};
    }
    default:
      return {name, "true"};
  }
}

}  // namespace tessera::parser_internal
