// Select-list aliases named in WHERE, GROUP BY and HAVING, as DuckDB allows them:
// `SELECT a + 1 AS x FROM t WHERE x > 2 GROUP BY x HAVING x < 10`. A name that is a column
// of the query's FROM items is that column (a real column wins over an alias); otherwise
// the last select-list item aliased so stands for its expression, bound where the name
// is (in WHERE before grouping, in HAVING over the groups). The expression is bound
// without aliases (an alias does not see the others, nor itself). Aggregates and window
// functions in an alias named in WHERE or GROUP BY are DuckDB's errors; in GROUP BY only a
// bare alias is allowed (bind_select.cpp binds it), an alias inside an expression there
// is an error.
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

using ast::ExprKind;

// The expression of the last select-list item aliased as the unqualified name `e` (as
// DuckDB, the last of equal aliases), or null.
static const ast::Expr* LastAlias(const ast::Expr& e,
                                  const std::vector<std::pair<std::string, const ast::Expr*>>* aliases) {
  if (!aliases || e.kind != ExprKind::Column || !e.table.empty()) return nullptr;
  const ast::Expr* found = nullptr;
  for (auto& [alias, expr] : *aliases)
    if (IdentEquals(alias, e.name)) found = expr;
  return found;
}

const ast::Expr* Binder::FindSelectAlias(const ast::Expr& e, const Ctx& ctx) const {
  const ast::Expr* found = LastAlias(e, ctx.select_aliases);
  if (!found || !ctx.scope) return found;
  for (auto& en : ctx.scope->entries)
    for (auto& n : en.names)
      if (IdentEquals(n, e.name)) return nullptr;  // a column of the FROM items wins
  return found;
}

BoundExprPtr Binder::TryBindSelectAlias(const ast::Expr& e, Ctx& ctx) {
  const ast::Expr* alias = LastAlias(e, ctx.select_aliases);
  if (!alias) return nullptr;
  if (FindSelectAlias(e, ctx)) return BindSelectAlias(e, *alias, ctx);
  if (!ctx.agg) return nullptr;  // WHERE, GROUP BY: the column
  // HAVING: the column when it is grouped, else the alias (as DuckDB: `SELECT a, sum(b) AS b
  // ... GROUP BY a HAVING b > 10` compares the sum).
  Ctx plain = ctx;
  plain.select_aliases = nullptr;
  try {
    return Bind(e, plain);
  } catch (const UserError&) {
    return BindSelectAlias(e, *alias, ctx);
  }
}

bool Binder::UsesSelectAlias(const ast::Expr& e, const Ctx& ctx, bool (*pred)(const ast::Expr&)) const {
  if (!ctx.select_aliases) return false;
  if (const ast::Expr* a = FindSelectAlias(e, ctx)) return !pred || pred(*a);
  for (auto& c : e.children)
    if (UsesSelectAlias(*c, ctx, pred)) return true;
  for (auto& o : e.order_by)
    if (UsesSelectAlias(*o.expr, ctx, pred)) return true;
  return false;
}

BoundExprPtr Binder::BindSelectAlias(const ast::Expr& ref, const ast::Expr& target, Ctx& ctx) {
  const std::string clause = ctx.clause;
  if (ctx.alias_group_expr)
    throw BindError("Alias with name \"" + ref.name +
                        "\" exists, but aliases cannot be used as part of an expression in the GROUP BY",
                    ref.pos);
  if ((clause == "WHERE" || clause == "GROUP BY") && AstContainsAggregate(target))
    throw BindError(clause + " clause cannot contain aggregates!", target.pos);
  Ctx inner = ctx;
  inner.select_aliases = nullptr;
  return Bind(target, inner);
}

}  // namespace tessera
