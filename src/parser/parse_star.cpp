// Star modifiers: * [EXCLUDE (col, ...) | EXCLUDE col] [REPLACE (expr AS col, ...) |
// REPLACE expr AS col], also after t.* (DuckDB's order: EXCLUDE before REPLACE). The
// binder (bind_star.cpp) applies them when it expands the star. And DuckDB's COLUMNS(...)
// star expression, which may stand inside expressions (bind_columns_star.cpp).
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

// COLUMNS(* [modifiers]) | COLUMNS(t.* [modifiers]) | COLUMNS('regex') | COLUMNS(['a', ...])
// | COLUMNS(c -> cond) | COLUMNS(lambda c: cond),
// the word COLUMNS read: a Star with `columns` set.
ExprPtr Parser::ParseColumnsStar(SourcePos pos) {
  ExpectOp("(");
  auto e = std::make_unique<Expr>(ExprKind::Star, pos);
  e->columns = true;
  const Token& t = Cur();
  if (AcceptOp("*")) {
    ParseStarModifiers(*e);
  } else if (IsIdentToken(t) && IsOp(Peek(), ".") && IsOp(Peek(2), "*")) {
    e->table = Spelling(t);
    Next();
    Next();
    Next();
    ParseStarModifiers(*e);
  } else if (IsIdentToken(t) && IsOp(Peek(), "-") && IsOp(Peek(2), ">") && Peek().end == Peek(2).begin) {
    e->columns_lambda = true;  // c -> cond
    e->name = Spelling(t);
    Next();
    Next();
    Next();
    e->children.push_back(ParseExpr());
  } else if (IsKw(t, "lambda") && IsIdentToken(Peek()) && IsOp(Peek(2), ":")) {
    e->columns_lambda = true;  // lambda c: cond
    e->name = Spelling(Peek());
    Next();
    Next();
    Next();
    e->children.push_back(ParseExpr());
  } else if (t.kind == TokenKind::String) {
    e->columns_regex = true;
    e->text = t.text;
    Next();
  } else if (AtOp("[")) {
    Next();
    e->columns_list = true;
    {
      do {
        if (Cur().kind != TokenKind::String)
          throw UserError(ErrorKind::Binder, "COLUMNS expects either a VARCHAR argument (regex) or a LIST of VARCHAR (list of columns)", Cur().pos);
        e->columns_names.push_back(Cur().text);
        Next();
      } while (AcceptOp(","));
    }
    ExpectOp("]");
  } else {
    throw UserError(ErrorKind::Binder,
                    "COLUMNS expects either a VARCHAR argument (regex) or a LIST of VARCHAR (list of columns)", t.pos);
  }
  ExpectOp(")");
  return Done(std::move(e));
}

}  // namespace tessera::parser_internal
