// The general decorrelation of subqueries: see decorrelate.hpp.
#include "planner/decorrelate.hpp"

#include <algorithm>
#include <functional>

#include "function/function_registry.hpp"
#include "planner/binder_internal.hpp"
#include "planner/bound_window.hpp"

namespace tessera {

using Bindings = std::vector<ColumnBinding>;

namespace {

bool ExprRefers(const BoundExpr& e, const Bindings& set) {
  if (e.kind == BExpr::Column) return std::find(set.begin(), set.end(), e.binding) != set.end();
  for (auto& c : e.children)
    if (ExprRefers(*c, set)) return true;
  return false;
}

struct Decorrelator {
  const Bindings& outer;
  const std::vector<Type>& types;
  uint32_t& next;
  SourcePos pos;

  // A domain placeholder (decorrelate.hpp); `d` receives its columns.
  LogicalOpPtr Domain(Bindings& d) {
    auto a = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
    a->group_index = next++;
    a->agg_index = next++;
    d.clear();
    for (uint32_t i = 0; i < outer.size(); i++) {
      a->groups.push_back(MakeColumn(outer[i], types[i], "#domain"));
      d.push_back({a->group_index, i});
    }
    return a;
  }

  BoundExprPtr DomainColumn(const Bindings& d, size_t i) const { return MakeColumn(d[i], types[i], "#domain"); }

  void Substitute(BoundExprPtr& e, const Bindings& d) const {
    if (e->kind == BExpr::Column) {
      auto it = std::find(outer.begin(), outer.end(), e->binding);
      if (it != outer.end()) e = MakeColumn(d[it - outer.begin()], e->type, e->name);
      return;
    }
    for (auto& c : e->children) Substitute(c, d);
  }
  void Replace(LogicalOp& op, const Bindings& d) const {
    ForEachOwnExpr(op, [&](BoundExprPtr& e) { Substitute(e, d); });
  }

  LogicalOpPtr Push(LogicalOpPtr op, Bindings& d) {
    if (!SubtreeRefers(*op, outer)) return CrossJoin(Domain(d), std::move(op));
    switch (op->kind) {
      case LogicalKind::Filter:
      case LogicalKind::Order:
        op->children[0] = Push(std::move(op->children[0]), d);
        Replace(*op, d);
        return op;
      case LogicalKind::Projection: {
        op->children[0] = Push(std::move(op->children[0]), d);
        Replace(*op, d);
        Bindings out;
        for (size_t i = 0; i < outer.size(); i++) {
          out.push_back({op->table_index, (uint32_t)op->exprs.size()});
          op->exprs.push_back(DomainColumn(d, i));
        }
        d = std::move(out);
        return op;
      }
      case LogicalKind::Aggregate: return PushAggregate(std::move(op), d);
      case LogicalKind::Join: return PushJoin(std::move(op), d);
      case LogicalKind::Limit: return PushLimit(std::move(op), d);
      case LogicalKind::Window: {  // partitioned by the domain too
        op->children[0] = Push(std::move(op->children[0]), d);
        Replace(*op, d);
        for (auto& w : op->exprs) PartitionByDomain(*w, d, {});
        return op;
      }
      case LogicalKind::UnionAll: {  // each input per domain value, the domain's columns appended
        Bindings out;
        for (auto& c : op->children) {
          const Bindings b = c->Bindings();
          const std::vector<Type> t = c->Types();
          Bindings dc;
          c = Push(std::move(c), dc);
          auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
          proj->table_index = next++;
          for (size_t i = 0; i < b.size(); i++) proj->exprs.push_back(MakeColumn(b[i], t[i], ""));
          for (size_t i = 0; i < outer.size(); i++) proj->exprs.push_back(DomainColumn(dc, i));
          proj->children.push_back(std::move(c));
          c = std::move(proj);
          if (out.empty())
            for (size_t i = 0; i < outer.size(); i++) out.push_back({op->table_index, (uint32_t)(b.size() + i)});
        }
        d = std::move(out);
        return op;
      }
      default: throw UnsupportedYet("this correlated reference", pos);
    }
  }

  // The window function `w` (BExpr::Window) also partitioned by the domain's columns `d`;
  // `orders` (a LIMIT's ORDER BY) appended as its ordering.
  void PartitionByDomain(BoundExpr& w, const Bindings& d, const std::vector<OrderSpec>& orders) {
    auto info = std::make_shared<WindowInfo>(*w.window);
    const uint32_t at = info->OrderChild();
    for (size_t i = 0; i < outer.size(); i++)
      w.children.insert(w.children.begin() + at + (uint32_t)i, DomainColumn(d, i));
    info->partitions += (uint32_t)outer.size();
    for (const OrderSpec& o : orders) {
      w.children.insert(w.children.begin() + info->StartOffsetChild(), o.expr->Copy());
      info->orders.push_back({o.desc, o.nulls_first});
    }
    w.window = std::move(info);
  }

  // LIMIT [OFFSET] per domain value: a row_number() partitioned by the domain, in the
  // order of the ORDER BY under the LIMIT, kept between OFFSET and OFFSET + LIMIT.
  LogicalOpPtr PushLimit(LogicalOpPtr op, Bindings& d) {
    if (op->limit_percent >= 0) throw UnsupportedYet("LIMIT with a percentage in a correlated subquery", pos);
    LogicalOpPtr child = std::move(op->children[0]);
    std::vector<OrderSpec> orders;
    if (child->kind == LogicalKind::Order) {
      orders = std::move(child->orders);
      child = std::move(child->children[0]);
    }
    child = Push(std::move(child), d);
    for (auto& o : orders) Substitute(o.expr, d);
    auto info = std::make_shared<WindowInfo>();
    info->func = WindowFunc::RowNumber;
    auto w = std::make_unique<BoundExpr>(BExpr::Window, Type::BigInt());
    w->name = "row_number";
    w->window = std::move(info);
    PartitionByDomain(*w, d, orders);
    auto win = std::make_unique<LogicalOp>(LogicalKind::Window);
    win->table_index = next++;
    win->exprs.push_back(std::move(w));
    win->children.push_back(std::move(child));
    auto rn = [&] { return MakeColumn({win->table_index, 0}, Type::BigInt(), "row_number"); };
    auto keep = std::make_unique<LogicalOp>(LogicalKind::Filter);
    keep->filters.push_back(MakeCompare(ast::Op::Gt, rn(), MakeConstant(Value::BigInt(op->offset))));
    if (op->limit >= 0)
      keep->filters.push_back(MakeCompare(ast::Op::Le, rn(), MakeConstant(Value::BigInt(op->offset + op->limit))));
    keep->children.push_back(std::move(win));
    return keep;
  }

  LogicalOpPtr PushAggregate(LogicalOpPtr op, Bindings& d) {
    op->children[0] = Push(std::move(op->children[0]), d);
    Replace(*op, d);
    if (!op->groups.empty()) {  // one group per domain value and group of the subquery
      Bindings out;
      for (size_t i = 0; i < outer.size(); i++) {
        out.push_back({op->group_index, (uint32_t)op->groups.size()});
        op->groups.push_back(DomainColumn(d, i));
      }
      d = std::move(out);
      return op;
    }
    // An ungrouped aggregate: one row per domain value, also for those without rows. The
    // aggregate groups by the domain under fresh indices; a LEFT join from the domain
    // and a projection bound as the aggregate was ((agg_index, i)) give each domain value
    // its row.
    const uint32_t agg_index = op->agg_index;
    op->group_index = next++;
    op->agg_index = next++;
    Bindings keys;
    for (size_t i = 0; i < outer.size(); i++) {
      keys.push_back({op->group_index, (uint32_t)i});
      op->groups.push_back(DomainColumn(d, i));
    }
    std::vector<BoundExprPtr> values;
    for (uint32_t i = 0; i < op->aggs.size(); i++) {
      const BoundExpr& a = *op->aggs[i];
      auto v = MakeColumn({op->agg_index, i}, a.type, a.name);
      if (a.agg_fn && a.agg_fn->zero_on_empty) v = ZeroWhenNull(std::move(v));
      values.push_back(std::move(v));
    }
    Bindings d2;
    auto join = std::make_unique<LogicalOp>(LogicalKind::Join);
    join->join_type = LJoinType::Left;
    join->nulls_equal = true;
    join->children.push_back(Domain(d2));
    for (size_t i = 0; i < outer.size(); i++) {
      join->left_keys.push_back(DomainColumn(d2, i));
      join->right_keys.push_back(MakeColumn(keys[i], types[i], "#domain"));
    }
    join->children.push_back(std::move(op));
    auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
    proj->table_index = agg_index;
    proj->exprs = std::move(values);
    d.clear();
    for (size_t i = 0; i < outer.size(); i++) {
      d.push_back({agg_index, (uint32_t)proj->exprs.size()});
      proj->exprs.push_back(DomainColumn(d2, i));
    }
    proj->children.push_back(std::move(join));
    return proj;
  }

  LogicalOpPtr PushJoin(LogicalOpPtr op, Bindings& d) {
    const bool lrefs = SubtreeRefers(*op->children[0], outer);
    const bool rrefs = SubtreeRefers(*op->children[1], outer);
    const LJoinType t = op->join_type;
    if (t == LJoinType::Full || t == LJoinType::Right || ReturnsRightOnly(t))
      throw UnsupportedYet("a correlated reference inside a FULL join", pos);
    const bool inner = t == LJoinType::Inner || t == LJoinType::Cross;
    auto keys_refer = [&](const std::vector<BoundExprPtr>& keys) {
      for (auto& k : keys)
        if (ExprRefers(*k, outer)) return true;
      return false;
    };
    // An ASOF join's right side evaluated per domain value would need the domain among its
    // keys; its left side takes the domain as any join's does.
    if (IsAsOf(t) && (rrefs || keys_refer(op->right_keys) || t == LJoinType::AsOfRight || t == LJoinType::AsOfFull))
      throw UnsupportedYet("a correlated reference inside an ASOF join", pos);
    // One side takes the domain when the other side and its keys do not refer to C (the
    // residual sees both sides' columns).
    const bool left_only = !rrefs && !keys_refer(op->right_keys);
    const bool right_only = inner && !lrefs && !keys_refer(op->left_keys);
    if (left_only || right_only) {
      const int side = left_only ? 0 : 1;
      op->children[side] = Push(std::move(op->children[side]), d);
      Replace(*op, d);
      return op;
    }
    // Both sides: each evaluated per domain value, matched on the domain's columns too.
    if (op->null_aware || op->counted)
      throw UnsupportedYet("a correlated reference inside this subquery's NOT IN or INTERSECT ALL", pos);
    Bindings dl, dr;
    op->children[0] = Push(std::move(op->children[0]), dl);
    op->children[1] = Push(std::move(op->children[1]), dr);
    for (auto& k : op->left_keys) Substitute(k, dl);
    for (auto& k : op->right_keys) Substitute(k, dr);
    if (op->residual) Substitute(op->residual, dl);
    if (!op->nulls_equal && !op->left_keys.empty()) {
      // The join's own keys become a residual: its NULLs must not match, the domain's must.
      std::vector<BoundExprPtr> terms;
      for (size_t i = 0; i < op->left_keys.size(); i++)
        terms.push_back(MakeCompare(ast::Op::Eq, std::move(op->left_keys[i]), std::move(op->right_keys[i])));
      if (op->residual) terms.push_back(std::move(op->residual));
      op->residual = MakeAnd(std::move(terms));
      op->left_keys.clear();
      op->right_keys.clear();
    }
    op->nulls_equal = true;
    if (op->join_type == LJoinType::Cross) op->join_type = LJoinType::Inner;
    for (size_t i = 0; i < outer.size(); i++) {
      op->left_keys.push_back(DomainColumn(dl, i));
      op->right_keys.push_back(DomainColumn(dr, i));
    }
    d = std::move(dl);
    return op;
  }
};

}  // namespace

bool SubtreeRefers(const LogicalOp& op, const Bindings& set) {
  bool any = false;
  ForEachOwnExpr(const_cast<LogicalOp&>(op), [&](BoundExprPtr& e) { any = any || ExprRefers(*e, set); });
  if (any) return true;
  for (auto& c : op.children)
    if (SubtreeRefers(*c, set)) return true;
  return false;
}

void ForEachDomainPlaceholder(LogicalOp& op, const std::function<void(LogicalOp&)>& f) {
  if (op.kind == LogicalKind::Aggregate && op.children.empty()) {
    f(op);
    return;
  }
  for (auto& c : op.children) ForEachDomainPlaceholder(*c, f);
}

Bindings OuterColumnsUsed(const LogicalOp& op, const Bindings& outer, std::vector<Type>* types) {
  Bindings used;
  std::function<void(const BoundExpr&)> visit = [&](const BoundExpr& e) {
    if (e.kind == BExpr::Column && std::find(outer.begin(), outer.end(), e.binding) != outer.end() &&
        std::find(used.begin(), used.end(), e.binding) == used.end()) {
      used.push_back(e.binding);
      if (types) types->push_back(e.type);
    }
    for (auto& c : e.children) visit(*c);
  };
  std::function<void(const LogicalOp&)> walk = [&](const LogicalOp& o) {
    ForEachOwnExpr(const_cast<LogicalOp&>(o), [&](BoundExprPtr& e) { visit(*e); });
    for (auto& c : o.children) walk(*c);
  };
  walk(op);
  return used;
}

DependentPlan PushDomain(LogicalOpPtr plan, const Bindings& outer, uint32_t& next_index, SourcePos pos) {
  DependentPlan dp;
  dp.outer = OuterColumnsUsed(*plan, outer, &dp.types);
  Decorrelator dc{dp.outer, dp.types, next_index, pos};
  dp.plan = dc.Push(std::move(plan), dp.domain);
  return dp;
}

namespace {

// Whether two evaluations of `op` give the same rows: no LIMIT (which rows it keeps may
// differ between parallel runs) and no volatile function (random()).
bool Deterministic(const LogicalOp& op) {
  if (op.kind == LogicalKind::Limit) return false;
  bool ok = true;
  ForEachOwnExpr(op, [&](const BoundExpr& e) { ok = ok && !e.CallsVolatile(); });
  for (auto& c : op.children) ok = ok && Deterministic(*c);
  return ok;
}

}  // namespace

LogicalOpPtr AttachLeft(LogicalOpPtr join, LogicalOpPtr left, SourcePos pos) {
  bool any = false;
  ForEachDomainPlaceholder(*join, [&](LogicalOp&) { any = true; });
  // The domain is a second evaluation of `left`: it must give the rows the join sees.
  if (any && !Deterministic(*left))
    throw UserError(ErrorKind::Unsupported,
                    "a correlated subquery of this form over rows from LIMIT or a volatile function (random()) is not "
                    "supported yet",
                    pos);
  ForEachDomainPlaceholder(*join, [&](LogicalOp& d) { d.children.push_back(left->Copy()); });
  join->children.insert(join->children.begin(), std::move(left));
  return join;
}

}  // namespace tessera
