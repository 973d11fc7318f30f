// CREATE [OR REPLACE] [TEMP | TEMPORARY] TABLE [IF NOT EXISTS] name (columns and
// constraints) | CREATE [OR REPLACE] [TEMP] TABLE name AS query, CREATE [OR REPLACE] [TEMP]
// VIEW name [(columns)] AS query; CREATE ... SEQUENCE is parse_sequence.cpp's.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

// IF NOT EXISTS after CREATE [OR REPLACE] ... (true when there), refused beside OR REPLACE.
bool Parser::ParseIfNotExists(bool or_replace) {
  if (!AtKw("if")) return false;
  if (or_replace)
    throw UserError(ErrorKind::Syntax, "CREATE OR REPLACE and IF NOT EXISTS cannot be used together", Cur().pos);
  Next();
  ExpectKw("not");
  ExpectKw("exists");
  return true;
}

StatementPtr Parser::ParseCreate() {
  Next();  // CREATE
  bool or_replace = false;
  if (AcceptKw("or")) {
    ExpectKw("replace");
    or_replace = true;
  }
  const bool temporary = AcceptKw("temp") || AcceptKw("temporary");
  if (AcceptKw("view")) return ParseCreateView(or_replace, temporary);
  if (AcceptKw("sequence")) return ParseCreateSequence(or_replace, temporary);
  if (or_replace && !AtKw("table")) SyntaxError(Cur(), "expected TABLE, VIEW or SEQUENCE");
  if (!AtKw("table")) UnsupportedCreateOrDrop("CREATE");
  ExpectKw("table");
  auto st = std::make_unique<CreateTableStatement>();
  st->or_replace = or_replace;
  st->temporary = temporary;
  st->if_not_exists = ParseIfNotExists(or_replace);
  st->table = ParseCreatedName(&st->temporary, "table");
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

std::string Parser::ParseCreatedName(bool* temporary, const char* object) {
  const SourcePos pos = Cur().pos;
  std::vector<std::string> parts{ParseIdent()};
  while (parts.size() < 3 && AcceptOp(".")) parts.push_back(ParseIdent());
  if (AtOp(".")) SyntaxError(Cur());
  if (parts.size() == 3) {
    if (!IdentEquals(parts[0], "temp"))
      Unsupported(pos, std::string("a ") + object + " name qualified by a database other than temp");
    if (!IdentEquals(parts[1], "main"))
      throw UserError(ErrorKind::Catalog, "schema \"" + parts[1] + "\" does not exist", pos);
  } else if (parts.size() == 2 && !IdentEquals(parts[0], "temp") && !IdentEquals(parts[0], "main")) {
    throw UserError(ErrorKind::Catalog, "schema \"" + parts[0] + "\" does not exist", pos);
  }
  if (parts.size() > 1 && IdentEquals(parts[0], "temp") && !*temporary)
    throw UserError(ErrorKind::Syntax,
                    std::string("Only TEMPORARY ") + object + " names can use the \"temp\" catalog", pos);
  return parts.back();
}

StatementPtr Parser::ParseCreateView(bool or_replace, bool temporary) {
  auto st = std::make_unique<CreateViewStatement>();
  st->or_replace = or_replace;
  st->temporary = temporary;
  st->name = ParseCreatedName(&st->temporary, "view");
  if (AtOp("(")) st->column_aliases = ParseIdentList();
  ExpectKw("as");
  const Token start = Cur();
  st->query = ParseQuery();
  st->query_sql = std::string(src_.substr(start.begin, prev_end_ - start.begin));
  return st;
}

}  // namespace tessera::parser_internal
