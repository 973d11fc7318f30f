// Unit tests for the lexer and the SQL parser.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "parser/ast.hpp"
#include "parser/lexer.hpp"
#include "parser/parser.hpp"

using namespace tessera;
using namespace tessera::ast;

namespace {

const char* OpName(Op op) {
  switch (op) {
    case Op::Not: return "not";
    case Op::Neg: return "neg";
    case Op::Plus: return "pos";
    case Op::And: return "and";
    case Op::Or: return "or";
    default: return tessera::ast::OpSymbol(op);
  }
}

// S-expression rendering of an expression tree.
std::string Dump(const Expr& e) {
  auto kids = [&](size_t from = 0) {
    std::string s;
    for (size_t i = from; i < e.children.size(); i++) s += " " + Dump(*e.children[i]);
    return s;
  };
  switch (e.kind) {
    case ExprKind::Column: return e.table.empty() ? e.name : e.table + "." + e.name;
    case ExprKind::Star: return e.table.empty() ? "*" : e.table + ".*";
    case ExprKind::Literal:
      switch (e.lit) {
        case LiteralKind::Null: return "NULL";
        case LiteralKind::String: return "'" + e.text + "'";
        case LiteralKind::Date: return "date'" + e.text + "'";
        case LiteralKind::Decimal: return "dec:" + e.text;
        case LiteralKind::Float: return "flt:" + e.text;
        default: return e.text;
      }
    case ExprKind::Unary:
    case ExprKind::Binary: return std::string("(") + OpName(e.op) + kids() + ")";
    case ExprKind::Between: return std::string(e.negated ? "(not-between" : "(between") + kids() + ")";
    case ExprKind::InList: return std::string(e.negated ? "(not-in" : "(in") + kids() + ")";
    case ExprKind::InSubquery: return std::string(e.negated ? "(not-in-select" : "(in-select") + kids() + ")";
    case ExprKind::Exists: return e.negated ? "(not-exists)" : "(exists)";
    case ExprKind::Subquery: return "(subquery)";
    case ExprKind::Like: return std::string(e.negated ? "(not-like" : "(like") + kids() + ")";
    case ExprKind::Case: {
      std::string s = "(case";
      size_t i = 0;
      if (e.has_operand) s += " op:" + Dump(*e.children[i++]);
      size_t end = e.children.size() - (e.has_else ? 1 : 0);
      for (; i < end; i += 2) s += " when:" + Dump(*e.children[i]) + " then:" + Dump(*e.children[i + 1]);
      if (e.has_else) s += " else:" + Dump(*e.children.back());
      return s + ")";
    }
    case ExprKind::Cast: return (e.negated ? "(try_cast" : "(cast") + kids() + " " + e.cast_type.ToString() + ")";
    case ExprKind::Function:
      return "(" + e.name + (e.distinct ? " distinct" : "") + (e.star_arg ? " *" : "") + kids() + ")";
    case ExprKind::Extract: return "(extract " + e.name + kids() + ")";
    case ExprKind::Interval: return "(interval " + e.text + " " + e.name + ")";
    case ExprKind::IsNull: return std::string(e.negated ? "(is-not-null" : "(is-null") + kids() + ")";
  }
  return "?";
}

std::string DumpRef(const TableRef& t) {
  switch (t.kind) {
    case TableRefKind::Base: return t.name + (t.alias.empty() ? "" : " " + t.alias);
    case TableRefKind::Subquery: return "(subquery" + (t.alias.empty() ? "" : " " + t.alias) + ")";
    case TableRefKind::Join: {
      const char* jt[] = {"inner", "left", "right", "full", "cross"};
      std::string using_cols;
      for (auto& c : t.using_columns) using_cols += (using_cols.empty() ? " using " : ",") + c;
      return std::string("(") + (t.natural ? "natural " : "") + (t.asof ? "asof " : "") + jt[(int)t.join_type] + " " + DumpRef(*t.left) + " " +
             DumpRef(*t.right) + (t.on ? " on " + Dump(*t.on) : "") + using_cols + ")";
    }
  }
  return "?";
}

std::vector<StatementPtr> Parse(const std::string& sql) { return ParseSQL(sql); }

StatementPtr One(const std::string& sql) {
  auto v = ParseSQL(sql);
  if (v.size() != 1) throw std::runtime_error("expected one statement in: " + sql);
  return std::move(v[0]);
}

template <typename T>
T& As(const StatementPtr& s) {
  return static_cast<T&>(*s);
}

// Keeps the statement alive while the test looks at the SELECT.
struct Q {
  StatementPtr stmt;
  SelectStmt& operator*() const { return *static_cast<SelectStatement&>(*stmt).select; }
  SelectStmt* operator->() const { return static_cast<SelectStatement&>(*stmt).select.get(); }
};

Q Sel(const std::string& sql) {
  Q q{One(sql)};
  if (q.stmt->kind != StmtKind::Select) throw std::runtime_error("not a SELECT: " + sql);
  return q;
}

// Parses "SELECT <expr>" and renders the expression.
std::string E(const std::string& expr) {
  Q q = Sel("SELECT " + expr);
  if (q->select_list.size() != 1) throw std::runtime_error("expected one select item: " + expr);
  return Dump(*q->select_list[0].expr);
}

// Expects UserError of kind `kind` at line/col whose message contains `needle`.
void ExpectError(const std::string& sql, int line, int col, const std::string& needle,
                 ErrorKind kind = ErrorKind::Syntax) {
  try {
    ParseSQL(sql);
    tcheck::Fail(__FILE__, __LINE__, "no error for: " + sql);
  } catch (const UserError& e) {
    if (e.kind() != kind) tcheck::Fail(__FILE__, __LINE__, "wrong error kind for: " + sql + " -> " + e.what());
    if (e.pos().line != line || e.pos().col != col)
      tcheck::Fail(__FILE__, __LINE__,
                   "wrong position for: " + sql + " -> " + e.what() + " (expected line " +
                       std::to_string(line) + ", column " + std::to_string(col) + ")");
    if (std::string(e.what()).find(needle) == std::string::npos)
      tcheck::Fail(__FILE__, __LINE__, "message '" + std::string(e.what()) + "' lacks '" + needle + "'");
  }
}

// Hostile input: must either parse or throw UserError; anything else is a failure.
bool ParsesOrUserError(const std::string& sql, std::string* why = nullptr) {
  try {
    ParseSQL(sql);
    return true;
  } catch (const UserError&) {
    return true;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
}

}  // namespace

// ------------------------------------------------------------------ lexer

TEST(lexer_tokens) {
  auto t = Tokenize("SELECT \"MyCol\", x_1 FROM T -- comment\n WHERE a<>b /* c /* nested */ */ != 'it''s' || 1.5e3");
  std::vector<std::string> texts;
  for (auto& k : t) texts.push_back(k.text);
  std::vector<std::string> want = {"select", "MyCol", ",", "x_1", "from", "t", "where", "a", "<>",
                                   "b", "!=", "it's", "||", "1.5e3", ""};
  CHECK_EQ(texts.size(), want.size());
  for (size_t i = 0; i < want.size() && i < texts.size(); i++) CHECK_EQ(texts[i], want[i]);
  CHECK(t[1].kind == TokenKind::QuotedIdent);
  CHECK(t[11].kind == TokenKind::String);
  CHECK(t[13].kind == TokenKind::Float);
  CHECK(t.back().kind == TokenKind::End);
  // positions: WHERE is on line 2, column 2
  CHECK_EQ(t[6].pos.line, 2);
  CHECK_EQ(t[6].pos.col, 2);
  CHECK_EQ(t[0].pos.line, 1);
  CHECK_EQ(t[0].pos.col, 1);
  CHECK_EQ(t[2].pos.col, 15);
}

TEST(lexer_numbers_and_operators) {
  auto t = Tokenize("1 12.50 .5 3. 4e2 4E-2 a.b x::int <= >= < > = + - * / % ( ) ; \"a\"\"b\"");
  CHECK(t[0].kind == TokenKind::Integer);
  CHECK(t[1].kind == TokenKind::Decimal);
  CHECK_EQ(t[1].text, std::string("12.50"));
  CHECK(t[2].kind == TokenKind::Decimal);
  CHECK_EQ(t[2].text, std::string(".5"));
  CHECK(t[3].kind == TokenKind::Decimal);
  CHECK(t[4].kind == TokenKind::Float);
  CHECK(t[5].kind == TokenKind::Float);
  CHECK_EQ(t[5].text, std::string("4E-2"));
  CHECK_EQ(t[7].text, std::string("."));
  CHECK_EQ(t[10].text, std::string("::"));
  CHECK_EQ(t.back().kind == TokenKind::End, true);
  CHECK_EQ(t[t.size() - 2].text, std::string("a\"b"));
  // UTF-8: columns count characters
  auto u = Tokenize("'é' x");
  CHECK_EQ(u[1].pos.col, 5);
  CHECK_EQ(u[0].text, std::string("é"));
}

TEST(lexer_errors) {
  ExpectError("SELECT 'abc", 1, 8, "unterminated quoted string");
  ExpectError("SELECT 1\n  /* never closed", 2, 3, "unterminated /* comment");
  ExpectError("SELECT \"abc", 1, 8, "unterminated quoted identifier");
  ExpectError("SELECT a @ b", 1, 10, "syntax error at or near \"@\"");
  ExpectError("SELECT 12abc", 1, 8, "trailing junk");
  ExpectError("SELECT \"\" FROM t", 1, 8, "zero-length");
}

// ------------------------------------------------------------------ expressions

TEST(precedence) {
  CHECK_EQ(E("a + b * c"), std::string("(+ a (* b c))"));
  CHECK_EQ(E("a * b + c"), std::string("(+ (* a b) c)"));
  CHECK_EQ(E("a - b - c"), std::string("(- (- a b) c)"));
  CHECK_EQ(E("(a + b) * c"), std::string("(* (+ a b) c)"));
  CHECK_EQ(E("NOT a = b AND c"), std::string("(and (not (= a b)) c)"));
  CHECK_EQ(E("a OR b AND c"), std::string("(or a (and b c))"));
  CHECK_EQ(E("a AND b OR c AND d"), std::string("(or (and a b) (and c d))"));
  CHECK_EQ(E("x BETWEEN 1 AND 3 AND y < 25"), std::string("(and (between x 1 3) (< y 25))"));
  CHECK_EQ(E("x NOT BETWEEN a + 1 AND b * 2"), std::string("(not-between x (+ a 1) (* b 2))"));
  CHECK_EQ(E("-a * b"), std::string("(* (neg a) b)"));
  CHECK_EQ(E("- - a"), std::string("(neg (neg a))"));
  CHECK_EQ(E("-x::int"), std::string("(neg (cast x INTEGER))"));
  CHECK_EQ(E("a + b::bigint"), std::string("(+ a (cast b BIGINT))"));
  CHECK_EQ(E("a || b + c"), std::string("(|| a (+ b c))"));
  CHECK_EQ(E("a || b = c"), std::string("(= (|| a b) c)"));
  CHECK_EQ(E("a % b / c"), std::string("(/ (% a b) c)"));
  CHECK_EQ(E("a = b IS NULL"), std::string("(is-null (= a b))"));
  CHECK_EQ(E("a IS NOT NULL AND b IS NULL"), std::string("(and (is-not-null a) (is-null b))"));
  CHECK_EQ(E("a != b"), std::string("(<> a b)"));
  CHECK_EQ(E("a <> b"), std::string("(<> a b)"));
  CHECK_EQ(E("a NOT IN (1, 2, 3)"), std::string("(not-in a 1 2 3)"));
  CHECK_EQ(E("a IN (1)"), std::string("(in a 1)"));
  CHECK_EQ(E("a NOT LIKE 'x%' OR b LIKE c || '%'"), std::string("(or (not-like a 'x%') (like b (|| c '%')))"));
  CHECK_EQ(E("NOT NOT a"), std::string("(not (not a))"));
  CHECK_EQ(E("a < b = c"), std::string("(= (< a b) c)"));
  CHECK_EQ(E("a + b < c * d AND e >= f"), std::string("(and (< (+ a b) (* c d)) (>= e f))"));
  CHECK_EQ(E("+a"), std::string("(pos a)"));
}

TEST(literals) {
  CHECK_EQ(E("42"), std::string("42"));
  CHECK_EQ(E("4.20"), std::string("dec:4.20"));
  CHECK_EQ(E("1e10"), std::string("flt:1e10"));
  CHECK_EQ(E("'it''s'"), std::string("'it's'"));
  CHECK_EQ(E("TRUE"), std::string("true"));
  CHECK_EQ(E("false"), std::string("false"));
  CHECK_EQ(E("NULL"), std::string("NULL"));
  CHECK_EQ(E("DATE '1998-12-01'"), std::string("date'1998-12-01'"));
  CHECK_EQ(E("date '1998-12-01' - interval '90' day"), std::string("(- date'1998-12-01' (interval 90 day))"));
  {
    Q q = Sel("select 99999999999999999999999, 1.5");
    CHECK(q->select_list[0].expr->lit == LiteralKind::Integer);
    CHECK_EQ(q->select_list[0].expr->text, std::string("99999999999999999999999"));
    CHECK(q->select_list[1].expr->lit == LiteralKind::Decimal);
  }
}

TEST(date_is_an_identifier) {
  CHECK_EQ(E("date"), std::string("date"));
  CHECK_EQ(E("d.date"), std::string("d.date"));
  CHECK_EQ(E("date + 1"), std::string("(+ date 1)"));
  CHECK_EQ(E("date(x)"), std::string("(date x)"));
  Q q = Sel("SELECT date FROM date WHERE date > DATE '2020-01-01'");
  CHECK_EQ(q->from[0]->name, std::string("date"));
  CHECK_EQ(Dump(*q->where), std::string("(> date date'2020-01-01')"));
  // Non-reserved keywords as column names and aliases.
  Q q2 = Sel("select year, month, day, name, value, first, last, analyze, kernels, format, header, "
             "delimiter, quote, view, week, interval, nulls from t");
  CHECK_EQ(q2->select_list.size(), (size_t)17);
  CHECK_EQ(Dump(*q2->select_list[15].expr), std::string("interval"));
  Q q3 = Sel("select a year, b AS month, c value from t first");
  CHECK_EQ(q3->select_list[0].alias, std::string("year"));
  CHECK_EQ(q3->select_list[1].alias, std::string("month"));
  CHECK_EQ(q3->select_list[2].alias, std::string("value"));
  CHECK_EQ(q3->from[0]->alias, std::string("first"));
}

TEST(intervals) {
  CHECK_EQ(E("INTERVAL '3' MONTH"), std::string("(interval 3 month)"));
  CHECK_EQ(E("interval 3 months"), std::string("(interval 3 month)"));
  CHECK_EQ(E("INTERVAL '3 months'"), std::string("(interval 3 month)"));
  CHECK_EQ(E("interval '1 YEAR'"), std::string("(interval 1 year)"));
  CHECK_EQ(E("interval ' -2 days '"), std::string("(interval -2 day)"));
  CHECK_EQ(E("interval '1' week"), std::string("(interval 1 week)"));
  CHECK_EQ(E("interval '5' hour"), std::string("(interval 5 hour)"));
  Q q = Sel("select interval '2 days' d");
  CHECK_EQ(q->select_list[0].alias, std::string("d"));
  ExpectError("select interval '3'", 1, 20, "expected an interval unit");
  // Other texts are kept whole (the binder reads them as an INTERVAL value).
  CHECK_EQ(E("interval '1 year 2 months'"), std::string("(interval 1 year 2 months )"));
  CHECK_EQ(E("interval '3 fortnights'"), std::string("(interval 3 fortnights )"));
}

TEST(special_forms) {
  CHECK_EQ(E("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END"),
           std::string("(case when:(> a 1) then:'x' when:(> a 0) then:'y' else:'z')"));
  CHECK_EQ(E("case a when 1 then 2 end"), std::string("(case op:a when:1 then:2)"));
  {
    Q q = Sel("select case x when 1 then 2 when 3 then 4 else 5 end");
    const Expr& c = *q->select_list[0].expr;
    CHECK(c.has_operand);
    CHECK(c.has_else);
    CHECK_EQ(c.children.size(), (size_t)6);
  }
  CHECK_EQ(E("CAST(a AS DECIMAL(15,2))"), std::string("(cast a DECIMAL(15,2))"));
  CHECK_EQ(E("cast(a as double precision)"), std::string("(cast a DOUBLE)"));
  CHECK_EQ(E("cast(a as varchar(10))"), std::string("(cast a VARCHAR)"));
  CHECK_EQ(E("cast(a as int)"), std::string("(cast a INTEGER)"));
  CHECK_EQ(E("a::date"), std::string("(cast a DATE)"));
  CHECK_EQ(E("EXTRACT(YEAR FROM o_orderdate)"), std::string("(extract year o_orderdate)"));
  CHECK_EQ(E("extract(month from d) = 3"), std::string("(= (extract month d) 3)"));
  CHECK_EQ(E("SUBSTRING(c_phone FROM 1 FOR 2)"), std::string("(substring c_phone 1 2)"));
  CHECK_EQ(E("substring(s from 3)"), std::string("(substring s 3)"));
  CHECK_EQ(E("substring(s, 1, 2)"), std::string("(substring s 1 2)"));
  CHECK_EQ(E("substring(s for 4)"), std::string("(substring s 1 4)"));
  CHECK_EQ(E("position('x' in s)"), std::string("(strpos s 'x')"));  // POSITION(a IN b) is strpos(b, a)
  CHECK_EQ(E("a ~ 'x'"), std::string("(regexp_full_match a 'x')"));
  CHECK_EQ(E("a !~ 'x'"), std::string("(not (regexp_full_match a 'x'))"));
  CHECK_EQ(E("a ~ 'x' || 'y'"), std::string("(|| (regexp_full_match a 'x') 'y')"));  // DuckDB's: one level
  CHECK_EQ(E("a SIMILAR TO 'x' || 'y'"), std::string("(regexp_full_match a (|| 'x' 'y'))"));
  CHECK_EQ(E("a NOT SIMILAR TO 'x'"), std::string("(not (regexp_full_match a 'x'))"));
  CHECK_EQ(E("a ILIKE 'x'"), std::string("(like (lower a) (lower 'x'))"));
  CHECK_EQ(E("try_cast(a AS INTEGER)"), std::string("(try_cast a INTEGER)"));
  CHECK_EQ(E("count(*)"), std::string("(count *)"));
  CHECK_EQ(E("COUNT(DISTINCT a)"), std::string("(count distinct a)"));
  CHECK_EQ(E("Sum(a * b)"), std::string("(sum (* a b))"));
  CHECK_EQ(E("now()"), std::string("(now)"));
  CHECK_EQ(E("\"MyFunc\"(1, 2)"), std::string("(myfunc 1 2)"));  // function names: lower case
  CHECK_EQ(E("left(s, 2)"), std::string("(left s 2)"));
  CHECK_EQ(E("t.*"), std::string("t.*"));
  CHECK_EQ(E("\"T\".\"Col\""), std::string("T.Col"));
  CHECK_EQ(E("T.Col"), std::string("T.Col"));  // identifiers as written
  CHECK_EQ(E("ABS(T.Col)"), std::string("(abs T.Col)"));
  CHECK_EQ(E("EXISTS (SELECT 1)"), std::string("(exists)"));
  CHECK_EQ(E("NOT EXISTS (SELECT 1)"), std::string("(not-exists)"));
  CHECK_EQ(E("(SELECT max(x) FROM t) + 1"), std::string("(+ (subquery) 1)"));
  CHECK_EQ(E("a IN (SELECT b FROM t)"), std::string("(in-select a)"));
  CHECK_EQ(E("a NOT IN (SELECT b FROM t)"), std::string("(not-in-select a)"));
  CHECK_EQ(E("a in ((select 1) union (select 2))"), std::string("(in-select a)"));
  CHECK_EQ(E("((select 1) union (select 2))"), std::string("(subquery)"));
  CHECK_EQ(E("((select 1))"), std::string("(subquery)"));
  CHECK_EQ(E("((a))"), std::string("a"));
  {
    Q q = Sel("select (select 1 union all select 2 order by 1 limit 1)");
    const Expr& s = *q->select_list[0].expr;
    CHECK(s.kind == ExprKind::Subquery);
    CHECK(s.subquery->set_op == SetOpKind::UnionAll);
    CHECK(s.subquery->limit.has_value());
    CHECK(s.height >= 2);
  }
}

// ------------------------------------------------------------------ SELECT structure

TEST(select_clauses) {
  Q q = Sel("SELECT DISTINCT a, b AS x, c y, *, t.* FROM t WHERE a > 1 GROUP BY a, b HAVING count(*) > 2 "
            "ORDER BY a DESC NULLS FIRST, b, 2 ASC NULLS LAST LIMIT 10 OFFSET 5");
  CHECK(q->distinct);
  CHECK_EQ(q->select_list.size(), (size_t)5);
  CHECK_EQ(q->select_list[1].alias, std::string("x"));
  CHECK_EQ(q->select_list[2].alias, std::string("y"));
  CHECK(q->select_list[3].expr->kind == ExprKind::Star);
  CHECK_EQ(Dump(*q->select_list[4].expr), std::string("t.*"));
  CHECK_EQ(Dump(*q->where), std::string("(> a 1)"));
  CHECK_EQ(q->group_by.size(), (size_t)2);
  CHECK_EQ(Dump(*q->having), std::string("(> (count *) 2)"));
  CHECK_EQ(q->order_by.size(), (size_t)3);
  CHECK(q->order_by[0].desc);
  CHECK(q->order_by[0].nulls_first.has_value() && *q->order_by[0].nulls_first);
  CHECK(!q->order_by[1].desc);
  CHECK(!q->order_by[1].nulls_first.has_value());
  CHECK(q->order_by[2].nulls_first.has_value() && !*q->order_by[2].nulls_first);
  CHECK_EQ(*q->limit, (int64_t)10);
  CHECK_EQ(*q->offset, (int64_t)5);
  Q q2 = Sel("select a from t offset 3 limit 4");
  CHECK_EQ(*q2->limit, (int64_t)4);
  CHECK_EQ(*q2->offset, (int64_t)3);
  Q q3 = Sel("select 1");
  CHECK(q3->from.empty());
  CHECK(!q3->limit.has_value());
  Q q4 = Sel("select all a from t limit all");
  CHECK(!q4->distinct);
  CHECK(!q4->limit.has_value());
  Q q5 = Sel("select a as \"Quoted Alias\", b \"B\" from t");
  CHECK_EQ(q5->select_list[0].alias, std::string("Quoted Alias"));
  CHECK_EQ(q5->select_list[1].alias, std::string("B"));
}

// PIVOT / UNPIVOT statements and FROM clauses (parse_pivot.cpp).
TEST(pivot_unpivot) {
  Q p = Sel("PIVOT cities ON year IN (2000 AS y0, x), country USING sum(pop) AS s, max(pop) GROUP BY name ORDER BY name");
  const TableRef& pr = *p->from[0];
  CHECK(pr.kind == TableRefKind::Pivot && pr.pivot && !pr.pivot->unpivot);
  CHECK_EQ(pr.pivot->source, std::string("cities"));
  CHECK_EQ(pr.pivot->on.size(), (size_t)2);
  CHECK(pr.pivot->on[0].has_in && !pr.pivot->on[1].has_in);
  CHECK_EQ(pr.pivot->on[0].in[0].text, std::string("2000"));
  CHECK_EQ(pr.pivot->on[0].in[0].alias, std::string("y0"));
  CHECK(pr.pivot->on[0].in[1].name && pr.pivot->on[0].in[1].text == "x");
  CHECK_EQ(pr.pivot->aggregates.size(), (size_t)2);
  CHECK_EQ(pr.pivot->aggregates[0].alias, std::string("s"));
  CHECK_EQ(pr.pivot->aggregates[1].text, std::string("max(pop)"));
  CHECK(pr.pivot->has_group_by && pr.pivot->group_by.size() == 1);
  CHECK_EQ(p->order_by.size(), (size_t)1);
  Q f = Sel("SELECT * FROM t AS a PIVOT (sum(x) FOR c || 'z' IN ('1', '2') GROUP BY g) AS p(q, r)");
  CHECK(f->from[0]->kind == TableRefKind::Pivot && f->from[0]->alias == "p");
  CHECK_EQ(f->from[0]->pivot->source, std::string("t AS a"));
  CHECK_EQ(f->from[0]->pivot->on[0].text, std::string("c || 'z'"));
  CHECK_EQ(f->from[0]->column_aliases.size(), (size_t)2);
  Q u = Sel("UNPIVOT (SELECT * FROM t) ON a, (b, c) AS bc, COLUMNS('x.*') INTO NAME k VALUE v1, v2");
  const PivotSpec& us = *u->from[0]->pivot;
  CHECK(us.unpivot && us.entries.size() == 3);
  CHECK_EQ(us.entries[1].alias, std::string("bc"));
  CHECK(us.entries[2].star && us.entries[2].star->columns_regex);
  CHECK_EQ(us.name_column, std::string("k"));
  CHECK_EQ(us.value_columns.size(), (size_t)2);
  Q s = Sel("FROM t UNPIVOT INCLUDE NULLS (v FOR k IN (a AS 'first', b)) u");
  CHECK(s->from[0]->pivot->include_nulls && s->from[0]->alias == "u");
  CHECK_EQ(s->from[0]->pivot->entries[0].alias, std::string("first"));
  Q n = Sel("SELECT * FROM pivot, unpivot AS x");  // still names
  CHECK_EQ(n->from[0]->name, std::string("pivot"));
  ExpectError("PIVOT t USING sum(x)", 1, 9, "expected ON");
  ExpectError("PIVOT t ON a IN 1", 1, 17, "expected \"(\"");
  ExpectError("FROM t PIVOT (sum(a) FOR c)", 1, 27, "expected IN");
  ExpectError("FROM t UNPIVOT (v FOR k IN a)", 1, 28, "expected \"(\"");
  ExpectError("UNPIVOT t ON a + 1", 1, 14, "UNPIVOT expects column names");
  ExpectError("UNPIVOT t ON a INTO NAME k", 1, 27, "expected VALUE");
  ExpectError("FROM t UNPIVOT INCLUDE (v FOR k IN (a))", 1, 24, "expected NULLS");
}

// COLUMNS(...) stars (parse_star.cpp), USING SAMPLE / TABLESAMPLE (parse_sample.cpp) and
// SUMMARIZE (parse_summarize.cpp).
TEST(columns_sample_summarize) {
  Q q = Sel("SELECT max(COLUMNS('p.*')), COLUMNS(* EXCLUDE (a)) + 1, COLUMNS(t.*), COLUMNS(['a', 'B']) AS x FROM t");
  const Expr& re = *q->select_list[0].expr->children[0];
  CHECK(re.kind == ExprKind::Star && re.columns && re.columns_regex);
  CHECK_EQ(re.text, std::string("p.*"));
  const Expr& star = *q->select_list[1].expr->children[0];
  CHECK(star.columns && !star.columns_regex && !star.columns_list);
  CHECK_EQ(star.star_exclude.size(), (size_t)1);
  CHECK_EQ(q->select_list[2].expr->table, std::string("t"));
  CHECK(q->select_list[3].expr->columns_list);
  CHECK_EQ(q->select_list[3].expr->columns_names.size(), (size_t)2);
  CHECK_EQ(q->select_list[3].alias, std::string("x"));
  ExpectError("SELECT COLUMNS(1) FROM t", 1, 16, "COLUMNS expects", ErrorKind::Binder);
  Q l = Sel("SELECT COLUMNS(c -> c LIKE 'x%'), COLUMNS(lambda k: k = 'a') FROM t");
  CHECK(l->select_list[0].expr->columns_lambda);
  CHECK_EQ(l->select_list[0].expr->name, std::string("c"));
  CHECK_EQ(Dump(*l->select_list[0].expr->children[0]), std::string("(like c 'x%')"));
  CHECK(l->select_list[1].expr->columns_lambda);
  CHECK_EQ(l->select_list[1].expr->name, std::string("k"));

  Q s1 = Sel("SELECT * FROM t WHERE a > 1 USING SAMPLE 10% (bernoulli, 42) ORDER BY a");
  CHECK(s1->sample.has_value() && s1->sample->percent && s1->sample->method == SampleMethod::Bernoulli);
  CHECK_EQ(*s1->sample->seed, (int64_t)42);
  CHECK_EQ(s1->order_by.size(), (size_t)1);
  Q s2 = Sel("SELECT * FROM t AS x TABLESAMPLE reservoir(50 ROWS) REPEATABLE (7), u TABLESAMPLE 5");
  CHECK_EQ(s2->from[0]->alias, std::string("x"));
  CHECK(s2->from[0]->sample && !s2->from[0]->sample->percent && s2->from[0]->sample->size == 50);
  CHECK_EQ(*s2->from[0]->sample->seed, (int64_t)7);
  CHECK(s2->from[1]->alias.empty() && s2->from[1]->sample->method == SampleMethod::Reservoir);
  Q s3 = Sel("SELECT * FROM t USING SAMPLE 5 PERCENT");
  CHECK(s3->sample->method == SampleMethod::System && !s3->sample->seed);
  ExpectError("SELECT * FROM t USING SAMPLE 101%", 1, 17, "out of range, must be between 0 and 100");
  ExpectError("SELECT * FROM t USING SAMPLE 5 ROWS (system)", 1, 17, "cannot be used with a discrete sample count");
  ExpectError("SELECT * FROM t USING SAMPLE 5% (nope)", 1, 34, "Unrecognized sampling method nope");

  Q m1 = Sel("SUMMARIZE main.t");
  CHECK(m1->from[0]->kind == TableRefKind::Summarize);
  CHECK_EQ(m1->from[0]->schema, std::string("main"));
  Q m2 = Sel("SELECT * FROM (SUMMARIZE SELECT a FROM t) WHERE count > 0");
  CHECK(m2->from[0]->subquery->from[0]->kind == TableRefKind::Summarize);
  CHECK_EQ(m2->from[0]->subquery->from[0]->query_text, std::string("SELECT a FROM t"));
  // summarize is still a name
  CHECK_EQ(E("summarize + 1"), std::string("(+ summarize 1)"));
}

TEST(window_functions) {
  Q q = Sel("SELECT lag(x, 2 IGNORE NULLS) OVER (PARTITION BY g, h ORDER BY x DESC NULLS FIRST ROWS BETWEEN 3 PRECEDING "
            "AND UNBOUNDED FOLLOWING), count(*) FILTER (WHERE x > 1) OVER w, rank() OVER (w RANGE 5 PRECEDING) "
            "FROM t WINDOW w AS (ORDER BY y) QUALIFY rank() OVER w = 1");
  CHECK_EQ(q->select_list.size(), (size_t)3);
  const Expr& lag = *q->select_list[0].expr;
  CHECK(lag.ignore_nulls);
  CHECK_EQ(lag.children.size(), (size_t)2);
  CHECK(lag.over != nullptr);
  CHECK_EQ(lag.over->partitions.size(), (size_t)2);
  CHECK_EQ(lag.over->orders.size(), (size_t)1);
  CHECK(lag.over->orders[0].desc && *lag.over->orders[0].nulls_first);
  CHECK(lag.over->unit == FrameUnit::Rows);
  CHECK(lag.over->start.kind == FrameBoundKind::Preceding);
  CHECK_EQ(Dump(*lag.over->start.offset), std::string("3"));
  CHECK(lag.over->end.kind == FrameBoundKind::UnboundedFollowing);
  const Expr& cnt = *q->select_list[1].expr;
  CHECK(cnt.star_arg && cnt.has_filter);
  CHECK_EQ(cnt.over->name, std::string("w"));
  const Expr& rank = *q->select_list[2].expr;
  CHECK_EQ(rank.over->name, std::string("w"));
  CHECK(rank.over->unit == FrameUnit::Range);
  CHECK(rank.over->end.kind == FrameBoundKind::CurrentRow);
  CHECK(rank.over->exclude == FrameExclude::NoOthers);
  Q q3 = Sel("select sum(a) over (order by a rows 2 preceding exclude ties) from t");
  CHECK(q3->select_list[0].expr->over->exclude == FrameExclude::Ties);
  CHECK_EQ(q->windows.size(), (size_t)1);
  CHECK_EQ(q->windows[0].first, std::string("w"));
  CHECK(q->qualify != nullptr);
  // QUALIFY is reserved: not an alias
  Q q2 = Sel("select a from t qualify a");
  CHECK(q2->from[0]->alias.empty());
}

TEST(asof_joins) {
  Q q = Sel("select * from a asof join b on a.k = b.k and a.t >= b.t asof left outer join c using (k, t) "
            "asof right join d on true asof full join e on 1 = 1 asof inner join f on f.t < a.t");
  CHECK_EQ(DumpRef(*q->from[0]),
           std::string("(asof inner (asof full (asof right (asof left (asof inner a b on (and (= a.k b.k) (>= a.t b.t))) "
                       "c using k,t) d on true) e on (= 1 1)) f on (< f.t a.t))"));
  // `asof` before a join type is never an alias; elsewhere it is one.
  Q a = Sel("select * from t asof");
  CHECK_EQ(DumpRef(*a->from[0]), std::string("t asof"));
  Q b = Sel("select * from t asof, u");
  CHECK_EQ(DumpRef(*b->from[0]), std::string("t asof"));
  ExpectError("select * from a asof join b", 1, 28, "syntax error at end of input");
  ExpectError("select * from a asof join b order by 1", 1, 29, "syntax error at or near \"order\"");
  ExpectError("select * from a natural asof join b", 1, 25, "syntax error at or near \"asof\"");
  ExpectError("select * from a x asof cross join b", 1, 24, "syntax error at or near \"cross\"");
  ExpectError("select * from a x asof b", 1, 24, "syntax error at or near \"b\"");
}

TEST(from_and_joins) {
  Q q = Sel("select * from a, b AS bb, c cc(x, y), (select 1) s, (select 2) as s2(z)");
  CHECK_EQ(q->from.size(), (size_t)5);
  CHECK_EQ(DumpRef(*q->from[0]), std::string("a"));
  CHECK_EQ(DumpRef(*q->from[1]), std::string("b bb"));
  CHECK_EQ(q->from[2]->column_aliases.size(), (size_t)2);
  CHECK_EQ(DumpRef(*q->from[3]), std::string("(subquery s)"));
  CHECK_EQ(q->from[4]->column_aliases[0], std::string("z"));

  Q j = Sel("select * from a join b on a.x = b.x left join c on c.y = b.y right outer join d on true "
            "full join e on 1 = 1 cross join f inner join g on g.k = a.k left outer join h on h.k = a.k");
  CHECK_EQ(j->from.size(), (size_t)1);
  CHECK_EQ(DumpRef(*j->from[0]),
           std::string("(left (inner (cross (full (right (left (inner a b on (= a.x b.x)) c on (= c.y b.y)) "
                       "d on true) e on (= 1 1)) f) g on (= g.k a.k)) h on (= h.k a.k))"));

  Q p = Sel("select * from a join (b join c on b.i = c.i) on a.i = b.i, ((d))");
  CHECK_EQ(DumpRef(*p->from[0]), std::string("(inner a (inner b c on (= b.i c.i)) on (= a.i b.i))"));
  CHECK_EQ(DumpRef(*p->from[1]), std::string("d"));

  Q s = Sel("select * from ((select 1) union (select 2)) u");
  CHECK_EQ(DumpRef(*s->from[0]), std::string("(subquery u)"));
  CHECK(s->from[0]->subquery->set_op == SetOpKind::Union);

  Q s2 = Sel("select * from ((select 1) x join y on true)");
  CHECK_EQ(DumpRef(*s2->from[0]), std::string("(inner (subquery x) y on true)"));

  ExpectError("select * from a join b", 1, 23, "syntax error at end of input: expected ON");
  Q u = Sel("select * from a join b using (x, y) natural full join c natural join d");
  CHECK_EQ(DumpRef(*u->from[0]), std::string("(natural inner (natural full (inner a b using x,y) c) d)"));
  ExpectError("select * from a join b using ()", 1, 31, "syntax error");
  ExpectError("select * from a natural cross join b", 1, 25, "expected JOIN after NATURAL");
}

TEST(ctes_and_set_ops) {
  Q q = Sel("WITH x AS (SELECT 1 AS a), y(b) AS (SELECT a FROM x) SELECT * FROM y");
  CHECK_EQ(q->ctes.size(), (size_t)2);
  CHECK_EQ(q->ctes[0].name, std::string("x"));
  CHECK_EQ(q->ctes[1].column_aliases[0], std::string("b"));
  CHECK_EQ(q->ctes[1].pos.col, 28);

  // Left-associative: (a UNION ALL b) EXCEPT c; the tail applies to the whole.
  Q u = Sel("select a from t union all select b from u except select c from v order by 1 limit 3");
  CHECK(u->set_op == SetOpKind::Except);
  CHECK(u->set_left->set_op == SetOpKind::UnionAll);
  CHECK(u->set_right->set_op == SetOpKind::None);
  CHECK_EQ(u->set_pos.col, 43);
  CHECK_EQ(u->order_by.size(), (size_t)1);
  CHECK_EQ(*u->limit, (int64_t)3);
  CHECK(u->set_left->order_by.empty());
  CHECK(!u->set_right->limit.has_value());

  // INTERSECT binds tighter than UNION and EXCEPT.
  Q i = Sel("select 1 intersect select 2 union distinct select 3");
  CHECK(i->set_op == SetOpKind::Union);
  CHECK(i->set_left->set_op == SetOpKind::Intersect);
  Q i2 = Sel("select 1 union select 2 intersect all select 3 except all select 4");
  CHECK(i2->set_op == SetOpKind::ExceptAll);
  CHECK(i2->set_left->set_op == SetOpKind::Union);
  CHECK(i2->set_left->set_right->set_op == SetOpKind::IntersectAll);

  // Parenthesised operands.
  Q p = Sel("(select a from t) union (select b from u) order by 1");
  CHECK(p->set_op == SetOpKind::Union);
  CHECK_EQ(p->order_by.size(), (size_t)1);
  // An operand keeps its own ORDER BY/LIMIT.
  Q w = Sel("select 1 union all (select 2 order by 1 limit 1)");
  CHECK(w->set_right->limit.has_value());
  CHECK(!w->limit.has_value());
  Q c = Sel("(select 1 union select 2) except select 3");
  CHECK(c->set_op == SetOpKind::Except);
  CHECK(c->set_left->set_op == SetOpKind::Union);
  Q r = Sel("select 1 except (select 2 union select 3)");
  CHECK(r->set_op == SetOpKind::Except);
  CHECK(r->set_right->set_op == SetOpKind::Union);
  // ORDER/LIMIT outside a single parenthesised select merge into it.
  Q m = Sel("(select a from t order by a) limit 2");
  CHECK_EQ(m->order_by.size(), (size_t)1);
  CHECK_EQ(*m->limit, (int64_t)2);
  Q m2 = Sel("(select a from t limit 5) limit 2");
  CHECK_EQ(*m2->limit, (int64_t)2);
  CHECK_EQ(*m2->from[0]->subquery->limit, (int64_t)5);
  Q wc = Sel("with x as (select 1) (select * from x union select 2)");
  CHECK_EQ(wc->ctes.size(), (size_t)1);
  CHECK(wc->set_op == SetOpKind::Union);
  // VALUES as a query, an operand and a table.
  Q v = Sel("values (1, 'a'), (2, 'b') union all select 3, 'c'");
  CHECK(v->set_op == SetOpKind::UnionAll);
  CHECK_EQ(v->set_left->values.size(), (size_t)2);
  CHECK_EQ(v->set_left->values[1].size(), (size_t)2);
  Q vf = Sel("select * from (values (1), (2)) as t(x)");
  CHECK_EQ(DumpRef(*vf->from[0]), std::string("(subquery t)"));
  CHECK_EQ(vf->from[0]->subquery->values.size(), (size_t)2);
  CHECK_EQ(vf->from[0]->column_aliases[0], std::string("x"));
  ExpectError("values (1, 2), (3)", 1, 16, "VALUES lists must all be the same length");
  ExpectError("select * from values (1)", 1, 15, "VALUES in FROM without parentheses", ErrorKind::Unsupported);
}

// ------------------------------------------------------------------ other statements

TEST(create_and_drop) {
  auto s = One("CREATE TABLE IF NOT EXISTS lineorder (lo_orderkey INTEGER NOT NULL, lo_price DECIMAL(15,2), "
               "x BIGINT PRIMARY KEY, d DATE NULL, s VARCHAR(25) UNIQUE, c CHAR(1), t TEXT, b BOOLEAN, "
               "f DOUBLE PRECISION, r REAL, fl FLOAT, n NUMERIC(12, 4), si SMALLINT, i INT, "
               "\"Mixed\" varchar, date date, PRIMARY KEY (lo_orderkey, x), UNIQUE (s), "
               "CONSTRAINT fk FOREIGN KEY (c) REFERENCES other (c))");
  CHECK(s->kind == StmtKind::CreateTable);
  auto& ct = As<CreateTableStatement>(s);
  CHECK(ct.if_not_exists);
  // Key constraints in the order written (column ones as one-column keys).
  CHECK_EQ(ct.keys.size(), (size_t)4);
  CHECK(ct.keys[0].primary && ct.keys[0].columns == std::vector<std::string>{"x"});
  CHECK(!ct.keys[1].primary && ct.keys[1].columns == std::vector<std::string>{"s"});
  CHECK(ct.keys[2].primary && (ct.keys[2].columns == std::vector<std::string>{"lo_orderkey", "x"}));
  CHECK(!ct.keys[3].primary && ct.keys[3].columns == std::vector<std::string>{"s"});
  CHECK_EQ(ct.table, std::string("lineorder"));
  CHECK_EQ(ct.columns.size(), (size_t)16);
  CHECK(ct.columns[0].not_null);
  CHECK(ct.columns[0].type == Type::Integer());
  CHECK(ct.columns[1].type == Type::Decimal(15, 2));
  CHECK(!ct.columns[1].not_null);
  CHECK(ct.columns[2].type == Type::BigInt());
  CHECK(ct.columns[2].not_null);
  CHECK(ct.columns[3].type == Type::Date());
  CHECK(ct.columns[4].type == Type::Varchar());
  CHECK(ct.columns[5].type == Type::Varchar());
  CHECK(ct.columns[6].type == Type::Varchar());
  CHECK(ct.columns[7].type == Type::Boolean());
  CHECK(ct.columns[8].type == Type::Double());
  CHECK(ct.columns[9].type == Type::Double());
  CHECK(ct.columns[10].type == Type::Double());
  CHECK(ct.columns[11].type == Type::Decimal(12, 4));
  CHECK(ct.columns[12].type == Type::Integer());
  CHECK(ct.columns[13].type == Type::Integer());
  CHECK_EQ(ct.columns[14].name, std::string("Mixed"));
  CHECK_EQ(ct.columns[15].name, std::string("date"));
  CHECK_EQ(ct.columns[1].pos.col, 69);
  CHECK(!ct.as_select);

  auto cas = One("create table t2 as select a, b from t where a > 0");
  auto& c2 = As<CreateTableStatement>(cas);
  CHECK(c2.as_select != nullptr);
  CHECK(c2.columns.empty());
  CHECK(!c2.if_not_exists);

  auto d = One("DROP TABLE IF EXISTS t");
  CHECK(d->kind == StmtKind::DropTable);
  CHECK(As<DropStatement>(d).if_exists);
  CHECK_EQ(As<DropStatement>(d).name, std::string("t"));
  auto d2 = One("drop view v");
  CHECK(d2->kind == StmtKind::DropView);
  CHECK(!As<DropStatement>(d2).if_exists);

  auto v = One("CREATE OR REPLACE VIEW v (x, y) AS SELECT a, b FROM t WHERE a > 1");
  CHECK(v->kind == StmtKind::CreateView);
  auto& cv = As<CreateViewStatement>(v);
  CHECK(cv.or_replace);
  CHECK_EQ(cv.name, std::string("v"));
  CHECK_EQ(cv.column_aliases.size(), (size_t)2);
  CHECK_EQ(cv.query_sql, std::string("SELECT a, b FROM t WHERE a > 1"));
  CHECK(cv.query != nullptr);
  auto v2 = One("create view w as (select 1) ;");
  CHECK_EQ(As<CreateViewStatement>(v2).query_sql, std::string("(select 1)"));
  CHECK(!As<CreateViewStatement>(v2).or_replace);

  {
    auto st = ParseSQL("create table t (a int default 3 + 4, b varchar not null default 'x')");
    auto& ct = static_cast<const ast::CreateTableStatement&>(*st[0]);
    CHECK_EQ(ct.columns[0].default_sql, std::string("3 + 4"));
    CHECK_EQ(ct.columns[1].default_sql, std::string("'x'"));
    CHECK(ct.columns[1].not_null);
  }
  ExpectError("create table t (a int default)", 1, 30, "syntax error");
  ExpectError("create table t (a uuid)", 1, 19, "unknown type", ErrorKind::Type);
  ExpectError("create table t (a decimal(50, 2))", 1, 19, "precision", ErrorKind::Type);
  ExpectError("create table t ()", 1, 17, "syntax error at or near \")\"");
}

TEST(insert) {
  auto s = One("INSERT INTO t VALUES (1, 'a', NULL), (-2, 'b''c', DATE '2020-01-02')");
  auto& in = As<InsertStatement>(s);
  CHECK_EQ(in.table, std::string("t"));
  CHECK(in.columns.empty());
  CHECK_EQ(in.rows.size(), (size_t)2);
  CHECK_EQ(Dump(*in.rows[1][0]), std::string("(neg 2)"));
  CHECK_EQ(Dump(*in.rows[1][1]), std::string("'b'c'"));
  CHECK(!in.select);
  auto s2 = One("insert into t (a, \"B\") values (1, 2)");
  CHECK_EQ(As<InsertStatement>(s2).columns.size(), (size_t)2);
  CHECK_EQ(As<InsertStatement>(s2).columns[1], std::string("B"));
  auto s3 = One("insert into t (a) select x from u");
  CHECK(As<InsertStatement>(s3).select != nullptr);
  CHECK_EQ(As<InsertStatement>(s3).columns.size(), (size_t)1);
  auto s4 = One("insert into t select * from u union select * from v");
  CHECK(As<InsertStatement>(s4).select->set_op == SetOpKind::Union);
  auto s5 = One("insert into t (select 1)");
  CHECK(As<InsertStatement>(s5).select != nullptr);
  ExpectError("insert into t values (1, 2), (3)", 1, 30, "VALUES lists must all be the same length");
  ExpectError("insert into t values", 1, 21, "syntax error at end of input");
}

TEST(copy) {
  auto s = One("COPY lineorder FROM '/data/lineorder.tbl' WITH (DELIMITER '|', HEADER, NULL 'x', "
               "QUOTE '\"', FORMAT csv, HEADER false)");
  auto& c = As<CopyStatement>(s);
  CHECK_EQ(c.table, std::string("lineorder"));
  CHECK_EQ(c.path, std::string("/data/lineorder.tbl"));
  CHECK_EQ(c.path_pos.col, 21);
  CHECK_EQ(c.options.size(), (size_t)6);
  CHECK_EQ(c.options[0].first, std::string("delimiter"));
  CHECK_EQ(c.options[0].second, std::string("|"));
  CHECK_EQ(c.options[1].first, std::string("header"));
  CHECK_EQ(c.options[1].second, std::string("true"));
  CHECK_EQ(c.options[2].first, std::string("null"));
  CHECK_EQ(c.options[2].second, std::string("x"));
  CHECK_EQ(c.options[3].second, std::string("\""));
  CHECK_EQ(c.options[4].first, std::string("format"));
  CHECK_EQ(c.options[4].second, std::string("csv"));
  CHECK_EQ(c.options[5].second, std::string("false"));
  auto s2 = One("copy t from 'f.csv'");
  CHECK(As<CopyStatement>(s2).options.empty());
  auto s3 = One("copy t from 'f.csv' (header true, delimiter ',')");
  CHECK_EQ(As<CopyStatement>(s3).options.size(), (size_t)2);
  CHECK_EQ(As<CopyStatement>(s3).options[0].second, std::string("true"));
  auto s4 = One("copy t from 'f.tbl' delimiter '|' header");
  auto& c4 = As<CopyStatement>(s4);
  CHECK_EQ(c4.options.size(), (size_t)2);
  CHECK_EQ(c4.options[1].first, std::string("header"));
  CHECK_EQ(c4.options[1].second, std::string("true"));
  ExpectError("copy t from f.csv", 1, 13, "expected a file name");
  // COPY ... TO: a table (SELECT * FROM it) or a parenthesised query.
  auto s5 = One("COPY t TO 'out.csv' (HEADER false, DELIMITER '|')");
  auto& c5 = As<CopyStatement>(s5);
  CHECK(c5.to);
  CHECK_EQ(c5.table, std::string("t"));
  CHECK(c5.query != nullptr);
  CHECK_EQ(c5.path, std::string("out.csv"));
  CHECK_EQ(c5.options.size(), (size_t)2);
  auto s6 = One("copy (select a from t where a > 1 order by a) to 'x.csv'");
  auto& c6 = As<CopyStatement>(s6);
  CHECK(c6.to);
  CHECK(c6.table.empty());
  CHECK(c6.query != nullptr && c6.query->order_by.size() == 1);
  CHECK(!As<CopyStatement>(s2).to);
  ExpectError("copy (select 1) from 'x.csv'", 1, 17, "syntax error");
}

TEST(explain_and_set) {
  auto e = One("EXPLAIN SELECT 1");
  auto& ex = As<ExplainStatement>(e);
  CHECK(!ex.analyze);
  CHECK(ex.inner->kind == StmtKind::Select);
  CHECK_EQ(ex.inner->sql, std::string("SELECT 1"));
  CHECK_EQ(ex.inner->pos.col, 9);
  CHECK_EQ(e->sql, std::string("EXPLAIN SELECT 1"));
  auto e2 = One("explain analyze select * from t");
  CHECK(As<ExplainStatement>(e2).analyze);
  auto e3 = One("EXPLAIN (ANALYZE, KERNELS) SELECT 1");
  CHECK(As<ExplainStatement>(e3).analyze);
  CHECK_EQ(As<ExplainStatement>(e3).options.size(), (size_t)1);
  CHECK_EQ(As<ExplainStatement>(e3).options[0], std::string("kernels"));
  auto e4 = One("explain (kernels) insert into t select 1");
  CHECK(!As<ExplainStatement>(e4).analyze);
  CHECK(As<ExplainStatement>(e4).inner->kind == StmtKind::Insert);
  auto e5 = One("explain (select 1) union (select 2)");
  CHECK(As<ExplainStatement>(e5).inner->kind == StmtKind::Select);
  auto e6 = One("explain (analyze false, kernels true) select 1");
  CHECK(!As<ExplainStatement>(e6).analyze);
  CHECK_EQ(As<ExplainStatement>(e6).options.size(), (size_t)1);
  ExpectError("explain", 1, 8, "syntax error at end of input");

  auto s = One("SET Threads = 4");
  CHECK(s->kind == StmtKind::Set);
  CHECK_EQ(As<SetStatement>(s).name, std::string("threads"));
  CHECK_EQ(As<SetStatement>(s).value, std::string("4"));
  auto s2 = One("set device to 'GPU'");
  CHECK_EQ(As<SetStatement>(s2).value, std::string("GPU"));
  auto s3 = One("set device = CPU");
  CHECK_EQ(As<SetStatement>(s3).value, std::string("CPU"));
  auto s4 = One("set memory_limit = 1.5");
  CHECK_EQ(As<SetStatement>(s4).value, std::string("1.5"));
  auto s5 = One("set x = -3");
  CHECK_EQ(As<SetStatement>(s5).value, std::string("-3"));
  auto s6 = One("set enable_gpu = off");
  CHECK_EQ(As<SetStatement>(s6).value, std::string("off"));
  ExpectError("set x 3", 1, 7, "expected \"=\" or TO");
}

TEST(statement_text_and_positions) {
  auto v = Parse("  select 1 ;;\n;\n  SELECT a\n  FROM t  -- trailing\n; drop table x");
  CHECK_EQ(v.size(), (size_t)3);
  CHECK_EQ(v[0]->sql, std::string("select 1"));
  CHECK_EQ(v[0]->pos.line, 1);
  CHECK_EQ(v[0]->pos.col, 3);
  CHECK_EQ(v[1]->sql, std::string("SELECT a\n  FROM t"));
  CHECK_EQ(v[1]->pos.line, 3);
  CHECK_EQ(v[1]->pos.col, 3);
  CHECK_EQ(v[2]->sql, std::string("drop table x"));
  CHECK_EQ(v[2]->pos.line, 5);
  CHECK_EQ(v[2]->pos.col, 3);
  CHECK(Parse("").empty());
  CHECK(Parse(" ; ; -- nothing\n").empty());
  // Node positions.
  Q q = Sel("select a,\n  b + c\nfrom t x\nwhere x.y = 1");
  CHECK_EQ(q->select_list[1].expr->pos.line, 2);
  CHECK_EQ(q->select_list[1].expr->pos.col, 3);
  CHECK_EQ(q->select_list[1].expr->children[1]->pos.col, 7);
  CHECK_EQ(q->from[0]->pos.line, 3);
  CHECK_EQ(q->from[0]->pos.col, 6);
  CHECK_EQ(q->where->children[0]->pos.line, 4);
  CHECK_EQ(q->where->children[0]->pos.col, 7);
}

// ------------------------------------------------------------------ Star Schema Benchmark

namespace {
const char* kSSB[] = {
    // Q1.1
    "select sum(lo_extendedprice*lo_discount) as revenue from lineorder, date where lo_orderdate = "
    "d_datekey and d_year = 1993 and lo_discount between 1 and 3 and lo_quantity < 25;",
    // Q1.2
    "select sum(lo_extendedprice*lo_discount) as revenue from lineorder, date where lo_orderdate = "
    "d_datekey and d_yearmonthnum = 199401 and lo_discount between 4 and 6 and lo_quantity between 26 "
    "and 35;",
    // Q1.3
    "select sum(lo_extendedprice*lo_discount) as revenue from lineorder, date where lo_orderdate = "
    "d_datekey and d_weeknuminyear = 6 and d_year = 1994 and lo_discount between 5 and 7 and lo_quantity "
    "between 26 and 35;",
    // Q2.1
    "select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier where lo_orderdate = "
    "d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey and p_category = 'MFGR#12' and "
    "s_region = 'AMERICA' group by d_year, p_brand1 order by d_year, p_brand1;",
    // Q2.2
    "select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier where lo_orderdate = "
    "d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey and p_brand1 between 'MFGR#2221' "
    "and 'MFGR#2228' and s_region = 'ASIA' group by d_year, p_brand1 order by d_year, p_brand1;",
    // Q2.3
    "select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier where lo_orderdate = "
    "d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey and p_brand1 = 'MFGR#2221' and "
    "s_region = 'EUROPE' group by d_year, p_brand1 order by d_year, p_brand1;",
    // Q3.1
    "select c_nation, s_nation, d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, "
    "date where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and "
    "c_region = 'ASIA' and s_region = 'ASIA' and d_year >= 1992 and d_year <= 1997 group by c_nation, "
    "s_nation, d_year order by d_year asc, revenue desc;",
    // Q3.2
    "select c_city, s_city, d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, date "
    "where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and c_nation = "
    "'UNITED STATES' and s_nation = 'UNITED STATES' and d_year >= 1992 and d_year <= 1997 group by "
    "c_city, s_city, d_year order by d_year asc, revenue desc;",
    // Q3.3
    "select c_city, s_city, d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, date "
    "where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and "
    "(c_city='UNITED KI1' or c_city='UNITED KI5') and (s_city='UNITED KI1' or s_city='UNITED KI5') and "
    "d_year >= 1992 and d_year <= 1997 group by c_city, s_city, d_year order by d_year asc, revenue desc;",
    // Q3.4
    "select c_city, s_city, d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, date "
    "where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and "
    "(c_city='UNITED KI1' or c_city='UNITED KI5') and (s_city='UNITED KI1' or s_city='UNITED KI5') and "
    "d_yearmonth = 'Dec1997' group by c_city, s_city, d_year order by d_year asc, revenue desc;",
    // Q4.1
    "select d_year, c_nation, sum(lo_revenue - lo_supplycost) as profit from date, customer, supplier, "
    "part, lineorder where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey "
    "and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_region = 'AMERICA' and (p_mfgr = "
    "'MFGR#1' or p_mfgr = 'MFGR#2') group by d_year, c_nation order by d_year, c_nation;",
    // Q4.2
    "select d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) as profit from date, customer, "
    "supplier, part, lineorder where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = "
    "p_partkey and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_region = 'AMERICA' and "
    "(d_year = 1997 or d_year = 1998) and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2') group by d_year, "
    "s_nation, p_category order by d_year, s_nation, p_category;",
    // Q4.3
    "select d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) as profit from date, customer, "
    "supplier, part, lineorder where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = "
    "p_partkey and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_nation = 'UNITED STATES' and "
    "(d_year = 1997 or d_year = 1998) and p_category = 'MFGR#14' group by d_year, s_city, p_brand1 order "
    "by d_year, s_city, p_brand1;",
};
}  // namespace

TEST(ssb_all_queries_parse) {
  for (const char* sql : kSSB) {
    auto v = Parse(sql);
    CHECK_EQ(v.size(), (size_t)1);
    if (v.size() != 1) continue;
    CHECK(v[0]->kind == StmtKind::Select);
    auto& s = *As<SelectStatement>(v[0]).select;
    bool has_date = false;
    for (auto& f : s.from) has_date |= f->kind == TableRefKind::Base && f->name == "date";
    CHECK(has_date);
    CHECK(s.where != nullptr);
    CHECK(v[0]->sql.back() != ';');
  }
}

TEST(ssb_shapes) {
  Q q11 = Sel(kSSB[0]);
  CHECK_EQ(q11->from.size(), (size_t)2);
  CHECK_EQ(q11->select_list[0].alias, std::string("revenue"));
  CHECK_EQ(Dump(*q11->select_list[0].expr), std::string("(sum (* lo_extendedprice lo_discount))"));
  CHECK_EQ(Dump(*q11->where),
           std::string("(and (and (and (= lo_orderdate d_datekey) (= d_year 1993)) (between lo_discount 1 3)) "
                       "(< lo_quantity 25))"));
  Q q22 = Sel(kSSB[4]);
  CHECK_EQ(Dump(*q22->where->children[0]->children[1]),
           std::string("(between p_brand1 'MFGR#2221' 'MFGR#2228')"));
  CHECK_EQ(q22->group_by.size(), (size_t)2);
  CHECK_EQ(q22->order_by.size(), (size_t)2);
  Q q33 = Sel(kSSB[8]);
  CHECK_EQ(q33->order_by.size(), (size_t)2);
  CHECK(!q33->order_by[0].desc);
  CHECK(q33->order_by[1].desc);
  CHECK_EQ(Dump(*q33->order_by[1].expr), std::string("revenue"));
  // (c_city='UNITED KI1' or c_city='UNITED KI5') stays one OR node inside the AND chain.
  const Expr* w = q33->where.get();
  int ors = 0;
  while (w->kind == ExprKind::Binary && w->op == Op::And) {
    if (w->children[1]->kind == ExprKind::Binary && w->children[1]->op == Op::Or) ors++;
    w = w->children[0].get();
  }
  CHECK_EQ(ors, 2);
  Q q41 = Sel(kSSB[10]);
  CHECK_EQ(Dump(*q41->select_list[2].expr), std::string("(sum (- lo_revenue lo_supplycost))"));
  CHECK_EQ(q41->select_list[2].alias, std::string("profit"));
  CHECK_EQ(q41->from.size(), (size_t)5);
  CHECK_EQ(q41->from[0]->name, std::string("date"));
  // All 13 in one script.
  std::string script;
  for (const char* s : kSSB) script += std::string(s) + "\n";
  CHECK_EQ(Parse(script).size(), (size_t)13);
  bool complete = false;
  CHECK_EQ(SplitStatements(script, &complete).size(), (size_t)13);
  CHECK(complete);
}

// ------------------------------------------------------------------ errors

TEST(show_and_describe) {
  Q q = Sel("SHOW TABLES");
  CHECK(q->from.size() == 1 && q->from[0]->kind == TableRefKind::ShowTables);
  CHECK(q->order_by.size() == 1 && q->order_by[0].expr->name == "name");
  q = Sel("describe Lineitem");
  CHECK(q->from[0]->kind == TableRefKind::Describe && q->from[0]->name == "Lineitem");
  q = Sel("SHOW main.t");
  CHECK(q->from[0]->kind == TableRefKind::Describe && q->from[0]->schema == "main" && q->from[0]->name == "t");
  q = Sel("DESCRIBE SELECT 1 AS x");
  CHECK(q->from[0]->kind == TableRefKind::Describe && q->from[0]->subquery != nullptr);
  q = Sel("select table_name from information_schema.tables t");
  CHECK(q->from[0]->kind == TableRefKind::Base && q->from[0]->schema == "information_schema" &&
        q->from[0]->name == "tables" && q->from[0]->alias == "t");
}

TEST(syntax_errors) {
  ExpectError("SELECT * FORM t", 1, 10, "syntax error at or near \"FORM\"");
  CHECK_THROWS_WITH(ParseSQL("SELECT * FORM t"), "line 1, column 10: syntax error at or near \"FORM\"");
  ExpectError("SELECT a FROM", 1, 14, "syntax error at end of input");
  ExpectError("SELECT (a + b", 1, 14, "expected \")\"");
  ExpectError("SELECT a\nFROM t\nWHERE a = = 1", 3, 11, "syntax error at or near \"=\"");
  ExpectError("select a\n  from t\n  where x in (1, 2\n  order by a", 4, 3, "expected \")\"");
  ExpectError("select 1 limit -1", 1, 16, "LIMIT must be a non-negative integer");
  ExpectError("select 1 limit 'x'", 1, 16, "LIMIT must be a non-negative integer");
  ExpectError("select 1 limit 99999999999999999999", 1, 16, "LIMIT must be a non-negative integer");
  ExpectError("select 1 offset 1.5", 1, 17, "OFFSET must be a non-negative integer");
  ExpectError("select 1 limit 1 limit 2", 1, 18, "syntax error at or near \"limit\"");
  ExpectError("UPDATE t SET a = 1 FROM", 1, 24, "syntax error at end of input");
  ExpectError("select 1;\n  delete from t using u where", 2, 30, "syntax error at end of input");
  ExpectError("delete from t returning (select 1)", 1, 25, "SUBQUERY is not supported in returning", ErrorKind::Binder);
  ExpectError("insert into t values (1) returning excluded.a", 1, 36, "'excluded' qualified columns", ErrorKind::Unsupported);
  ExpectError("ALTER TABLE t ALTER COLUMN b TYPE INTEGER", 1, 15, "ALTER TABLE ... ALTER COLUMN is not supported", ErrorKind::Unsupported);
  ExpectError("ALTER VIEW v RENAME TO w", 1, 7, "ALTER VIEW is not supported", ErrorKind::Unsupported);
  ExpectError("UPDATE t SET", 1, 13, "syntax error at end of input");
  ExpectError("begin transaction x", 1, 19, "syntax error at or near \"x\"");
  ExpectError("commit work work", 1, 13, "syntax error at or near \"work\"");
  ExpectError("savepoint s", 1, 1, "SAVEPOINT is not supported", ErrorKind::Unsupported);
  ExpectError("create unique index i on t(a)", 1, 8, "CREATE UNIQUE INDEX is not supported", ErrorKind::Unsupported);
  ExpectError("create or replace index i on t(a)", 1, 19, "expected TABLE, VIEW or SEQUENCE");
  ExpectError("create sequence s start with x", 1, 30, "expected an integer after START");
  ExpectError("create sequence s cycle no cycle", 1, 28, "conflicting or redundant options: CYCLE");
  ExpectError("create sequence s increment 1 no start", 1, 34, "expected MINVALUE, MAXVALUE or CYCLE after NO");
  ExpectError("create sequence s minvalue 99999999999999999999", 1, 28, "MINVALUE must be an integer");
  ExpectError("create table temp.t (i int)", 1, 14, "Only TEMPORARY table names can use the \"temp\" catalog");
  ExpectError("create temp view a.b.c.d as select 1", 1, 23, "syntax error at or near \".\"");
  ExpectError("create temp table x.main.t (i int)", 1, 19, "qualified by a database other than temp", ErrorKind::Unsupported);
  ExpectError("frobnicate t", 1, 1, "syntax error at or near \"frobnicate\"");
  ExpectError("select * from a.b.c", 1, 18, "qualified by a database", ErrorKind::Unsupported);
  ExpectError("show", 1, 1, "SHOW without a table name", ErrorKind::Unsupported);
  ExpectError("describe t.", 1, 12, "syntax error at end of input");
  ExpectError("select from t", 1, 8, "syntax error at or near \"from\"");
  ExpectError("select a, from t", 1, 11, "syntax error at or near \"from\"");
  ExpectError("select case when a then b", 1, 26, "expected END");
  ExpectError("select case x end", 1, 15, "expected WHEN");
  ExpectError("select case end", 1, 13, "syntax error at or near \"end\"");
  ExpectError("select cast(a as int", 1, 21, "expected \")\"");
  ExpectError("select a b c from t", 1, 12, "syntax error at or near \"c\"");
  ExpectError("select * from t where", 1, 22, "syntax error at end of input");
  ExpectError("select * from t group a", 1, 23, "expected BY");
  ExpectError("select a from t order by a nulls middle", 1, 34, "expected FIRST or LAST");
  ExpectError("select * from select", 1, 15, "syntax error at or near \"select\"");
  ExpectError("select 1; select (", 1, 19, "syntax error at end of input");
  ExpectError("select 1 select 2", 1, 10, "syntax error at or near \"select\"");
  ExpectError("select t.a.b from t", 1, 11, "names with more than two parts", ErrorKind::Unsupported);
  ExpectError("select a is 1", 1, 13, "expected NULL");
  ExpectError("select sum(a) over (order by a rows between 1 preceding and current row exclude others) from t", 1, 81,
              "expected CURRENT ROW, GROUP, TIES or NO OTHERS");
  ExpectError("select sum(a) over (rows unbounded following) from t", 1, 26, "frame start cannot be UNBOUNDED FOLLOWING");
  ExpectError("select sum(a) over (rows between current row and 1 preceding) from t", 1, 50,
              "frame starting from current row cannot have preceding rows");
  ExpectError("select sum(a) over (rows between 1 and 2 following) from t", 1, 36, "expected PRECEDING or FOLLOWING");
  ExpectError("select 1 from t window w as (), w as ()", 1, 33, "window \"w\" is already defined");
  ExpectError("select x from t where a between 1", 1, 34, "expected AND");
  ExpectError("create view v as", 1, 17, "syntax error at end of input");
  ExpectError("drop index i", 1, 6, "DROP INDEX is not supported", ErrorKind::Unsupported);
  ExpectError("drop foo", 1, 6, "expected TABLE, VIEW or SEQUENCE");
  ExpectError("select 'abc' 'def'", 1, 14, "syntax error at or near \"'def'\"");
}

// ------------------------------------------------------------------ SplitStatements

TEST(split_statements) {
  bool complete = false;
  auto v = SplitStatements("select 'a;b'; select \"x;y\" from t; -- c;omment\nselect /* ; */ 3;", &complete);
  CHECK_EQ(v.size(), (size_t)3);
  CHECK_EQ(v[0], std::string("select 'a;b'"));
  CHECK_EQ(v[1], std::string("select \"x;y\" from t"));
  CHECK_EQ(v[2], std::string("-- c;omment\nselect /* ; */ 3"));
  CHECK(complete);

  v = SplitStatements("select 1; select 2", &complete);
  CHECK_EQ(v.size(), (size_t)2);
  CHECK_EQ(v[1], std::string("select 2"));
  CHECK(!complete);

  v = SplitStatements("select 'it''s;", &complete);
  CHECK_EQ(v.size(), (size_t)1);
  CHECK(!complete);

  v = SplitStatements("select 1; /* open ; comment", &complete);
  CHECK(!complete);
  CHECK_EQ(v.size(), (size_t)2);

  v = SplitStatements("select 1 -- no newline;", &complete);
  CHECK(!complete);

  v = SplitStatements("select 1; -- done\n  ", &complete);
  CHECK_EQ(v.size(), (size_t)1);
  CHECK(complete);

  v = SplitStatements("  ;; \n ; ", &complete);
  CHECK(v.empty());
  CHECK(complete);

  v = SplitStatements("", &complete);
  CHECK(v.empty());
  CHECK(complete);

  v = SplitStatements("select 'a''b'';';", &complete);
  CHECK_EQ(v.size(), (size_t)1);
  CHECK_EQ(v[0], std::string("select 'a''b'';'"));
  CHECK(complete);
  CHECK_EQ(SplitStatements("a;b").size(), (size_t)2);  // last_complete is optional
  // Each piece parses to the same statement as the whole script.
  auto parts = SplitStatements("create table t (a int); insert into t values (1); select * from t;");
  CHECK_EQ(parts.size(), (size_t)3);
  for (auto& p : parts) CHECK_EQ(Parse(p).size(), (size_t)1);
}

// ------------------------------------------------------------------ hostile input

TEST(deep_nesting) {
  std::string deep = "select " + std::string(100000, '(') + "1" + std::string(100000, ')');
  CHECK_THROWS_WITH(ParseSQL(deep), "nested too deeply");
  std::string ok = "select " + std::string(300, '(') + "1" + std::string(300, ')');
  CHECK_EQ(Parse(ok).size(), (size_t)1);
  std::string nots = "select ";
  for (int i = 0; i < 50000; i++) nots += "not ";
  nots += "a";
  CHECK_THROWS_WITH(ParseSQL(nots), "nested too deeply");
  std::string negs = "select ";
  for (int i = 0; i < 50000; i++) negs += "- ";
  negs += "1";
  CHECK_THROWS_WITH(ParseSQL(negs), "nested too deeply");
  std::string subs = "select ";
  for (int i = 0; i < 5000; i++) subs += "(select ";
  subs += "1";
  for (int i = 0; i < 5000; i++) subs += ")";
  CHECK_THROWS_WITH(ParseSQL(subs), "nested too deeply");
  std::string froms = "select * from " + std::string(20000, '(') + "t" + std::string(20000, ')');
  CHECK_THROWS_WITH(ParseSQL(froms), "nested too deeply");
  std::string explains;
  for (int i = 0; i < 20000; i++) explains += "explain ";
  explains += "select 1";
  CHECK_THROWS_WITH(ParseSQL(explains), "nested too deeply");
  std::string funcs = "select ";
  for (int i = 0; i < 20000; i++) funcs += "f(";
  funcs += "1" + std::string(20000, ')');
  CHECK_THROWS_WITH(ParseSQL(funcs), "nested too deeply");
  std::string casts = "select ";
  for (int i = 0; i < 20000; i++) casts += "cast(";
  CHECK_THROWS_WITH(ParseSQL(casts), "nested too deeply");
}

TEST(long_chains) {
  // Wide but shallow input is fine.
  std::string in = "select 1 in (";
  for (int i = 0; i < 20000; i++) in += (i ? ",1" : "1");
  in += ")";
  CHECK_EQ(Parse(in).size(), (size_t)1);
  std::string ors = "select * from t where a = 0";
  for (int i = 1; i < 1000; i++) ors += " or a = " + std::to_string(i);
  CHECK_EQ(Parse(ors).size(), (size_t)1);
  // Very tall trees built without recursion are refused instead of blowing later passes' stacks.
  std::string plus = "select 1";
  for (int i = 0; i < 100000; i++) plus += "+1";
  CHECK_THROWS_WITH(ParseSQL(plus), "too complex");
  std::string unions = "select 1";
  for (int i = 0; i < 50000; i++) unions += " union all select 1";
  CHECK_THROWS_WITH(ParseSQL(unions), "too complex");
  std::string joins = "select * from t0";
  for (int i = 0; i < 50000; i++) joins += " cross join t";
  CHECK_THROWS_WITH(ParseSQL(joins), "too complex");
  // Tall chains nested in subqueries add up.
  std::string chain = "1";
  for (int i = 0; i < 900; i++) chain += "+1";
  std::string nested = "select " + chain;
  for (int i = 0; i < 10; i++) nested = "select (" + nested + ") + " + chain;
  CHECK_THROWS_WITH(ParseSQL(nested), "too complex");
  std::string big_insert = "insert into t values ";
  for (int i = 0; i < 20000; i++) big_insert += std::string(i ? "," : "") + "(1, 'x', 2.5)";
  auto v = Parse(big_insert);
  CHECK_EQ(As<InsertStatement>(v[0]).rows.size(), (size_t)20000);
}

TEST(hostile_inputs) {
  CHECK_THROWS_WITH(ParseSQL("select 'unterminated"), "unterminated quoted string");
  CHECK_THROWS_WITH(ParseSQL("select /* /* */"), "unterminated /* comment");
  CHECK_THROWS_WITH(ParseSQL(std::string("select \0 1", 10)), "syntax error");
  std::string why;
  std::mt19937 rng(12345);
  // Random bytes.
  for (int n = 0; n < 3000; n++) {
    std::string s;
    int len = rng() % 64;
    for (int i = 0; i < len; i++) s.push_back((char)(rng() % 256));
    if (!ParsesOrUserError(s, &why)) {
      tcheck::Fail(__FILE__, __LINE__, "random bytes: " + why);
      break;
    }
  }
  // Random token soup.
  const char* pieces[] = {"select", "from", "where", "(", ")", ",", "a", "1", "'s'", "and", "or", "not",
                          "between", "in", "like", "is", "null", "case", "when", "then", "else", "end",
                          "join", "on", "left", "union", "order", "by", "limit", "group", "having", "*",
                          "+", "-", "::", "int", "date", "interval", "exists", "with", "as", ";", ".",
                          "cast", "extract", "substring", "for", "distinct", "all", "create", "table",
                          "insert", "into", "values", "copy", "explain", "set", "=", "view", "drop"};
  const int np = sizeof(pieces) / sizeof(pieces[0]);
  for (int n = 0; n < 20000; n++) {
    std::string s;
    int len = rng() % 30;
    for (int i = 0; i < len; i++) s += std::string(pieces[rng() % np]) + " ";
    if (!ParsesOrUserError(s, &why)) {
      tcheck::Fail(__FILE__, __LINE__, "token soup '" + s + "': " + why);
      break;
    }
  }
  // Every prefix of every SSB query, and each query with one character dropped.
  for (const char* q : kSSB) {
    std::string sql(q);
    for (size_t k = 0; k <= sql.size(); k++) {
      if (!ParsesOrUserError(sql.substr(0, k), &why) ||
          (k < sql.size() && !ParsesOrUserError(sql.substr(0, k) + sql.substr(k + 1), &why))) {
        tcheck::Fail(__FILE__, __LINE__, "mutated SSB query: " + why);
        break;
      }
    }
  }
  bool complete;
  for (int n = 0; n < 2000; n++) {
    std::string s;
    int len = rng() % 40;
    const char alphabet[] = "ab ;'\"-/*\n";
    for (int i = 0; i < len; i++) s.push_back(alphabet[rng() % (sizeof(alphabet) - 1)]);
    SplitStatements(s, &complete);  // must not crash
  }
}

TEST_MAIN()
