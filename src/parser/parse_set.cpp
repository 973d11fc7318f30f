// SET name[.name] = | TO value.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseSet() {
  Next();  // SET
  auto st = std::make_unique<SetStatement>();
  st->name = ParseAnyName();
  while (AcceptOp(".")) st->name += "." + ParseAnyName();
  st->name = IdentFold(st->name);  // a setting's name: any case
  if (!AcceptOp("=") && !AcceptKw("to")) SyntaxError(Cur(), "expected \"=\" or TO");
  const Token& v = Cur();
  switch (v.kind) {
    case TokenKind::String:
    case TokenKind::QuotedIdent:
    case TokenKind::Integer:
    case TokenKind::Decimal:
    case TokenKind::Float:
      st->value = v.text;
      break;
    case TokenKind::Word:
      st->value = Raw(v);
      break;
    case TokenKind::Operator:
      if ((v.text == "-" || v.text == "+") &&
          (Peek().kind == TokenKind::Integer || Peek().kind == TokenKind::Decimal ||
           Peek().kind == TokenKind::Float)) {
        st->value = (v.text == "-" ? "-" : "") + Peek().text;
        Next();
        break;
      }
      SyntaxError(v, "expected a value");
    default:
      SyntaxError(v, "expected a value");
  }
  Next();
  return st;
}

}  // namespace tessera::parser_internal
