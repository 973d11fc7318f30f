#include "planner/bound_expr.hpp"

#include "planner/bound_window.hpp"
#include "function/function_registry.hpp"

namespace tessera {

BoundExprPtr BoundExpr::Copy() const {
  auto r = std::make_unique<BoundExpr>(kind, type);
  r->binding = binding;
  r->index = index;
  r->value = value;
  r->op = op;
  r->negated = negated;
  r->distinct = distinct;
  r->name = name;
  r->fn = fn;
  r->agg_fn = agg_fn;
  r->window = window;
  r->agg_order = agg_order;
  r->sequence = sequence;
  for (auto& c : children) r->children.push_back(c->Copy());
  return r;
}

bool BoundExpr::Equals(const BoundExpr& o) const {
  return Equals(o, [](ColumnBinding a, ColumnBinding b) { return a == b; });
}

bool BoundExpr::Equals(const BoundExpr& o, const std::function<bool(ColumnBinding, ColumnBinding)>& same_column) const {
  // A column's name is only how it is shown (`x` and `X` are the same column): its
  // binding decides.
  if (kind != o.kind || type != o.type || op != o.op || negated != o.negated ||
      distinct != o.distinct || (kind != BExpr::Column && name != o.name) || fn != o.fn || agg_fn != o.agg_fn ||
      children.size() != o.children.size() || agg_order != o.agg_order)
    return false;
  if (kind == BExpr::Column && !same_column(binding, o.binding)) return false;
  // Two volatile calls give different values (nextval('s'), nextval('s'): 1, 2).
  if (kind == BExpr::Func && fn && fn->is_volatile && this != &o) return false;
  if (kind == BExpr::Window && !(*window == *o.window)) return false;
  if (kind == BExpr::Constant) {
    if (value.is_null() != o.value.is_null()) return false;
    if (!value.is_null() && value.Compare(o.value) != 0) return false;
  }
  for (size_t i = 0; i < children.size(); i++)
    if (!children[i]->Equals(*o.children[i], same_column)) return false;
  return true;
}

std::string BoundExpr::ToString() const {
  auto join = [&](const char* sep, size_t from = 0) {
    std::string s;
    for (size_t i = from; i < children.size(); i++) {
      if (i > from) s += sep;
      s += children[i]->ToString();
    }
    return s;
  };
  switch (kind) {
    case BExpr::Column: return name.empty() ? "#" + std::to_string(binding.column) : name;
    case BExpr::Constant:
      return type.id == TypeId::Varchar && !value.is_null() ? "'" + value.ToString() + "'"
                                                           : value.ToString();
    case BExpr::Cast: return (negated ? "TRY_CAST(" : "CAST(") + children[0]->ToString() + " AS " + type.ToString() + ")";
    case BExpr::Compare:
    case BExpr::Arith:
      return "(" + children[0]->ToString() + " " + ast::OpSymbol(op) + " " + children[1]->ToString() + ")";
    case BExpr::And: return "(" + join(" AND ") + ")";
    case BExpr::Or: return "(" + join(" OR ") + ")";
    case BExpr::Not: return "NOT " + children[0]->ToString();
    case BExpr::Neg: return "-" + children[0]->ToString();
    case BExpr::IsNull:
      return children[0]->ToString() + (negated ? " IS NOT NULL" : " IS NULL");
    case BExpr::Like:
      return children[0]->ToString() + (negated ? " NOT LIKE " : " LIKE ") + children[1]->ToString() +
             (children.size() > 2 ? " ESCAPE " + children[2]->ToString() : "");
    case BExpr::InList:
      return children[0]->ToString() + (negated ? " NOT IN (" : " IN (") + join(", ", 1) + ")";
    case BExpr::Case: {
      std::string s = "CASE";
      for (size_t i = 0; i + 1 < children.size(); i += 2)
        s += " WHEN " + children[i]->ToString() + " THEN " + children[i + 1]->ToString();
      return s + " ELSE " + children.back()->ToString() + " END";
    }
    case BExpr::Func:
      if (name == "||") return "(" + children[0]->ToString() + " || " + children[1]->ToString() + ")";
      return name + "(" + join(", ") + ")";
    case BExpr::Agg:
      if (name == "count_star") return "count_star()";
      if (!agg_order.empty()) {
        const size_t nargs = children.size() - agg_order.size();
        std::string s = name + "(" + (distinct ? "DISTINCT " : "");
        for (size_t i = 0; i < nargs; i++) s += (i ? ", " : "") + children[i]->ToString();
        s += " ORDER BY ";
        for (size_t k = 0; k < agg_order.size(); k++)
          s += (k ? ", " : "") + children[nargs + k]->ToString() + (agg_order[k].desc ? " DESC" : "") +
               (agg_order[k].nulls_first ? " NULLS FIRST" : "");
        return s + ")";
      }
      return name + "(" + (distinct ? "DISTINCT " : "") + join(", ") + ")";
    case BExpr::Window: {
      std::vector<std::string> texts;
      for (auto& c : children) texts.push_back(c->ToString());
      std::string s = name == "count_star" ? "count_star(" : name + "(" + (distinct ? "DISTINCT " : "");
      for (uint32_t i = 0; i < window->args; i++) s += (i ? ", " : "") + texts[i];
      s += window->ignore_nulls ? " IGNORE NULLS)" : ")";
      if (window->filter) s += " FILTER (WHERE " + texts[window->FilterChild()] + ")";
      return s + " OVER (" + window->ToString(texts) + ")";
    }
  }
  return "?";
}

bool BoundExpr::IsConstant() const {
  if (kind == BExpr::Column || kind == BExpr::Agg || kind == BExpr::Window) return false;
  if (kind == BExpr::Func && fn->is_volatile) return false;
  for (auto& c : children)
    if (!c->IsConstant()) return false;
  return true;
}

bool BoundExpr::CallsVolatile() const {
  if (kind == BExpr::Func && fn && fn->is_volatile) return true;
  for (auto& c : children)
    if (c->CallsVolatile()) return true;
  return false;
}

void BoundExpr::CollectBindings(std::vector<ColumnBinding>& out) const {
  if (kind == BExpr::Column) out.push_back(binding);
  for (auto& c : children) c->CollectBindings(out);
}

bool BoundExpr::ContainsAggregate() const {
  if (kind == BExpr::Agg) return true;
  for (auto& c : children)
    if (c->ContainsAggregate()) return true;
  return false;
}

BoundExprPtr MakeColumn(ColumnBinding b, Type t, std::string name) {
  auto e = std::make_unique<BoundExpr>(BExpr::Column, t);
  e->binding = b;
  e->name = std::move(name);
  return e;
}

BoundExprPtr MakeConstant(Value v) {
  auto e = std::make_unique<BoundExpr>(BExpr::Constant, v.type());
  e->value = std::move(v);
  return e;
}

BoundExprPtr MakeCast(BoundExprPtr e, Type t) {
  if (e->type == t) return e;
  if (e->kind == BExpr::Constant) {
    // A constant that does not convert (261 to DECIMAL(18,17)) stays a cast: its error is
    // raised where a row evaluates it, not in a query without rows, as DuckDB (and as
    // constant folding, optimizer/constant_folding.cpp).
    try {
      return MakeConstant(e->value.CastTo(t));
    } catch (const UserError&) {
    }
  }
  auto c = std::make_unique<BoundExpr>(BExpr::Cast, t);
  c->children.push_back(std::move(e));
  return c;
}

BoundExprPtr ZeroWhenNull(BoundExprPtr v) {
  const Type t = v->type;
  auto is_null = std::make_unique<BoundExpr>(BExpr::IsNull, Type::Boolean());
  is_null->children.push_back(v->Copy());
  auto c = std::make_unique<BoundExpr>(BExpr::Case, t);
  c->children.push_back(std::move(is_null));
  c->children.push_back(MakeCast(MakeConstant(Value::BigInt(0)), t));
  c->children.push_back(std::move(v));
  return c;
}

BoundExprPtr MakeCompare(ast::Op op, BoundExprPtr l, BoundExprPtr r) {
  auto e = std::make_unique<BoundExpr>(BExpr::Compare, Type::Boolean());
  e->op = op;
  e->children.push_back(std::move(l));
  e->children.push_back(std::move(r));
  return e;
}

ast::Op FlipComparison(ast::Op op) {
  switch (op) {
    case ast::Op::Lt: return ast::Op::Gt;
    case ast::Op::Le: return ast::Op::Ge;
    case ast::Op::Gt: return ast::Op::Lt;
    case ast::Op::Ge: return ast::Op::Le;
    default: return op;
  }
}

BoundExprPtr MakeAnd(std::vector<BoundExprPtr> terms) {
  if (terms.empty()) return MakeConstant(Value::Boolean(true));
  if (terms.size() == 1) return std::move(terms[0]);
  auto e = std::make_unique<BoundExpr>(BExpr::And, Type::Boolean());
  e->children = std::move(terms);
  return e;
}

void SplitConjunction(BoundExprPtr e, std::vector<BoundExprPtr>& out) {
  if (e->kind == BExpr::And) {
    for (auto& c : e->children) SplitConjunction(std::move(c), out);
    return;
  }
  out.push_back(std::move(e));
}

}  // namespace tessera
