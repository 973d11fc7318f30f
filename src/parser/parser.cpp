// Recursive-descent SQL parser: tokens (lexer.hpp) -> AST (ast.hpp).
//
// Expressions use precedence climbing; the levels, lowest first, are listed in Prec below.
// Recursion is bounded: every entry that can nest (parenthesised expression, subquery,
// prefix operator, parenthesised join, EXPLAIN) takes a DepthGuard, and the height of every
// tree built is tracked (Expr::height, sel_max_) and capped at kMaxTreeHeight so that the
// passes after the parser (and the destructors) cannot overflow the stack.
#include "parser/parser.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>

#include "parser/lexer.hpp"

namespace tessera {

namespace {

using namespace ast;

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
      "offset",  "on",        "or",      "order",   "outer",     "primary",   "references",
      "right",   "select",    "some",    "table",   "then",      "true",      "union",
      "unique",  "using",     "when",    "where",   "window",    "with",
  };
  return kReserved.count(w) > 0;
}

std::string Upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
  return s;
}

// Interval units, singular. Accepts the plural form too.
bool NormalizeUnit(std::string w, std::string* unit) {
  for (auto& c : w)
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
  static const char* const kUnits[] = {"year",   "quarter", "month",       "week",       "day",
                                       "hour",   "minute",  "second",      "millisecond",
                                       "microsecond"};
  if (w.size() > 1 && w.back() == 's') {
    std::string singular = w.substr(0, w.size() - 1);
    for (const char* u : kUnits)
      if (singular == u) w = singular;
  }
  for (const char* u : kUnits) {
    if (w == u) {
      *unit = w;
      return true;
    }
  }
  return false;
}

// Binding strength of infix/postfix operators, lowest first.
enum Prec {
  kNone = 0,
  kOr = 1,
  kAnd = 2,
  kNot = 3,     // prefix NOT
  kIs = 4,      // IS [NOT] NULL
  kCmp = 5,     // = <> != < <= > >=
  kPred = 6,    // [NOT] BETWEEN / IN / LIKE
  kConcat = 7,  // ||
  kAdd = 8,     // + -
  kMul = 9,     // * / %
  kUnary = 10,  // prefix - +
  kCast = 11,   // postfix ::type
};

class Parser {
 public:
  explicit Parser(std::string_view sql) : src_(sql), toks_(Tokenize(sql)) {}

  std::vector<StatementPtr> ParseAll() {
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

 private:
  // ---------------------------------------------------------------- token helpers
  const Token& Cur() const { return toks_[i_]; }
  const Token& Peek(size_t k = 1) const {
    size_t j = i_ + k;
    return j < toks_.size() ? toks_[j] : toks_.back();
  }
  void Next() {
    if (toks_[i_].kind != TokenKind::End) {
      prev_end_ = toks_[i_].end;
      i_++;
    }
  }
  static bool IsKw(const Token& t, const char* kw) { return t.kind == TokenKind::Word && t.text == kw; }
  static bool IsOp(const Token& t, const char* op) {
    return t.kind == TokenKind::Operator && t.text == op;
  }
  bool AtKw(const char* kw) const { return IsKw(Cur(), kw); }
  bool AtOp(const char* op) const { return IsOp(Cur(), op); }
  bool AcceptKw(const char* kw) {
    if (!AtKw(kw)) return false;
    Next();
    return true;
  }
  bool AcceptOp(const char* op) {
    if (!AtOp(op)) return false;
    Next();
    return true;
  }
  void ExpectKw(const char* kw) {
    if (!AcceptKw(kw)) SyntaxError(Cur(), "expected " + Upper(kw));
  }
  void ExpectOp(const char* op) {
    if (!AcceptOp(op)) SyntaxError(Cur(), std::string("expected \"") + op + "\"");
  }
  // An unquoted non-reserved word or a quoted identifier.
  static bool IsIdentToken(const Token& t) {
    return t.kind == TokenKind::QuotedIdent || (t.kind == TokenKind::Word && !IsReserved(t.text));
  }
  static bool StartsQuery(const Token& t) { return IsKw(t, "select") || IsKw(t, "with"); }
  // A token that continues a query after a complete (parenthesised) operand.
  bool AtQueryTail() const {
    return AtKw("union") || AtKw("intersect") || AtKw("except") || AtKw("order") || AtKw("limit") ||
           AtKw("offset");
  }
  std::string Raw(const Token& t) const { return std::string(src_.substr(t.begin, t.end - t.begin)); }

  // ---------------------------------------------------------------- errors and limits
  [[noreturn]] void SyntaxError(const Token& t, const std::string& detail = "") const {
    std::string msg = t.kind == TokenKind::End
                          ? std::string("syntax error at end of input")
                          : "syntax error at or near \"" + TokenExcerpt(src_, t) + "\"";
    if (!detail.empty()) msg += ": " + detail;
    throw UserError(ErrorKind::Syntax, msg, t.pos);
  }
  [[noreturn]] static void Unsupported(SourcePos pos, const std::string& what) {
    throw UserError(ErrorKind::Unsupported, what + " is not supported", pos);
  }

  struct DepthGuard {
    Parser& p;
    DepthGuard(Parser& parser, SourcePos pos) : p(parser) {
      if (++p.depth_ > kMaxNestingDepth) {
        --p.depth_;
        throw UserError(ErrorKind::Syntax,
                        "statement is nested too deeply (more than " +
                            std::to_string(kMaxNestingDepth) + " levels)",
                        pos);
      }
    }
    ~DepthGuard() { --p.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  // Records that a subtree of height h was built inside the current query.
  void Note(int h, SourcePos pos) {
    if (h > kMaxTreeHeight)
      throw UserError(ErrorKind::Syntax,
                      "statement is too complex (expression or query more than " +
                          std::to_string(kMaxTreeHeight) + " levels deep)",
                      pos);
    sel_max_ = std::max(sel_max_, h);
  }

  // Computes e->height from its children (and `extra`, a subquery's height) and checks it.
  ExprPtr Done(ExprPtr e, int extra = 0) {
    int h = extra;
    for (auto& c : e->children)
      if (c) h = std::max(h, c->height);
    e->height = h + 1;
    Note(e->height, e->pos);
    return e;
  }

  // ---------------------------------------------------------------- statements
  StatementPtr ParseStatement() {
    DepthGuard guard(*this, Cur().pos);
    const Token start = Cur();
    StatementPtr st;
    if (AtOp("(") || StartsQuery(Cur())) {
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
    } else {
      SyntaxError(Cur());
    }
    st->pos = start.pos;
    st->sql = std::string(src_.substr(start.begin, prev_end_ - start.begin));
    return st;
  }

  StatementPtr ParseCreate() {
    Next();  // CREATE
    bool or_replace = false;
    if (AcceptKw("or")) {
      ExpectKw("replace");
      or_replace = true;
    }
    if (AcceptKw("view")) return ParseCreateView(or_replace);
    if (or_replace) SyntaxError(Cur(), "expected VIEW");
    if (AtKw("temp") || AtKw("temporary")) Unsupported(Cur().pos, "CREATE TEMPORARY TABLE");
    ExpectKw("table");
    auto st = std::make_unique<CreateTableStatement>();
    if (AcceptKw("if")) {
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

  void ParseTableElement(CreateTableStatement& st) {
    if (AcceptKw("constraint")) ParseIdent();  // constraint name, ignored
    if (AcceptKw("primary")) {
      ExpectKw("key");
      ParseIdentList();
      return;
    }
    if (AcceptKw("unique")) {
      ParseIdentList();
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
      if (AcceptKw("not")) {
        ExpectKw("null");
        col.not_null = true;
      } else if (AcceptKw("null")) {
      } else if (AcceptKw("primary")) {
        ExpectKw("key");
        col.not_null = true;
      } else if (AcceptKw("unique")) {
      } else if (AcceptKw("references")) {
        ParseIdent();
        if (AtOp("(")) ParseIdentList();
      } else if (AcceptKw("constraint")) {
        ParseIdent();
      } else if (AtKw("default")) {
        Unsupported(Cur().pos, "DEFAULT");
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

  StatementPtr ParseCreateView(bool or_replace) {
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

  StatementPtr ParseDrop() {
    Next();  // DROP
    StmtKind kind;
    if (AcceptKw("table")) {
      kind = StmtKind::DropTable;
    } else if (AcceptKw("view")) {
      kind = StmtKind::DropView;
    } else {
      SyntaxError(Cur(), "expected TABLE or VIEW");
    }
    auto st = std::make_unique<DropStatement>(kind);
    if (AcceptKw("if")) {
      ExpectKw("exists");
      st->if_exists = true;
    }
    st->name = ParseIdent();
    return st;
  }

  StatementPtr ParseInsert() {
    Next();  // INSERT
    ExpectKw("into");
    auto st = std::make_unique<InsertStatement>();
    st->table = ParseIdent();
    if (AtOp("(") && !StartsQuery(Peek()) && !IsOp(Peek(), "(")) st->columns = ParseIdentList();
    if (AcceptKw("values")) {
      size_t width = 0;
      do {
        const Token& open = Cur();
        SourcePos pos = open.pos;
        ExpectOp("(");
        std::vector<ExprPtr> row;
        do {
          row.push_back(ParseExpr());
        } while (AcceptOp(","));
        ExpectOp(")");
        if (st->rows.empty()) {
          width = row.size();
        } else if (row.size() != width) {
          throw UserError(ErrorKind::Syntax, "VALUES lists must all be the same length", pos);
        }
        st->rows.push_back(std::move(row));
      } while (AcceptOp(","));
    } else if (AtOp("(") || StartsQuery(Cur())) {
      st->select = ParseQuery();
    } else {
      SyntaxError(Cur(), "expected VALUES or SELECT");
    }
    return st;
  }

  StatementPtr ParseCopy() {
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

  std::pair<std::string, std::string> ParseCopyOption(bool parenthesised) {
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

  StatementPtr ParseExplain() {
    Next();  // EXPLAIN
    auto st = std::make_unique<ExplainStatement>();
    if (AtOp("(") && Peek().kind == TokenKind::Word && !StartsQuery(Peek())) {
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

  StatementPtr ParseSet() {
    Next();  // SET
    auto st = std::make_unique<SetStatement>();
    st->name = ParseAnyName();
    while (AcceptOp(".")) st->name += "." + ParseAnyName();
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

  // ---------------------------------------------------------------- names and types
  std::string ParseIdent() {
    const Token& t = Cur();
    if (!IsIdentToken(t)) SyntaxError(t);
    std::string s = t.text;
    Next();
    return s;
  }
  // Any word (reserved or not) or a quoted identifier: used where no keyword can follow.
  std::string ParseAnyName() {
    const Token& t = Cur();
    if (t.kind != TokenKind::Word && t.kind != TokenKind::QuotedIdent) SyntaxError(t);
    std::string s = t.text;
    Next();
    return s;
  }
  std::vector<std::string> ParseIdentList() {
    std::vector<std::string> out;
    ExpectOp("(");
    do {
      out.push_back(ParseIdent());
    } while (AcceptOp(","));
    ExpectOp(")");
    return out;
  }

  int ParseTypeModifier() {
    const Token& t = Cur();
    if (t.kind != TokenKind::Integer) SyntaxError(t, "expected an integer type modifier");
    if (t.text.size() > 6) throw UserError(ErrorKind::Syntax, "type modifier out of range", t.pos);
    int v = std::stoi(t.text);
    Next();
    return v;
  }

  Type ParseType() {
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

  // ---------------------------------------------------------------- queries
  std::unique_ptr<SelectStmt> ParseQuery() {
    DepthGuard guard(*this, Cur().pos);
    SourcePos pos = Cur().pos;
    int saved = sel_max_;
    sel_max_ = 0;
    std::vector<CommonTableExpr> ctes;
    if (AcceptKw("with")) {
      if (AtKw("recursive")) Unsupported(Cur().pos, "WITH RECURSIVE");
      do {
        CommonTableExpr cte;
        cte.pos = Cur().pos;
        cte.name = ParseIdent();
        if (AtOp("(")) cte.column_aliases = ParseIdentList();
        ExpectKw("as");
        ExpectOp("(");
        cte.query = ParseQuery();
        ExpectOp(")");
        ctes.push_back(std::move(cte));
      } while (AcceptOp(","));
    }
    auto head = ParseSetOperand();
    auto q = ParseQueryRest(std::move(head), std::move(ctes), pos);
    sel_max_ = std::max(saved, last_query_height_);
    return q;
  }

  // One operand of a set operation: SELECT ... or ( query ).
  std::unique_ptr<SelectStmt> ParseSetOperand() {
    if (AtOp("(")) {
      Next();
      auto q = ParseQuery();
      ExpectOp(")");
      return q;
    }
    if (AtKw("select")) return ParseSelectCore();
    if (AtKw("values")) Unsupported(Cur().pos, "VALUES as a query");
    SyntaxError(Cur());
  }

  static bool HasTail(const SelectStmt& s) {
    return !s.order_by.empty() || s.limit.has_value() || s.offset.has_value();
  }

  // SELECT * FROM (q): used where q cannot be merged into the enclosing query node.
  std::unique_ptr<SelectStmt> Wrap(std::unique_ptr<SelectStmt> q) {
    SourcePos pos = q->pos;
    auto w = std::make_unique<SelectStmt>();
    w->pos = pos;
    SelectItem item;
    item.expr = std::make_unique<Expr>(ExprKind::Star, pos);
    w->select_list.push_back(std::move(item));
    auto ref = std::make_unique<TableRef>(TableRefKind::Subquery, pos);
    ref->subquery = std::move(q);
    w->from.push_back(std::move(ref));
    Note(sel_max_ + 2, pos);
    return w;
  }

  // Given the first operand, parses [set-op operand]... [ORDER BY] [LIMIT] [OFFSET] and
  // attaches `ctes`. Sets last_query_height_.
  std::unique_ptr<SelectStmt> ParseQueryRest(std::unique_ptr<SelectStmt> head,
                                             std::vector<CommonTableExpr> ctes, SourcePos pos) {
    bool chain = AtKw("union") || AtKw("intersect") || AtKw("except");
    if (chain && (HasTail(*head) || !head->ctes.empty())) head = Wrap(std::move(head));
    SelectStmt* tail = head.get();
    while (tail->set_rhs) tail = tail->set_rhs.get();
    int links = 0;
    for (;;) {
      SetOpKind kind;
      SourcePos op_pos = Cur().pos;
      if (AcceptKw("union")) {
        kind = AcceptKw("all") ? SetOpKind::UnionAll : SetOpKind::Union;
        if (kind == SetOpKind::Union) AcceptKw("distinct");
      } else if (AcceptKw("intersect")) {
        if (AtKw("all")) Unsupported(op_pos, "INTERSECT ALL");
        AcceptKw("distinct");
        kind = SetOpKind::Intersect;
      } else if (AcceptKw("except")) {
        if (AtKw("all")) Unsupported(op_pos, "EXCEPT ALL");
        AcceptKw("distinct");
        kind = SetOpKind::Except;
      } else {
        break;
      }
      auto rhs = ParseSetOperand();
      if (rhs->set_op != SetOpKind::None || HasTail(*rhs) || !rhs->ctes.empty())
        rhs = Wrap(std::move(rhs));
      tail->set_op = kind;
      tail->set_rhs = std::move(rhs);
      tail = tail->set_rhs.get();
      links++;
      Note(sel_max_ + links, op_pos);
    }

    std::vector<OrderItem> order;
    std::optional<int64_t> limit, offset;
    bool limit_seen = false, offset_seen = false;
    if (AcceptKw("order")) {
      ExpectKw("by");
      do {
        OrderItem item;
        item.expr = ParseExpr();
        if (AcceptKw("desc")) {
          item.desc = true;
        } else {
          AcceptKw("asc");
        }
        if (AcceptKw("nulls")) {
          if (AcceptKw("first")) {
            item.nulls_first = true;
          } else if (AcceptKw("last")) {
            item.nulls_first = false;
          } else {
            SyntaxError(Cur(), "expected FIRST or LAST");
          }
        }
        order.push_back(std::move(item));
      } while (AcceptOp(","));
    }
    for (;;) {
      if (!limit_seen && AtKw("limit")) {
        Next();
        limit_seen = true;
        if (!AcceptKw("all")) limit = ParseCount("LIMIT");
      } else if (!offset_seen && AtKw("offset")) {
        Next();
        offset_seen = true;
        offset = ParseCount("OFFSET");
        if (!AcceptKw("rows")) AcceptKw("row");
      } else {
        break;
      }
    }
    bool has_tail = !order.empty() || limit || offset;
    if (!chain) {
      // A single parenthesised operand: merge what can be merged without changing meaning.
      bool head_limited = head->limit.has_value() || head->offset.has_value();
      if ((has_tail && head_limited) || (!ctes.empty() && !head->ctes.empty()))
        head = Wrap(std::move(head));
    }
    if (!order.empty()) head->order_by = std::move(order);
    if (limit) head->limit = limit;
    if (offset) head->offset = offset;
    if (!ctes.empty()) head->ctes = std::move(ctes);
    head->pos = pos;
    last_query_height_ = sel_max_ + 1;
    Note(last_query_height_, pos);
    return head;
  }

  int64_t ParseCount(const char* what) {
    const Token& t = Cur();
    std::string msg = std::string(what) + " must be a non-negative integer";
    if (t.kind != TokenKind::Integer) throw UserError(ErrorKind::Syntax, msg, t.pos);
    int64_t v = 0;
    for (char c : t.text) {
      int d = c - '0';
      if (v > (INT64_MAX - d) / 10) throw UserError(ErrorKind::Syntax, msg, t.pos);
      v = v * 10 + d;
    }
    Next();
    return v;
  }

  std::unique_ptr<SelectStmt> ParseSelectCore() {
    auto s = std::make_unique<SelectStmt>();
    s->pos = Cur().pos;
    ExpectKw("select");
    if (AcceptKw("distinct")) {
      if (AtKw("on")) Unsupported(Cur().pos, "DISTINCT ON");
      s->distinct = true;
    } else {
      AcceptKw("all");
    }
    do {
      s->select_list.push_back(ParseSelectItem());
    } while (AcceptOp(","));
    if (AcceptKw("from")) {
      do {
        int h = 0;
        s->from.push_back(ParseFromItem(&h));
      } while (AcceptOp(","));
    }
    if (AcceptKw("where")) s->where = ParseExpr();
    if (AcceptKw("group")) {
      ExpectKw("by");
      do {
        s->group_by.push_back(ParseExpr());
      } while (AcceptOp(","));
    }
    if (AcceptKw("having")) s->having = ParseExpr();
    if (AtKw("window")) Unsupported(Cur().pos, "WINDOW");
    return s;
  }

  SelectItem ParseSelectItem() {
    SelectItem item;
    if (AtOp("*")) {
      item.expr = Done(std::make_unique<Expr>(ExprKind::Star, Cur().pos));
      Next();
      return item;
    }
    item.expr = ParseExpr();
    if (item.expr->kind == ExprKind::Star) return item;
    if (AcceptKw("as")) {
      item.alias = ParseAnyName();
    } else if (IsIdentToken(Cur())) {
      item.alias = Cur().text;
      Next();
    }
    return item;
  }

  // table_primary { [join_type] JOIN table_primary ON expr | CROSS JOIN table_primary }
  TableRefPtr ParseFromItem(int* height) {
    int lh = 0;
    TableRefPtr left = ParseTablePrimary(&lh);
    for (;;) {
      JoinType jt;
      if (AcceptKw("cross")) {
        ExpectKw("join");
        jt = JoinType::Cross;
      } else if (AcceptKw("join")) {
        jt = JoinType::Inner;
      } else if (AcceptKw("inner")) {
        ExpectKw("join");
        jt = JoinType::Inner;
      } else if (AtKw("left") || AtKw("right") || AtKw("full")) {
        jt = AtKw("left") ? JoinType::Left : AtKw("right") ? JoinType::Right : JoinType::Full;
        Next();
        AcceptKw("outer");
        ExpectKw("join");
      } else if (AtKw("natural")) {
        Unsupported(Cur().pos, "NATURAL JOIN");
      } else {
        break;
      }
      int rh = 0;
      TableRefPtr right = ParseTablePrimary(&rh);
      auto j = std::make_unique<TableRef>(TableRefKind::Join, left->pos);
      j->join_type = jt;
      j->left = std::move(left);
      j->right = std::move(right);
      int h = std::max(lh, rh);
      if (jt != JoinType::Cross) {
        if (AtKw("using")) Unsupported(Cur().pos, "JOIN ... USING (use ON)");
        ExpectKw("on");
        j->on = ParseExpr();
        h = std::max(h, j->on->height);
      }
      lh = h + 1;
      Note(lh, j->pos);
      left = std::move(j);
    }
    *height = lh;
    return left;
  }

  TableRefPtr ParseTablePrimary(int* height) {
    DepthGuard guard(*this, Cur().pos);
    SourcePos pos = Cur().pos;
    if (AtOp("(")) {
      if (StartsQuery(Peek())) {
        Next();
        auto q = ParseQuery();
        ExpectOp(")");
        return SubqueryRef(std::move(q), pos, height);
      }
      Next();  // (
      int ih = 0;
      TableRefPtr inner = ParseFromItem(&ih);
      if (inner->kind == TableRefKind::Subquery && inner->alias.empty() && AtQueryTail()) {
        // ((SELECT ...) UNION (SELECT ...)) alias
        auto q = ParseQueryRest(std::move(inner->subquery), {}, inner->pos);
        ExpectOp(")");
        return SubqueryRef(std::move(q), pos, height);
      }
      ExpectOp(")");
      *height = ih;
      return inner;
    }
    if (Cur().kind == TokenKind::Word && (Cur().text == "lateral" || Cur().text == "values"))
      Unsupported(pos, Upper(Cur().text) + " in FROM");
    auto t = std::make_unique<TableRef>(TableRefKind::Base, pos);
    t->name = ParseIdent();
    if (AtOp(".")) Unsupported(Cur().pos, "qualified table names");
    if (AtOp("(")) Unsupported(Cur().pos, "table functions");
    ParseTableAlias(*t);
    *height = 1;
    return t;
  }

  TableRefPtr SubqueryRef(std::unique_ptr<SelectStmt> q, SourcePos pos, int* height) {
    auto t = std::make_unique<TableRef>(TableRefKind::Subquery, pos);
    t->subquery = std::move(q);
    *height = last_query_height_ + 1;
    Note(*height, pos);
    ParseTableAlias(*t);
    return t;
  }

  void ParseTableAlias(TableRef& t) {
    if (AcceptKw("as")) {
      t.alias = ParseIdent();
    } else if (IsIdentToken(Cur())) {
      t.alias = Cur().text;
      Next();
    } else {
      return;
    }
    if (AtOp("(")) t.column_aliases = ParseIdentList();
  }

  // ---------------------------------------------------------------- expressions
  ExprPtr ParseExpr() {
    DepthGuard guard(*this, Cur().pos);
    return ParseBinary(kOr);
  }

  int InfixPrec() const {
    const Token& t = Cur();
    if (t.kind == TokenKind::Operator) {
      const std::string& o = t.text;
      if (o == "=" || o == "<>" || o == "!=" || o == "<" || o == "<=" || o == ">" || o == ">=")
        return kCmp;
      if (o == "||") return kConcat;
      if (o == "+" || o == "-") return kAdd;
      if (o == "*" || o == "/" || o == "//" || o == "%") return kMul;
      if (o == "::") return kCast;
      return kNone;
    }
    if (t.kind != TokenKind::Word) return kNone;
    const std::string& w = t.text;
    if (w == "or") return kOr;
    if (w == "and") return kAnd;
    if (w == "is") return kIs;
    if (w == "between" || w == "in" || w == "like" || w == "ilike") return kPred;
    if (w == "not") {
      const Token& n = Peek();
      if (IsKw(n, "between") || IsKw(n, "in") || IsKw(n, "like") || IsKw(n, "ilike")) return kPred;
    }
    return kNone;
  }

  ExprPtr ParseBinary(int min_prec) {
    ExprPtr left = ParsePrefix();
    for (;;) {
      int p = InfixPrec();
      if (p == kNone || p < min_prec) break;
      left = ParseInfix(std::move(left), p);
    }
    return left;
  }

  ExprPtr MakeBinary(Op op, ExprPtr l, ExprPtr r) {
    auto e = std::make_unique<Expr>(ExprKind::Binary, l->pos);
    e->op = op;
    e->children.push_back(std::move(l));
    e->children.push_back(std::move(r));
    return Done(std::move(e));
  }

  ExprPtr ParsePrefix() {
    const Token& t = Cur();
    SourcePos pos = t.pos;
    if (IsKw(t, "not")) {
      DepthGuard guard(*this, pos);
      Next();
      ExprPtr operand = ParseBinary(kNot);
      if (operand->kind == ExprKind::Exists) {  // NOT EXISTS (...)
        operand->negated = !operand->negated;
        operand->pos = pos;
        return operand;
      }
      auto e = std::make_unique<Expr>(ExprKind::Unary, pos);
      e->op = Op::Not;
      e->children.push_back(std::move(operand));
      return Done(std::move(e));
    }
    if (IsOp(t, "-") || IsOp(t, "+")) {
      DepthGuard guard(*this, pos);
      Op op = t.text == "-" ? Op::Neg : Op::Plus;
      Next();
      auto e = std::make_unique<Expr>(ExprKind::Unary, pos);
      e->op = op;
      e->children.push_back(ParseBinary(kUnary));
      return Done(std::move(e));
    }
    return ParsePrimary();
  }

  ExprPtr ParseInfix(ExprPtr left, int prec) {
    const Token& t = Cur();
    SourcePos pos = left->pos;
    if (t.kind == TokenKind::Operator) {
      const std::string o = t.text;
      Next();
      if (o == "::") {
        auto e = std::make_unique<Expr>(ExprKind::Cast, pos);
        e->cast_type = ParseType();
        e->children.push_back(std::move(left));
        return Done(std::move(e));
      }
      Op op = o == "=" ? Op::Eq : (o == "<>" || o == "!=") ? Op::Ne : o == "<" ? Op::Lt
            : o == "<=" ? Op::Le : o == ">" ? Op::Gt : o == ">=" ? Op::Ge : o == "||" ? Op::Concat
            : o == "+" ? Op::Add : o == "-" ? Op::Sub : o == "*" ? Op::Mul : o == "/" ? Op::Div
            : o == "//" ? Op::IntDiv : Op::Mod;
      ExprPtr right = ParseBinary(prec + 1);
      return MakeBinary(op, std::move(left), std::move(right));
    }
    if (AcceptKw("or")) return MakeBinary(Op::Or, std::move(left), ParseBinary(kAnd));
    if (AcceptKw("and")) return MakeBinary(Op::And, std::move(left), ParseBinary(kNot));
    if (AcceptKw("is")) {
      auto e = std::make_unique<Expr>(ExprKind::IsNull, pos);
      e->negated = AcceptKw("not");
      if (AtKw("distinct")) Unsupported(Cur().pos, "IS [NOT] DISTINCT FROM");
      if (AtKw("true") || AtKw("false")) Unsupported(Cur().pos, "IS [NOT] TRUE/FALSE");
      ExpectKw("null");
      e->children.push_back(std::move(left));
      return Done(std::move(e));
    }
    bool negated = AcceptKw("not");
    SourcePos kw_pos = Cur().pos;
    if (AcceptKw("between")) {
      if (AtKw("symmetric")) Unsupported(Cur().pos, "BETWEEN SYMMETRIC");
      auto e = std::make_unique<Expr>(ExprKind::Between, pos);
      e->negated = negated;
      e->children.push_back(std::move(left));
      e->children.push_back(ParseBinary(kPred + 1));
      ExpectKw("and");
      e->children.push_back(ParseBinary(kPred + 1));
      return Done(std::move(e));
    }
    if (AcceptKw("in")) return ParseIn(std::move(left), negated);
    if (AcceptKw("like")) {
      auto e = std::make_unique<Expr>(ExprKind::Like, pos);
      e->negated = negated;
      e->children.push_back(std::move(left));
      e->children.push_back(ParseBinary(kPred + 1));
      if (AtKw("escape")) Unsupported(Cur().pos, "LIKE ... ESCAPE");
      return Done(std::move(e));
    }
    if (AtKw("ilike")) Unsupported(kw_pos, "ILIKE");
    SyntaxError(Cur());  // not reached: InfixPrec only reports the operators handled above
  }

  ExprPtr ParseIn(ExprPtr left, bool negated) {
    SourcePos pos = left->pos;
    ExpectOp("(");
    if (StartsQuery(Cur())) {
      auto q = ParseQuery();
      ExpectOp(")");
      return MakeInSubquery(std::move(left), negated, std::move(q));
    }
    auto e = std::make_unique<Expr>(ExprKind::InList, pos);
    e->negated = negated;
    e->children.push_back(std::move(left));
    do {
      e->children.push_back(ParseExpr());
      if (e->children.size() == 2 && e->children[1]->kind == ExprKind::Subquery && AtQueryTail()) {
        // x IN ((SELECT ...) UNION (SELECT ...))
        ExprPtr sub = std::move(e->children[1]);
        auto q = ParseQueryRest(std::move(sub->subquery), {}, sub->pos);
        ExpectOp(")");
        return MakeInSubquery(std::move(e->children[0]), negated, std::move(q));
      }
    } while (AcceptOp(","));
    ExpectOp(")");
    return Done(std::move(e));
  }

  ExprPtr MakeInSubquery(ExprPtr left, bool negated, std::unique_ptr<SelectStmt> q) {
    auto e = std::make_unique<Expr>(ExprKind::InSubquery, left->pos);
    e->negated = negated;
    e->children.push_back(std::move(left));
    e->subquery = std::move(q);
    return Done(std::move(e), last_query_height_);
  }

  ExprPtr MakeSubquery(std::unique_ptr<SelectStmt> q, SourcePos pos) {
    auto e = std::make_unique<Expr>(ExprKind::Subquery, pos);
    e->subquery = std::move(q);
    return Done(std::move(e), last_query_height_);
  }

  ExprPtr Literal(LiteralKind kind, std::string text, SourcePos pos) {
    auto e = std::make_unique<Expr>(ExprKind::Literal, pos);
    e->lit = kind;
    e->text = std::move(text);
    return Done(std::move(e));
  }

  ExprPtr ParsePrimary() {
    const Token& t = Cur();
    SourcePos pos = t.pos;
    switch (t.kind) {
      case TokenKind::Integer:
      case TokenKind::Decimal:
      case TokenKind::Float: {
        LiteralKind k = t.kind == TokenKind::Integer   ? LiteralKind::Integer
                        : t.kind == TokenKind::Decimal ? LiteralKind::Decimal
                                                       : LiteralKind::Float;
        std::string text = t.text;
        Next();
        return Literal(k, std::move(text), pos);
      }
      case TokenKind::String: {
        std::string text = t.text;
        Next();
        return Literal(LiteralKind::String, std::move(text), pos);
      }
      case TokenKind::QuotedIdent:
        return ParseNameExpr();
      case TokenKind::Operator:
        if (t.text == "(") return ParseParen();
        SyntaxError(t);
      case TokenKind::End:
        SyntaxError(t);
      case TokenKind::Word:
        break;
    }
    const std::string& w = t.text;
    const Token& n = Peek();
    bool call = IsOp(n, "(");
    if (w == "null") {
      Next();
      return Literal(LiteralKind::Null, "", pos);
    }
    if (w == "true" || w == "false") {
      std::string text = w;
      Next();
      return Literal(LiteralKind::Boolean, std::move(text), pos);
    }
    if (w == "case") return ParseCase();
    if (w == "cast" && call) return ParseCast();
    if (w == "exists" && call) {
      Next();
      ExpectOp("(");
      auto q = ParseQuery();
      ExpectOp(")");
      auto e = std::make_unique<Expr>(ExprKind::Exists, pos);
      e->subquery = std::move(q);
      return Done(std::move(e), last_query_height_);
    }
    if (w == "extract" && call) return ParseExtract();
    if (w == "substring" && call) return ParseSubstring();
    if (w == "position" && call) return ParsePosition();
    if (w == "date" && n.kind == TokenKind::String) {
      Next();
      std::string text = Cur().text;
      Next();
      return Literal(LiteralKind::Date, std::move(text), pos);
    }
    if (w == "interval" && (n.kind == TokenKind::String || n.kind == TokenKind::Integer ||
                            n.kind == TokenKind::Decimal))
      return ParseInterval();
    if (IsReserved(w) && !((w == "left" || w == "right") && call)) SyntaxError(t);
    return ParseNameExpr();
  }

  // name | name.name | name.* | name(args)
  ExprPtr ParseNameExpr() {
    const Token& t = Cur();
    SourcePos pos = t.pos;
    std::string name = t.text;
    Next();
    if (AtOp("(")) return ParseCall(std::move(name), pos);
    if (AcceptOp(".")) {
      if (AcceptOp("*")) {
        auto e = std::make_unique<Expr>(ExprKind::Star, pos);
        e->table = std::move(name);
        return Done(std::move(e));
      }
      const Token& c = Cur();
      if (c.kind != TokenKind::Word && c.kind != TokenKind::QuotedIdent) SyntaxError(c);
      auto e = std::make_unique<Expr>(ExprKind::Column, pos);
      e->table = std::move(name);
      e->name = c.text;
      Next();
      if (AtOp(".")) Unsupported(Cur().pos, "names with more than two parts");
      if (AtOp("(")) Unsupported(Cur().pos, "qualified function names");
      return Done(std::move(e));
    }
    auto e = std::make_unique<Expr>(ExprKind::Column, pos);
    e->name = std::move(name);
    return Done(std::move(e));
  }

  ExprPtr ParseCall(std::string name, SourcePos pos) {
    ExpectOp("(");
    auto e = std::make_unique<Expr>(ExprKind::Function, pos);
    e->name = std::move(name);
    if (AtOp("*") && IsOp(Peek(), ")")) {
      Next();
      Next();
      e->star_arg = true;
    } else if (!AcceptOp(")")) {
      if (AcceptKw("distinct")) {
        e->distinct = true;
      } else {
        AcceptKw("all");
      }
      do {
        e->children.push_back(ParseExpr());
      } while (AcceptOp(","));
      if (AtKw("order")) Unsupported(Cur().pos, "ORDER BY inside a function call");
      ExpectOp(")");
    }
    if (AtKw("over")) Unsupported(Cur().pos, "window functions (OVER)");
    if (AtKw("filter") && IsOp(Peek(), "(")) Unsupported(Cur().pos, "FILTER");
    return Done(std::move(e));
  }

  ExprPtr ParseParen() {
    SourcePos pos = Cur().pos;
    if (StartsQuery(Peek())) {
      Next();  // (
      auto q = ParseQuery();
      ExpectOp(")");
      return MakeSubquery(std::move(q), pos);
    }
    Next();  // (
    ExprPtr e = ParseExpr();
    if (e->kind == ExprKind::Subquery && AtQueryTail()) {
      // ((SELECT ...) UNION (SELECT ...)) or ((SELECT ...) ORDER BY ...)
      auto q = ParseQueryRest(std::move(e->subquery), {}, e->pos);
      ExpectOp(")");
      return MakeSubquery(std::move(q), pos);
    }
    ExpectOp(")");
    return e;
  }

  ExprPtr ParseCase() {
    auto e = std::make_unique<Expr>(ExprKind::Case, Cur().pos);
    Next();  // CASE
    if (!AtKw("when")) {
      e->children.push_back(ParseExpr());
      e->has_operand = true;
    }
    if (!AtKw("when")) SyntaxError(Cur(), "expected WHEN");
    while (AcceptKw("when")) {
      e->children.push_back(ParseExpr());
      ExpectKw("then");
      e->children.push_back(ParseExpr());
    }
    if (AcceptKw("else")) {
      e->children.push_back(ParseExpr());
      e->has_else = true;
    }
    ExpectKw("end");
    return Done(std::move(e));
  }

  ExprPtr ParseCast() {
    auto e = std::make_unique<Expr>(ExprKind::Cast, Cur().pos);
    Next();  // CAST
    ExpectOp("(");
    e->children.push_back(ParseExpr());
    ExpectKw("as");
    e->cast_type = ParseType();
    ExpectOp(")");
    return Done(std::move(e));
  }

  ExprPtr ParseExtract() {
    auto e = std::make_unique<Expr>(ExprKind::Extract, Cur().pos);
    Next();  // EXTRACT
    ExpectOp("(");
    const Token& f = Cur();
    if (f.kind == TokenKind::Word) {
      e->name = f.text;
    } else if (f.kind == TokenKind::String) {
      e->name = f.text;
      for (auto& c : e->name)
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    } else {
      SyntaxError(f, "expected a field name such as YEAR");
    }
    Next();
    ExpectKw("from");
    e->children.push_back(ParseExpr());
    ExpectOp(")");
    return Done(std::move(e));
  }

  // SUBSTRING(x FROM a [FOR b]) | SUBSTRING(x FOR b) | SUBSTRING(x, a [, b])
  ExprPtr ParseSubstring() {
    SourcePos pos = Cur().pos;
    auto e = std::make_unique<Expr>(ExprKind::Function, pos);
    e->name = "substring";
    Next();  // SUBSTRING
    ExpectOp("(");
    e->children.push_back(ParseExpr());
    if (AcceptOp(",")) {
      do {
        e->children.push_back(ParseExpr());
      } while (AcceptOp(","));
    } else if (AcceptKw("from")) {
      e->children.push_back(ParseExpr());
      if (AcceptKw("for")) e->children.push_back(ParseExpr());
    } else if (AtKw("for")) {
      SourcePos for_pos = Cur().pos;
      Next();
      e->children.push_back(Literal(LiteralKind::Integer, "1", for_pos));
      e->children.push_back(ParseExpr());
    }
    ExpectOp(")");
    return Done(std::move(e));
  }

  // POSITION(needle IN haystack) -> Function "position" (needle, haystack)
  ExprPtr ParsePosition() {
    DepthGuard guard(*this, Cur().pos);
    auto e = std::make_unique<Expr>(ExprKind::Function, Cur().pos);
    e->name = "position";
    Next();  // POSITION
    ExpectOp("(");
    e->children.push_back(ParseBinary(kPred + 1));
    if (!AcceptOp(",")) ExpectKw("in");
    e->children.push_back(ParseExpr());
    ExpectOp(")");
    return Done(std::move(e));
  }

  // INTERVAL '3' MONTH | INTERVAL 3 MONTH | INTERVAL '3 months'
  ExprPtr ParseInterval() {
    auto e = std::make_unique<Expr>(ExprKind::Interval, Cur().pos);
    Next();  // INTERVAL
    const Token& v = Cur();
    std::string num, unit;
    if (v.kind == TokenKind::String) {
      const std::string& s = v.text;
      size_t i = 0;
      auto space = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) i++;
      };
      space();
      size_t b = i;
      if (i < s.size() && (s[i] == '-' || s[i] == '+')) i++;
      size_t digits = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') i++, digits++;
      if (i < s.size() && s[i] == '.') {
        i++;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') i++, digits++;
      }
      num = s.substr(b, i - b);
      if (!num.empty() && num[0] == '+') num = num.substr(1);
      space();
      size_t ub = i;
      while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) i++;
      std::string word = s.substr(ub, i - ub);
      space();
      bool ok = digits > 0 && i == s.size() && (word.empty() || NormalizeUnit(word, &unit));
      if (!ok)
        throw UserError(ErrorKind::Syntax,
                        "invalid interval literal " + TokenExcerpt(src_, v) +
                            " (expected e.g. '3 months' or '3' MONTH)",
                        v.pos);
    } else {
      num = v.text;
    }
    Next();
    if (unit.empty()) {
      if (Cur().kind != TokenKind::Word || !NormalizeUnit(Cur().text, &unit))
        SyntaxError(Cur(), "expected an interval unit such as DAY, MONTH or YEAR");
      Next();
    }
    e->text = std::move(num);
    e->name = std::move(unit);
    return Done(std::move(e));
  }

  std::string_view src_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  size_t prev_end_ = 0;          // end offset of the last consumed token
  int depth_ = 0;                // active DepthGuards
  int sel_max_ = 0;              // tallest subtree built in the current query so far
  int last_query_height_ = 0;    // height of the query last finished by ParseQueryRest
};

}  // namespace

std::vector<ast::StatementPtr> ParseSQL(std::string_view sql) { return Parser(sql).ParseAll(); }

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
