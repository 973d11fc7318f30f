// PIVOT and UNPIVOT, DuckDB's statements and the SQL standard's clauses after a FROM item:
//   PIVOT item ON expr [IN (v [AS name], ...)] [, ...] [USING agg [AS name], ...] [GROUP BY e, ...]
//   UNPIVOT item ON col | (c1, c2) [AS name] | * | COLUMNS(...), ... [INTO NAME n VALUE v [, v2 ...]]
//   item PIVOT (agg [AS name], ... FOR expr IN (values) [expr IN (values) ...] [GROUP BY ...]) [alias]
//   item UNPIVOT [INCLUDE | EXCLUDE NULLS] (v | (v1, v2) FOR n IN (col [AS name] | (c1, c2) [AS name], ...)) [alias]
// Each becomes a TableRefKind::Pivot item holding a PivotSpec: the pivoted item's text and
// the parts' texts (and parsed expressions), which the binder rewrites into a query
// (planner/bind_pivot.cpp). A statement is SELECT * FROM that item, so ORDER BY / LIMIT
// may follow it and it may stand wherever a query may (a CTE, a subquery).
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {
// The operand of ON / FOR: an expression above IN's precedence, so that `col IN (...)` is
// read as the column and its values.
constexpr int kAboveIn = 7;
}  // namespace

bool Parser::AtPivotSuffix() const {
  if (AtKw("pivot")) return IsOp(Peek(), "(");
  if (AtKw("unpivot"))
    return IsOp(Peek(), "(") || IsKw(Peek(), "include") || IsKw(Peek(), "exclude");
  return false;
}

// [AS] alias after an IN value or an aggregate: a name (or, `strings`, a string literal).
std::string Parser::ParsePivotAlias(bool strings) {
  const bool as = AcceptKw("as");
  if (strings && Cur().kind == TokenKind::String) {
    std::string s = Cur().text;
    Next();
    return s;
  }
  if (as) return ParseIdent();
  if (IsIdentToken(Cur()) && !AtKw("for") && !AtKw("group")) return ParseIdent();
  return "";
}

// IN (value [AS name], ...) after an ON / FOR expression.
void Parser::ParsePivotIn(PivotOn& on) {
  ExpectKw("in");
  on.has_in = true;
  ExpectOp("(");
  do {
    PivotValue v;
    v.pos = Cur().pos;
    if (IsIdentToken(Cur()) && (IsOp(Peek(), ",") || IsOp(Peek(), ")") || IsKw(Peek(), "as"))) {
      v.name = true;  // IN (x, y): the names as strings, as DuckDB reads them
      v.text = Spelling(Cur());
      Next();
    } else {
      const size_t begin = Cur().begin;
      ParseExpr();
      v.text = std::string(src_.substr(begin, prev_end_ - begin));
    }
    if (AcceptKw("as")) {
      if (Cur().kind == TokenKind::String) {
        v.alias = Cur().text;
        Next();
      } else {
        v.alias = ParseIdent();
      }
    }
    on.in.push_back(std::move(v));
  } while (AcceptOp(","));
  ExpectOp(")");
}

// One entry of UNPIVOT's column list: col [AS name], (c1, c2) [AS name], and in the
// statement also `*` and COLUMNS(...).
void Parser::ParseUnpivotEntry(PivotSpec& spec, bool standard) {
  UnpivotEntry e;
  e.pos = Cur().pos;
  if (AcceptOp("(")) {
    e.columns.push_back(ParseIdent());
    while (AcceptOp(",")) e.columns.push_back(ParseIdent());
    ExpectOp(")");
  } else if (!standard && AtOp("*")) {
    e.star = std::make_unique<Expr>(ExprKind::Star, Cur().pos);
    Next();
    ParseStarModifiers(*e.star);
  } else {
    auto x = ParseExpr();
    if (x->kind == ExprKind::Star && x->columns && !standard) {
      e.star = std::move(x);
    } else if (x->kind == ExprKind::Column && x->table.empty()) {
      e.columns.push_back(x->name);
    } else {
      throw UserError(ErrorKind::Syntax, "UNPIVOT expects column names (or COLUMNS(...)) in its column list", e.pos);
    }
  }
  if (!e.star) {
    if (AtKw("as")) {
      Next();
      if (Cur().kind == TokenKind::String) {
        e.alias = Cur().text;
        Next();
      } else {
        e.alias = ParseIdent();
      }
    } else if (Cur().kind == TokenKind::String && standard) {
      e.alias = Cur().text;
      Next();
    } else if (IsIdentToken(Cur()) && !AtKw("into")) {
      e.alias = ParseIdent();
    }
  }
  spec.entries.push_back(std::move(e));
}

// A USING aggregate (with its alias) or a GROUP BY expression, and its text.
PivotAggregate Parser::ParsePivotItem(bool alias) {
  PivotAggregate a;
  a.pos = Cur().pos;
  const size_t b = Cur().begin;
  a.expr = ParseExpr();
  a.text = std::string(src_.substr(b, prev_end_ - b));
  if (alias) a.alias = ParsePivotAlias(false);
  return a;
}

// An ON expression (stopping before IN) and its text.
PivotOn Parser::ParsePivotOnItem() {
  PivotOn on;
  on.pos = Cur().pos;
  const size_t b = Cur().begin;
  on.expr = ParseBinary(kAboveIn);
  on.text = std::string(src_.substr(b, prev_end_ - b));
  return on;
}

// GROUP BY e, ... of either form (nothing when absent).
void Parser::ParsePivotGroupBy(PivotSpec& spec) {
  if (!AcceptKw("group")) return;
  ExpectKw("by");
  spec.has_group_by = true;
  do spec.group_by.push_back(ParsePivotItem(false));
  while (AcceptOp(","));
}

std::unique_ptr<SelectStmt> Parser::ParsePivotStatement() {
  const Token start = Cur();
  const bool unpivot = start.text == "unpivot" || start.text == "pivot_longer";
  Next();  // PIVOT | UNPIVOT
  auto spec = std::make_unique<PivotSpec>();
  spec->unpivot = unpivot;
  spec->source_pos = Cur().pos;
  const size_t begin = Cur().begin;
  int h = 0;
  {
    TableRefPtr source = ParseTablePrimary(&h);
    while (AtPivotSuffix()) source = ParsePivotSuffix(std::move(source), begin);
  }
  spec->source = std::string(src_.substr(begin, prev_end_ - begin));
  if (unpivot) {
    ExpectKw("on");
    do ParseUnpivotEntry(*spec, false);
    while (AcceptOp(","));
    if (AcceptKw("into")) {
      ExpectKw("name");
      spec->name_column = ParseIdent();
      ExpectKw("value");
      spec->value_columns.clear();
      do spec->value_columns.push_back(ParseIdent());
      while (AcceptOp(","));
    }
  } else {
    if (!AtKw("on")) SyntaxError(Cur(), "expected ON and the columns to pivot on");
    Next();
    do {
      PivotOn on = ParsePivotOnItem();
      if (AtKw("in")) ParsePivotIn(on);
      spec->on.push_back(std::move(on));
    } while (AcceptOp(","));
    if (AcceptKw("using")) {
      do spec->aggregates.push_back(ParsePivotItem(true));
      while (AcceptOp(","));
    }
    ParsePivotGroupBy(*spec);
  }
  auto ref = std::make_unique<TableRef>(TableRefKind::Pivot, start.pos);
  ref->pivot = std::move(spec);
  Note(h + 1, start.pos);
  return SelectStarFrom(std::move(ref), start.pos);
}

TableRefPtr Parser::ParsePivotSuffix(TableRefPtr source, size_t source_begin) {
  const Token start = Cur();
  auto spec = std::make_unique<PivotSpec>();
  spec->source_pos = source->pos;
  spec->source = std::string(src_.substr(source_begin, prev_end_ - source_begin));
  spec->unpivot = start.text == "unpivot";
  Next();  // PIVOT | UNPIVOT
  if (spec->unpivot) {
    if (AcceptKw("include")) {
      ExpectKw("nulls");
      spec->include_nulls = true;
    } else if (AcceptKw("exclude")) {
      ExpectKw("nulls");
    }
    ExpectOp("(");
    spec->value_columns.clear();
    if (AcceptOp("(")) {
      do spec->value_columns.push_back(ParseIdent());
      while (AcceptOp(","));
      ExpectOp(")");
    } else {
      spec->value_columns.push_back(ParseIdent());
    }
    ExpectKw("for");
    spec->name_column = ParseIdent();
    ExpectKw("in");
    ExpectOp("(");
    do ParseUnpivotEntry(*spec, true);
    while (AcceptOp(","));
    ExpectOp(")");
    ExpectOp(")");
  } else {
    ExpectOp("(");
    do spec->aggregates.push_back(ParsePivotItem(true));
    while (AcceptOp(","));
    ExpectKw("for");
    do {
      PivotOn on = ParsePivotOnItem();
      ParsePivotIn(on);
      spec->on.push_back(std::move(on));
    } while (!AtOp(")") && !AtKw("group"));
    ParsePivotGroupBy(*spec);
    ExpectOp(")");
  }
  auto ref = std::make_unique<TableRef>(TableRefKind::Pivot, start.pos);
  ref->pivot = std::move(spec);
  ParseTableAlias(*ref);
  return ref;
}

}  // namespace tessera::parser_internal
