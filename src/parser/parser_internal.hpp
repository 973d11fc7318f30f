// Recursive-descent SQL parser: tokens (lexer.hpp) -> AST (ast.hpp). Private to src/parser:
// the class is declared here and its member functions are defined across parser.cpp (core,
// statement dispatch, names and types) and one parse_*.cpp per statement or clause.
//
// Expressions use precedence climbing; the levels, lowest first, are listed in Prec
// (parse_expression.cpp).
// Recursion is bounded: every entry that can nest (parenthesised expression, subquery,
// prefix operator, parenthesised join, EXPLAIN) takes a DepthGuard, and the height of every
// tree built is tracked (Expr::height, sel_max_) and capped at kMaxTreeHeight so that the
// passes after the parser (and the destructors) cannot overflow the stack.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/identifier.hpp"
#include "parser/ast.hpp"
#include "parser/lexer.hpp"

namespace tessera::parser_internal {

using namespace ast;

// parser.cpp
bool IsReserved(const std::string& w);
std::string Upper(std::string s);

class Parser {
 public:
  explicit Parser(std::string_view sql) : src_(sql), toks_(Tokenize(sql)) {}

  std::vector<StatementPtr> ParseAll();

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
  // Whether the token k ahead starts a query: SELECT, WITH, FROM (FROM-first: FROM t
  // [SELECT ...]), or VALUES followed by "(".
  bool StartsQuery(size_t k) const {
    const Token& t = Peek(k);
    return IsKw(t, "select") || IsKw(t, "with") || IsKw(t, "from") ||
           (IsKw(t, "values") && IsOp(Peek(k + 1), "(")) || StartsSummarize(k) || StartsPivot(k);
  }
  // PIVOT | UNPIVOT (or DuckDB's PIVOT_WIDER | PIVOT_LONGER) name-or-query, k tokens ahead.
  bool StartsPivot(size_t k) const {
    const Token& t = Peek(k);
    if (!IsKw(t, "pivot") && !IsKw(t, "unpivot") && !IsKw(t, "pivot_wider") && !IsKw(t, "pivot_longer"))
      return false;
    const Token& n = Peek(k + 1);
    return IsIdentToken(n) || IsOp(n, "(") || n.kind == TokenKind::String;
  }
  // SUMMARIZE name | SUMMARIZE query (parse_summarize.cpp), k tokens ahead.
  bool StartsSummarize(size_t k) const {
    if (!IsKw(Peek(k), "summarize")) return false;
    const Token& n = Peek(k + 1);
    return IsIdentToken(n) || IsOp(n, "(") || IsKw(n, "select") || IsKw(n, "with") || IsKw(n, "from") ||
           IsKw(n, "values");
  }
  // A token that continues a query after a complete (parenthesised) operand.
  bool AtQueryTail() const {
    return AtKw("union") || AtKw("intersect") || AtKw("except") || AtKw("order") || AtKw("limit") ||
           AtKw("offset");
  }
  std::string Raw(const Token& t) const { return std::string(src_.substr(t.begin, t.end - t.begin)); }
  // A name token's identifier as written: an unquoted word's source text (its case kept;
  // `text` is lower-cased for matching keywords), a quoted identifier's contents. Names
  // are compared ignoring case later (common/identifier.hpp).
  std::string Spelling(const Token& t) const { return t.kind == TokenKind::Word ? Raw(t) : t.text; }

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

  // ---------------------------------------------------------------- parser.cpp
  StatementPtr ParseStatement();
  std::string ParseIdent();
  std::string ParseAnyName();
  std::vector<std::string> ParseIdentList();
  int ParseTypeModifier();
  Type ParseType();

  // ---------------------------------------------------------------- parse_select.cpp
  std::unique_ptr<SelectStmt> ParseQuery();
  std::unique_ptr<SelectStmt> ParseSetOperand();
  std::unique_ptr<SelectStmt> ParseValues();
  std::vector<std::vector<ExprPtr>> ParseValuesRows();
  int SetOpLevel() const;
  std::unique_ptr<SelectStmt> ParseSetOps(std::unique_ptr<SelectStmt> left, int min_level);
  static bool HasTail(const SelectStmt& s);
  std::unique_ptr<SelectStmt> Wrap(std::unique_ptr<SelectStmt> q);
  std::unique_ptr<SelectStmt> ParseQueryRest(std::unique_ptr<SelectStmt> head,
                                             std::vector<CommonTableExpr> ctes, SourcePos pos);
  int64_t ParseCount(const char* what);
  std::optional<double> ParseLimitPercent();
  std::unique_ptr<SelectStmt> ParseSelectCore();
  // GROUP BY's items (parse_group_by.cpp): expressions, (), GROUPING SETS, ROLLUP, CUBE.
  using GroupingSets = std::vector<std::vector<uint32_t>>;
  void ParseGroupBy(SelectStmt& s);
  GroupingSets ParseGroupingElement(SelectStmt& s, bool& special);
  std::vector<uint32_t> ParseGroupingColumns(SelectStmt& s);
  bool AtCompositeGroup() const;
  SelectItem ParseSelectItem();
  void ParseSelectList(SelectStmt& s);
  void ParseStarModifiers(Expr& star);  // parse_star.cpp: EXCLUDE (...) REPLACE (...)
  ExprPtr ParseColumnsStar(SourcePos pos);  // parse_star.cpp: COLUMNS(...) after its name
  std::unique_ptr<SelectStmt> ParseSummarize();  // parse_summarize.cpp
  // parse_select.cpp: `asof` starting an ASOF join (then never a table alias): ASOF [INNER | LEFT | RIGHT | FULL] [OUTER] JOIN.
  bool AtAsofJoin() const;
  // parse_pivot.cpp: PIVOT / UNPIVOT statements (query nodes: SELECT * FROM the pivot) and
  // the SQL standard's `item PIVOT (...)` / `item UNPIVOT [INCLUDE NULLS] (...)` in FROM
  // (`source_begin`: the item's first byte, for its text).
  std::unique_ptr<SelectStmt> ParsePivotStatement();
  bool AtPivotSuffix() const;
  TableRefPtr ParsePivotSuffix(TableRefPtr source, size_t source_begin);
  void ParsePivotIn(PivotOn& on);
  PivotAggregate ParsePivotItem(bool alias);
  PivotOn ParsePivotOnItem();
  void ParsePivotGroupBy(PivotSpec& spec);
  void ParseUnpivotEntry(PivotSpec& spec, bool standard);
  std::string ParsePivotAlias(bool strings);
  // parse_sample.cpp: the sample after USING SAMPLE or TABLESAMPLE; TABLESAMPLE after a FROM
  // item (none: nothing read).
  SampleSpec ParseSampleSpec(SourcePos pos);
  void ParseTableSample(TableRef& t);
  void ParseUpsertSet(InsertStatement& st);  // parse_insert.cpp: DO UPDATE SET ... [WHERE ...]
  // parse_returning.cpp: RETURNING list, as SELECT list FROM table [AS alias] (`insert`:
  // EXCLUDED's columns are refused).
  std::unique_ptr<SelectStmt> ParseReturning(const std::string& table, const std::string& alias, bool insert);
  static bool AstHasSubquery(const Expr& e);
  TableRefPtr ParseFromItem(int* height);
  void ParseDataChangeSources(SelectStmt& select);  // parse_data_change.cpp
  TableRefPtr ParseTablePrimary(int* height);
  void ParseTableFunctionArgs(TableRef& t);
  std::string ParseOptionCollection();
  TableRefPtr SubqueryRef(std::unique_ptr<SelectStmt> q, SourcePos pos, int* height);
  void ParseTableAlias(TableRef& t);

  // ---------------------------------------------------------------- parse_expression.cpp
  ExprPtr ParseExpr();
  int InfixPrec() const;
  ExprPtr ParseBinary(int min_prec);
  ExprPtr MakeBinary(Op op, ExprPtr l, ExprPtr r);
  ExprPtr RegexFullMatch(ExprPtr s, ExprPtr p, bool negated, SourcePos pos);
  ExprPtr ParsePrefix();
  ExprPtr ParseInfix(ExprPtr left, int prec);
  ExprPtr ParseIn(ExprPtr left, bool negated);
  ExprPtr ParseBoundOperand();
  ExprPtr MakeInSubquery(ExprPtr left, bool negated, std::unique_ptr<SelectStmt> q);
  ExprPtr MakeSubquery(std::unique_ptr<SelectStmt> q, SourcePos pos);
  ExprPtr Literal(LiteralKind kind, std::string text, SourcePos pos);
  ExprPtr ParsePrimary();
  ExprPtr ParseNameExpr();
  ExprPtr ParseCall(std::string name, SourcePos pos);
  ExprPtr ParseParen();
  ExprPtr ParseCase();
  ExprPtr ParseCast();
  ExprPtr ParseExtract();
  ExprPtr ParseSubstring();
  ExprPtr ParsePosition();
  ExprPtr ParseTrim();
  ExprPtr ParseInterval();

  // ---------------------------------------------------------------- parse_window.cpp
  ExprPtr ParseOver(ExprPtr call);
  std::shared_ptr<WindowSpec> ParseWindowSpec();
  FrameBound ParseFrameBound();
  void ParseWindowClause(SelectStmt& s);
  OrderItem ParseOrderItem();
  OrderItem ParseOrderDirection(OrderItem item);
  int WindowSpecHeight(const WindowSpec& w) const;

  // ---------------------------------------------------------------- parse_create.cpp
  StatementPtr ParseCreate();
  void ParseTableElement(CreateTableStatement& st);
  void ParseColumnDefault(ColumnDefAst& col);
  StatementPtr ParseCreateView(bool or_replace, bool temporary);
  // The name a CREATE gives its object: `name`, `main.name`, `temp.name` or
  // `temp.main.name` (the `temp` catalog makes it temporary; only for a TEMP object, as in
  // DuckDB).
  std::string ParseCreatedName(bool* temporary, const char* object);
  bool ParseIfNotExists(bool or_replace);

  // ---------------------------------------------------------------- parse_sequence.cpp
  StatementPtr ParseCreateSequence(bool or_replace, bool temporary);
  int64_t ParseSequenceNumber(const char* option);

  // ---------------------------------------------------------------- parse_drop.cpp
  StatementPtr ParseDrop();

  // ---------------------------------------------------------------- parse_insert.cpp
  StatementPtr ParseInsert();

  // ---------------------------------------------------------------- parse_data_change.cpp
  StatementPtr ParseUpdate();
  StatementPtr ParseDelete();
  StatementPtr ParseTruncate();
  std::string ParseDataChangeAlias();

  // ---------------------------------------------------------------- parse_alter.cpp
  StatementPtr ParseAlter();

  // ---------------------------------------------------------------- parse_analyze.cpp
  StatementPtr ParseAnalyze();

  // ---------------------------------------------------------------- parse_copy.cpp
  StatementPtr ParseCopy();
  std::pair<std::string, std::string> ParseCopyOption(bool parenthesised);

  // ---------------------------------------------------------------- parse_explain.cpp
  StatementPtr ParseExplain();

  // ---------------------------------------------------------------- parse_set.cpp
  StatementPtr ParseSet();
  StatementPtr ParseTransaction();  // parse_transaction.cpp
  StatementPtr ParsePrepare();      // parse_prepare.cpp: PREPARE, EXECUTE, DEALLOCATE
  StatementPtr ParseExecute();
  StatementPtr ParseDeallocate();

  // ---------------------------------------------------------------- parse_show.cpp
  StatementPtr ParseShow();
  bool ParseRelationOrQuery(TableRef& ref);  // parse_show.cpp

  // ---------------------------------------------------------------- parse_unsupported.cpp
  [[noreturn]] void UnsupportedStatement();
  [[noreturn]] void UnsupportedCreateOrDrop(const char* verb);

  std::string_view src_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  size_t prev_end_ = 0;          // end offset of the last consumed token
  int depth_ = 0;                // active DepthGuards
  int sel_max_ = 0;              // tallest subtree built in the current query so far
  int last_query_height_ = 0;    // height of the query last finished by ParseQueryRest
};

// SELECT * FROM ref (parse_select.cpp): COPY t TO's query, a wrapped subquery.
std::unique_ptr<SelectStmt> SelectStarFrom(std::unique_ptr<TableRef> ref, SourcePos pos);

}  // namespace tessera::parser_internal
