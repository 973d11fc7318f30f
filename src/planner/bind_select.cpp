// The SELECT node: FROM items, WHERE, the select list, GROUP BY, HAVING, ORDER BY,
// DISTINCT, LIMIT/OFFSET.
#include <algorithm>

#include "common/decimal.hpp"
#include "parser/expression_name.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "planner/decorrelate.hpp"

namespace tessera {

using ast::ExprKind;

// A GROUP BY / ORDER BY position as written (digits only): -1 when it is beyond int64.
int64_t SelectListPosition(const std::string& digits) {
  auto v = ParseDecimal(digits, 38, 0);
  return v && *v <= INT64_MAX ? (int64_t)*v : -1;
}

// ---------------------------------------------------------------------------------------
// SELECT

// The name of a select item other than a bare column reference (Binder::ColumnDisplayName).
// Columns inside it show as written (`X + 1` is "(X + 1)"), as in DuckDB.
static std::string DisplayName(const ast::Expr& e, const BoundExpr& b) {
  // A call the binder made a constant (now(), current_date): named as written, as DuckDB.
  if (e.kind == ExprKind::Function && e.children.empty() && b.kind == BExpr::Constant)
    return ast::IsKeywordFunction(e.name) ? e.name : e.name + "()";
  // DuckDB's name: the expression as written (parser/expression_name.hpp), where it is written there.
  std::string name = ast::DuckDbColumnName(e);
  return name.empty() ? b.ToString() : name;
}

LogicalOpPtr ApplyLimit(LogicalOpPtr plan, const ast::SelectStmt& stmt) {
  if (!stmt.limit && !stmt.limit_percent && !stmt.offset) return plan;
  auto lim = std::make_unique<LogicalOp>(LogicalKind::Limit);
  lim->limit = stmt.limit ? *stmt.limit : -1;
  lim->limit_percent = stmt.limit_percent ? *stmt.limit_percent : -1;
  lim->offset = stmt.offset ? *stmt.offset : 0;
  lim->children.push_back(std::move(plan));
  return lim;
}

LogicalOpPtr Binder::MakeDistinct(LogicalOpPtr plan, const std::vector<std::string>& names) {
  auto d = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
  d->group_index = next_index_++;
  d->agg_index = next_index_++;
  auto b = plan->Bindings();
  auto t = plan->Types();
  for (size_t i = 0; i < b.size(); i++) d->groups.push_back(MakeColumn(b[i], t[i], i < names.size() ? names[i] : ""));
  d->children.push_back(std::move(plan));
  return d;
}

// A query node: a set operation, VALUES, or the SELECT core (the rest of this function).
BoundQuery Binder::BindSelect(const ast::SelectStmt& stmt) {
  ctes_.emplace_back();
  struct CtePop { std::vector<CteMap>& v; ~CtePop() { v.pop_back(); } } pop{ctes_};
  ColumnsScope own_columns(*this, nullptr);  // an enclosing item's COLUMNS is not this query's
  for (auto& cte : stmt.ctes) ctes_.back()[cte.name] = &cte;
  if (stmt.set_op != ast::SetOpKind::None) {
    std::vector<std::string> other_names;
    BoundQuery q = BindSetOperation(stmt, other_names);
    return BindNodeTail(stmt, std::move(q), other_names, "a set operation");
  }
  if (!stmt.values.empty()) return BindNodeTail(stmt, BindValues(stmt), {}, "VALUES");

  Scope scope;
  LogicalOpPtr plan;
  for (auto& ref : stmt.from) {
    auto p = BindFrom(*ref, scope);
    if (IsPendingJoin(*p)) {  // a LATERAL subquery referring to the items before it
      plan = AttachLeft(std::move(p), plan ? std::move(plan) : std::make_unique<LogicalOp>(LogicalKind::Dummy),
                        ref->pos);
      continue;
    }
    plan = plan ? CrossJoin(std::move(plan), std::move(p)) : std::move(p);
  }
  if (!plan) plan = std::make_unique<LogicalOp>(LogicalKind::Dummy);
  if (stmt.sample) plan = ApplySample(std::move(plan), *stmt.sample);  // USING SAMPLE: before WHERE

  // Expand the select list (* and t.*, bind_star.cpp).
  using Item = SelectListItem;
  std::vector<Item> items;
  for (auto& si : stmt.select_list) {
    if (si.expr->kind == ExprKind::Star && !si.expr->columns) ExpandStar(*si.expr, scope, items);
    else if (FindColumnsStar(*si.expr)) ExpandColumnsItem(si, scope, items);  // bind_columns_star.cpp
    else items.push_back({si.expr.get(), si.alias, nullptr});
  }
  if (items.empty()) throw BindError("SELECT list is empty after resolving * expressions!", stmt.pos);
  // The aliases WHERE, GROUP BY and HAVING may name (bind_select_alias.cpp).
  std::vector<std::pair<std::string, const ast::Expr*>> select_aliases;
  for (auto& it : items)
    if (it.expr && !it.alias.empty() && !it.columns) select_aliases.emplace_back(it.alias, it.expr);

  if (stmt.where) plan = BindWhere(*stmt.where, std::move(plan), scope, &select_aliases);

  bool aggregating = !stmt.group_by.empty() || !stmt.grouping_sets.empty() || stmt.group_by_all ||
                     (stmt.having != nullptr);
  for (auto& it : items)
    if (it.expr && AstContainsAggregate(*it.expr)) aggregating = true;
  for (auto& o : stmt.order_by)
    if (AstContainsAggregate(*o.expr)) aggregating = true;
  if (stmt.qualify && AstContainsAggregate(*stmt.qualify)) aggregating = true;

  AggState agg;
  agg.group_index = next_index_++;
  agg.agg_index = next_index_++;
  agg.grouping_index = next_index_++;
  std::vector<uint32_t> group_of;  // stmt.group_by[i] is agg.groups[group_of[i]]
  // Joins evaluating subqueries of the select list, HAVING and ORDER BY: under the
  // projection (after the aggregate when aggregating).
  std::vector<LogicalOpPtr> select_joins;
  Ctx sel;
  sel.scope = &scope;
  sel.clause = "WHERE";
  sel.joins = &select_joins;
  WindowState win;  // window functions of the select list, QUALIFY and ORDER BY
  win.index = next_index_++;
  win.stmt = &stmt;
  sel.win = &win;
  if (aggregating) {
    sel.agg = &agg;
    sel.clause = "GROUP BY";
    Ctx gctx;
    gctx.scope = &scope;
    gctx.clause = "GROUP BY";
    Ctx galias = gctx;
    galias.select_aliases = &select_aliases;
    galias.alias_group_expr = true;
    for (auto& g : stmt.group_by) {
      BoundExprPtr bg;
      if (g->kind == ExprKind::Literal && g->lit == ast::LiteralKind::Integer) {
        int64_t k = SelectListPosition(g->text);
        if (k < 1 || k > (int64_t)items.size())
          throw BindError("GROUP BY position " + g->text + " is not in the select list", g->pos);
        bg = BindItem(items[k - 1], gctx);
      } else if (const ast::Expr* alias = FindSelectAlias(*g, galias)) {
        // GROUP BY an output alias (the last of equal ones, as DuckDB), bound without aliases
        if (AstContainsAggregate(*alias)) throw BindError("GROUP BY clause cannot contain aggregates!", alias->pos);
        bg = Bind(*alias, gctx);
      } else {
        bg = Bind(*g, galias);  // an alias inside an expression is an error
      }
      if (bg->ContainsAggregate()) throw BindError("GROUP BY clause cannot contain aggregates!", g->pos);
      uint32_t at = 0;
      while (at < agg.groups.size() && !agg.groups[at]->Equals(*bg)) at++;
      if (at == agg.groups.size()) agg.groups.push_back(std::move(bg));
      group_of.push_back(at);
    }
    if (stmt.group_by_all) {  // GROUP BY ALL: the items with no aggregate (bind_group_order_all.cpp)
      for (auto& it : items) {
        if (!GroupByAllItem(it)) continue;
        BoundExprPtr bg = BindItem(it, gctx);
        uint32_t at = 0;
        while (at < agg.groups.size() && !agg.groups[at]->Equals(*bg)) at++;
        if (at == agg.groups.size()) agg.groups.push_back(std::move(bg));
      }
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
      b = BindItem(it, sel);
      names.push_back(!it.alias.empty()                     ? it.alias
                      : it.expr->kind == ExprKind::Column ? ColumnDisplayName(*it.expr, sel)
                                                          : DisplayName(*it.expr, *b));
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
    h.win = nullptr;
    h.select_aliases = &select_aliases;
    having = ToBoolean(Bind(*stmt.having, h), stmt.having->pos, "argument of HAVING");
  }

  // QUALIFY: a filter over the window functions' results; it may name select-list aliases.
  BoundExprPtr qualify;
  if (stmt.qualify) {
    if (AstContainsSubquery(*stmt.qualify))
      throw UserError(ErrorKind::Unsupported, "subqueries in QUALIFY are not supported", stmt.qualify->pos);
    Ctx q = sel;
    q.clause = "QUALIFY";
    std::vector<std::pair<std::string, const BoundExpr*>> aliases;
    for (size_t i = 0; i < visible; i++) aliases.emplace_back(names[i], proj->exprs[i].get());
    q.aliases = &aliases;
    qualify = ToBoolean(Bind(*stmt.qualify, q), stmt.qualify->pos, "argument of QUALIFY");
    if (win.exprs.empty())
      throw BindError("at least one window function must appear in the SELECT column or QUALIFY clause",
                      stmt.qualify->pos);
  }

  // ORDER BY keys refer to output columns (by position, alias or equal expression) or are
  // added as hidden projection columns.
  // (DISTINCT ON keys the same way.)
  auto output_column = [&](const ast::Expr& e, const char* clause) {
    int idx = -1;
    if (e.kind == ExprKind::Literal && e.lit == ast::LiteralKind::Integer) {
      int64_t k = SelectListPosition(e.text);
      if (k < 1 || k > (int64_t)visible)
        throw BindError(std::string(clause) + " position " + e.text + " is not in the select list", e.pos);
      idx = (int)k - 1;
    } else if (e.kind == ExprKind::Column && e.table.empty()) {
      for (size_t i = 0; i < visible; i++)  // the last of equal names, as DuckDB
        if (IdentEquals(names[i], e.name)) idx = (int)i;
    }
    if (idx < 0) {
      Ctx oc = sel;
      oc.clause = clause;
      auto b = Bind(e, oc);
      for (size_t i = 0; i < proj->exprs.size() && idx < 0; i++)
        if (proj->exprs[i]->Equals(*b)) idx = (int)i;
      if (idx < 0) {
        if (stmt.distinct)
          throw BindError("for SELECT DISTINCT, ORDER BY expressions must appear in the select list", e.pos);
        proj->exprs.push_back(std::move(b));
        idx = (int)proj->exprs.size() - 1;
      }
    }
    return idx;
  };
  std::vector<OrderSpec> orders;
  for (size_t i = 0; stmt.order_by_all && i < visible; i++) {  // ORDER BY ALL: each output column
    OrderSpec spec;
    spec.desc = stmt.order_by_all->desc;
    spec.nulls_first = stmt.order_by_all->nulls_first.value_or(false);
    spec.expr = MakeColumn({proj->table_index, (uint32_t)i}, proj->exprs[i]->type, names[i]);
    orders.push_back(std::move(spec));
  }
  for (auto& o : stmt.order_by) {
    auto add_order = [&] {
      const int idx = output_column(*o.expr, "ORDER BY");
      OrderSpec spec;
      spec.desc = o.desc;
      spec.nulls_first = o.nulls_first.value_or(false);  // DuckDB: NULLS LAST for ASC and DESC
      spec.expr = MakeColumn({proj->table_index, (uint32_t)idx}, proj->exprs[idx]->type,
                             idx < (int)names.size() ? names[idx] : proj->exprs[idx]->ToString());
      orders.push_back(std::move(spec));
    };
    if (const ast::Expr* star = FindColumnsStar(*o.expr)) {  // one key per column (bind_columns_star.cpp)
      for (auto& col : ExpandColumnsStar(*star, scope)) {
        ColumnsScope cs(*this, &col);
        add_order();
      }
    } else {
      add_order();
    }
  }
  std::vector<int> distinct_on;
  for (auto& e : stmt.distinct_on) distinct_on.push_back(output_column(*e, "DISTINCT ON"));

  // Joins of subqueries over window results go above the Window operator.
  std::vector<LogicalOpPtr> window_joins;
  if (!win.exprs.empty()) {
    std::vector<LogicalOpPtr> below;
    for (auto& j : select_joins) {
      std::vector<ColumnBinding> used;
      for (auto& k : j->left_keys) k->CollectBindings(used);
      if (j->residual) j->residual->CollectBindings(used);
      bool over_window = false;
      for (auto& b : used) over_window |= b.table == win.index;
      (over_window ? window_joins : below).push_back(std::move(j));
    }
    select_joins = std::move(below);
  }
  if (aggregating) plan = ApplyJoins(std::move(plan), agg.arg_joins);  // subqueries in aggregate arguments
  if (aggregating && (!stmt.grouping_sets.empty() || !agg.grouping_calls.empty())) {
    // Grouping sets (bind_grouping_sets.cpp); a plain GROUP BY with GROUPING() calls is
    // the one set of all its groups.
    std::vector<std::vector<uint32_t>> sets;
    for (auto& written : stmt.grouping_sets) {
      std::vector<uint32_t> set;
      for (uint32_t i : written)
        if (std::find(set.begin(), set.end(), group_of[i]) == set.end()) set.push_back(group_of[i]);
      sets.push_back(std::move(set));
    }
    if (sets.empty()) {
      sets.emplace_back();
      for (uint32_t g = 0; g < agg.groups.size(); g++) sets.back().push_back(g);
    }
    const uint32_t out = next_index_++;
    auto rebind = [&](BoundExpr& e) {
      RebindGroupingOutput(e, agg.group_index, agg.agg_index, agg.grouping_index, agg.groups.size(),
                           agg.aggs.size(), out);
    };
    if (having) rebind(*having);
    if (qualify) rebind(*qualify);
    for (auto& e : proj->exprs) rebind(*e);
    for (auto& e : win.exprs) rebind(*e);
    for (auto* joins : {&select_joins, &window_joins})
      for (auto& j : *joins) {
        for (auto& k : j->left_keys) rebind(*k);
        if (j->residual) rebind(*j->residual);
        ForEachDomainPlaceholder(*j, [&](LogicalOp& d) {
          for (auto& g : d.groups) rebind(*g);
        });
      }
    plan = ApplyGroupingSets(std::move(plan), agg, sets, out);
  } else if (aggregating) {
    auto a = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
    a->group_index = agg.group_index;
    a->agg_index = agg.agg_index;
    a->groups = std::move(agg.groups);
    a->aggs = std::move(agg.aggs);
    a->children.push_back(std::move(plan));
    plan = std::move(a);
  }
  if (aggregating) {
    // Over the groups: the select list's subquery joins, then HAVING.
    plan = ApplyJoins(std::move(plan), select_joins);
    if (having) {
      auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
      SplitConjunction(std::move(having), f->filters);
      f->children.push_back(std::move(plan));
      plan = std::move(f);
    }
  }
  plan = ApplyJoins(std::move(plan), select_joins);  // not aggregating: none applied yet
  if (!win.exprs.empty()) {
    plan = ApplyWindow(std::move(plan), win);
    plan = ApplyJoins(std::move(plan), window_joins);
  }
  if (qualify) {
    auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
    SplitConjunction(std::move(qualify), f->filters);
    f->children.push_back(std::move(plan));
    plan = std::move(f);
  }
  std::vector<Type> proj_types;
  for (auto& e : proj->exprs) proj_types.push_back(e->type);
  proj->children.push_back(std::move(plan));
  plan = std::move(proj);
  uint32_t out_index = plan->table_index;

  if (!distinct_on.empty()) plan = ApplyDistinctOn(std::move(plan), distinct_on, proj_types, orders);
  if (stmt.distinct) {  // no hidden ORDER BY columns: they must be in the select list
    plan = MakeDistinct(std::move(plan), names);
    for (auto& o : orders) o.expr->binding.table = plan->group_index;
    out_index = plan->group_index;
  }
  if (!orders.empty()) {
    auto ord = std::make_unique<LogicalOp>(LogicalKind::Order);
    ord->orders = std::move(orders);
    ord->children.push_back(std::move(plan));
    plan = std::move(ord);
  }
  plan = ApplyLimit(std::move(plan), stmt);
  if (proj_types.size() > visible || !distinct_on.empty()) {  // hidden columns, DISTINCT ON's row number
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
