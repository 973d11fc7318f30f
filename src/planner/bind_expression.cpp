// Expressions: types and coercions (CommonType, Coerce, comparison operands), literals,
// operators, functions and aggregates, CASE, CAST, EXTRACT.
#include <algorithm>
#include <chrono>
#include <set>

#include "common/ascii.hpp"
#include "common/date.hpp"
#include "common/decimal.hpp"
#include "common/interval.hpp"
#include "common/string_cast.hpp"
#include "execution/expression_executor.hpp"
#include "function/function_registry.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

using ast::ExprKind;
using ast::Op;

static UserError TypeError(const std::string& msg, SourcePos pos) {
  return UserError(ErrorKind::Type, msg, pos);
}

// A numeric literal too long for DECIMAL or written with an exponent: out-of-range
// magnitudes are +-inf or 0, as in DuckDB (SELECT 1e999 is inf).
static double DoubleLiteral(const ast::Expr& e) {
  auto d = ParseDouble(e.text);
  if (!d) throw UserError(ErrorKind::Conversion, "invalid numeric literal " + e.text, e.pos);
  return *d;
}

// ---------------------------------------------------------------------------------------
// Types and coercions

static Type DecimalOf(const Type& t) {
  if (t.id == TypeId::Integer) return Type::Decimal(10, 0);
  if (t.id == TypeId::BigInt) return Type::Decimal(19, 0);
  return t;
}

Type Binder::CommonType(const Type& a, const Type& b, SourcePos pos) {
  if (a == b) return a;
  if (a.id == TypeId::Null) return b;
  if (b.id == TypeId::Null) return a;
  if (a.IsNumeric() && b.IsNumeric()) {
    if (a.id == TypeId::Double || b.id == TypeId::Double) return Type::Double();
    if (a.id == TypeId::Decimal || b.id == TypeId::Decimal) {
      Type x = DecimalOf(a), y = DecimalOf(b);
      int s = std::max(x.scale, y.scale);
      int p = std::min(38, std::max(x.precision - x.scale, y.precision - y.scale) + s);
      return Type::Decimal(p, s);
    }
    return (a.id == TypeId::BigInt || b.id == TypeId::BigInt) ? Type::BigInt() : Type::Integer();
  }
  // A DATE next to a TIMESTAMP is its midnight (DuckDB's implicit cast).
  if ((a.id == TypeId::Date && b.id == TypeId::Timestamp) || (a.id == TypeId::Timestamp && b.id == TypeId::Date))
    return Type::Timestamp();
  throw TypeError("cannot combine " + a.ToString() + " and " + b.ToString(), pos);
}

// DuckDB's rules for a column of UNION/INTERSECT/EXCEPT: VARCHAR takes in any other type
// (its values cast to text), BOOLEAN gives way to a number, the rest is CommonType
// (NULL, numbers; anything else cannot be combined).
Type Binder::SetOpType(const Type& a, const Type& b, SourcePos pos) {
  if (a == b) return a;
  if (a.id == TypeId::Varchar || b.id == TypeId::Varchar) return Type::Varchar();
  if (a.id == TypeId::Boolean && b.IsNumeric()) return b;
  if (b.id == TypeId::Boolean && a.IsNumeric()) return a;
  return CommonType(a, b, pos);
}

BoundExprPtr Binder::Coerce(BoundExprPtr e, const Type& t, SourcePos pos) {
  if (e->type == t) return e;
  if (e->kind == BExpr::Constant) {
    try {
      return MakeConstant(e->value.CastTo(t));
    } catch (const UserError& err) {
      throw UserError(ErrorKind::Conversion, err.raw(), pos);
    }
  }
  return MakeCast(std::move(e), t);
}

BoundExprPtr Binder::ToBoolean(BoundExprPtr e, SourcePos pos, const char* what) {
  if (e->type.id == TypeId::Boolean) return e;
  if (e->type.id == TypeId::Null) return MakeConstant(Value::Null(Type::Boolean()));
  throw TypeError(std::string(what) + " must be BOOLEAN, not " + e->type.ToString(), pos);
}

// Unifies the types of two operands for comparison: a VARCHAR constant takes the other
// side's type (so d_date = '1997-01-01' compares dates); otherwise CommonType.
static void UnifyForCompare(BoundExprPtr& l, BoundExprPtr& r, SourcePos pos) {
  const Type lt = l->type, rt = r->type;
  if (lt == rt) return;
  auto cast_const = [&](BoundExprPtr& c, const Type& t) {
    try {
      c = MakeConstant(c->value.CastTo(t));
    } catch (const UserError& err) {
      throw UserError(ErrorKind::Conversion, err.raw(), pos);
    }
  };
  if (lt.id == TypeId::Varchar && l->kind == BExpr::Constant && rt.id != TypeId::Null) {
    cast_const(l, rt);
    return;
  }
  if (rt.id == TypeId::Varchar && r->kind == BExpr::Constant && lt.id != TypeId::Null) {
    cast_const(r, lt);
    return;
  }
  Type t;
  if (lt.id == TypeId::Null) t = rt;
  else if (rt.id == TypeId::Null) t = lt;
  else if (lt.IsNumeric() && rt.IsNumeric()) t = Binder::CommonType(lt, rt, pos);
  else if ((lt.id == TypeId::Date && rt.id == TypeId::Timestamp) || (lt.id == TypeId::Timestamp && rt.id == TypeId::Date))
    t = Type::Timestamp();
  else
    throw UserError(ErrorKind::Type,
                    "cannot compare values of type " + lt.ToString() + " and " + rt.ToString(),
                    pos);
  l = MakeCast(std::move(l), t);
  r = MakeCast(std::move(r), t);
}

// A call of the registry's function fn (written as `written`, for error messages): the
// function's bind hook checks and coerces the arguments and gives the result type.
static BoundExprPtr MakeFunction(const ScalarFunction& fn, std::string_view written,
                                 std::vector<BoundExprPtr> args, SourcePos pos) {
  ScalarCall call{written, pos, args};
  Type t = fn.bind(call);
  auto f = std::make_unique<BoundExpr>(BExpr::Func, t);
  f->name = fn.name;
  f->fn = &fn;
  f->children = std::move(args);
  return f;
}

static BoundExprPtr MakeFunction(std::string_view name, std::vector<BoundExprPtr> args, SourcePos pos) {
  const ScalarFunction& fn = ScalarFunctionNamed(name);
  return MakeFunction(fn, fn.name, std::move(args), pos);
}

BoundExprPtr MakeScalarCall(std::string_view name, std::vector<BoundExprPtr> args, SourcePos pos) {
  return MakeFunction(name, std::move(args), pos);
}

BoundExprPtr MakeEquality(BoundExprPtr l, BoundExprPtr r, SourcePos pos) {
  UnifyForCompare(l, r, pos);
  return MakeCompare(Op::Eq, std::move(l), std::move(r));
}

// ---------------------------------------------------------------------------------------
// Expressions

BoundExprPtr Binder::BindLiteral(const ast::Expr& e) {
  using ast::LiteralKind;
  switch (e.lit) {
    case LiteralKind::Null: return MakeConstant(Value::Null());
    case LiteralKind::Boolean: return MakeConstant(Value::Boolean(e.text == "true"));
    case LiteralKind::String: return MakeConstant(Value::Varchar(e.text));
    case LiteralKind::Integer: {
      auto v = ParseDecimal(e.text, 38, 0);
      // Beyond 38 digits: a DOUBLE, as DuckDB makes integers beyond its (U)HUGEINT range
      // (tessera's widest integer literal is DECIMAL(38,0), so 39-digit values below 2^128,
      // DuckDB's HUGEINT / UHUGEINT, are DOUBLE here).
      if (!v) return MakeConstant(Value::Double(DoubleLiteral(e)));
      if (*v >= INT32_MIN && *v <= INT32_MAX) return MakeConstant(Value::Integer((int32_t)*v));
      if (*v >= INT64_MIN && *v <= INT64_MAX) return MakeConstant(Value::BigInt((int64_t)*v));
      return MakeConstant(Value::Decimal(*v, 38, 0));
    }
    case LiteralKind::Decimal: {
      int id, fd;
      DecimalLiteralShape(e.text, id, fd);
      int p = std::max(id + fd, 1);
      if (p > 38) return MakeConstant(Value::Double(DoubleLiteral(e)));
      auto v = ParseDecimal(e.text, p, fd);
      if (!v) throw UserError(ErrorKind::Conversion, "invalid numeric literal " + e.text, e.pos);
      return MakeConstant(Value::Decimal(*v, p, fd));
    }
    case LiteralKind::Float: return MakeConstant(Value::Double(DoubleLiteral(e)));
    case LiteralKind::Date: {
      auto d = ParseDate(e.text);
      if (!d) throw UserError(ErrorKind::Conversion, "invalid date literal '" + e.text + "'", e.pos);
      return MakeConstant(Value::Date(*d));
    }
  }
  throw InternalError("unknown literal");
}

// The value of an INTERVAL literal: INTERVAL 'n' unit / INTERVAL n unit (a unit of months,
// days or microseconds, as DuckDB's fields) or INTERVAL '1 day 02:00:00' (no unit).
// INTERVAL 'n' unit counts whole units: the number truncated toward zero (DuckDB: INTERVAL
// '2.7' HOUR is 02:00:00, while INTERVAL '2.7 hours' is 02:42:00).
static std::string WholeUnits(const std::string& n) {
  std::string w = n.substr(0, n.find('.'));
  return w.empty() || w == "-" || w == "+" ? "0" : w;
}

static IntervalParts IntervalLiteral(const ast::Expr& iv) {
  std::optional<IntervalParts> p;
  if (iv.name.empty()) p = ParseInterval(iv.text);
  else p = ParseInterval(WholeUnits(iv.text) + " " + iv.name);
  if (!p) throw UserError(ErrorKind::Conversion, "invalid interval '" + iv.text + "'", iv.pos);
  return *p;
}

// Whether an operand is written as an INTERVAL literal (then `x + INTERVAL ...` is interval
// arithmetic, not DATE arithmetic).
static bool IsIntervalLiteral(const ast::Expr& e) { return e.kind == ExprKind::Interval; }

BoundExprPtr Binder::BindArith(Op op, BoundExprPtr l, BoundExprPtr r, SourcePos pos) {
  const char* name = op == Op::Add ? "+" : op == Op::Sub ? "-" : op == Op::Mul ? "*"
                   : op == Op::Div ? "/" : op == Op::IntDiv ? "//" : "%";
  auto mk = [&op, &l, &r](Type t) {
    auto e = std::make_unique<BoundExpr>(BExpr::Arith, t);
    e->op = op;
    e->children.push_back(std::move(l));
    e->children.push_back(std::move(r));
    return e;
  };
  if (l->type.id == TypeId::Null || r->type.id == TypeId::Null) {
    Type t = l->type.id == TypeId::Null ? r->type : l->type;
    if (t.id == TypeId::Null) t = Type::Integer();
    if (op == Op::Div) t = Type::Double();
    return MakeConstant(Value::Null(t));
  }
  // INTERVAL values: TIMESTAMP/DATE/TIME +/- INTERVAL, INTERVAL +/- INTERVAL, INTERVAL * n,
  // and TIMESTAMP - TIMESTAMP (an INTERVAL of days and microseconds, as DuckDB).
  const TypeId li = l->type.id, ri = r->type.id;
  if (li == TypeId::Interval || ri == TypeId::Interval ||
      (op == Op::Sub && ((li == TypeId::Timestamp && (ri == TypeId::Timestamp || ri == TypeId::Date)) ||
                         (li == TypeId::Date && ri == TypeId::Timestamp)))) {
    auto call = [&](const char* fn) {
      std::vector<BoundExprPtr> args;
      args.push_back(std::move(l));
      args.push_back(std::move(r));
      return MakeFunction(fn, std::move(args), pos);
    };
    const bool add = op == Op::Add, sub = op == Op::Sub;
    if (add && li == TypeId::Interval && ri != TypeId::Interval && ri != TypeId::Varchar) {
      std::swap(l, r);
      return BindArith(op, std::move(l), std::move(r), pos);
    }
    if (ri == TypeId::Interval && (add || sub)) {
      if (li == TypeId::Varchar && l->kind == BExpr::Constant) l = Coerce(std::move(l), Type::Timestamp(), pos);
      const TypeId lt = l->type.id;
      if (lt == TypeId::Timestamp || lt == TypeId::Date) {
        l = Coerce(std::move(l), Type::Timestamp(), pos);
        return call(add ? "timestamp_add_interval" : "timestamp_sub_interval");
      }
      if (lt == TypeId::Time) return call(add ? "time_add_interval" : "time_sub_interval");
      if (lt == TypeId::Interval) return call(add ? "interval_add" : "interval_sub");
    }
    if (op == Op::Mul && (li == TypeId::Interval) != (ri == TypeId::Interval)) {
      if (ri == TypeId::Interval) std::swap(l, r);
      if (r->type.IsIntegral() || (r->kind == BExpr::Constant && r->type.id == TypeId::Varchar)) {
        r = Coerce(std::move(r), Type::BigInt(), pos);
        return call("interval_mul");
      }
    }
    if (sub && li != TypeId::Interval && ri != TypeId::Interval) {
      l = Coerce(std::move(l), Type::Timestamp(), pos);
      r = Coerce(std::move(r), Type::Timestamp(), pos);
      return call("timestamp_diff");
    }
    throw TypeError(std::string("operator ") + name + " is not defined for " + l->type.ToString() + " and " +
                        r->type.ToString(), pos);
  }
  // DATE +/- integer days, DATE - DATE
  if (l->type.id == TypeId::Date || r->type.id == TypeId::Date) {
    if ((op == Op::Add || op == Op::Sub) && l->type.id == TypeId::Date && r->type.IsIntegral()) {
      r = Coerce(std::move(r), Type::Integer(), pos);
      return mk(Type::Date());
    }
    if (op == Op::Add && r->type.id == TypeId::Date && l->type.IsIntegral()) {
      std::swap(l, r);
      r = Coerce(std::move(r), Type::Integer(), pos);
      return mk(Type::Date());
    }
    if (op == Op::Sub && l->type.id == TypeId::Date && r->type.id == TypeId::Date)
      return mk(Type::BigInt());
    throw TypeError(std::string("operator ") + name + " is not defined for " + l->type.ToString() +
                        " and " + r->type.ToString(), pos);
  }
  // A VARCHAR constant next to a number is read as a numeric literal of its own shape.
  auto numeric_or_const = [&](BoundExprPtr& x, const BoundExprPtr& other) {
    if (x->type.IsNumeric()) return;
    if (x->type.id == TypeId::Varchar && x->kind == BExpr::Constant && other->type.IsNumeric()) {
      const std::string& text = x->value.str_value();
      int id, fd;
      DecimalLiteralShape(text, id, fd);
      int p = std::max(id + fd, 1);
      auto v = p <= 38 ? ParseDecimal(text, p, fd) : std::nullopt;
      if (!v)
        throw UserError(ErrorKind::Conversion, "could not convert string '" + text + "' to a number", pos);
      x = MakeConstant(fd == 0 && *v >= INT32_MIN && *v <= INT32_MAX ? Value::Integer((int32_t)*v)
                                                                      : Value::Decimal(*v, p, fd));
      return;
    }
    throw TypeError(std::string("operator ") + name + " is not defined for " + l->type.ToString() +
                        " and " + r->type.ToString(), pos);
  };
  numeric_or_const(l, r);
  numeric_or_const(r, l);
  // / is DOUBLE division; so is // with a non-integer operand (NULL for a zero divisor).
  if (op == Op::Div || (op == Op::IntDiv && !(l->type.IsIntegral() && r->type.IsIntegral()))) {
    l = MakeCast(std::move(l), Type::Double());
    r = MakeCast(std::move(r), Type::Double());
    return mk(Type::Double());
  }
  Type lt = l->type, rt = r->type;
  if (lt.id == TypeId::Double || rt.id == TypeId::Double) {
    l = MakeCast(std::move(l), Type::Double());
    r = MakeCast(std::move(r), Type::Double());
    return mk(Type::Double());
  }
  if (lt.id == TypeId::Decimal || rt.id == TypeId::Decimal) {
    Type x = DecimalOf(lt), y = DecimalOf(rt);
    // As DuckDB types decimal arithmetic: a result of more than 18 digits from operands of
    // at most 18 is DECIMAL(18, s) (64-bit, overflow-checked: ops::WithinPrecision) when its
    // scale allows; a product's scale under 18.
    bool narrow = std::max(x.precision, y.precision) <= 18;
    if (op == Op::Mul) {
      int p = x.precision + y.precision;
      int s = x.scale + y.scale;
      if (s > 38) throw TypeError("DECIMAL multiplication result scale exceeds 38", pos);
      if (p > 18 && narrow && s < 18) p = 18;
      p = std::min(p, 38);
      if (p < s) p = s;
      l = MakeCast(std::move(l), Type::Decimal(p, x.scale));
      r = MakeCast(std::move(r), Type::Decimal(p, y.scale));
      return mk(Type::Decimal(p, s));
    }
    int s = std::max(x.scale, y.scale);
    int p = std::max(x.precision - x.scale, y.precision - y.scale) + s + (op == Op::Mod ? 0 : 1);
    if (p > 18 && narrow) p = 18;
    p = std::min(p, 38);
    Type t = Type::Decimal(p, s);
    l = MakeCast(std::move(l), t);
    r = MakeCast(std::move(r), t);
    return mk(t);
  }
  Type t = CommonType(lt, rt, pos);
  l = MakeCast(std::move(l), t);
  r = MakeCast(std::move(r), t);
  return mk(t);
}

BoundExprPtr Binder::BindBinary(const ast::Expr& e, Ctx& ctx) {
  Op op = e.op;
  // DATE, TIMESTAMP or TIME +/- INTERVAL n unit. DATE +/- INTERVAL is the TIMESTAMP of that
  // midnight moved, as in DuckDB (a DATE column compared with such a constant is compared
  // as a DATE again: optimizer/date_comparison.cpp).
  if ((op == Op::Add || op == Op::Sub) && e.children[1]->kind == ExprKind::Interval && !e.children[1]->name.empty() &&
      !IsIntervalLiteral(*e.children[0])) {
    auto l = Bind(*e.children[0], ctx);
    if (l->type.id == TypeId::Interval) return BindArith(op, std::move(l), Bind(*e.children[1], ctx), e.pos);
    const ast::Expr& iv = *e.children[1];
    auto n = ParseDecimal(WholeUnits(iv.text), 18, 0);
    if (!n) throw UserError(ErrorKind::Conversion, "invalid interval '" + iv.text + "'", iv.pos);
    int64_t amount = (int64_t)*n * (op == Op::Sub ? -1 : 1);
    if (l->type.id == TypeId::Varchar && l->kind == BExpr::Constant) l = Coerce(std::move(l), Type::Date(), e.pos);
    if (!l->type.IsTemporal())
      throw TypeError("INTERVAL arithmetic needs a DATE, TIMESTAMP or TIME, not " + l->type.ToString(), e.pos);
    // Months (month, quarter, year) or microseconds (the rest).
    bool months = true;
    int64_t unit = 1;
    if (iv.name == "month") unit = 1;
    else if (iv.name == "quarter") unit = 3;
    else if (iv.name == "year") unit = 12;
    else {
      months = false;
      if (iv.name == "week") unit = 7 * kMicrosPerDay;
      else if (iv.name == "day") unit = kMicrosPerDay;
      else if (iv.name == "hour") unit = 3600 * kMicrosPerSecond;
      else if (iv.name == "minute") unit = 60 * kMicrosPerSecond;
      else if (iv.name == "second") unit = kMicrosPerSecond;
      else if (iv.name == "millisecond") unit = 1000;
      else if (iv.name == "microsecond") unit = 1;
      else throw UserError(ErrorKind::Unsupported, "unsupported interval unit \"" + iv.name + "\"", iv.pos);
    }
    if (amount > INT64_MAX / unit || amount < -(INT64_MAX / unit))
      throw UserError(ErrorKind::Conversion, "interval out of range", iv.pos);
    amount *= unit;
    const char* fn;
    if (l->type.id == TypeId::Time) {
      if (months) amount = 0;  // a TIME has no months (DuckDB: TIME '10:00' + INTERVAL 1 MONTH is 10:00)
      fn = "time_add_micros";
    } else {  // a DATE is its midnight: DATE +/- INTERVAL is a TIMESTAMP, as in DuckDB
      l = Coerce(std::move(l), Type::Timestamp(), e.pos);
      fn = months ? "timestamp_add_months" : "timestamp_add_micros";
      if (months && (amount < INT32_MIN || amount > INT32_MAX))
        throw UserError(ErrorKind::Conversion, "interval out of range", iv.pos);
    }
    std::vector<BoundExprPtr> args;
    args.push_back(std::move(l));
    const bool narrow = std::string_view(fn) == "timestamp_add_months";
    args.push_back(MakeConstant(narrow ? Value::Integer((int32_t)amount) : Value::BigInt(amount)));
    return MakeFunction(fn, std::move(args), e.pos);
  }
  auto l = Bind(*e.children[0], ctx);
  auto r = Bind(*e.children[1], ctx);
  switch (op) {
    case Op::And:
    case Op::Or: {
      auto res = std::make_unique<BoundExpr>(op == Op::And ? BExpr::And : BExpr::Or, Type::Boolean());
      res->children.push_back(ToBoolean(std::move(l), e.children[0]->pos, "argument of AND/OR"));
      res->children.push_back(ToBoolean(std::move(r), e.children[1]->pos, "argument of AND/OR"));
      return res;
    }
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
      UnifyForCompare(l, r, e.pos);
      return MakeCompare(op, std::move(l), std::move(r));
    case Op::Concat: {
      std::vector<BoundExprPtr> args;
      args.push_back(std::move(l));
      args.push_back(std::move(r));
      return MakeFunction("||", std::move(args), e.pos);
    }
    default: return BindArith(op, std::move(l), std::move(r), e.pos);
  }
}

BoundExprPtr Binder::BindAggregate(const ast::Expr& e, Ctx& ctx) {
  if (IsGroupingName(e.name)) return BindGrouping(e, ctx);
  if (!ctx.agg) {
    const std::string clause = ctx.clause;
    if (clause == "WHERE" || clause == "GROUP BY")  // DuckDB's words
      throw BindError(clause + " clause cannot contain aggregates!", e.pos);
    throw BindError("aggregate functions are not allowed in " + clause, e.pos);
  }
  for (auto& c : e.children)
    if (AstContainsWindow(*c)) throw BindError("aggregate function calls cannot contain window function calls", c->pos);
  for (auto& c : e.children)
    if (AstContainsAggregate(*c)) throw BindError("aggregate function calls cannot be nested", c->pos);
  Ctx inner;
  inner.scope = ctx.scope;
  inner.clause = "aggregate function arguments";
  inner.joins = &ctx.agg->arg_joins;  // subqueries: joined to the aggregation's input
  BoundExprPtr agg = MakeAggregate(e, inner);
  {
    // Over columns of enclosing queries only, SQL makes it an aggregate of that query
    // (as DuckDB does); tessera does not move it there.
    std::vector<ColumnBinding> used;
    agg->CollectBindings(used);
    bool own = false;
    if (ctx.scope)
      for (auto& en : ctx.scope->entries)
        for (auto& b : en.bindings) own = own || std::find(used.begin(), used.end(), b) != used.end();
    if (!used.empty() && !own && !outer_scopes_.empty())
      throw UserError(ErrorKind::Unsupported,
                      "an aggregate in a subquery over columns of an enclosing query only is not supported yet", e.pos);
  }
  if (!e.order_by.empty()) BindAggregateOrder(e, *agg, inner);
  for (uint32_t i = 0; i < ctx.agg->aggs.size(); i++)
    if (ctx.agg->aggs[i]->Equals(*agg))
      return MakeColumn({ctx.agg->agg_index, i}, agg->type, agg->ToString());
  Type t = agg->type;
  std::string label = agg->ToString();
  ctx.agg->aggs.push_back(std::move(agg));
  return MakeColumn({ctx.agg->agg_index, (uint32_t)ctx.agg->aggs.size() - 1}, t, label);
}

// An aggregate's ORDER BY (inside its parentheses): the keys become its last children
// (BoundExpr::agg_order) where the order changes the result (string_agg, first, last,
// any_value); the others ignore it, as DuckDB. Constant keys order nothing.
void Binder::BindAggregateOrder(const ast::Expr& e, BoundExpr& agg, Ctx& inner) {
  const bool ordered = agg.name == "string_agg" || agg.name == "first" || agg.name == "last" || agg.name == "any_value";
  std::vector<BoundExprPtr> keys;
  std::vector<BoundExpr::AggOrder> dirs;
  for (const ast::OrderItem& o : e.order_by) {
    if (AstContainsWindow(*o.expr))
      throw BindError("aggregate function calls cannot contain window function calls", o.expr->pos);
    if (AstContainsAggregate(*o.expr)) throw BindError("aggregate function calls cannot be nested", o.expr->pos);
    BoundExprPtr k = Bind(*o.expr, inner);
    if (!ordered || k->IsConstant()) continue;
    if (agg.distinct) {  // the order of distinct values: only by the value itself
      BoundExprPtr arg = Bind(*e.children[0], inner);
      if (!k->Equals(*arg))
        throw BindError("In a DISTINCT aggregate, ORDER BY expressions must appear in the argument list", o.expr->pos);
    }
    keys.push_back(std::move(k));
    dirs.push_back({o.desc, o.nulls_first.value_or(false)});
  }
  if (keys.empty()) return;
  for (auto& k : keys) agg.children.push_back(std::move(k));
  agg.agg_order = std::move(dirs);
}

BoundExprPtr Binder::MakeAggregate(const ast::Expr& e, Ctx& inner) {
  const std::string& name = e.name;
  const AggregateFunction* fn = FindAggregateFunction(name);
  if (!fn) throw InternalError("no aggregate " + name);
  BoundExprPtr agg;
  // FILTER (WHERE cond): the aggregate sees CASE WHEN cond THEN x END, a NULL where cond is
  // not TRUE, which every aggregate here skips (count(*) counts CASE WHEN cond THEN 1 END).
  BoundExprPtr cond;
  // first and last keep NULL values: a NULL would not tell a filtered row from a NULL value.
  if (e.has_filter && (fn->name == std::string_view("first") || fn->name == std::string_view("last")))
    throw UserError(ErrorKind::Unsupported, std::string(fn->name) + "(...) FILTER (...) is not supported yet", e.pos);
  if (e.has_filter) cond = Coerce(Bind(*e.children.back(), inner), Type::Boolean(), e.children.back()->pos);
  auto filtered = [&](BoundExprPtr x) {
    if (!cond) return x;
    auto c = std::make_unique<BoundExpr>(BExpr::Case, x->type);
    c->children.push_back(std::move(cond));
    c->children.push_back(MakeConstant(Value::Null(x->type)));
    std::swap(c->children[1], x);  // WHEN cond THEN x ELSE NULL
    c->children.push_back(std::move(x));
    return BoundExprPtr(std::move(c));
  };
  const size_t nargs = e.children.size() - (e.has_filter ? 1 : 0);
  if (e.star_arg && !cond) {
    if (!fn->star) throw BindError(name + "(*) is not a valid aggregate", e.pos);
    const AggregateFunction& star = AggregateFunctionNamed(fn->star);
    agg = std::make_unique<BoundExpr>(BExpr::Agg, star.result(Type()));
    agg->name = star.name;
    agg->agg_fn = &star;
  } else {
    if (e.star_arg && !fn->star) throw BindError(name + "(*) is not a valid aggregate", e.pos);
    if (fn->bind) {  // the registry's rule: arity, coercions, result type
      std::vector<BoundExprPtr> args;
      for (size_t i = 0; i < nargs; i++) args.push_back(Bind(*e.children[i], inner));
      if (!args.empty()) args[0] = filtered(std::move(args[0]));
      ScalarCall call{name, e.pos, args};
      Type t = fn->bind(call);
      agg = std::make_unique<BoundExpr>(BExpr::Agg, t);
      agg->name = fn->name;
      agg->agg_fn = fn;
      agg->distinct = e.distinct && !fn->distinct_insensitive;
      if (agg->distinct && fn->no_distinct)
        throw UserError(ErrorKind::Unsupported, name + "(DISTINCT ...) is not supported yet", e.pos);
      agg->children = std::move(args);
      return agg;
    }
    if (!e.star_arg && nargs != 1)
      throw BindError("aggregate " + name + " takes exactly one argument", e.pos);
    auto arg = filtered(e.star_arg ? MakeConstant(Value::Integer(1)) : Bind(*e.children[0], inner));
    Type t = arg->type;
    if (fn->numeric_argument) {
      if (t.id == TypeId::Null) { arg = MakeCast(std::move(arg), Type::Integer()); t = Type::Integer(); }
      if (!t.IsNumeric())
        throw TypeError(name + "(" + t.ToString() + ") is not defined: argument must be numeric",
                        e.children[0]->pos);
    }
    agg = std::make_unique<BoundExpr>(BExpr::Agg, fn->result(t));
    agg->name = fn->name;
    agg->agg_fn = fn;
    agg->distinct = e.distinct && !fn->distinct_insensitive;
    agg->children.push_back(std::move(arg));
  }
  return agg;
}

BoundExprPtr Binder::BindFunction(const ast::Expr& e, Ctx& ctx) {
  if (e.over && IsGroupingName(e.name)) throw BindError("GROUPING cannot be a window function", e.pos);
  if (e.over && !e.order_by.empty())
    throw UserError(ErrorKind::Unsupported, "ORDER BY inside a window function's call is not supported yet", e.pos);
  if (e.over) return BindWindow(e, ctx);
  if (e.ignore_nulls) throw BindError("IGNORE NULLS applies only to window functions", e.pos);
  if (IsAggregateName(e.name)) return BindAggregate(e, ctx);
  if (e.has_filter || e.distinct || !e.order_by.empty())
    throw BindError("function \"" + e.name + "\" is a scalar function: DISTINCT, ORDER BY and FILTER apply only to aggregates", e.pos);
  std::vector<BoundExprPtr> args;
  for (auto& c : e.children) args.push_back(Bind(*c, ctx));
  if ((e.name == "date_part" || e.name == "datepart") && args.size() == 2 && args[0]->IsConstant() &&
      (args[0]->type.id == TypeId::Varchar || args[0]->type.id == TypeId::Null)) {
    // date_part('part', d): the part's function, as EXTRACT(part FROM d).
    const Value part = EvaluateConstant(*args[0]);
    if (part.is_null()) return MakeConstant(Value::Null(Type::BigInt()));
    const std::string name = AsciiLower(part.str_value());
    const ScalarFunction* fn = FindDatePart(name);
    if (!fn) throw UserError(ErrorKind::Conversion, "extract specifier \"" + name + "\" not recognized", e.pos);
    std::vector<BoundExprPtr> date;
    date.push_back(std::move(args[1]));
    return MakeFunction(*fn, e.name, std::move(date), e.pos);
  }
  if ((e.name == "date_part" || e.name == "datepart") && args.size() == 2)
    throw UserError(ErrorKind::Unsupported, e.name + "(part, x) needs the part as a constant string", e.pos);
  // now(), current_timestamp, current_date: the time the statement was bound, one value
  // for all of it (DuckDB: the transaction's start), as a constant; a plan holding it is
  // not cached. TIMESTAMP in UTC (DuckDB's TIMESTAMP WITH TIME ZONE: no time zones here).
  static const std::set<std::string> kClock = {"now", "current_timestamp", "get_current_timestamp",
                                               "transaction_timestamp", "localtimestamp", "current_date", "today"};
  auto clock = [&] {
    if (clock_micros_ < 0)
      clock_micros_ = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
    return clock_micros_;
  };
  if (kClock.count(e.name)) {
    if (!args.empty()) throw BindError("function \"" + e.name + "\" takes no arguments", e.pos);
    if (e.name == "current_date" || e.name == "today")
      return MakeConstant(Value::Date((int32_t)(clock() / 86400000000LL)));
    return MakeConstant(Value::Timestamp(clock()));
  }
  // age(ts) is age(current_date, ts): from today's midnight, as DuckDB.
  if (e.name == "age" && args.size() == 1)
    args.insert(args.begin(), MakeConstant(Value::Timestamp(clock() / 86400000000LL * 86400000000LL)));
  // mod(a, b) is a % b: the operator's one rule (types, NULL on a zero divisor).
  if (e.name == "mod" && args.size() == 2) return BindArith(Op::Mod, std::move(args[0]), std::move(args[1]), e.pos);
  // date_add(d, x) is d + x, as DuckDB's: a DATE or TIMESTAMP and an INTERVAL give a
  // TIMESTAMP, a DATE and a number of days a DATE.
  if (e.name == "date_add" && args.size() == 2) {
    return BindArith(Op::Add, std::move(args[0]), std::move(args[1]), e.pos);
  }
  const ScalarFunction* fn = FindScalarFunction(e.name);
  if (!fn) throw BindError("function \"" + e.name + "\" does not exist", e.pos);
  auto call = MakeFunction(*fn, e.name, std::move(args), e.pos);
  if (fn->reads_sequence) BindSequence(*call, e);
  return call;
}

// nextval / currval: the sequence their constant argument names (`seq`, `main.seq`,
// `temp.seq`), as DuckDB finds it: the connection's temporary sequences first.
void Binder::BindSequence(BoundExpr& call, const ast::Expr& e) {
  const BoundExpr& arg = *call.children.at(0);
  if (!arg.IsConstant() || arg.CallsVolatile())
    throw UserError(ErrorKind::Unsupported,
                    "currval/nextval requires a constant sequence - non-constant sequences are not supported",
                    e.pos);
  const Value v = EvaluateConstant(arg);
  if (v.is_null()) return;  // NULL in, NULL out
  std::string name = v.ToString();
  bool temp_only = false;
  if (const size_t dot = name.find('.'); dot != std::string::npos) {
    const std::string schema = name.substr(0, dot);
    temp_only = IdentEquals(schema, "temp");
    if (!temp_only && !IdentEquals(schema, "main"))
      throw UserError(ErrorKind::Catalog, "schema \"" + schema + "\" does not exist", e.pos);
    name = name.substr(dot + 1);
  }
  if (temp_only) {
    const auto& temp = catalog_.temp();
    call.sequence = temp ? temp->GetSequence(name) : nullptr;
  } else {
    call.sequence = catalog_.GetSequence(name);
  }
  if (!call.sequence) throw UserError(ErrorKind::Catalog, "sequence \"" + name + "\" does not exist", e.pos);
}

BoundExprPtr Binder::Bind(const ast::Expr& e, Ctx& ctx) {
  // A select-list alias in WHERE, GROUP BY or HAVING: its expression (bind_select_alias.cpp).
  if (ctx.select_aliases)
    if (BoundExprPtr b = TryBindSelectAlias(e, ctx)) return b;
  // In an aggregating query, an expression that equals a GROUP BY expression refers to it
  // (one naming aliases is matched part by part, as they are bound).
  if (ctx.agg && !AstContainsAggregate(e) && e.kind != ExprKind::Literal && !AstContainsSubquery(e) &&
      !AstContainsWindow(e) && !UsesSelectAlias(e, ctx)) {
    Ctx plain;
    plain.scope = ctx.scope;
    plain.clause = ctx.clause;
    plain.aliases = ctx.aliases;
    auto bound = BindInner(e, plain);
    for (uint32_t i = 0; i < ctx.agg->groups.size(); i++)
      if (ctx.agg->groups[i]->Equals(*bound))
        return MakeColumn({ctx.agg->group_index, i}, bound->type, bound->ToString());
    if (bound->IsConstant()) return bound;
    {  // only columns of enclosing queries: a constant per outer row, as in DuckDB
      std::vector<ColumnBinding> used;
      bound->CollectBindings(used);
      bool own = false;
      if (ctx.scope)
        for (auto& en : ctx.scope->entries)
          for (auto& b : en.bindings) own = own || std::find(used.begin(), used.end(), b) != used.end();
      if (!own && !used.empty() && !outer_scopes_.empty()) return bound;
    }
    if (e.kind == ExprKind::Column && ctx.aliases)  // QUALIFY naming a select-list alias
      for (auto& [alias, expr] : *ctx.aliases)
        if (IdentEquals(alias, e.name) && e.table.empty() && expr->Equals(*bound)) return bound;
    if (e.kind == ExprKind::Column)
      throw BindError("column \"" + e.name +
                          "\" must appear in the GROUP BY clause or be used in an aggregate function",
                      e.pos);
  }
  return BindInner(e, ctx);
}

BoundExprPtr Binder::BindInner(const ast::Expr& e, Ctx& ctx) {
  switch (e.kind) {
    case ExprKind::Column: return BindColumn(e, ctx);
    case ExprKind::Literal: return BindLiteral(e);
    case ExprKind::Star:
      if (e.columns && columns_current_) {  // COLUMNS(...): the column it stands for now
        const SelectListItem& col = *columns_current_;
        if (!col.expr) return col.star_col->Copy();
        ColumnsScope none(*this, nullptr);  // a REPLACE expression is bound as written
        return Bind(*col.expr, ctx);
      }
      if (e.columns) throw BindError("STAR expression is not supported here", e.pos);
      throw BindError("* is not allowed here", e.pos);
    case ExprKind::Unary: {
      auto c = Bind(*e.children[0], ctx);
      if (e.op == Op::Not) {
        auto r = std::make_unique<BoundExpr>(BExpr::Not, Type::Boolean());
        r->children.push_back(ToBoolean(std::move(c), e.pos, "argument of NOT"));
        return r;
      }
      if (c->type.id == TypeId::Null) return c;
      if (c->type.id == TypeId::Interval) {  // -x is x * -1
        if (e.op == Op::Plus) return c;
        std::vector<BoundExprPtr> args;
        args.push_back(std::move(c));
        args.push_back(MakeConstant(Value::BigInt(-1)));
        return MakeFunction("interval_mul", std::move(args), e.pos);
      }
      if (!c->type.IsNumeric()) throw TypeError("unary minus needs a numeric argument", e.pos);
      if (e.op == Op::Plus) return c;
      Type t = c->type;
      auto r = std::make_unique<BoundExpr>(BExpr::Neg, t);
      r->children.push_back(std::move(c));
      return r;
    }
    case ExprKind::Binary: return BindBinary(e, ctx);
    case ExprKind::Between: {
      auto x = Bind(*e.children[0], ctx);
      auto lo = Bind(*e.children[1], ctx);
      auto hi = Bind(*e.children[2], ctx);
      auto x2 = x->Copy();
      UnifyForCompare(x, lo, e.pos);
      UnifyForCompare(x2, hi, e.pos);
      std::vector<BoundExprPtr> t;
      t.push_back(MakeCompare(Op::Ge, std::move(x), std::move(lo)));
      t.push_back(MakeCompare(Op::Le, std::move(x2), std::move(hi)));
      auto r = MakeAnd(std::move(t));
      if (!e.negated) return r;
      auto n = std::make_unique<BoundExpr>(BExpr::Not, Type::Boolean());
      n->children.push_back(std::move(r));
      return n;
    }
    case ExprKind::InList: {
      auto r = std::make_unique<BoundExpr>(BExpr::InList, Type::Boolean());
      r->negated = e.negated;
      auto x = Bind(*e.children[0], ctx);
      Type t = x->type;
      std::vector<BoundExprPtr> items;
      // One type for the probe and every item, wide enough for all of them (a DECIMAL(15,2)
      // column IN (1.504, 7) compares at scale 3: no item is rounded to the column's scale).
      for (size_t i = 1; i < e.children.size(); i++) {
        auto it = Bind(*e.children[i], ctx);
        BoundExprPtr probe = Coerce(x->Copy(), t, e.pos);
        UnifyForCompare(probe, it, e.children[i]->pos);
        t = probe->type;
        items.push_back(std::move(it));
      }
      r->children.push_back(Coerce(std::move(x), t, e.pos));
      for (auto& it : items) r->children.push_back(Coerce(std::move(it), t, e.pos));
      return r;
    }
    case ExprKind::Like: {
      auto r = std::make_unique<BoundExpr>(BExpr::Like, Type::Boolean());
      r->negated = e.negated;
      auto x = Bind(*e.children[0], ctx);
      auto p = Bind(*e.children[1], ctx);
      if (x->type.id != TypeId::Varchar && x->type.id != TypeId::Null)
        throw TypeError("LIKE needs a VARCHAR argument, not " + x->type.ToString(), e.pos);
      r->children.push_back(Coerce(std::move(x), Type::Varchar(), e.pos));
      r->children.push_back(Coerce(std::move(p), Type::Varchar(), e.pos));
      if (e.children.size() > 2)  // ESCAPE
        r->children.push_back(Coerce(Bind(*e.children[2], ctx), Type::Varchar(), e.children[2]->pos));
      return r;
    }
    case ExprKind::IsNull: {
      auto is_null = [](BoundExprPtr x, bool negated) {
        auto r = std::make_unique<BoundExpr>(BExpr::IsNull, Type::Boolean());
        r->negated = negated;
        r->children.push_back(std::move(x));
        return r;
      };
      // CASE WHEN c0 THEN r0 WHEN c1 THEN r1 ... ELSE els END over BOOLEAN results.
      auto boolean_case = [](std::vector<std::pair<BoundExprPtr, BoundExprPtr>> arms, BoundExprPtr els) {
        auto c = std::make_unique<BoundExpr>(BExpr::Case, Type::Boolean());
        for (auto& [cond, result] : arms) {
          c->children.push_back(std::move(cond));
          c->children.push_back(std::move(result));
        }
        c->children.push_back(std::move(els));
        return c;
      };
      auto boolean = [](bool b) { return MakeConstant(Value::Boolean(b)); };
      if (e.text.empty()) return is_null(Bind(*e.children[0], ctx), e.negated);
      if (e.text == "distinct") {
        // a IS NOT DISTINCT FROM b: CASE WHEN a IS NULL THEN b IS NULL WHEN b IS NULL THEN
        // false ELSE a = b END; IS DISTINCT FROM is its negation (never NULL either).
        auto a = Bind(*e.children[0], ctx), b = Bind(*e.children[1], ctx);
        UnifyForCompare(a, b, e.pos);
        std::vector<std::pair<BoundExprPtr, BoundExprPtr>> arms;
        arms.emplace_back(is_null(a->Copy(), false), is_null(b->Copy(), !e.negated));
        arms.emplace_back(is_null(b->Copy(), false), boolean(!e.negated));
        return boolean_case(std::move(arms),
                            MakeCompare(e.negated ? Op::Eq : Op::Ne, std::move(a), std::move(b)));
      }
      // x IS TRUE: CASE WHEN x THEN true ELSE false END (NULL takes the ELSE); IS FALSE tests
      // NOT x; NOT flips the results.
      auto x = ToBoolean(Bind(*e.children[0], ctx), e.children[0]->pos, "IS TRUE/FALSE");
      if (e.text == "false") {
        auto n = std::make_unique<BoundExpr>(BExpr::Not, Type::Boolean());
        n->children.push_back(std::move(x));
        x = std::move(n);
      }
      std::vector<std::pair<BoundExprPtr, BoundExprPtr>> arms;
      arms.emplace_back(std::move(x), boolean(!e.negated));
      return boolean_case(std::move(arms), boolean(e.negated));
    }
    case ExprKind::Case: {
      size_t i = 0;
      BoundExprPtr operand;
      if (e.has_operand) operand = Bind(*e.children[i++], ctx);
      size_t end = e.children.size() - (e.has_else ? 1 : 0);
      std::vector<BoundExprPtr> conds, results;
      for (; i + 1 < end; i += 2) {
        auto w = Bind(*e.children[i], ctx);
        if (operand) {
          auto o = operand->Copy();
          UnifyForCompare(o, w, e.children[i]->pos);
          w = MakeCompare(Op::Eq, std::move(o), std::move(w));
        }
        conds.push_back(ToBoolean(std::move(w), e.children[i]->pos, "CASE WHEN condition"));
        results.push_back(Bind(*e.children[i + 1], ctx));
      }
      BoundExprPtr els = e.has_else ? Bind(*e.children.back(), ctx) : MakeConstant(Value::Null());
      Type t = els->type;
      for (auto& r : results) {
        if (r->type.id == TypeId::Varchar || t.id == TypeId::Varchar) {
          if (r->type.id != TypeId::Null && t.id != TypeId::Null && r->type != t)
            throw TypeError("CASE results have incompatible types " + t.ToString() + " and " +
                                r->type.ToString(), e.pos);
          if (t.id == TypeId::Null) t = r->type;
          continue;
        }
        t = CommonType(t, r->type, e.pos);
      }
      // Every result NULL: the CASE is the untyped NULL, which takes the type of what it
      // meets (CASE WHEN p THEN DATE '...' ELSE CASE WHEN q THEN NULL END END), as in DuckDB.
      if (t.id == TypeId::Null) return MakeConstant(Value::Null());
      auto c = std::make_unique<BoundExpr>(BExpr::Case, t);
      for (size_t k = 0; k < conds.size(); k++) {
        c->children.push_back(std::move(conds[k]));
        c->children.push_back(Coerce(std::move(results[k]), t, e.pos));
      }
      c->children.push_back(Coerce(std::move(els), t, e.pos));
      return c;
    }
    case ExprKind::Cast: {
      auto c = Bind(*e.children[0], ctx);
      const Type& t = e.cast_type;
      bool ok = c->type.id == TypeId::Null || c->type == t || t.id == TypeId::Varchar ||
                c->type.id == TypeId::Varchar ||
                (c->type.IsNumeric() && (t.IsNumeric() || t.id == TypeId::Boolean)) ||
                (c->type.id == TypeId::Boolean && t.IsNumeric()) ||
                (c->type.id == TypeId::Date && t.id == TypeId::Timestamp) ||
                (c->type.id == TypeId::Timestamp && (t.id == TypeId::Date || t.id == TypeId::Time));
      // TRY_CAST between types with no cast is NULL (DuckDB's), CAST an error.
      if (!ok && e.negated) return MakeConstant(Value::Null(t));
      if (!ok)
        throw TypeError("cannot cast " + c->type.ToString() + " to " + t.ToString(), e.pos);
      if (e.negated && c->type != t) {  // TRY_CAST: the cast rule, a failing row NULL
        auto r = std::make_unique<BoundExpr>(BExpr::Cast, t);
        r->negated = true;
        r->children.push_back(std::move(c));
        return r;
      }
      return Coerce(std::move(c), t, e.pos);
    }
    case ExprKind::Function: return BindFunction(e, ctx);
    case ExprKind::Extract: {
      auto c = Bind(*e.children[0], ctx);  // the part's bind hook takes a DATE, TIMESTAMP or TIME
      const ScalarFunction* fn = FindDatePart(AsciiLower(e.name));
      if (!fn) throw UserError(ErrorKind::Conversion, "extract specifier \"" + e.name + "\" not recognized", e.pos);
      std::vector<BoundExprPtr> args;
      args.push_back(std::move(c));
      return MakeFunction(*fn, e.name, std::move(args), e.pos);
    }
    case ExprKind::Interval: return MakeConstant(Value::Interval(PackInterval(IntervalLiteral(e))));
    case ExprKind::InSubquery:
    case ExprKind::Exists:
    case ExprKind::Subquery: return BindSubqueryExpr(e, ctx);
  }
  throw InternalError("unknown expression kind");
}

BoundExprPtr Binder::BindStandalone(const ast::Expr& e) {
  Ctx ctx;
  ctx.clause = "VALUES";
  return Bind(e, ctx);
}

}  // namespace tessera
