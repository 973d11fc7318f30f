#include "planner/binder.hpp"

#include <algorithm>

#include "common/date.hpp"
#include "common/decimal.hpp"
#include "common/string_cast.hpp"
#include "parser/parser.hpp"

namespace tessera {

using ast::ExprKind;
using ast::Op;

static UserError BindError(const std::string& msg, SourcePos pos) {
  return UserError(ErrorKind::Binder, msg, pos);
}
static UserError TypeError(const std::string& msg, SourcePos pos) {
  return UserError(ErrorKind::Type, msg, pos);
}

// A GROUP BY / ORDER BY position as written (digits only): -1 when it is beyond int64.
static int64_t SelectListPosition(const std::string& digits) {
  auto v = ParseDecimal(digits, 38, 0);
  return v && *v <= INT64_MAX ? (int64_t)*v : -1;
}

// A numeric literal too long for DECIMAL or written with an exponent: out-of-range
// magnitudes are +-inf or 0, as in DuckDB (SELECT 1e999 is inf).
static double DoubleLiteral(const ast::Expr& e) {
  auto d = ParseDouble(e.text);
  if (!d) throw UserError(ErrorKind::Conversion, "invalid numeric literal " + e.text, e.pos);
  return *d;
}

bool IsAggregateName(const std::string& n) {
  return n == "sum" || n == "count" || n == "avg" || n == "min" || n == "max";
}

bool AstContainsAggregate(const ast::Expr& e) {
  if (e.kind == ExprKind::Function && IsAggregateName(e.name)) return true;
  for (auto& c : e.children)
    if (AstContainsAggregate(*c)) return true;
  return false;
}

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
  throw TypeError("cannot combine " + a.ToString() + " and " + b.ToString(), pos);
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
  else
    throw UserError(ErrorKind::Type,
                    "cannot compare values of type " + lt.ToString() + " and " + rt.ToString(),
                    pos);
  l = MakeCast(std::move(l), t);
  r = MakeCast(std::move(r), t);
}

// ---------------------------------------------------------------------------------------
// FROM

LogicalOpPtr Binder::BindBaseTable(const ast::TableRef& ref, Scope& scope) {
  // A CTE of an enclosing WITH shadows catalog tables.
  for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
    auto f = it->find(ref.name);
    if (f != it->end()) {
      const ast::CommonTableExpr* cte = f->second;
      auto aliases = ref.column_aliases.empty() ? cte->column_aliases : ref.column_aliases;
      return BindSubqueryRef(*cte->query, ref.alias.empty() ? ref.name : ref.alias, aliases,
                             ref.pos, scope);
    }
  }
  auto entry = catalog_.GetEntry(ref.name);
  if (!entry) throw UserError(ErrorKind::Catalog, "table \"" + ref.name + "\" does not exist", ref.pos);
  if (entry->is_view()) {
    // A view is its query, parsed and bound here like a subquery in FROM.
    if (view_depth_ >= kMaxViewDepth)
      throw UserError(ErrorKind::Binder, "views nest more than " + std::to_string(kMaxViewDepth) +
                                             " deep (does view \"" + ref.name + "\" refer to itself?)", ref.pos);
    auto stmts = ParseSQL(entry->view_sql);
    if (stmts.size() != 1 || stmts[0]->kind != ast::StmtKind::Select)
      throw UserError(ErrorKind::Catalog, "view \"" + ref.name + "\" has an invalid definition", ref.pos);
    auto& q = *static_cast<ast::SelectStatement&>(*stmts[0]).select;
    auto aliases = ref.column_aliases.empty() ? entry->view_columns : ref.column_aliases;
    view_depth_++;
    struct Dec { int& d; ~Dec() { d--; } } dec{view_depth_};
    try {
      return BindSubqueryRef(q, ref.alias.empty() ? ref.name : ref.alias, aliases, ref.pos, scope);
    } catch (const UserError& e) {
      // Positions inside the view's text would mislead: point at the outermost reference.
      if (view_depth_ > 1) throw;
      throw UserError(e.kind(), "in view \"" + ref.name + "\": " + e.raw(), ref.pos);
    }
  }
  auto get = std::make_unique<LogicalOp>(LogicalKind::Get);
  get->table = entry;
  get->table_index = next_index_++;
  get->alias = ref.alias.empty() ? ref.name : ref.alias;
  ScopeEntry se;
  se.alias = get->alias;
  for (size_t i = 0; i < entry->schema.columns.size(); i++) {
    get->column_ids.push_back((int)i);
    std::string name = i < ref.column_aliases.size() ? ref.column_aliases[i]
                                                     : entry->schema.columns[i].name;
    se.names.push_back(name);
    se.types.push_back(entry->schema.columns[i].type);
    se.bindings.push_back({get->table_index, (uint32_t)i});
  }
  for (auto& e : scope.entries)
    if (e.alias == se.alias)
      throw BindError("table name \"" + se.alias + "\" specified more than once", ref.pos);
  scope.entries.push_back(std::move(se));
  get->estimated_rows = (double)entry->data->row_count;
  return get;
}

LogicalOpPtr Binder::BindSubqueryRef(const ast::SelectStmt& q, const std::string& alias,
                                     const std::vector<std::string>& col_aliases, SourcePos pos,
                                     Scope& scope) {
  // A derived table does not see the queries around it (no LATERAL).
  auto saved = std::move(outer_scopes_);
  outer_scopes_.clear();
  BoundQuery bq;
  try {
    bq = BindSelect(q);
  } catch (...) {
    outer_scopes_ = std::move(saved);
    throw;
  }
  outer_scopes_ = std::move(saved);
  // Wrap in a projection so that the subquery's columns get bindings of their own.
  auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
  proj->table_index = next_index_++;
  auto child_b = bq.plan->Bindings();
  auto child_t = bq.plan->Types();
  ScopeEntry se;
  se.alias = alias;
  for (size_t i = 0; i < child_b.size(); i++) {
    proj->exprs.push_back(MakeColumn(child_b[i], child_t[i], bq.names[i]));
    se.names.push_back(i < col_aliases.size() ? col_aliases[i] : bq.names[i]);
    se.types.push_back(child_t[i]);
    se.bindings.push_back({proj->table_index, (uint32_t)i});
  }
  for (auto& e : scope.entries)
    if (!alias.empty() && e.alias == alias)
      throw BindError("table name \"" + alias + "\" specified more than once", pos);
  scope.entries.push_back(std::move(se));
  proj->children.push_back(std::move(bq.plan));
  return proj;
}

static LogicalOpPtr CrossJoin(LogicalOpPtr l, LogicalOpPtr r) {
  auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
  j->join_type = LJoinType::Cross;
  j->children.push_back(std::move(l));
  j->children.push_back(std::move(r));
  return j;
}

static bool AllIn(const BoundExpr& e, const std::vector<ColumnBinding>& set) {
  std::vector<ColumnBinding> used;
  e.CollectBindings(used);
  for (auto& b : used)
    if (std::find(set.begin(), set.end(), b) == set.end()) return false;
  return true;
}

LogicalOpPtr Binder::BindFrom(const ast::TableRef& ref, Scope& scope) {
  switch (ref.kind) {
    case ast::TableRefKind::Base: return BindBaseTable(ref, scope);
    case ast::TableRefKind::Subquery:
      return BindSubqueryRef(*ref.subquery, ref.alias, ref.column_aliases, ref.pos, scope);
    case ast::TableRefKind::Join: {
      auto left = BindFrom(*ref.left, scope);
      auto right = BindFrom(*ref.right, scope);
      if (ref.join_type == ast::JoinType::Cross || !ref.on) return CrossJoin(std::move(left), std::move(right));
      Ctx ctx;
      ctx.scope = &scope;
      ctx.clause = "JOIN conditions";
      auto cond = ToBoolean(Bind(*ref.on, ctx), ref.on->pos, "JOIN condition");
      if (ref.join_type == ast::JoinType::Inner) {
        auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
        SplitConjunction(std::move(cond), f->filters);
        f->children.push_back(CrossJoin(std::move(left), std::move(right)));
        return f;
      }
      if (ref.join_type != ast::JoinType::Left)
        throw UserError(ErrorKind::Unsupported, "RIGHT and FULL OUTER JOIN are not supported yet",
                        ref.pos);
      auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
      j->join_type = LJoinType::Left;
      auto lb = left->Bindings(), rb = right->Bindings();
      std::vector<BoundExprPtr> terms, residual;
      SplitConjunction(std::move(cond), terms);
      for (auto& t : terms) {
        if (t->kind == BExpr::Compare && t->op == Op::Eq) {
          auto& a = t->children[0];
          auto& b = t->children[1];
          if (AllIn(*a, lb) && AllIn(*b, rb) && !a->IsConstant() && !b->IsConstant()) {
            j->left_keys.push_back(std::move(a));
            j->right_keys.push_back(std::move(b));
            continue;
          }
          if (AllIn(*b, lb) && AllIn(*a, rb) && !a->IsConstant() && !b->IsConstant()) {
            j->left_keys.push_back(std::move(b));
            j->right_keys.push_back(std::move(a));
            continue;
          }
        }
        residual.push_back(std::move(t));
      }
      if (!residual.empty()) j->residual = MakeAnd(std::move(residual));
      j->children.push_back(std::move(left));
      j->children.push_back(std::move(right));
      return j;
    }
  }
  throw InternalError("unknown table reference");
}

// ---------------------------------------------------------------------------------------
// Expressions

BoundExprPtr Binder::BindColumn(const ast::Expr& e, const Ctx& ctx) {
  const Scope* scope = ctx.scope;
  if (!scope) throw BindError("column \"" + e.name + "\" does not exist", e.pos);
  // Not in this query's scope: a correlated reference to an enclosing query's column.
  auto visible = [&](const Scope& s) {
    for (auto& en : s.entries)
      if ((e.table.empty() || en.alias == e.table) &&
          std::find(en.names.begin(), en.names.end(), e.name) != en.names.end())
        return true;
    return false;
  };
  if (!visible(*scope))
    for (size_t k = outer_scopes_.size(); k-- > 0;) {
      if (!visible(*outer_scopes_[k])) continue;
      if (k + 1 != outer_scopes_.size())
        throw UserError(ErrorKind::Unsupported,
                        "a subquery may refer only to columns of the query immediately around it, not to \"" +
                            (e.table.empty() ? e.name : e.table + "." + e.name) + "\" further out",
                        e.pos);
      scope = outer_scopes_[k];
      break;
    }
  const ScopeEntry* found = nullptr;
  size_t idx = 0;
  if (!e.table.empty()) {
    for (auto& s : scope->entries)
      if (s.alias == e.table) found = &s;
    if (!found) throw BindError("missing FROM-clause entry for table \"" + e.table + "\"", e.pos);
    auto it = std::find(found->names.begin(), found->names.end(), e.name);
    if (it == found->names.end())
      throw BindError("column \"" + e.table + "." + e.name + "\" does not exist", e.pos);
    idx = it - found->names.begin();
  } else {
    for (auto& s : scope->entries) {
      auto it = std::find(s.names.begin(), s.names.end(), e.name);
      if (it == s.names.end()) continue;
      if (found) throw BindError("column reference \"" + e.name + "\" is ambiguous", e.pos);
      found = &s;
      idx = it - s.names.begin();
    }
    if (!found) throw BindError("column \"" + e.name + "\" does not exist", e.pos);
  }
  return MakeColumn(found->bindings[idx], found->types[idx], e.name);
}

BoundExprPtr Binder::BindLiteral(const ast::Expr& e) {
  using ast::LiteralKind;
  switch (e.lit) {
    case LiteralKind::Null: return MakeConstant(Value::Null());
    case LiteralKind::Boolean: return MakeConstant(Value::Boolean(e.text == "true"));
    case LiteralKind::String: return MakeConstant(Value::Varchar(e.text));
    case LiteralKind::Integer: {
      auto v = ParseDecimal(e.text, 38, 0);
      if (!v) throw UserError(ErrorKind::Conversion, "integer literal out of range: " + e.text, e.pos);
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
    if (op == Op::Mul) {
      int p = std::min(38, x.precision + y.precision);
      int s = x.scale + y.scale;
      if (s > 38) throw TypeError("DECIMAL multiplication result scale exceeds 38", pos);
      if (p < s) p = s;
      l = MakeCast(std::move(l), Type::Decimal(p, x.scale));
      r = MakeCast(std::move(r), Type::Decimal(p, y.scale));
      return mk(Type::Decimal(p, s));
    }
    int s = std::max(x.scale, y.scale);
    int p = std::max(x.precision - x.scale, y.precision - y.scale) + s + (op == Op::Mod ? 0 : 1);
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
  // DATE +/- INTERVAL
  if ((op == Op::Add || op == Op::Sub) && e.children[1]->kind == ExprKind::Interval) {
    auto l = Bind(*e.children[0], ctx);
    const ast::Expr& iv = *e.children[1];
    auto n = ParseDecimal(iv.text, 18, 0);
    if (!n) throw UserError(ErrorKind::Conversion, "invalid interval '" + iv.text + "'", iv.pos);
    int64_t amount = (int64_t)*n * (op == Op::Sub ? -1 : 1);
    if (l->type.id == TypeId::Varchar && l->kind == BExpr::Constant) l = Coerce(std::move(l), Type::Date(), e.pos);
    if (l->type.id != TypeId::Date)
      throw TypeError("INTERVAL arithmetic needs a DATE, not " + l->type.ToString(), e.pos);
    std::string fn;
    if (iv.name == "day") fn = "date_add_days";
    else if (iv.name == "week") { fn = "date_add_days"; amount *= 7; }
    else if (iv.name == "month") fn = "date_add_months";
    else if (iv.name == "year") { fn = "date_add_months"; amount *= 12; }
    else throw UserError(ErrorKind::Unsupported, "unsupported interval unit \"" + iv.name + "\"", iv.pos);
    auto f = std::make_unique<BoundExpr>(BExpr::Func, Type::Date());
    f->name = fn;
    f->children.push_back(std::move(l));
    f->children.push_back(MakeConstant(Value::Integer((int32_t)amount)));
    return f;
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
      auto f = std::make_unique<BoundExpr>(BExpr::Func, Type::Varchar());
      f->name = "concat";
      f->children.push_back(Coerce(std::move(l), Type::Varchar(), e.pos));
      f->children.push_back(Coerce(std::move(r), Type::Varchar(), e.pos));
      return f;
    }
    default: return BindArith(op, std::move(l), std::move(r), e.pos);
  }
}

BoundExprPtr Binder::BindAggregate(const ast::Expr& e, Ctx& ctx) {
  if (!ctx.agg)
    throw BindError("aggregate functions are not allowed in " + std::string(ctx.clause), e.pos);
  Ctx inner;
  inner.scope = ctx.scope;
  inner.clause = "aggregate function arguments";
  std::string name = e.name;
  BoundExprPtr agg;
  if (e.star_arg) {
    if (name != "count") throw BindError(name + "(*) is not a valid aggregate", e.pos);
    agg = std::make_unique<BoundExpr>(BExpr::Agg, Type::BigInt());
    agg->name = "count_star";
  } else {
    if (e.children.size() != 1)
      throw BindError("aggregate " + name + " takes exactly one argument", e.pos);
    for (auto& c : e.children)
      if (AstContainsAggregate(*c))
        throw BindError("aggregate function calls cannot be nested", c->pos);
    auto arg = Bind(*e.children[0], inner);
    Type t = arg->type;
    Type rt;
    if (name == "count") rt = Type::BigInt();
    else if (name == "min" || name == "max") rt = t.id == TypeId::Null ? Type::Integer() : t;
    else {
      if (t.id == TypeId::Null) { arg = MakeCast(std::move(arg), Type::Integer()); t = Type::Integer(); }
      if (!t.IsNumeric())
        throw TypeError(name + "(" + t.ToString() + ") is not defined: argument must be numeric",
                        e.children[0]->pos);
      if (name == "avg") rt = Type::Double();
      else if (t.id == TypeId::Integer) rt = Type::BigInt();
      else if (t.id == TypeId::BigInt) rt = Type::Decimal(38, 0);
      else if (t.id == TypeId::Decimal) rt = Type::Decimal(38, t.scale);
      else rt = Type::Double();
    }
    agg = std::make_unique<BoundExpr>(BExpr::Agg, rt);
    agg->name = name;
    agg->distinct = e.distinct;
    agg->children.push_back(std::move(arg));
  }
  for (uint32_t i = 0; i < ctx.agg->aggs.size(); i++)
    if (ctx.agg->aggs[i]->Equals(*agg))
      return MakeColumn({ctx.agg->agg_index, i}, agg->type, agg->ToString());
  Type t = agg->type;
  std::string label = agg->ToString();
  ctx.agg->aggs.push_back(std::move(agg));
  return MakeColumn({ctx.agg->agg_index, (uint32_t)ctx.agg->aggs.size() - 1}, t, label);
}

BoundExprPtr Binder::BindFunction(const ast::Expr& e, Ctx& ctx) {
  if (IsAggregateName(e.name)) return BindAggregate(e, ctx);
  std::vector<BoundExprPtr> args;
  for (auto& c : e.children) args.push_back(Bind(*c, ctx));
  auto expect_args = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi)
      throw BindError("wrong number of arguments to function " + e.name, e.pos);
  };
  auto make = [&](Type t) {
    auto f = std::make_unique<BoundExpr>(BExpr::Func, t);
    f->name = e.name;
    f->children = std::move(args);
    return f;
  };
  const std::string& n = e.name;
  if (n == "substring" || n == "substr") {
    expect_args(2, 3);
    args[0] = Coerce(std::move(args[0]), Type::Varchar(), e.pos);
    for (size_t i = 1; i < args.size(); i++) args[i] = Coerce(std::move(args[i]), Type::BigInt(), e.pos);
    auto f = make(Type::Varchar());
    f->name = "substring";
    return f;
  }
  if (n == "upper" || n == "lower" || n == "length") {
    expect_args(1, 1);
    args[0] = Coerce(std::move(args[0]), Type::Varchar(), e.pos);
    return make(n == "length" ? Type::BigInt() : Type::Varchar());
  }
  if (n == "abs") {
    expect_args(1, 1);
    if (!args[0]->type.IsNumeric()) throw TypeError("abs() needs a numeric argument", e.pos);
    Type t = args[0]->type;
    return make(t);
  }
  if (n == "year") {
    expect_args(1, 1);
    args[0] = Coerce(std::move(args[0]), Type::Date(), e.pos);
    auto f = make(Type::BigInt());
    f->name = "extract_year";
    return f;
  }
  if (n == "coalesce") {
    if (args.empty()) throw BindError("coalesce needs at least one argument", e.pos);
    Type t = args[0]->type;
    for (auto& a : args) t = CommonType(t, a->type, e.pos);
    for (auto& a : args) a = Coerce(std::move(a), t, e.pos);
    return make(t);
  }
  throw BindError("function \"" + n + "\" does not exist", e.pos);
}

BoundExprPtr Binder::Bind(const ast::Expr& e, Ctx& ctx) {
  // In an aggregating query, an expression that equals a GROUP BY expression refers to it.
  if (ctx.agg && !AstContainsAggregate(e) && e.kind != ExprKind::Literal && !AstContainsSubquery(e)) {
    Ctx plain;
    plain.scope = ctx.scope;
    plain.clause = ctx.clause;
    auto bound = BindInner(e, plain);
    for (uint32_t i = 0; i < ctx.agg->groups.size(); i++)
      if (ctx.agg->groups[i]->Equals(*bound))
        return MakeColumn({ctx.agg->group_index, i}, bound->type, bound->ToString());
    if (bound->IsConstant()) return bound;
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
    case ExprKind::Star: throw BindError("* is not allowed here", e.pos);
    case ExprKind::Unary: {
      auto c = Bind(*e.children[0], ctx);
      if (e.op == Op::Not) {
        auto r = std::make_unique<BoundExpr>(BExpr::Not, Type::Boolean());
        r->children.push_back(ToBoolean(std::move(c), e.pos, "argument of NOT"));
        return r;
      }
      if (c->type.id == TypeId::Null) return c;
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
      return r;
    }
    case ExprKind::IsNull: {
      auto r = std::make_unique<BoundExpr>(BExpr::IsNull, Type::Boolean());
      r->negated = e.negated;
      r->children.push_back(Bind(*e.children[0], ctx));
      return r;
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
      if (t.id == TypeId::Null) t = Type::Integer();
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
                (c->type.id == TypeId::Boolean && t.IsNumeric());
      if (!ok)
        throw TypeError("cannot cast " + c->type.ToString() + " to " + t.ToString(), e.pos);
      return Coerce(std::move(c), t, e.pos);
    }
    case ExprKind::Function: return BindFunction(e, ctx);
    case ExprKind::Extract: {
      auto c = Coerce(Bind(*e.children[0], ctx), Type::Date(), e.pos);
      if (e.name != "year" && e.name != "month" && e.name != "day")
        throw UserError(ErrorKind::Unsupported, "EXTRACT(" + e.name + ") is not supported", e.pos);
      auto f = std::make_unique<BoundExpr>(BExpr::Func, Type::BigInt());
      f->name = "extract_" + e.name;
      f->children.push_back(std::move(c));
      return f;
    }
    case ExprKind::Interval:
      throw TypeError("an INTERVAL can only be added to or subtracted from a DATE", e.pos);
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

// ---------------------------------------------------------------------------------------
// SELECT

static std::string DisplayName(const ast::Expr& e, const BoundExpr& b) {
  if (e.kind == ExprKind::Column) return e.name;
  return b.ToString();
}

BoundQuery Binder::BindSelect(const ast::SelectStmt& stmt) {
  if (stmt.set_op != ast::SetOpKind::None)
    throw UserError(ErrorKind::Unsupported, "UNION/INTERSECT/EXCEPT are not supported yet", stmt.pos);
  ctes_.emplace_back();
  struct CtePop { std::vector<std::map<std::string, const ast::CommonTableExpr*>>& v; ~CtePop() { v.pop_back(); } } pop{ctes_};
  for (auto& cte : stmt.ctes) ctes_.back()[cte.name] = &cte;

  Scope scope;
  LogicalOpPtr plan;
  for (auto& ref : stmt.from) {
    auto p = BindFrom(*ref, scope);
    plan = plan ? CrossJoin(std::move(plan), std::move(p)) : std::move(p);
  }
  if (!plan) plan = std::make_unique<LogicalOp>(LogicalKind::Dummy);

  if (stmt.where) plan = BindWhere(*stmt.where, std::move(plan), scope);

  // Expand the select list (* and t.*).
  struct Item { const ast::Expr* expr; std::string alias; BoundExprPtr star_col; };
  std::vector<Item> items;
  for (auto& si : stmt.select_list) {
    if (si.expr->kind == ExprKind::Star) {
      bool any = false;
      for (auto& s : scope.entries) {
        if (!si.expr->table.empty() && s.alias != si.expr->table) continue;
        any = true;
        for (size_t i = 0; i < s.names.size(); i++)
          items.push_back({nullptr, s.names[i], MakeColumn(s.bindings[i], s.types[i], s.names[i])});
      }
      if (!any)
        throw BindError(si.expr->table.empty() ? "SELECT * with no tables specified"
                                               : "missing FROM-clause entry for table \"" + si.expr->table + "\"",
                        si.expr->pos);
      continue;
    }
    items.push_back({si.expr.get(), si.alias, nullptr});
  }

  bool aggregating = !stmt.group_by.empty() || (stmt.having != nullptr);
  for (auto& it : items)
    if (it.expr && AstContainsAggregate(*it.expr)) aggregating = true;
  for (auto& o : stmt.order_by)
    if (AstContainsAggregate(*o.expr)) aggregating = true;

  AggState agg;
  agg.group_index = next_index_++;
  agg.agg_index = next_index_++;
  // Joins evaluating subqueries of the select list, HAVING and ORDER BY: under the
  // projection (after the aggregate when aggregating).
  std::vector<LogicalOpPtr> select_joins;
  Ctx sel;
  sel.scope = &scope;
  sel.clause = "WHERE";
  sel.joins = &select_joins;
  if (aggregating) {
    sel.agg = &agg;
    sel.clause = "GROUP BY";
    Ctx gctx;
    gctx.scope = &scope;
    gctx.clause = "GROUP BY";
    for (auto& g : stmt.group_by) {
      BoundExprPtr bg;
      if (g->kind == ExprKind::Literal && g->lit == ast::LiteralKind::Integer) {
        int64_t k = SelectListPosition(g->text);
        if (k < 1 || k > (int64_t)items.size())
          throw BindError("GROUP BY position " + g->text + " is not in the select list", g->pos);
        auto& it = items[k - 1];
        bg = it.expr ? Bind(*it.expr, gctx) : it.star_col->Copy();
      } else if (g->kind == ExprKind::Column && g->table.empty()) {
        try {
          bg = Bind(*g, gctx);
        } catch (const UserError&) {
          // GROUP BY an output alias
          const Item* match = nullptr;
          for (auto& it : items)
            if (it.alias == g->name && it.expr) match = &it;
          if (!match) throw;
          bg = Bind(*match->expr, gctx);
        }
      } else {
        bg = Bind(*g, gctx);
      }
      if (bg->ContainsAggregate()) throw BindError("aggregate functions are not allowed in GROUP BY", g->pos);
      bool dup = false;
      for (auto& x : agg.groups) dup |= x->Equals(*bg);
      if (!dup) agg.groups.push_back(std::move(bg));
    }
    sel.clause = "WHERE";
  }

  // Bind select items.
  auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
  proj->table_index = next_index_++;
  std::vector<std::string> names;
  for (auto& it : items) {
    BoundExprPtr b;
    if (it.expr) {
      b = Bind(*it.expr, sel);
      names.push_back(it.alias.empty() ? DisplayName(*it.expr, *b) : it.alias);
    } else {
      b = std::move(it.star_col);
      if (aggregating) {
        bool found = false;
        for (uint32_t i = 0; i < agg.groups.size() && !found; i++)
          if (agg.groups[i]->Equals(*b)) { b = MakeColumn({agg.group_index, i}, b->type, b->name); found = true; }
        if (!found)
          throw BindError("column \"" + b->name + "\" must appear in the GROUP BY clause or be used in an aggregate function", stmt.pos);
      }
      names.push_back(it.alias);
    }
    proj->exprs.push_back(std::move(b));
  }
  size_t visible = proj->exprs.size();

  BoundExprPtr having;
  if (stmt.having) {
    Ctx h = sel;
    h.clause = "HAVING";
    having = ToBoolean(Bind(*stmt.having, h), stmt.having->pos, "argument of HAVING");
  }

  // ORDER BY keys refer to output columns (by position, alias or equal expression) or are
  // added as hidden projection columns.
  std::vector<OrderSpec> orders;
  for (auto& o : stmt.order_by) {
    int idx = -1;
    if (o.expr->kind == ExprKind::Literal && o.expr->lit == ast::LiteralKind::Integer) {
      int64_t k = SelectListPosition(o.expr->text);
      if (k < 1 || k > (int64_t)visible)
        throw BindError("ORDER BY position " + o.expr->text + " is not in the select list", o.expr->pos);
      idx = (int)k - 1;
    } else if (o.expr->kind == ExprKind::Column && o.expr->table.empty()) {
      for (size_t i = 0; i < visible; i++)
        if (names[i] == o.expr->name) {
          idx = (int)i;
          break;
        }
    }
    if (idx < 0) {
      Ctx oc = sel;
      oc.clause = "ORDER BY";
      auto b = Bind(*o.expr, oc);
      for (size_t i = 0; i < proj->exprs.size() && idx < 0; i++)
        if (proj->exprs[i]->Equals(*b)) idx = (int)i;
      if (idx < 0) {
        if (stmt.distinct)
          throw BindError("for SELECT DISTINCT, ORDER BY expressions must appear in the select list", o.expr->pos);
        proj->exprs.push_back(std::move(b));
        idx = (int)proj->exprs.size() - 1;
      }
    }
    OrderSpec spec;
    spec.desc = o.desc;
    spec.nulls_first = o.nulls_first.value_or(false);  // DuckDB: NULLS LAST for ASC and DESC
    spec.expr = MakeColumn({proj->table_index, (uint32_t)idx}, proj->exprs[idx]->type,
                           idx < (int)names.size() ? names[idx] : proj->exprs[idx]->ToString());
    orders.push_back(std::move(spec));
  }

  if (aggregating) {
    auto a = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
    a->group_index = agg.group_index;
    a->agg_index = agg.agg_index;
    a->groups = std::move(agg.groups);
    a->aggs = std::move(agg.aggs);
    a->children.push_back(std::move(plan));
    plan = std::move(a);
    plan = ApplyJoins(std::move(plan), select_joins);
    if (having) {
      auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
      SplitConjunction(std::move(having), f->filters);
      f->children.push_back(std::move(plan));
      plan = std::move(f);
    }
  }
  plan = ApplyJoins(std::move(plan), select_joins);  // not aggregating: none applied yet
  std::vector<Type> proj_types;
  for (auto& e : proj->exprs) proj_types.push_back(e->type);
  proj->children.push_back(std::move(plan));
  plan = std::move(proj);
  uint32_t out_index = plan->table_index;

  if (stmt.distinct) {
    auto d = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
    d->group_index = next_index_++;
    d->agg_index = next_index_++;
    for (uint32_t i = 0; i < visible; i++)
      d->groups.push_back(MakeColumn({out_index, i}, proj_types[i], names[i]));
    for (auto& o : orders) o.expr->binding.table = d->group_index;
    out_index = d->group_index;
    d->children.push_back(std::move(plan));
    plan = std::move(d);
  }
  if (!orders.empty()) {
    auto ord = std::make_unique<LogicalOp>(LogicalKind::Order);
    ord->orders = std::move(orders);
    ord->children.push_back(std::move(plan));
    plan = std::move(ord);
  }
  if (stmt.limit || stmt.offset) {
    auto lim = std::make_unique<LogicalOp>(LogicalKind::Limit);
    lim->limit = stmt.limit ? *stmt.limit : -1;
    lim->offset = stmt.offset ? *stmt.offset : 0;
    lim->children.push_back(std::move(plan));
    plan = std::move(lim);
  }
  if (proj_types.size() > visible) {
    auto fin = std::make_unique<LogicalOp>(LogicalKind::Projection);
    fin->table_index = next_index_++;
    for (uint32_t i = 0; i < visible; i++)
      fin->exprs.push_back(MakeColumn({out_index, i}, proj_types[i], names[i]));
    fin->children.push_back(std::move(plan));
    plan = std::move(fin);
  }
  BoundQuery q;
  q.plan = std::move(plan);
  q.names = std::move(names);
  q.types.assign(proj_types.begin(), proj_types.begin() + visible);
  return q;
}

}  // namespace tessera
