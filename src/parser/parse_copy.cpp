// COPY name FROM 'file' [WITH] [(option value, ...) | option [value] ...].
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseCopy() {
  Next();  // COPY
  auto st = std::make_unique<CopyStatement>();
  st->table = ParseIdent();
  if (AtKw("to")) Unsupported(Cur().pos, "COPY ... TO");
  ExpectKw("from");
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
