// CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name (columns and constraints) | CREATE [OR
// REPLACE] TABLE name AS query, CREATE [OR REPLACE] VIEW name [(columns)] AS query.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

StatementPtr Parser::ParseCreate() {
  Next();  // CREATE
  bool or_replace = false;
  if (AcceptKw("or")) {
    ExpectKw("replace");
    or_replace = true;
  }
  if (AcceptKw("view")) return ParseCreateView(or_replace);
  if (AtKw("temp") || AtKw("temporary")) Unsupported(Cur().pos, "CREATE TEMPORARY TABLE");
  if (or_replace && !AtKw("table")) SyntaxError(Cur(), "expected TABLE or VIEW");
  if (!AtKw("table")) UnsupportedCreateOrDrop("CREATE");
  ExpectKw("table");
  auto st = std::make_unique<CreateTableStatement>();
  st->or_replace = or_replace;
  if (AtKw("if")) {
    if (or_replace)
      throw UserError(ErrorKind::Syntax, "CREATE OR REPLACE and IF NOT EXISTS cannot be used together", Cur().pos);
    Next();
    ExpectKw("not");
    ExpectKw("exists");
    st->if_not_exists = true;
  }
  st->table = ParseIdent();
  if (AcceptKw("as")) {
    st->as_select = ParseQuery();
    return st;
  }
  ExpectOp("(");
  do {
    ParseTableElement(*st);
  } while (AcceptOp(","));
  ExpectOp(")");
  return st;
}

void Parser::ParseTableElement(CreateTableStatement& st) {
  if (AcceptKw("constraint")) ParseIdent();  // constraint name, ignored
  const SourcePos key_pos = Cur().pos;
  if (AcceptKw("primary")) {
    ExpectKw("key");
    st.keys.push_back({true, ParseIdentList(), key_pos});
    return;
  }
  if (AcceptKw("unique")) {
    st.keys.push_back({false, ParseIdentList(), key_pos});
    return;
  }
  if (AcceptKw("foreign")) {
    ExpectKw("key");
    ParseIdentList();
    ExpectKw("references");
    ParseIdent();
    if (AtOp("(")) ParseIdentList();
    return;
  }
  if (AtKw("check")) Unsupported(Cur().pos, "CHECK constraint");
  ColumnDefAst col;
  col.pos = Cur().pos;
  col.name = ParseIdent();
  col.type = ParseType();
  for (;;) {
    const SourcePos key_pos = Cur().pos;
    if (AcceptKw("not")) {
      ExpectKw("null");
      col.not_null = true;
    } else if (AcceptKw("null")) {
    } else if (AcceptKw("primary")) {
      ExpectKw("key");
      col.not_null = true;
      st.keys.push_back({true, {col.name}, key_pos});
    } else if (AcceptKw("unique")) {
      st.keys.push_back({false, {col.name}, key_pos});
    } else if (AcceptKw("references")) {
      ParseIdent();
      if (AtOp("(")) ParseIdentList();
    } else if (AcceptKw("constraint")) {
      ParseIdent();
    } else if (AcceptKw("default")) {
      ParseColumnDefault(col);
    } else if (AtKw("check")) {
      Unsupported(Cur().pos, "CHECK constraint");
    } else if (AtKw("collate")) {
      Unsupported(Cur().pos, "COLLATE");
    } else {
      break;
    }
  }
  st.columns.push_back(std::move(col));
}

// DEFAULT e: the expression and its text (the catalog keeps the text).
void Parser::ParseColumnDefault(ColumnDefAst& col) {
  const Token start = Cur();
  col.default_value = ParseExpr();
  col.default_sql = std::string(src_.substr(start.begin, prev_end_ - start.begin));
}

StatementPtr Parser::ParseCreateView(bool or_replace) {
  auto st = std::make_unique<CreateViewStatement>();
  st->or_replace = or_replace;
  st->name = ParseIdent();
  if (AtOp("(")) st->column_aliases = ParseIdentList();
  ExpectKw("as");
  const Token start = Cur();
  st->query = ParseQuery();
  st->query_sql = std::string(src_.substr(start.begin, prev_end_ - start.begin));
  return st;
}

}  // namespace tessera::parser_internal
