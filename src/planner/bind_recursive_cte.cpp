// WITH RECURSIVE name AS (anchor UNION [ALL] recursive): a RecursiveCte node over the
// anchor's plan and the recursive part's, in which `name` is a WorkingTable (the rows the
// last evaluation added). The columns are the anchor's, with its types: the recursive
// part's are cast to them (as DuckDB does). A recursive CTE whose query does not refer to
// itself is an ordinary CTE.
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"

namespace tessera {

LogicalOpPtr Binder::BindWorkingTable(const ast::TableRef& ref, Scope& scope) {
  for (auto it = working_tables_.rbegin(); it != working_tables_.rend(); ++it) {
    if (!IdentEquals(it->cte->name, ref.name)) continue;
    it->references++;
    auto w = std::make_unique<LogicalOp>(LogicalKind::WorkingTable);
    w->table_index = next_index_++;
    w->cte_index = it->cte_index;
    w->column_types = it->types;
    ScopeEntry se;
    se.alias = ref.alias.empty() ? ref.name : ref.alias;
    for (size_t i = 0; i < it->types.size(); i++) {
      se.names.push_back(i < ref.column_aliases.size() ? ref.column_aliases[i] : it->names[i]);
      se.types.push_back(it->types[i]);
      se.bindings.push_back({w->table_index, (uint32_t)i});
    }
    AddScopeEntry(scope, std::move(se), ref.pos);
    return w;
  }
  return nullptr;
}

LogicalOpPtr Binder::BindRecursiveCte(const ast::CommonTableExpr& cte, const ast::TableRef& ref, Scope& scope) {
  const ast::SelectStmt& q = *cte.query;
  const bool set_union = q.set_op == ast::SetOpKind::Union || q.set_op == ast::SetOpKind::UnionAll;
  if (!set_union) return nullptr;  // bound as an ordinary CTE (a reference to itself fails there)
  if (!q.order_by.empty() || q.order_by_all || q.limit || q.limit_percent || q.offset)
    throw UserError(ErrorKind::Unsupported, "ORDER BY, LIMIT or OFFSET in a recursive CTE is not supported", cte.pos);
  // Bound apart from the query around the reference (as a derived table is).
  auto saved_outer = std::move(outer_scopes_);
  outer_scopes_.clear();
  struct Restore {
    Binder& b;
    std::vector<const Scope*>& saved;
    size_t depth;
    ~Restore() {
      b.outer_scopes_ = std::move(saved);
      b.working_tables_.resize(depth);
    }
  } restore{*this, saved_outer, working_tables_.size()};
  ctes_.emplace_back();  // the CTE query's own WITH
  struct CtePop {
    std::vector<CteMap>& v;
    ~CtePop() { v.pop_back(); }
  } pop{ctes_};
  for (auto& c : q.ctes) ctes_.back()[c.name] = &c;

  for (const ast::CommonTableExpr* c : recursive_binding_)
    if (c == &cte) throw BindError("circular reference to CTE \"" + cte.name + "\" in its non-recursive part", ref.pos);
  recursive_binding_.push_back(&cte);
  BoundQuery anchor;
  try {
    anchor = BindSelect(*q.set_left);
  } catch (...) {
    recursive_binding_.pop_back();
    throw;
  }
  recursive_binding_.pop_back();
  for (size_t i = 0; i < anchor.types.size(); i++)
    if (anchor.types[i].id == TypeId::Null)
      throw UserError(ErrorKind::Unsupported,
                      "column " + std::to_string(i + 1) + " of recursive CTE \"" + cte.name +
                          "\" is an untyped NULL in its non-recursive part (cast it to a type)",
                      cte.pos);
  WorkingTable w;
  w.cte = &cte;
  w.cte_index = next_index_++;
  w.types = anchor.types;
  for (size_t i = 0; i < anchor.names.size(); i++)
    w.names.push_back(i < cte.column_aliases.size() ? cte.column_aliases[i] : anchor.names[i]);
  if (cte.column_aliases.size() > anchor.names.size())
    throw BindError("table \"" + cte.name + "\" has " + std::to_string(anchor.names.size()) +
                        " columns available but " + std::to_string(cte.column_aliases.size()) + " columns specified",
                    cte.pos);
  working_tables_.push_back(w);
  BoundQuery rec = BindSelect(*q.set_right);
  const bool refers = working_tables_.back().references > 0;
  working_tables_.pop_back();
  if (!refers) return nullptr;
  if (rec.types.size() != anchor.types.size())
    throw BindError("set operations can only apply to queries with the same number of result columns (" +
                        std::to_string(anchor.types.size()) + " and " + std::to_string(rec.types.size()) + ")",
                    q.set_pos);
  auto node = std::make_unique<LogicalOp>(LogicalKind::RecursiveCte);
  node->table_index = w.cte_index;
  node->distinct_rows = q.set_op == ast::SetOpKind::Union;
  std::vector<Type> types = anchor.types;
  node->children.push_back(std::move(anchor.plan));
  node->children.push_back(CastColumns(std::move(rec), types, next_index_++));

  ScopeEntry se;
  se.alias = ref.alias.empty() ? ref.name : ref.alias;
  for (size_t i = 0; i < types.size(); i++) {
    se.names.push_back(i < ref.column_aliases.size() ? ref.column_aliases[i] : w.names[i]);
    se.types.push_back(types[i]);
    se.bindings.push_back({node->table_index, (uint32_t)i});
  }
  AddScopeEntry(scope, std::move(se), ref.pos);
  return node;
}

}  // namespace tessera
