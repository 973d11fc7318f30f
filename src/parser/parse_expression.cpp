// Expressions by precedence climbing (levels in Prec below): operators, literals, names and
// function calls, CASE, CAST, EXTRACT, SUBSTRING, POSITION, INTERVAL, subqueries.
#include "parser/parser_internal.hpp"

namespace tessera::parser_internal {

namespace {

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
  kConcat = 7,  // || ~ !~ & | << >> (PostgreSQL's "any other operator", left to right)
  kAdd = 8,     // + -
  kMul = 9,     // * / %
  kPow = 10,    // ** ^ (left to right, as DuckDB: 2 ** 3 ** 2 is 64)
  kUnary = 11,  // prefix - + ~
  kCast = 12,   // postfix ::type
};

// An operator written as a function call of the registry (scalar_functions_bitwise.cpp;
// ** and ^ are power).
ExprPtr OperatorCall(const std::string& name, std::vector<ExprPtr> args, SourcePos pos) {
  auto f = std::make_unique<Expr>(ExprKind::Function, pos);
  f->name = name;
  for (auto& a : args) f->children.push_back(std::move(a));
  return f;
}

}  // namespace

// ---------------------------------------------------------------- expressions
ExprPtr Parser::ParseExpr() {
  DepthGuard guard(*this, Cur().pos);
  return ParseBinary(kOr);
}

int Parser::InfixPrec() const {
  const Token& t = Cur();
  if (t.kind == TokenKind::Operator) {
    const std::string& o = t.text;
    if (o == "=" || o == "<>" || o == "!=" || o == "<" || o == "<=" || o == ">" || o == ">=")
      return kCmp;
    if (o == "||" || o == "~" || o == "!~" || o == "&" || o == "|" || o == "<<" || o == ">>")
      return kConcat;  // one level, left to right (DuckDB's)
    if (o == "**" || o == "^") return kPow;
    if (o == "+" || o == "-") return kAdd;
    if (o == "*" || o == "/" || o == "//" || o == "%") return kMul;
    if (o == "::" || o == "[") return kCast;  // postfix: a cast, a subscript or slice
    return kNone;
  }
  if (t.kind != TokenKind::Word) return kNone;
  const std::string& w = t.text;
  if (w == "or") return kOr;
  if (w == "and") return kAnd;
  if (w == "is") return kIs;
  if (w == "between" || w == "in" || w == "like" || w == "ilike" || w == "similar") return kPred;
  if (w == "not") {
    const Token& n = Peek();
    if (IsKw(n, "between") || IsKw(n, "in") || IsKw(n, "like") || IsKw(n, "ilike") || IsKw(n, "similar"))
      return kPred;
  }
  return kNone;
}

ExprPtr Parser::ParseBinary(int min_prec) {
  ExprPtr left = ParsePrefix();
  for (;;) {
    int p = InfixPrec();
    if (p == kNone || p < min_prec) break;
    left = ParseInfix(std::move(left), p);
  }
  return left;
}

ExprPtr Parser::MakeBinary(Op op, ExprPtr l, ExprPtr r) {
  auto e = std::make_unique<Expr>(ExprKind::Binary, l->pos);
  e->op = op;
  e->children.push_back(std::move(l));
  e->children.push_back(std::move(r));
  return Done(std::move(e));
}

ExprPtr Parser::ParsePrefix() {
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
  if (IsOp(t, "~")) {  // bitwise not
    DepthGuard guard(*this, pos);
    Next();
    std::vector<ExprPtr> args;
    args.push_back(ParseBinary(kUnary));
    return Done(OperatorCall("~", std::move(args), pos));
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

ExprPtr Parser::ParseInfix(ExprPtr left, int prec) {
  const Token& t = Cur();
  SourcePos pos = left->pos;
  if (t.kind == TokenKind::Operator) {
    const std::string o = t.text;
    Next();
    if (o == "~" || o == "!~")  // s ~ p: regexp_full_match(s, p), as DuckDB's
      return RegexFullMatch(std::move(left), ParseBinary(prec + 1), o == "!~", pos);
    if (o == "&" || o == "|" || o == "<<" || o == ">>" || o == "**" || o == "^") {
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      args.push_back(ParseBinary(prec + 1));
      return Done(OperatorCall(o == "**" || o == "^" ? "power" : o, std::move(args), pos));
    }
    if (o == "[") {
      // s[i], s[a:b], s[:b], s[a:]: DuckDB's array_extract / array_slice (over VARCHAR; an
      // omitted end of a slice is the string's start or end).
      ExprPtr begin, end;
      if (!AtOp(":")) begin = ParseExpr();
      const bool slice = AcceptOp(":");
      if (slice && !AtOp("]")) end = ParseExpr();
      ExpectOp("]");
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      if (!slice) {
        args.push_back(std::move(begin));
        return Done(OperatorCall("array_extract", std::move(args), pos));
      }
      args.push_back(begin ? std::move(begin) : Literal(LiteralKind::Integer, "0", pos));
      args.push_back(end ? std::move(end) : Literal(LiteralKind::Integer, "9223372036854775807", pos));
      return Done(OperatorCall("array_slice", std::move(args), pos));
    }
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
    e->children.push_back(std::move(left));
    if (AcceptKw("distinct")) {  // IS [NOT] DISTINCT FROM: NULLs compare as values
      ExpectKw("from");
      e->text = "distinct";
      e->children.push_back(ParseBinary(kPred + 1));
    } else if (AtKw("true") || AtKw("false")) {  // IS [NOT] TRUE / FALSE: never NULL
      e->text = Cur().text;
      Next();
    } else {
      ExpectKw("null");
    }
    return Done(std::move(e));
  }
  bool negated = AcceptKw("not");
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
  const bool ilike = AtKw("ilike");
  if (AcceptKw("like") || AcceptKw("ilike")) {
    // a ILIKE b is lower(a) LIKE lower(b): DuckDB's case-insensitive LIKE lowers both.
    auto lowered = [&](ExprPtr x) {
      if (!ilike) return x;
      auto f = std::make_unique<Expr>(ExprKind::Function, x->pos);
      f->name = "lower";
      f->children.push_back(std::move(x));
      return Done(std::move(f));
    };
    auto e = std::make_unique<Expr>(ExprKind::Like, pos);
    e->negated = negated;
    if (ilike) e->text = "ilike";  // its result column's name (expression_name.cpp)
    e->children.push_back(lowered(std::move(left)));
    e->children.push_back(lowered(ParseBinary(kPred + 1)));
    if (AcceptKw("escape")) e->children.push_back(ParseBinary(kPred + 1));  // the escape string
    return Done(std::move(e));
  }
  if (AcceptKw("similar")) {  // s SIMILAR TO p: a regular expression over the whole string (DuckDB's)
    ExpectKw("to");
    return RegexFullMatch(std::move(left), ParseBinary(kPred + 1), negated, pos);
  }
  SyntaxError(Cur());  // not reached: InfixPrec only reports the operators handled above
}

// regexp_full_match(s, p), NOT-ed when `negated`: `s ~ p`, `s !~ p`, `s [NOT] SIMILAR TO p`.
ExprPtr Parser::RegexFullMatch(ExprPtr s, ExprPtr p, bool negated, SourcePos pos) {
  auto f = std::make_unique<Expr>(ExprKind::Function, pos);
  f->name = "regexp_full_match";
  f->children.push_back(std::move(s));
  f->children.push_back(std::move(p));
  ExprPtr e = Done(std::move(f));
  if (!negated) return e;
  auto n = std::make_unique<Expr>(ExprKind::Unary, pos);
  n->op = Op::Not;
  n->children.push_back(std::move(e));
  return Done(std::move(n));
}

// An operand that stops before AND (BETWEEN's bounds, a window frame's offsets).
ExprPtr Parser::ParseBoundOperand() { return ParseBinary(kPred + 1); }

ExprPtr Parser::ParseIn(ExprPtr left, bool negated) {
  SourcePos pos = left->pos;
  ExpectOp("(");
  if (StartsQuery(0)) {
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

ExprPtr Parser::MakeInSubquery(ExprPtr left, bool negated, std::unique_ptr<SelectStmt> q) {
  auto e = std::make_unique<Expr>(ExprKind::InSubquery, left->pos);
  e->negated = negated;
  e->children.push_back(std::move(left));
  e->subquery = std::move(q);
  return Done(std::move(e), last_query_height_);
}

ExprPtr Parser::MakeSubquery(std::unique_ptr<SelectStmt> q, SourcePos pos) {
  auto e = std::make_unique<Expr>(ExprKind::Subquery, pos);
  e->subquery = std::move(q);
  return Done(std::move(e), last_query_height_);
}

ExprPtr Parser::Literal(LiteralKind kind, std::string text, SourcePos pos) {
  auto e = std::make_unique<Expr>(ExprKind::Literal, pos);
  e->lit = kind;
  e->text = std::move(text);
  return Done(std::move(e));
}

ExprPtr Parser::ParsePrimary() {
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
      if (t.text == "?" || t.text[0] == '$')
        throw UserError(ErrorKind::Syntax,
                        "parameter " + t.text + " outside a prepared statement (PREPARE name AS ...)", pos);
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
  if ((w == "cast" || w == "try_cast") && call) return ParseCast();
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
  if (w == "trim" && call) return ParseTrim();
  if (w == "date" && n.kind == TokenKind::String) {
    Next();
    std::string text = Cur().text;
    Next();
    return Literal(LiteralKind::Date, std::move(text), pos);
  }
  // TIMESTAMP '...', DATETIME '...', TIME '...': a cast of the string (as DuckDB).
  if ((w == "timestamp" || w == "datetime" || w == "time") && n.kind == TokenKind::String) {
    auto e = std::make_unique<Expr>(ExprKind::Cast, pos);
    e->cast_type = w == "time" ? Type::Time() : Type::Timestamp();
    Next();
    e->children.push_back(Literal(LiteralKind::String, Cur().text, Cur().pos));
    Next();
    return Done(std::move(e));
  }
  if (w == "interval" && (n.kind == TokenKind::String || n.kind == TokenKind::Integer ||
                          n.kind == TokenKind::Decimal))
    return ParseInterval();
  if (IsReserved(w) && !((w == "left" || w == "right") && call)) SyntaxError(t);
  return ParseNameExpr();
}

// name | name.name | name.* | name(args)
ExprPtr Parser::ParseNameExpr() {
  const Token& t = Cur();
  SourcePos pos = t.pos;
  std::string name = Spelling(t);  // a column's or table's name as written
  const bool word = t.kind == TokenKind::Word;
  Next();
  if (word && !AtOp("(") && !AtOp(".")) {
    // SQL's functions written without parentheses: CURRENT_DATE, CURRENT_TIMESTAMP.
    if (IsKeywordFunction(IdentFold(name))) {
      auto e = std::make_unique<Expr>(ExprKind::Function, pos);
      e->name = IdentFold(name);
      return Done(std::move(e));
    }
  }
  // Function names are matched (and shown) in lower case, quoted or not, as in DuckDB.
  if (AtOp("(")) {
    if (word && IdentEquals(name, "columns")) return ParseColumnsStar(pos);  // parse_star.cpp
    return ParseCall(IdentFold(name), pos);
  }
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
    e->name = Spelling(c);
    Next();
    if (AtOp(".")) Unsupported(Cur().pos, "names with more than two parts");
    if (AtOp("(")) Unsupported(Cur().pos, "qualified function names");
    return Done(std::move(e));
  }
  auto e = std::make_unique<Expr>(ExprKind::Column, pos);
  e->name = std::move(name);
  return Done(std::move(e));
}

ExprPtr Parser::ParseCall(std::string name, SourcePos pos) {
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
    if (AtKw("order") && IsKw(Peek(), "by")) {  // an aggregate's order: string_agg(x, ',' ORDER BY y)
      Next();
      Next();
      do {
        e->order_by.push_back(ParseOrderItem());
      } while (AcceptOp(","));
    }
    if ((AtKw("ignore") || AtKw("respect")) && IsKw(Peek(), "nulls")) {  // a window function's
      e->ignore_nulls = AtKw("ignore");
      Next();
      Next();
    }
    ExpectOp(")");
  }
  if (AtKw("filter") && IsOp(Peek(), "(")) {  // FILTER ([WHERE] cond): the call's last child
    Next();
    Next();
    AcceptKw("where");
    e->children.push_back(ParseExpr());
    e->has_filter = true;
    ExpectOp(")");
  }
  if (AtKw("over")) return ParseOver(std::move(e));
  return Done(std::move(e));
}

ExprPtr Parser::ParseParen() {
  SourcePos pos = Cur().pos;
  if (StartsQuery(1)) {
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

ExprPtr Parser::ParseCase() {
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

ExprPtr Parser::ParseCast() {
  auto e = std::make_unique<Expr>(ExprKind::Cast, Cur().pos);
  e->negated = Cur().text == "try_cast";
  Next();  // CAST or TRY_CAST
  ExpectOp("(");
  e->children.push_back(ParseExpr());
  ExpectKw("as");
  e->cast_type = ParseType();
  ExpectOp(")");
  return Done(std::move(e));
}

ExprPtr Parser::ParseExtract() {
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
ExprPtr Parser::ParseSubstring() {
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

// TRIM([BOTH | LEADING | TRAILING] [chars] FROM s) -> trim / ltrim / rtrim (s [, chars]);
// TRIM(s [, chars]) as a plain call.
ExprPtr Parser::ParseTrim() {
  DepthGuard guard(*this, Cur().pos);
  auto e = std::make_unique<Expr>(ExprKind::Function, Cur().pos);
  e->name = "trim";
  Next();  // TRIM
  ExpectOp("(");
  bool sided = true;
  if (AcceptKw("leading")) e->name = "ltrim";
  else if (AcceptKw("trailing")) e->name = "rtrim";
  else if (!AcceptKw("both")) sided = false;
  if (AcceptKw("from")) {
    e->children.push_back(ParseExpr());
  } else {
    ExprPtr first = ParseExpr();
    if (AcceptKw("from")) {
      e->children.push_back(ParseExpr());
      e->children.push_back(std::move(first));
    } else {
      if (sided) ExpectKw("from");
      e->children.push_back(std::move(first));
      while (AcceptOp(",")) e->children.push_back(ParseExpr());
    }
  }
  ExpectOp(")");
  return Done(std::move(e));
}

// POSITION(needle IN haystack) -> Function "strpos" (haystack, needle)
ExprPtr Parser::ParsePosition() {
  DepthGuard guard(*this, Cur().pos);
  auto e = std::make_unique<Expr>(ExprKind::Function, Cur().pos);
  e->name = "strpos";
  Next();  // POSITION
  ExpectOp("(");
  ExprPtr needle = ParseBinary(kPred + 1);
  if (!AcceptOp(",")) ExpectKw("in");
  e->children.push_back(ParseExpr());
  e->children.push_back(std::move(needle));
  ExpectOp(")");
  return Done(std::move(e));
}

// INTERVAL '3' MONTH | INTERVAL 3 MONTH | INTERVAL '3 months' | INTERVAL '1 day 02:00:00' (text, no unit)
ExprPtr Parser::ParseInterval() {
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
    // '1 day 02:00:00', '10:00', '2 years 3 months', and a fraction with its unit inside
    // ('1.5 days' is 1 day 12:00:00; '1.5' DAY is whole days): the whole text, no unit.
    if (!ok || (!word.empty() && num.find('.') != std::string::npos)) {
      Next();
      e->text = s;
      e->name.clear();
      return Done(std::move(e));
    }
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

}  // namespace tessera::parser_internal
