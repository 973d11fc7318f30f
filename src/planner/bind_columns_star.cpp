// DuckDB's COLUMNS(...) star expression: COLUMNS(*) / COLUMNS(t.*) (with EXCLUDE and
// REPLACE), COLUMNS('regex') (the columns whose name the RE2 pattern matches anywhere,
// case-sensitively, as DuckDB), COLUMNS(['a', 'b']) (the named columns, in the FROM
// items' order) and COLUMNS(c -> cond) / COLUMNS(lambda c: cond) (the columns whose name, as
// c, makes cond true). Unlike `*` it may stand inside an expression: a select-list item holding
// it becomes one item per selected column, the expression bound with COLUMNS standing for
// that column (Binder::columns_current_), named as the column unless the item has an
// alias (`SELECT max(COLUMNS('.*price')) FROM t`: one max per price column). In WHERE a
// conjunct holding it is one conjunct per column (all must hold); in ORDER BY one key per
// column. An expression may hold COLUMNS more than once only when they are the same.
#include <functional>

#include "execution/expression_executor.hpp"
#include "function/regex_ops.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

using ast::ExprKind;

namespace {

bool SameColumnsStar(const ast::Expr& a, const ast::Expr& b) {
  if (a.columns_regex != b.columns_regex || a.columns_list != b.columns_list || a.columns_lambda != b.columns_lambda)
    return false;
  if (a.columns_lambda) return &a == &b;
  if (a.columns_regex) return a.text == b.text;
  if (a.columns_list) {
    if (a.columns_names.size() != b.columns_names.size()) return false;
    for (size_t i = 0; i < a.columns_names.size(); i++)
      if (!IdentEquals(a.columns_names[i], b.columns_names[i])) return false;
    return true;
  }
  if (!IdentEquals(a.table, b.table) || a.star_exclude.size() != b.star_exclude.size()) return false;
  if (!a.star_replace.empty() || !b.star_replace.empty()) return &a == &b;
  for (size_t i = 0; i < a.star_exclude.size(); i++)
    if (!IdentEquals(a.star_exclude[i].first, b.star_exclude[i].first) ||
        !IdentEquals(a.star_exclude[i].second, b.star_exclude[i].second))
      return false;
  return true;
}

void CollectColumnsStars(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  if (e.kind == ExprKind::Star && e.columns) {
    out.push_back(&e);
    return;  // its REPLACE expressions are its own
  }
  for (auto& c : e.children)
    if (c) CollectColumnsStars(*c, out);
  for (auto& o : e.order_by) CollectColumnsStars(*o.expr, out);
  if (e.over) {
    for (auto& p : e.over->partitions) CollectColumnsStars(*p, out);
    for (auto& o : e.over->orders) CollectColumnsStars(*o.expr, out);
  }
}

}  // namespace

const ast::Expr* Binder::FindColumnsStar(const ast::Expr& e) {
  std::vector<const ast::Expr*> stars;
  CollectColumnsStars(e, stars);
  if (stars.empty()) return nullptr;
  for (size_t i = 1; i < stars.size(); i++)
    if (!SameColumnsStar(*stars[0], *stars[i]))
      throw BindError("Multiple different STAR/COLUMNS in the same expression are not supported", stars[i]->pos);
  return stars[0];
}

std::vector<Binder::SelectListItem> Binder::ExpandColumnsStar(const ast::Expr& star, const Scope& scope) {
  std::vector<SelectListItem> out;
  if (!star.columns_regex && !star.columns_list && !star.columns_lambda) {
    ExpandStar(star, scope, out);
    return out;
  }
  // The columns `*` stands for, those the pattern or the list selects.
  std::unique_ptr<ops::Regex> re;
  if (star.columns_regex) {
    try {
      re = std::make_unique<ops::Regex>(star.text, ops::RegexOptions{});
    } catch (const UserError& err) {
      throw BindError("Failed to compile regex \"" + star.text + "\": " + err.raw(), star.pos);
    }
  }
  std::vector<bool> found(star.columns_names.size());
  for (auto& s : scope.entries)
    for (size_t i = 0; i < s.names.size(); i++) {
      if (s.Hidden(i)) continue;
      const std::string& name = s.UnqualifiedName(i);
      bool take = false;
      if (re) {
        take = re->PartialMatch(name);
      } else if (star.columns_lambda) {
        take = ColumnsLambdaTakes(star, name);
      } else {
        for (size_t k = 0; k < star.columns_names.size(); k++)
          if (IdentEquals(star.columns_names[k], name)) take = found[k] = true;
      }
      if (take) out.push_back({nullptr, name, s.Unqualified(i)});
    }
  for (size_t k = 0; k < found.size(); k++)
    if (!found[k])
      throw BindError("Column \"" + star.columns_names[k] + "\" was selected but was not found in the FROM clause",
                      star.pos);
  if (re && out.empty())
    throw BindError("No matching columns found that match regex \"" + star.text + "\"", star.pos);
  if (star.columns_lambda && out.empty())
    throw BindError("Star expression \"COLUMNS(" + star.name + " -> ...)\" resulted in an empty set of columns", star.pos);
  return out;
}

bool Binder::ColumnsLambdaTakes(const ast::Expr& star, const std::string& name) {
  // The condition sees only its parameter (a VARCHAR constant): no FROM items, no enclosing
  // query's columns.
  const Scope none;
  const BoundExprPtr value = MakeConstant(Value::Varchar(name));
  std::vector<std::pair<std::string, const BoundExpr*>> param{{star.name, value.get()}};
  Ctx ctx;
  ctx.scope = &none;
  ctx.aliases = &param;
  ctx.clause = "COLUMNS";
  std::vector<const Scope*> outer;
  std::swap(outer, outer_scopes_);
  struct Restore {
    std::vector<const Scope*>& a;
    std::vector<const Scope*>& b;
    ~Restore() { std::swap(a, b); }
  } restore{outer, outer_scopes_};
  std::function<void(const ast::Expr&)> only_param = [&](const ast::Expr& e) {
    if (e.kind == ExprKind::Column && (!e.table.empty() || !IdentEquals(e.name, star.name)))
      throw BindError("Failed to bind \"" + e.name + "\" - COLUMNS expression can only contain lambda parameters",
                      e.pos);
    for (auto& c : e.children)
      if (c) only_param(*c);
  };
  only_param(*star.children[0]);
  BoundExprPtr cond = ToBoolean(Bind(*star.children[0], ctx), star.children[0]->pos, "COLUMNS lambda");
  const Value v = EvaluateConstant(*cond);
  return !v.is_null() && v.int_value() != 0;
}

void Binder::ExpandColumnsItem(const ast::SelectItem& si, const Scope& scope, std::vector<SelectListItem>& items) {
  const ast::Expr* star = FindColumnsStar(*si.expr);
  auto cols = std::make_shared<std::vector<SelectListItem>>(ExpandColumnsStar(*star, scope));
  if (si.expr.get() == star) {  // COLUMNS(...) alone: its columns, as `*` gives them
    for (auto& c : *cols) items.push_back({c.expr, si.alias.empty() ? c.alias : si.alias, c.star_col ? c.star_col->Copy() : nullptr});
    return;
  }
  for (size_t i = 0; i < cols->size(); i++)
    items.push_back({si.expr.get(), si.alias.empty() ? (*cols)[i].alias : si.alias, nullptr, cols, i});
}

BoundExprPtr Binder::BindItem(const SelectListItem& it, Ctx& ctx) {
  if (!it.expr) return it.star_col->Copy();
  ColumnsScope cs(*this, it.columns ? &(*it.columns)[it.columns_at] : nullptr);
  return Bind(*it.expr, ctx);
}

}  // namespace tessera
