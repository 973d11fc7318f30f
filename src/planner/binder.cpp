// The binder's core: errors, aggregate names, and column references resolved against the
// scopes of the query and of the query around it. The rest of Binder is defined in
// bind_select.cpp (the SELECT node), bind_table_ref.cpp (FROM), bind_expression.cpp
// (expressions, types and coercions) and bind_subquery.cpp (subqueries in expressions).
#include "planner/binder.hpp"

#include <algorithm>

#include "function/function_registry.hpp"
#include "planner/binder_internal.hpp"
#include "storage/column_names.hpp"

namespace tessera {

using ast::ExprKind;

UserError BindError(const std::string& msg, SourcePos pos) {
  return UserError(ErrorKind::Binder, msg, pos);
}

bool IsGroupingName(const std::string& n) { return n == "grouping" || n == "grouping_id"; }
bool IsAggregateName(const std::string& n) { return FindAggregateFunction(n) != nullptr || IsGroupingName(n); }

// sum(x) OVER (...) is no aggregate of the query; its arguments, PARTITION BY and ORDER BY
// may hold some (sum(sum(x)) OVER ()).
bool AstContainsAggregate(const ast::Expr& e) {
  if (e.kind == ExprKind::Function && IsAggregateName(e.name) && !e.over) return true;
  for (auto& c : e.children)
    if (AstContainsAggregate(*c)) return true;
  if (e.over) {
    for (auto& p : e.over->partitions)
      if (AstContainsAggregate(*p)) return true;
    for (auto& o : e.over->orders)
      if (AstContainsAggregate(*o.expr)) return true;
  }
  return false;
}

bool AstContainsWindow(const ast::Expr& e) {
  if (e.over) return true;
  for (auto& c : e.children)
    if (AstContainsWindow(*c)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------
// Column references: scopes. Names match ignoring case (common/identifier.hpp).

void Binder::AddScopeEntry(Scope& scope, ScopeEntry se, SourcePos pos) {
  if (!se.alias.empty())
    for (auto& e : scope.entries)
      if (IdentEquals(e.alias, se.alias))
        throw BindError("table name \"" + se.alias + "\" specified more than once", pos);
  se.names = UniqueColumnNames(std::move(se.names));
  scope.entries.push_back(std::move(se));
}

Binder::ResolvedColumn Binder::ResolveColumn(const ast::Expr& e, const Ctx& ctx) const {
  const Scope* scope = ctx.scope;
  if (!scope) throw BindError("column \"" + e.name + "\" does not exist", e.pos);
  // Not in this query's scope: a correlated reference to an enclosing query's column.
  auto visible = [&](const Scope& s) {
    for (auto& en : s.entries)
      for (size_t i = 0; i < en.names.size(); i++)
        if (IdentEquals(en.names[i], e.name) &&
            (e.table.empty() ? !en.Hidden(i) : IdentEquals(en.alias, e.table)))
          return true;
    return false;
  };
  if (!visible(*scope))
    for (size_t k = outer_scopes_.size(); k-- > 0;) {
      if (!visible(*outer_scopes_[k])) continue;
      scope = outer_scopes_[k];
      break;
    }
  ResolvedColumn r;
  if (!e.table.empty()) {
    for (auto& s : scope->entries)
      if (IdentEquals(s.alias, e.table)) r.entry = &s;
    if (!r.entry) throw BindError("missing FROM-clause entry for table \"" + e.table + "\"", e.pos);
    const int i = IdentFind(r.entry->names, e.name);
    if (i < 0) throw BindError("column \"" + e.table + "." + e.name + "\" does not exist", e.pos);
    r.index = (size_t)i;
    return r;
  }
  for (auto& s : scope->entries) {
    for (size_t i = 0; i < s.names.size(); i++) {
      if (!IdentEquals(s.names[i], e.name) || s.Hidden(i)) continue;
      if (r.entry) throw BindError("column reference \"" + e.name + "\" is ambiguous", e.pos);
      r.entry = &s;
      r.index = i;
      break;  // an entry's names are unique
    }
  }
  if (!r.entry && ctx.aliases && scope == ctx.scope)
    for (auto& [alias, expr] : *ctx.aliases)
      if (IdentEquals(alias, e.name)) {
        r.alias = expr;
        return r;
      }
  if (!r.entry) throw BindError("column \"" + e.name + "\" does not exist", e.pos);
  return r;
}

BoundExprPtr Binder::BindColumn(const ast::Expr& e, const Ctx& ctx) {
  const ResolvedColumn r = ResolveColumn(e, ctx);
  if (r.alias) return r.alias->Copy();
  BoundExprPtr b = e.table.empty() ? r.entry->Unqualified(r.index)
                                   : MakeColumn(r.entry->bindings[r.index], r.entry->types[r.index], "");
  if (b->kind == BExpr::Column) b->name = e.name;
  return b;
}

std::string Binder::ColumnDisplayName(const ast::Expr& e, const Ctx& ctx) const {
  const ResolvedColumn r = ResolveColumn(e, ctx);
  if (r.alias) return e.name;
  return e.table.empty() ? r.entry->UnqualifiedName(r.index) : r.entry->names[r.index];
}

}  // namespace tessera
