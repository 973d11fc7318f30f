// The parser core: reserved words, statement dispatch, names and types; ParseSQL() and
// SplitStatements(). The Parser class is declared in parser_internal.hpp; each statement and
// clause is parsed in a parse_*.cpp of its own.
#include "parser/parser.hpp"

#include <string>
#include <unordered_set>

#include "parser/parser_internal.hpp"

namespace tessera {

namespace parser_internal {

// Words that cannot be used as unquoted identifiers (table/column names, aliases).
// Everything else (date, year, month, name, value, first, last, analyze, format, ...) is an
// ordinary identifier wherever the grammar does not expect that keyword.
bool IsReserved(const std::string& w) {
  static const std::unordered_set<std::string> kReserved = {
      "all",     "and",       "any",     "as",      "asc",       "between",   "case",
      "cast",    "check",     "collate", "constraint", "create", "cross",     "default",
      "desc",    "distinct",  "else",    "end",     "except",    "exists",    "false",
      "fetch",   "for",       "foreign", "from",    "full",      "group",     "having",
      "ilike",   "in",        "inner",   "intersect", "into",    "is",        "join",
      "lateral", "left",      "like",    "limit",   "natural",   "not",       "null",
      "offset",  "on",        "or",      "order",   "outer",     "primary",   "qualify",   "references",
      "returning", "right",   "select",  "some",    "table",     "then",      "true",      "union",
      "unique",  "using",     "when",    "where",   "window",    "with",
  };
  return kReserved.count(w) > 0;
}

std::string Upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
  return s;
}

std::vector<StatementPtr> Parser::ParseAll() {
  std::vector<StatementPtr> out;
  for (;;) {
    while (AcceptOp(";")) {
    }
    if (Cur().kind == TokenKind::End) break;
    out.push_back(ParseStatement());
    if (!AtOp(";") && Cur().kind != TokenKind::End) SyntaxError(Cur());
  }
  return out;
}

// ---------------------------------------------------------------- statements
StatementPtr Parser::ParseStatement() {
  DepthGuard guard(*this, Cur().pos);
  const Token start = Cur();
  StatementPtr st;
  if (AtOp("(") || StartsQuery(0)) {
    auto s = std::make_unique<SelectStatement>();
    s->select = ParseQuery();
    st = std::move(s);
  } else if (AtKw("create")) {
    st = ParseCreate();
  } else if (AtKw("drop")) {
    st = ParseDrop();
  } else if (AtKw("insert")) {
    st = ParseInsert();
  } else if (AtKw("copy")) {
    st = ParseCopy();
  } else if (AtKw("explain")) {
    st = ParseExplain();
  } else if (AtKw("set")) {
    st = ParseSet();
  } else if (AtKw("show") || AtKw("describe")) {
    st = ParseShow();
  } else if (AtKw("update")) {
    st = ParseUpdate();
  } else if (AtKw("delete")) {
    st = ParseDelete();
  } else if (AtKw("truncate")) {
    st = ParseTruncate();
  } else if (AtKw("alter")) {
    st = ParseAlter();
  } else if (AtKw("analyze") || AtKw("analyse")) {
    st = ParseAnalyze();
  } else if (AtKw("checkpoint") || (AtKw("force") && IsKw(Peek(), "checkpoint"))) {
    // [FORCE] CHECKPOINT [database]: every commit is already durable in the database's
    // files (there is no write-ahead log to fold in), so it has nothing to do.
    if (AcceptKw("force")) {}
    ExpectKw("checkpoint");
    if (Cur().kind == TokenKind::Word || Cur().kind == TokenKind::QuotedIdent) ParseIdent();
    st = std::make_unique<Statement>(StmtKind::Checkpoint);
  } else if (AtKw("begin") || AtKw("start") || AtKw("commit") || AtKw("end") || AtKw("rollback") ||
             AtKw("abort")) {
    st = ParseTransaction();
  } else if (AtKw("prepare")) {
    st = ParsePrepare();
  } else if (AtKw("execute")) {
    st = ParseExecute();
  } else if (AtKw("deallocate")) {
    st = ParseDeallocate();
  } else {
    UnsupportedStatement();
  }
  st->pos = start.pos;
  st->sql = std::string(src_.substr(start.begin, prev_end_ - start.begin));
  return st;
}

// ---------------------------------------------------------------- names and types
std::string Parser::ParseIdent() {
  const Token& t = Cur();
  if (!IsIdentToken(t)) SyntaxError(t);
  std::string s = Spelling(t);
  Next();
  return s;
}
// Any word (reserved or not) or a quoted identifier: used where no keyword can follow.
std::string Parser::ParseAnyName() {
  const Token& t = Cur();
  if (t.kind != TokenKind::Word && t.kind != TokenKind::QuotedIdent) SyntaxError(t);
  std::string s = Spelling(t);
  Next();
  return s;
}
std::vector<std::string> Parser::ParseIdentList() {
  std::vector<std::string> out;
  ExpectOp("(");
  do {
    out.push_back(ParseIdent());
  } while (AcceptOp(","));
  ExpectOp(")");
  return out;
}

int Parser::ParseTypeModifier() {
  const Token& t = Cur();
  if (t.kind != TokenKind::Integer) SyntaxError(t, "expected an integer type modifier");
  if (t.text.size() > 6) throw UserError(ErrorKind::Syntax, "type modifier out of range", t.pos);
  int v = std::stoi(t.text);
  Next();
  return v;
}

Type Parser::ParseType() {
  const Token& t = Cur();
  SourcePos pos = t.pos;
  if (t.kind != TokenKind::Word) SyntaxError(t, "expected a type name");
  std::string name = t.text;
  Next();
  if (name == "double") {
    AcceptKw("precision");
  } else if (name == "character") {
    name = AcceptKw("varying") ? "varchar" : "char";
  }
  int p = -1, s = -1;
  if (AcceptOp("(")) {
    p = ParseTypeModifier();
    if (AcceptOp(",")) s = ParseTypeModifier();
    ExpectOp(")");
  }
  return Type::FromName(name, p, s, pos);
}

}  // namespace parser_internal

std::vector<ast::StatementPtr> ParseSQL(std::string_view sql) {
  return parser_internal::Parser(sql).ParseAll();
}

std::vector<std::string> SplitStatements(std::string_view sql, bool* last_complete) {
  std::vector<std::string> out;
  const size_t n = sql.size();
  size_t start = 0, i = 0;
  bool content = false;       // the current piece has something besides space and comments
  bool unterminated = false;  // input ends inside a quote or a block comment
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  auto piece = [&](size_t end) {
    size_t b = start, e = end;
    while (b < e && is_space(sql[b])) b++;
    while (e > b && is_space(sql[e - 1])) e--;
    if (b < e) out.emplace_back(sql.substr(b, e - b));
  };
  while (i < n && !unterminated) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      content = true;
      i++;
      for (;;) {
        if (i >= n) {
          unterminated = true;
          break;
        }
        if (sql[i] == c) {
          if (i + 1 < n && sql[i + 1] == c) {
            i += 2;
            continue;
          }
          i++;
          break;
        }
        i++;
      }
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      while (i < n && sql[i] != '\n') i++;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      i += 2;
      int depth = 1;
      while (depth > 0) {
        if (i >= n) {
          unterminated = true;
          break;
        }
        if (sql[i] == '*' && i + 1 < n && sql[i + 1] == '/') {
          depth--;
          i += 2;
        } else if (sql[i] == '/' && i + 1 < n && sql[i + 1] == '*') {
          depth++;
          i += 2;
        } else {
          i++;
        }
      }
    } else if (c == ';') {
      if (content) piece(i);
      content = false;
      i++;
      start = i;
    } else {
      if (!is_space(c)) content = true;
      i++;
    }
  }
  if (content || unterminated) piece(n);
  if (last_complete) *last_complete = !content && !unterminated;
  return out;
}

}  // namespace tessera
