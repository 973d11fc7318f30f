// Subqueries in expressions: EXISTS, IN (SELECT ...) and scalar subqueries, correlated or
// not, are decorrelated into joins while binding; nothing is re-executed per row.
//
//  1. The subquery is bound with the enclosing query's scope visible (BindColumn), so a
//     correlated predicate such as `l_partkey = p_partkey` refers to outer bindings.
//  2. PullUp moves the predicates that mention outer columns to the top of the subquery's
//     plan: out of filters, through projections (which then also output the inner
//     columns those predicates need), through an aggregate (an equality `inner = outer`
//     makes `inner` a grouping key: one group per outer value), joins and ORDER BY.
//  3. The pulled predicates become the keys (equalities) and residual of a join between
//     the enclosing query (probe side) and the subquery (build side):
//       - a top-level WHERE conjunct [NOT] EXISTS / IN: semi or anti join;
//       - NOT IN and [NOT] EXISTS / IN elsewhere: a mark join, whose BOOLEAN column is
//         the predicate's value (null-aware for IN);
//       - a scalar subquery: a left join that allows one match per row; an aggregate the
//         pull-up grouped yields, for an outer row without a group, the aggregate's value
//         on empty input (COUNT 0, others NULL).
//  4. Where the pull-up does not apply (it throws Unsupported, leaves references behind,
//     or its result does not fit the use: a correlated IN outside a WHERE conjunct, a
//     grouped aggregate under HAVING/ORDER BY/LIMIT, a LATERAL aggregate), the subquery as
//     bound takes the general decorrelation (decorrelate.hpp): evaluated once per distinct
//     value of the outer columns it uses and joined back on them with NULLs equal.
//  References to queries further out stay free in the subquery's plan; the enclosing
//  subquery's own decorrelation then handles them (its plan refers to them).
#include <algorithm>
#include <functional>

#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "planner/decorrelate.hpp"
#include "function/function_registry.hpp"

namespace tessera {

using ast::ExprKind;

namespace {

using Bindings = std::vector<ColumnBinding>;

bool Refers(const BoundExpr& e, const Bindings& set) {
  std::vector<ColumnBinding> used;
  e.CollectBindings(used);
  for (auto& b : used)
    if (std::find(set.begin(), set.end(), b) != set.end()) return true;
  return false;
}

// Every column of `e` is in `set` (and there is at least one).
bool OnlyRefers(const BoundExpr& e, const Bindings& set) {
  std::vector<ColumnBinding> used;
  e.CollectBindings(used);
  if (used.empty()) return false;
  for (auto& b : used)
    if (std::find(set.begin(), set.end(), b) == set.end()) return false;
  return true;
}

void Rebind(BoundExpr& e, ColumnBinding from, ColumnBinding to) {
  if (e.kind == BExpr::Column && e.binding == from) e.binding = to;
  for (auto& c : e.children) Rebind(*c, from, to);
}

// The expression with every column reference equal to `col` replaced by `with`.
BoundExprPtr Substitute(const BoundExpr& e, ColumnBinding col, const BoundExpr& with) {
  if (e.kind == BExpr::Column && e.binding == col) return with.Copy();
  auto r = e.Copy();
  for (auto& c : r->children) c = Substitute(*c, col, with);
  return r;
}

bool ZeroOnEmpty(const BoundExpr& agg) { return agg.agg_fn && agg.agg_fn->zero_on_empty; }

// Moves the predicates of `op`'s subtree that refer to `outer` into `preds`, rewritten
// over `op`'s output bindings (see the file comment). `grouped` receives the ungrouped
// aggregate that became grouped.
void PullUp(LogicalOpPtr& op, const Bindings& outer, std::vector<BoundExprPtr>& preds,
            LogicalOp*& grouped, SourcePos pos) {
  switch (op->kind) {
    case LogicalKind::Filter: {
      PullUp(op->children[0], outer, preds, grouped, pos);
      std::vector<BoundExprPtr> keep;
      for (auto& f : op->filters) (Refers(*f, outer) ? preds : keep).push_back(std::move(f));
      op->filters = std::move(keep);
      if (op->filters.empty()) op = std::move(op->children[0]);
      return;
    }
    case LogicalKind::Projection: {
      PullUp(op->children[0], outer, preds, grouped, pos);
      for (auto& p : preds) {
        std::vector<ColumnBinding> used;
        p->CollectBindings(used);
        std::sort(used.begin(), used.end());
        used.erase(std::unique(used.begin(), used.end()), used.end());
        for (auto& b : used) {
          if (std::find(outer.begin(), outer.end(), b) != outer.end()) continue;
          if (b.table == op->table_index) continue;  // already rewritten
          uint32_t idx = (uint32_t)op->exprs.size();
          for (uint32_t i = 0; i < op->exprs.size(); i++)
            if (op->exprs[i]->kind == BExpr::Column && op->exprs[i]->binding == b) idx = i;
          if (idx == op->exprs.size()) {
            Type t;
            std::function<bool(const BoundExpr&)> find = [&](const BoundExpr& e) {
              if (e.kind == BExpr::Column && e.binding == b) { t = e.type; return true; }
              for (auto& c : e.children)
                if (find(*c)) return true;
              return false;
            };
            find(*p);
            op->exprs.push_back(MakeColumn(b, t, "#corr"));
          }
          Rebind(*p, b, {op->table_index, idx});
        }
      }
      return;
    }
    case LogicalKind::Aggregate: {
      PullUp(op->children[0], outer, preds, grouped, pos);
      bool was_ungrouped = op->groups.empty();
      for (auto& p : preds) {
        bool ok = p->kind == BExpr::Compare && p->op == ast::Op::Eq;
        int inner_side = -1;
        if (ok) {
          if (OnlyRefers(*p->children[0], outer) && !Refers(*p->children[1], outer)) inner_side = 1;
          else if (OnlyRefers(*p->children[1], outer) && !Refers(*p->children[0], outer)) inner_side = 0;
        }
        if (inner_side < 0 || p->children[inner_side]->IsConstant())
          throw UnsupportedYet("a correlated predicate other than inner = outer under an aggregate (\"" +
                                p->ToString() + "\")", pos);
        BoundExprPtr& inner = p->children[inner_side];
        uint32_t g = (uint32_t)op->groups.size();
        for (uint32_t i = 0; i < op->groups.size(); i++)
          if (op->groups[i]->Equals(*inner)) g = i;
        Type t = inner->type;
        if (g == op->groups.size()) op->groups.push_back(std::move(inner));
        inner = MakeColumn({op->group_index, g}, t, "#corr");
      }
      if (was_ungrouped && !preds.empty()) grouped = op.get();
      return;
    }
    case LogicalKind::Order: PullUp(op->children[0], outer, preds, grouped, pos); return;
    case LogicalKind::Join:
      if (op->join_type == LJoinType::Inner || op->join_type == LJoinType::Cross) {
        if ((op->residual && Refers(*op->residual, outer)))
          throw UnsupportedYet("a correlated reference in a JOIN condition", pos);
        PullUp(op->children[0], outer, preds, grouped, pos);
        PullUp(op->children[1], outer, preds, grouped, pos);
        return;
      }
      // Filters on the preserved (left) side commute with the join.
      if (op->join_type == LJoinType::AsOfRight || op->join_type == LJoinType::AsOfFull) {
        if (SubtreeRefers(*op, outer)) throw UnsupportedYet("a correlated reference inside an ASOF RIGHT or FULL join", pos);
        return;
      }
      if (SubtreeRefers(*op->children[1], outer) || (op->residual && Refers(*op->residual, outer)))
        throw UnsupportedYet("a correlated reference inside an outer join or a nested subquery's join", pos);
      for (auto& k : op->left_keys)
        if (Refers(*k, outer)) throw UnsupportedYet("this correlated reference", pos);
      PullUp(op->children[0], outer, preds, grouped, pos);
      return;
    case LogicalKind::Limit:
      if (SubtreeRefers(*op, outer)) throw UnsupportedYet("LIMIT or OFFSET in a correlated subquery", pos);
      return;
    case LogicalKind::UnionAll:
      if (SubtreeRefers(*op, outer)) throw UnsupportedYet("a correlated reference inside UNION", pos);
      return;
    case LogicalKind::Window:  // a predicate pulled above it would change its partitions
      if (SubtreeRefers(*op, outer)) throw UnsupportedYet("a correlated reference under a window function", pos);
      return;
    case LogicalKind::Get:
    case LogicalKind::Dummy:
    case LogicalKind::Values:
    case LogicalKind::RecursiveCte:
    case LogicalKind::WorkingTable:
    case LogicalKind::Materialized:  // (made after binding; listed for completeness)
    case LogicalKind::SharedScan:
      if (SubtreeRefers(*op, outer)) throw UnsupportedYet("this correlated reference", pos);
      return;
  }
}

LogicalOpPtr MakeJoin(LJoinType type, LogicalOpPtr right) {
  auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
  j->join_type = type;
  j->children.push_back(std::move(right));
  return j;
}

LogicalOpPtr LimitOne(LogicalOpPtr plan) {
  auto l = std::make_unique<LogicalOp>(LogicalKind::Limit);
  l->limit = 1;
  l->children.push_back(std::move(plan));
  return l;
}

BoundExprPtr Not(BoundExprPtr e) {
  auto n = std::make_unique<BoundExpr>(BExpr::Not, Type::Boolean());
  n->children.push_back(std::move(e));
  return n;
}

}  // namespace

bool AstContainsSubquery(const ast::Expr& e) {
  if (e.kind == ExprKind::InSubquery || e.kind == ExprKind::Exists || e.kind == ExprKind::Subquery)
    return true;
  for (auto& c : e.children)
    if (AstContainsSubquery(*c)) return true;
  return false;
}

LogicalOpPtr ApplyJoins(LogicalOpPtr plan, std::vector<LogicalOpPtr>& joins) {
  for (auto& j : joins) plan = AttachLeft(std::move(j), std::move(plan));
  joins.clear();
  return plan;
}

Binder::SubqueryPlan Binder::BindSubqueryPlan(const ast::Expr& e, const Ctx& ctx) {
  if (!ctx.joins)
    throw UserError(ErrorKind::Unsupported,
                    std::string("subqueries are not supported in ") + ctx.clause + " yet", e.pos);
  outer_scopes_.push_back(ctx.scope);
  BoundQuery bq;
  try {
    bq = BindSelect(*e.subquery);
  } catch (...) {
    outer_scopes_.pop_back();
    throw;
  }
  outer_scopes_.pop_back();
  Bindings all_out;  // every enclosing query's columns
  for (const Scope* s : outer_scopes_)
    if (s)
      for (auto& en : s->entries) all_out.insert(all_out.end(), en.bindings.begin(), en.bindings.end());
  if (ctx.scope)
    for (auto& en : ctx.scope->entries) all_out.insert(all_out.end(), en.bindings.begin(), en.bindings.end());
  SubqueryPlan sp;
  sp.refers_out = !OuterColumnsUsed(*bq.plan, all_out).empty();
  sp.outer = SubqueryOuterColumns(*bq.plan, ctx, e.pos);
  sp.types = std::move(bq.types);
  if (OuterColumnsUsed(*bq.plan, sp.outer).empty()) {  // not correlated to this query
    sp.plan = std::move(bq.plan);
    return sp;
  }
  // The pull-up (the plain joins) where it applies; the general decorrelation elsewhere.
  sp.plan = bq.plan->Copy();
  try {
    PullUp(sp.plan, sp.outer, sp.correlated, sp.grouped_agg, e.pos);
    if (SubtreeRefers(*sp.plan, sp.outer)) throw UnsupportedYet("this correlated reference", e.pos);
  } catch (const UserError& err) {
    if (err.kind() != ErrorKind::Unsupported) throw;
    sp.plan = nullptr;
    sp.correlated.clear();
    sp.grouped_agg = nullptr;
  }
  sp.original = std::move(bq.plan);
  if (!sp.plan) MakeGeneral(sp, e.pos);
  return sp;
}

void Binder::MakeGeneral(SubqueryPlan& sp, SourcePos pos) {
  if (sp.general) return;
  DependentPlan dp = PushDomain(std::move(sp.original), sp.outer, next_index_, pos);
  sp.plan = std::move(dp.plan);
  sp.outer = std::move(dp.outer);
  sp.domain = std::move(dp.domain);
  sp.domain_types = std::move(dp.types);
  sp.correlated.clear();
  sp.grouped_agg = nullptr;
  sp.general = true;
}

std::vector<ColumnBinding> Binder::SubqueryOuterColumns(LogicalOp& plan, const Ctx& ctx, SourcePos pos) {
  Bindings outer;
  if (ctx.scope)
    for (auto& en : ctx.scope->entries) outer.insert(outer.end(), en.bindings.begin(), en.bindings.end());
  if (!ctx.agg) return outer;
  const AggState& agg = *ctx.agg;
  Bindings groups;
  for (uint32_t g = 0; g < agg.groups.size(); g++) groups.push_back({agg.group_index, g});
  std::vector<Type> types;
  Bindings used = OuterColumnsUsed(plan, outer, &types);
  if (used.empty()) return groups;
  std::function<void(BoundExprPtr&)> rebind = [&](BoundExprPtr& e) {
    if (e->kind == BExpr::Column && std::find(used.begin(), used.end(), e->binding) != used.end()) {
      for (uint32_t g = 0; g < agg.groups.size(); g++)
        if (agg.groups[g]->kind == BExpr::Column && agg.groups[g]->binding == e->binding) {
          e = MakeColumn({agg.group_index, g}, agg.groups[g]->type, e->name);
          return;
        }
      throw BindError("column \"" + e->name + "\" must appear in the GROUP BY clause or be used in an aggregate function",
                      pos);
    }
    for (auto& c : e->children) rebind(c);
  };
  std::function<void(LogicalOp&)> walk = [&](LogicalOp& op) {
    ForEachOwnExpr(op, rebind);
    for (auto& c : op.children) walk(*c);
  };
  walk(plan);
  return groups;
}

// The general plan's join back to the enclosing query: on its columns = the domain's,
// NULLs equal.
static void AddDomainKeys(LogicalOp& join, const Bindings& outer, const Bindings& domain,
                          const std::vector<Type>& types) {
  for (size_t i = 0; i < outer.size(); i++) {
    join.left_keys.push_back(MakeColumn(outer[i], types[i], "#outer"));
    join.right_keys.push_back(MakeColumn(domain[i], types[i], "#domain"));
  }
  join.nulls_equal = true;
}

// Turns the pulled-up predicates into join keys (outer expression = inner expression)
// and a residual condition.
static void MakeJoinCondition(LogicalOp& join, std::vector<BoundExprPtr> preds, const Bindings& right) {
  std::vector<BoundExprPtr> residual;
  for (auto& p : preds) {
    if (p->kind == BExpr::Compare && p->op == ast::Op::Eq) {
      auto& a = p->children[0];
      auto& b = p->children[1];
      if (OnlyRefers(*b, right) && !Refers(*a, right) && !a->IsConstant()) {
        join.left_keys.push_back(std::move(a));
        join.right_keys.push_back(std::move(b));
        continue;
      }
      if (OnlyRefers(*a, right) && !Refers(*b, right) && !b->IsConstant()) {
        join.left_keys.push_back(std::move(b));
        join.right_keys.push_back(std::move(a));
        continue;
      }
    }
    residual.push_back(std::move(p));
  }
  if (!residual.empty()) join.residual = MakeAnd(std::move(residual));
}

// x and the subquery's first column, cast to the type they are compared in.
static std::pair<BoundExprPtr, BoundExprPtr> InOperands(BoundExprPtr x, const std::vector<Type>& types,
                                                        ColumnBinding col, SourcePos pos) {
  if (types.size() != 1)
    throw UserError(ErrorKind::Binder, "subquery returns " + std::to_string(types.size()) +
                                           " columns; IN (SELECT ...) needs exactly one", pos);
  auto c = MakeColumn(col, types[0], "#in");
  BoundExprPtr l = std::move(x), r = std::move(c);
  if (l->type != r->type) {
    if (!(l->type.IsNumeric() && r->type.IsNumeric()) && l->type.id != TypeId::Null &&
        r->type.id != TypeId::Null)
      throw UserError(ErrorKind::Type, "cannot compare values of type " + l->type.ToString() + " and " +
                                           r->type.ToString() + " in IN (SELECT ...)", pos);
    Type t = l->type.id == TypeId::Null ? r->type : r->type.id == TypeId::Null ? l->type
                                                                               : Binder::CommonType(l->type, r->type, pos);
    l = MakeCast(std::move(l), t);
    r = MakeCast(std::move(r), t);
  }
  return {std::move(l), std::move(r)};
}

// x = (first column of the subquery), types unified.
static void AddInKey(LogicalOp& join, BoundExprPtr x, const std::vector<Type>& types, ColumnBinding col,
                     SourcePos pos) {
  auto [l, r] = InOperands(std::move(x), types, col, pos);
  join.left_keys.push_back(std::move(l));
  join.right_keys.push_back(std::move(r));
}

bool Binder::BindSubqueryConjunct(const ast::Expr& e, Ctx& ctx, std::vector<BoundExprPtr>& late) {
  if (e.kind != ExprKind::Exists && e.kind != ExprKind::InSubquery) return false;
  if (e.kind == ExprKind::InSubquery && e.negated) {
    // NOT IN: a null-aware mark join (NULLs make the predicate unknown, not true).
    late.push_back(ToBoolean(Bind(e, ctx), e.pos, "argument of WHERE"));
    return true;
  }
  BoundExprPtr x;
  if (e.kind == ExprKind::InSubquery) x = Bind(*e.children[0], ctx);
  SubqueryPlan sp = BindSubqueryPlan(e, ctx);
  if (e.kind == ExprKind::Exists && !sp.refers_out) sp.plan = LimitOne(std::move(sp.plan));
  auto right = sp.plan->Bindings();
  auto j = MakeJoin(e.negated ? LJoinType::Anti : LJoinType::Semi, std::move(sp.plan));
  if (sp.general) {
    // The domain's columns are the keys; x = y (NULL: no match) a residual.
    AddDomainKeys(*j, sp.outer, sp.domain, sp.domain_types);
    if (x) {
      auto [l, r] = InOperands(std::move(x), sp.types, right[0], e.pos);
      j->residual = MakeCompare(ast::Op::Eq, std::move(l), std::move(r));
    }
  } else {
    MakeJoinCondition(*j, std::move(sp.correlated), right);
    if (x) AddInKey(*j, std::move(x), sp.types, right[0], e.pos);
  }
  ctx.joins->push_back(std::move(j));
  return true;
}

// A mark join of the general plan `plan` (bindings `right`) with the residual `residual`;
// its mark column.
static BoundExprPtr GeneralMark(LogicalOpPtr plan, const Bindings& outer, const Bindings& domain,
                                const std::vector<Type>& types, BoundExprPtr residual,
                                uint32_t table_index, std::vector<LogicalOpPtr>& joins, const char* name) {
  auto j = MakeJoin(LJoinType::Mark, std::move(plan));
  j->table_index = table_index;
  if (!outer.empty()) AddDomainKeys(*j, outer, domain, types);
  j->residual = std::move(residual);
  joins.push_back(std::move(j));
  return MakeColumn({table_index, 0}, Type::Boolean(), name);
}

BoundExprPtr Binder::BindSubqueryExpr(const ast::Expr& e, Ctx& ctx) {
  BoundExprPtr x;
  if (e.kind == ExprKind::InSubquery) x = Bind(*e.children[0], ctx);
  SubqueryPlan sp = BindSubqueryPlan(e, ctx);
  bool correlated = !sp.correlated.empty() || sp.general;
  if (e.kind == ExprKind::InSubquery && (correlated || sp.refers_out)) {
    // x IN S per outer row, with SQL's NULLs: TRUE when a row of S equals x, else NULL
    // when some comparison is NULL, else FALSE (also over no rows). Two mark joins of the
    // general plan: "x = y for some row" and "x = y is not FALSE for some row". (Also for
    // an S that refers only to queries further out, so that their decorrelation can
    // evaluate it per value of theirs, which a null-aware join's NULL rule cannot be.)
    if (correlated) MakeGeneral(sp, e.pos);
    else sp.outer.clear();
    auto right = sp.plan->Bindings();
    auto copy = sp.plan->Copy();
    auto [l, r] = InOperands(std::move(x), sp.types, right[0], e.pos);
    auto eq = MakeCompare(ast::Op::Eq, l->Copy(), r->Copy());
    auto eq_null = std::make_unique<BoundExpr>(BExpr::IsNull, Type::Boolean());
    eq_null->children.push_back(eq->Copy());
    auto maybe = std::make_unique<BoundExpr>(BExpr::Or, Type::Boolean());
    maybe->children.push_back(eq->Copy());
    maybe->children.push_back(std::move(eq_null));
    auto m_true = GeneralMark(std::move(copy), sp.outer, sp.domain, sp.domain_types, std::move(eq), next_index_++, *ctx.joins, "in");
    auto m_maybe = GeneralMark(std::move(sp.plan), sp.outer, sp.domain, sp.domain_types, std::move(maybe), next_index_++, *ctx.joins, "in");
    auto c = std::make_unique<BoundExpr>(BExpr::Case, Type::Boolean());
    c->children.push_back(std::move(m_true));
    c->children.push_back(MakeConstant(Value::Boolean(true)));
    c->children.push_back(std::move(m_maybe));
    c->children.push_back(MakeConstant(Value::Null(Type::Boolean())));
    c->children.push_back(MakeConstant(Value::Boolean(false)));
    return e.negated ? Not(std::move(c)) : BoundExprPtr(std::move(c));
  }
  if (e.kind == ExprKind::Exists || e.kind == ExprKind::InSubquery) {
    if (e.kind == ExprKind::Exists && !sp.refers_out) sp.plan = LimitOne(std::move(sp.plan));
    auto right = sp.plan->Bindings();
    auto j = MakeJoin(LJoinType::Mark, std::move(sp.plan));
    j->table_index = next_index_++;
    if (sp.general) AddDomainKeys(*j, sp.outer, sp.domain, sp.domain_types);
    else MakeJoinCondition(*j, std::move(sp.correlated), right);
    if (x) {
      AddInKey(*j, std::move(x), sp.types, right[0], e.pos);
      j->null_aware = true;
    }
    auto mark = MakeColumn({j->table_index, 0}, Type::Boolean(), e.kind == ExprKind::Exists ? "exists" : "in");
    ctx.joins->push_back(std::move(j));
    return e.negated ? Not(std::move(mark)) : std::move(mark);
  }
  // Scalar subquery.
  if (sp.types.size() != 1)
    throw UserError(ErrorKind::Binder, "subquery returns " + std::to_string(sp.types.size()) +
                                           " columns; a scalar subquery needs exactly one", e.pos);
  if (sp.grouped_agg) {
    LogicalOp* proj = sp.plan.get();
    // HAVING, DISTINCT, ORDER BY or LIMIT over the aggregate: the general decorrelation.
    if (proj->kind != LogicalKind::Projection || proj->children[0].get() != sp.grouped_agg) MakeGeneral(sp, e.pos);
  }
  // The value of a grouped aggregate's select expression on empty input.
  BoundExprPtr empty_value;
  if (sp.grouped_agg) {
    LogicalOp* proj = sp.plan.get();
    const LogicalOp& agg = *sp.grouped_agg;
    BoundExprPtr v = proj->exprs[0]->Copy();
    bool plain_nullable = v->kind == BExpr::Column && v->binding.table == agg.agg_index &&
                          !ZeroOnEmpty(*agg.aggs[v->binding.column]);
    if (!plain_nullable) {
      for (uint32_t i = 0; i < agg.aggs.size(); i++) {
        const BoundExpr& a = *agg.aggs[i];
        auto c = MakeConstant(ZeroOnEmpty(a) ? Value::BigInt(0) : Value::Null(a.type));
        v = Substitute(*v, {agg.agg_index, i}, *MakeCast(std::move(c), a.type));
      }
      empty_value = std::move(v);
    }
  }
  ColumnBinding col = sp.plan->Bindings()[0];
  Type t = sp.types[0];
  auto right = sp.plan->Bindings();
  auto j = MakeJoin(LJoinType::Left, std::move(sp.plan));
  j->single_match = true;
  if (sp.general) AddDomainKeys(*j, sp.outer, sp.domain, sp.domain_types);
  else MakeJoinCondition(*j, std::move(sp.correlated), right);
  BoundExprPtr value = MakeColumn(col, t, "#subquery");
  if (empty_value) {
    // Matched rows carry a non-NULL key (NULL keys never match).
    auto probe = j->right_keys.empty() ? nullptr : j->right_keys[0]->Copy();
    if (!probe) throw InternalError("correlated aggregate without a key");
    auto is_null = std::make_unique<BoundExpr>(BExpr::IsNull, Type::Boolean());
    is_null->children.push_back(std::move(probe));
    auto c = std::make_unique<BoundExpr>(BExpr::Case, t);
    c->children.push_back(std::move(is_null));
    c->children.push_back(MakeCast(std::move(empty_value), t));
    c->children.push_back(std::move(value));
    value = std::move(c);
  }
  ctx.joins->push_back(std::move(j));
  return value;
}

LogicalOpPtr Binder::BindLateral(const ast::TableRef& ref, Scope& scope) {
  outer_scopes_.push_back(&scope);
  BoundQuery bq;
  try {
    bq = BindSelect(*ref.subquery);
  } catch (...) {
    outer_scopes_.pop_back();
    throw;
  }
  outer_scopes_.pop_back();
  Bindings outer;
  for (auto& en : scope.entries) outer.insert(outer.end(), en.bindings.begin(), en.bindings.end());
  // The pull-up where it leaves no reference behind and groups nothing; the general
  // decorrelation elsewhere.
  std::vector<BoundExprPtr> correlated;
  LogicalOpPtr plan;
  DependentPlan dp;
  if (!OuterColumnsUsed(*bq.plan, outer).empty()) {
    plan = bq.plan->Copy();
    LogicalOp* grouped = nullptr;
    try {
      PullUp(plan, outer, correlated, grouped, ref.pos);
      if (grouped || SubtreeRefers(*plan, outer)) plan = nullptr;
    } catch (const UserError& err) {
      if (err.kind() != ErrorKind::Unsupported) throw;
      plan = nullptr;
    }
    if (!plan) {
      correlated.clear();
      dp = PushDomain(std::move(bq.plan), outer, next_index_, ref.pos);
      plan = std::move(dp.plan);
    }
  } else {
    plan = std::move(bq.plan);
  }
  // The scope entry: the subquery's columns (the pull-up may have added hidden ones).
  auto b = plan->Bindings();
  if (ref.column_aliases.size() > bq.names.size())
    throw BindError("table \"" + ref.alias + "\" has " + std::to_string(bq.names.size()) + " columns available but " +
                        std::to_string(ref.column_aliases.size()) + " columns specified",
                    ref.pos);
  ScopeEntry se;
  se.alias = ref.alias;
  for (size_t i = 0; i < bq.names.size(); i++) {
    se.names.push_back(i < ref.column_aliases.size() ? ref.column_aliases[i] : bq.names[i]);
    se.types.push_back(bq.types[i]);
    se.bindings.push_back(b[i]);
  }
  AddScopeEntry(scope, std::move(se), ref.pos);
  if (correlated.empty() && dp.outer.empty()) return plan;
  auto j = MakeJoin(LJoinType::Inner, std::move(plan));
  if (!dp.outer.empty()) {
    AddDomainKeys(*j, dp.outer, dp.domain, dp.types);
  } else {
    MakeJoinCondition(*j, std::move(correlated), b);
  }
  return j;
}

LogicalOpPtr Binder::BindWhere(const ast::Expr& where, LogicalOpPtr plan, const Scope& scope,
                               const std::vector<std::pair<std::string, const ast::Expr*>>* select_aliases) {
  // Conjuncts without subqueries filter first; the joins of subqueries follow; conjuncts
  // that use a subquery's value filter last.
  std::vector<const ast::Expr*> conj;
  std::function<void(const ast::Expr&)> split = [&](const ast::Expr& x) {
    if (x.kind == ExprKind::Binary && x.op == ast::Op::And) {
      split(*x.children[0]);
      split(*x.children[1]);
    } else {
      conj.push_back(&x);
    }
  };
  split(where);
  std::vector<LogicalOpPtr> joins;
  Ctx ctx;
  ctx.scope = &scope;
  ctx.clause = "WHERE";
  ctx.joins = &joins;
  ctx.select_aliases = select_aliases;
  std::vector<BoundExprPtr> early, late;
  for (const ast::Expr* c : conj) {
    if (const ast::Expr* star = FindColumnsStar(*c)) {  // COLUMNS(...): the conjunct for each column
      const bool sub = AstContainsSubquery(*c);
      for (auto& col : ExpandColumnsStar(*star, scope)) {
        ColumnsScope cs(*this, &col);
        auto b = ToBoolean(Bind(*c, ctx), c->pos, "argument of WHERE");
        if (sub) late.push_back(std::move(b));
        else SplitConjunction(std::move(b), early);
      }
      continue;
    }
    if (!AstContainsSubquery(*c) && !UsesSelectAlias(*c, ctx, AstContainsSubquery)) {
      SplitConjunction(ToBoolean(Bind(*c, ctx), c->pos, "argument of WHERE"), early);
      continue;
    }
    if (BindSubqueryConjunct(*c, ctx, late)) continue;
    late.push_back(ToBoolean(Bind(*c, ctx), c->pos, "argument of WHERE"));
  }
  auto filter = [](LogicalOpPtr p, std::vector<BoundExprPtr> terms) {
    if (terms.empty()) return p;
    auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
    f->filters = std::move(terms);
    f->children.push_back(std::move(p));
    return LogicalOpPtr(std::move(f));
  };
  plan = filter(std::move(plan), std::move(early));
  plan = ApplyJoins(std::move(plan), joins);
  return filter(std::move(plan), std::move(late));
}

}  // namespace tessera
