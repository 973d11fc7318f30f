// FROM: base tables, CTE references and views, subqueries, joins.
#include <algorithm>

#include "parser/parser.hpp"
#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "planner/decorrelate.hpp"

namespace tessera {

using ast::Op;

// ---------------------------------------------------------------------------------------
// FROM

// A FROM item's column list (t(a, b, ...)) may rename fewer columns than it has, not more.
static void CheckAliasCount(const std::string& name, size_t columns, size_t aliases, SourcePos pos) {
  if (aliases > columns)
    throw BindError("table \"" + name + "\" has " + std::to_string(columns) + " columns available but " +
                        std::to_string(aliases) + " columns specified",
                    pos);
}

LogicalOpPtr Binder::BindBaseTable(const ast::TableRef& ref, Scope& scope) {
  if (IdentEquals(ref.schema, "information_schema")) return BindSystemTable(ref, scope);
  // `temp.name`: only the connection's temporary objects; `main.name` searches them first
  // too, as DuckDB's search path does.
  const bool temp_only = IdentEquals(ref.schema, "temp");
  if (!ref.schema.empty() && !IdentEquals(ref.schema, "main") && !temp_only)
    throw UserError(ErrorKind::Catalog, "schema \"" + ref.schema + "\" does not exist", ref.pos);
  // A CTE of an enclosing WITH shadows catalog tables (not main.name).
  if (ref.schema.empty())
    if (auto w = BindWorkingTable(ref, scope)) return w;
  for (auto it = ctes_.rbegin(); ref.schema.empty() && it != ctes_.rend(); ++it) {
    auto f = it->find(ref.name);
    if (f != it->end()) {
      const ast::CommonTableExpr* cte = f->second;
      if (cte->recursive)
        if (auto r = BindRecursiveCte(*cte, ref, scope)) return r;
      auto aliases = ref.column_aliases.empty() ? cte->column_aliases : ref.column_aliases;
      return BindSubqueryRef(*cte->query, ref.alias.empty() ? ref.name : ref.alias, aliases,
                             ref.pos, scope, !ref.column_aliases.empty());
    }
  }
  std::shared_ptr<const TableEntry> entry;
  if (overrides_ && ref.schema.empty()) {
    auto o = overrides_->find(ref.name);
    if (o != overrides_->end()) entry = o->second;
  }
  if (!entry) entry = temp_only ? catalog_.GetTempEntry(ref.name) : catalog_.GetEntry(ref.name);
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
      return BindSubqueryRef(q, ref.alias.empty() ? ref.name : ref.alias, aliases, ref.pos, scope,
                             !ref.column_aliases.empty());
    } catch (const UserError& e) {
      // Positions inside the view's text would mislead: point at the outermost reference.
      if (view_depth_ > 1) throw;
      throw UserError(e.kind(), "in view \"" + ref.name + "\": " + e.raw(), ref.pos);
    }
  }
  return BindTableEntry(std::move(entry), ref, scope);
}

LogicalOpPtr Binder::BindTableEntry(std::shared_ptr<const TableEntry> entry, const ast::TableRef& ref,
                                    Scope& scope, const std::string* name) {
  const std::string& table_name = name ? *name : ref.name;
  CheckAliasCount(table_name, entry->schema.columns.size(), ref.column_aliases.size(), ref.pos);
  auto get = std::make_unique<LogicalOp>(LogicalKind::Get);
  get->table = entry;
  get->table_index = next_index_++;
  get->alias = ref.alias.empty() ? table_name : ref.alias;
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
  AddScopeEntry(scope, std::move(se), ref.pos);
  get->estimated_rows = (double)entry->data->row_count;
  return get;
}

LogicalOpPtr Binder::BindSubqueryRef(const ast::SelectStmt& q, const std::string& alias,
                                     const std::vector<std::string>& col_aliases, SourcePos pos,
                                     Scope& scope, bool check_aliases, bool derived) {
  // A derived table does not see the FROM items beside it (no LATERAL), but does see the
  // queries around its query when that is a subquery (correlation); a CTE's or view's
  // query sees neither.
  auto saved = outer_scopes_;
  if (!derived) outer_scopes_.clear();
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
  if (check_aliases) CheckAliasCount(alias, child_b.size(), col_aliases.size(), pos);
  ScopeEntry se;
  se.alias = alias;
  for (size_t i = 0; i < child_b.size(); i++) {
    proj->exprs.push_back(MakeColumn(child_b[i], child_t[i], bq.names[i]));
    se.names.push_back(i < col_aliases.size() ? col_aliases[i] : bq.names[i]);
    se.types.push_back(child_t[i]);
    se.bindings.push_back({proj->table_index, (uint32_t)i});
  }
  AddScopeEntry(scope, std::move(se), pos);
  proj->children.push_back(std::move(bq.plan));
  return proj;
}

LogicalOpPtr CrossJoin(LogicalOpPtr l, LogicalOpPtr r) {
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

BoundExprPtr Binder::BindUsing(const ast::TableRef& ref, Scope& scope, size_t left_begin, size_t right_begin) {
  auto& en = scope.entries;
  // The entry and column an unqualified name means on one side; {end, 0} when none.
  auto find = [&](size_t begin, size_t end, const std::string& name, const char* side) {
    std::pair<size_t, size_t> at{end, 0};
    for (size_t e = begin; e < end; e++)
      for (size_t i = 0; i < en[e].names.size(); i++) {
        if (!IdentEquals(en[e].names[i], name) || en[e].Hidden(i)) continue;
        if (at.first != end)
          throw BindError("column \"" + name + "\" is ambiguous on the " + side + " side of the join", ref.pos);
        at = {e, i};
        break;
      }
    return at;
  };
  std::vector<std::string> names;
  if (ref.natural) {
    for (size_t e = left_begin; e < right_begin; e++)
      for (size_t i = 0; i < en[e].names.size(); i++) {
        const std::string& n = en[e].names[i];
        if (en[e].Hidden(i) || IdentFind(names, n) >= 0) continue;
        if (find(right_begin, en.size(), n, "right").first != en.size()) names.push_back(n);
      }
    if (names.empty())
      throw BindError("no columns found to join on in NATURAL JOIN (use CROSS JOIN for a cross product)", ref.pos);
  } else {
    for (const std::string& n : ref.using_columns)
      if (IdentFind(names, n) < 0) names.push_back(n);
  }
  std::vector<BoundExprPtr> terms;
  for (const std::string& n : names) {
    auto [le, li] = find(left_begin, right_begin, n, "left");
    if (le == right_begin) throw BindError("column \"" + n + "\" does not exist on the left side of the join", ref.pos);
    auto [re, ri] = find(right_begin, en.size(), n, "right");
    if (re == en.size()) throw BindError("column \"" + n + "\" does not exist on the right side of the join", ref.pos);
    BoundExprPtr l = en[le].Unqualified(li), r = en[re].Unqualified(ri);
    // The column the name stands for from now on: the left side's (INNER, LEFT), the right
    // side's (RIGHT) or the first of the two that is not NULL (FULL).
    BoundExprPtr merged;
    if (ref.join_type == ast::JoinType::Right) {
      merged = r->Copy();
    } else if (ref.join_type == ast::JoinType::Full) {
      std::vector<BoundExprPtr> args;
      args.push_back(l->Copy());
      args.push_back(r->Copy());
      merged = MakeScalarCall("coalesce", std::move(args), ref.pos);
    }
    terms.push_back(MakeEquality(std::move(l), std::move(r), ref.pos));
    if (merged) {
      en[le].merged.resize(en[le].names.size());
      en[le].merged[li] = std::shared_ptr<const BoundExpr>(std::move(merged));
    }
    en[re].hidden.resize(en[re].names.size(), 0);
    en[re].hidden[ri] = 1;
  }
  return MakeAnd(std::move(terms));
}

LogicalOpPtr Binder::BindFrom(const ast::TableRef& ref, Scope& scope) {
  if (ref.sample && !ref.lateral) return ApplySample(BindFromItem(ref, scope), *ref.sample);  // TABLESAMPLE
  return BindFromItem(ref, scope);
}

LogicalOpPtr Binder::BindFromItem(const ast::TableRef& ref, Scope& scope) {
  switch (ref.kind) {
    case ast::TableRefKind::Base: return BindBaseTable(ref, scope);
    case ast::TableRefKind::Describe:
    case ast::TableRefKind::ShowTables: return BindSystemTable(ref, scope);
    case ast::TableRefKind::TableFunction: return BindTableFunction(ref, scope);
    case ast::TableRefKind::Summarize: return BindSummarize(ref, scope);
    case ast::TableRefKind::Pivot: return BindPivot(ref, scope);
    case ast::TableRefKind::Subquery:
      if (ref.lateral) return BindLateral(ref, scope);
      return BindSubqueryRef(*ref.subquery, ref.alias, ref.column_aliases, ref.pos, scope, true, true);
    case ast::TableRefKind::Join: {
      const size_t left_begin = scope.entries.size();
      auto left = BindFrom(*ref.left, scope);
      const size_t right_begin = scope.entries.size();
      auto right = BindFrom(*ref.right, scope);
      if (ref.asof) return BindAsOfJoin(ref, std::move(left), std::move(right), scope, left_begin, right_begin);
      // Subqueries in an inner join's ON: bound as WHERE's over the cross product (outer
      // joins' ON takes none yet).
      if (ref.join_type == ast::JoinType::Inner && ref.on && !ref.natural && ref.using_columns.empty() &&
          !IsPendingJoin(*right) && AstContainsSubquery(*ref.on))
        return BindWhere(*ref.on, CrossJoin(std::move(left), std::move(right)), scope);
      BoundExprPtr cond;
      if (ref.natural || !ref.using_columns.empty()) {
        cond = BindUsing(ref, scope, left_begin, right_begin);
      } else if (ref.join_type != ast::JoinType::Cross && ref.on) {
        Ctx ctx;
        ctx.scope = &scope;
        ctx.clause = "JOIN conditions";
        cond = ToBoolean(Bind(*ref.on, ctx), ref.on->pos, "JOIN condition");
      }
      if (IsPendingJoin(*right)) {  // a LATERAL subquery: its join completed with the left side
        if (ref.join_type != ast::JoinType::Inner && ref.join_type != ast::JoinType::Cross &&
            ref.join_type != ast::JoinType::Left)
          throw UserError(ErrorKind::Unsupported, "RIGHT and FULL joins with a LATERAL subquery are not supported",
                          ref.pos);
        {  // its general decorrelation's domain comes from the left side alone
          const std::vector<ColumnBinding> have = left->Bindings();
          ForEachDomainPlaceholder(*right, [&](LogicalOp& d) {
            for (auto& g : d.groups)
              if (std::find(have.begin(), have.end(), g->binding) == have.end())
                throw UserError(ErrorKind::Unsupported,
                                "a LATERAL subquery in a JOIN referring to a FROM item before the join's left side "
                                "outside its WHERE clause is not supported yet",
                                ref.pos);
          });
        }
        right = AttachLeft(std::move(right), std::move(left), ref.pos);
        if (ref.join_type == ast::JoinType::Left) {
          right->join_type = LJoinType::Left;
          if (cond) {
            std::vector<BoundExprPtr> terms;
            if (right->residual) terms.push_back(std::move(right->residual));
            terms.push_back(std::move(cond));
            right->residual = MakeAnd(std::move(terms));
          }
          return right;
        }
        if (!cond) return right;
        auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
        SplitConjunction(std::move(cond), f->filters);
        f->children.push_back(std::move(right));
        return f;
      }
      if (!cond) return CrossJoin(std::move(left), std::move(right));
      if (ref.join_type == ast::JoinType::Inner || ref.join_type == ast::JoinType::Cross) {
        auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
        SplitConjunction(std::move(cond), f->filters);
        f->children.push_back(CrossJoin(std::move(left), std::move(right)));
        return f;
      }
      // RIGHT is LEFT with the sides swapped (the output's column order is the scope's).
      if (ref.join_type == ast::JoinType::Right) std::swap(left, right);
      auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
      j->join_type = ref.join_type == ast::JoinType::Full ? LJoinType::Full : LJoinType::Left;
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

}  // namespace tessera
