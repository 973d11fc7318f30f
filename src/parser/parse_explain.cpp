// EXPLAIN [ANALYZE] statement | EXPLAIN (option [value], ...) statement.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseExplain() {
  Next();  // EXPLAIN
  auto st = std::make_unique<ExplainStatement>();
  if (AtOp("(") && Peek().kind == TokenKind::Word && !StartsQuery(1)) {
    Next();  // (
    do {
      const Token& o = Cur();
      if (o.kind != TokenKind::Word) SyntaxError(o, "expected an EXPLAIN option");
      std::string name = o.text;
      Next();
      bool on = true;
      const Token& v = Cur();
      if (IsKw(v, "true") || IsKw(v, "on") || (v.kind == TokenKind::Integer && v.text == "1")) {
        Next();
      } else if (IsKw(v, "false") || IsKw(v, "off") ||
                 (v.kind == TokenKind::Integer && v.text == "0")) {
        on = false;
        Next();
      }
      if (name == "analyze" || name == "analyse") {
        st->analyze = on;
      } else if ((name == "device" || name == "format") && (v.kind == TokenKind::Word || v.kind == TokenKind::String)) {
        // DEVICE gpu|cpu, FORMAT text|json: an option with a value.
        st->values.emplace_back(name, v.text);
        Next();
      } else if (name == "device" || name == "format") {
        SyntaxError(v, "EXPLAIN option " + name + " needs a value (" +
                           (name == "device" ? "gpu or cpu" : "text or json") + ")");
      } else if (on) {
        st->options.push_back(name);
      }
    } while (AcceptOp(","));
    ExpectOp(")");
  } else if (AcceptKw("analyze") || AcceptKw("analyse")) {
    st->analyze = true;
  }
  if (Cur().kind == TokenKind::End || AtOp(";")) SyntaxError(Cur(), "expected a statement to explain");
  st->inner = ParseStatement();
  return st;
}

}  // namespace tessera::parser_internal
