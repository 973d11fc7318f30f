// Star modifiers: * [EXCLUDE (col, ...) | EXCLUDE col] [REPLACE (expr AS col, ...) |
// REPLACE expr AS col], also after t.* (DuckDB's order: EXCLUDE before REPLACE). The
// binder (bind_star.cpp) applies them when it expands the star.
#include "common/ascii.hpp"
#include "common/identifier.hpp"
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

void Parser::ParseStarModifiers(Expr& star) {
  if (AcceptKw("exclude")) {
    const bool paren = AcceptOp("(");
    do {
      SourcePos pos = Cur().pos;
      std::string qualifier, name = ParseIdent();
      if (AcceptOp(".")) {
        qualifier = std::move(name);
        name = ParseIdent();
      }
      for (auto& [q, n] : star.star_exclude)
        if (IdentEquals(n, name))
          throw UserError(ErrorKind::Syntax, "Duplicate entry \"" + name + "\" in EXCLUDE list", pos);
      star.star_exclude.emplace_back(std::move(qualifier), std::move(name));
    } while (paren && AcceptOp(","));
    if (paren) ExpectOp(")");
  }
  if (AcceptKw("replace")) {
    const bool paren = AcceptOp("(");
    do {
      SourcePos pos = Cur().pos;
      ExprPtr e = ParseExpr();
      ExpectKw("as");
      std::string name = ParseAnyName();
      for (auto& n : star.star_replace)
        if (IdentEquals(n, name))
          throw UserError(ErrorKind::Syntax, "Duplicate entry \"" + name + "\" in REPLACE list", pos);
      for (auto& [q, n] : star.star_exclude)
        if (IdentEquals(n, name))
          throw UserError(ErrorKind::Syntax,
                          "Column \"" + name + "\" cannot occur in both EXCLUDE and REPLACE list", pos);
      star.star_replace.push_back(std::move(name));
      star.children.push_back(std::move(e));
    } while (paren && AcceptOp(","));
    if (paren) ExpectOp(")");
  }
}

}  // namespace tessera::parser_internal
