// The binder's core: errors, aggregate names, and column references resolved against the
// scopes of the query and of the query around it. The rest of Binder is defined in
// bind_select.cpp (the SELECT node), bind_table_ref.cpp (FROM), bind_expression.cpp
// (expressions, types and coercions) and bind_subquery.cpp (subqueries in expressions).
#include "planner/binder.hpp"

#include <algorithm>

#include "function/function_registry.hpp"
#include "planner/binder_internal.hpp"

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
// Column references: scopes

BoundExprPtr Binder::BindColumn(const ast::Expr& e, const Ctx& ctx) {
  const Scope* scope = ctx.scope;
  if (!scope) throw BindError("column \"" + e.name + "\" does not exist", e.pos);
  // Not in this query's scope: a correlated reference to an enclosing query's column.
  auto visible = [&](const Scope& s) {
    for (auto& en : s.entries)
      for (size_t i = 0; i < en.names.size(); i++)
        if (en.names[i] == e.name && (e.table.empty() ? !en.Hidden(i) : en.alias == e.table)) return true;
    return false;
  };
  if (!visible(*scope))
    for (size_t k = outer_scopes_.size(); k-- > 0;) {
      if (!visible(*outer_scopes_[k])) continue;
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
      for (size_t i = 0; i < s.names.size(); i++) {
        if (s.names[i] != e.name || s.Hidden(i)) continue;
        if (found) throw BindError("column reference \"" + e.name + "\" is ambiguous", e.pos);
        found = &s;
        idx = i;
        break;  // the first of an entry's columns of that name
      }
    }
    if (!found && ctx.aliases && scope == ctx.scope)
      for (auto& [alias, expr] : *ctx.aliases)
        if (alias == e.name) return expr->Copy();
    if (!found) throw BindError("column \"" + e.name + "\" does not exist", e.pos);
    return found->Unqualified(idx);
  }
  return MakeColumn(found->bindings[idx], found->types[idx], e.name);
}

}  // namespace tessera
