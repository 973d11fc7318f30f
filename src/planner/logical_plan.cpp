#include "planner/logical_plan.hpp"

#include "common/decimal.hpp"

#include <algorithm>

namespace tessera {

const char* JoinTypeName(LJoinType t) {
  static const char* names[] = {"INNER", "LEFT", "SEMI", "ANTI", "CROSS", "MARK", "FULL", "RIGHT_SEMI", "RIGHT_ANTI", "RIGHT",
                                "ASOF", "ASOF_LEFT", "ASOF_RIGHT", "ASOF_FULL"};
  return names[(int)t];
}

std::string AsOfOpText(ast::Op op) {
  switch (op) {
    case ast::Op::Gt: return ">";
    case ast::Op::Le: return "<=";
    case ast::Op::Lt: return "<";
    default: return ">=";
  }
}

std::vector<ColumnBinding> LogicalOp::Bindings() const {
  std::vector<ColumnBinding> r;
  switch (kind) {
    case LogicalKind::Get:
      for (int c : column_ids) r.push_back({table_index, (uint32_t)c});
      break;
    case LogicalKind::Projection:
      for (uint32_t i = 0; i < exprs.size(); i++) r.push_back({table_index, i});
      break;
    case LogicalKind::Aggregate:
      for (uint32_t i = 0; i < groups.size(); i++) r.push_back({group_index, i});
      for (uint32_t i = 0; i < aggs.size(); i++) r.push_back({agg_index, i});
      break;
    case LogicalKind::Join: {
      if (ReturnsRightOnly(join_type)) {
        r = children[1]->Bindings();
        break;
      }
      r = children[0]->Bindings();
      if (join_type == LJoinType::Mark) {
        r.push_back({table_index, 0});
      } else if (!ReturnsLeftOnly(join_type)) {
        auto rb = children[1]->Bindings();
        r.insert(r.end(), rb.begin(), rb.end());
      }
      break;
    }
    case LogicalKind::Dummy: break;
    case LogicalKind::UnionAll: {  // the child's width once: a chain of n UNION ALLs stays linear
      const size_t width = children[0]->Bindings().size();
      for (uint32_t i = 0; i < width; i++) r.push_back({table_index, i});
      break;
    }
    case LogicalKind::Values:
      for (uint32_t i = 0; i < values[0].size(); i++) r.push_back({table_index, i});
      break;
    case LogicalKind::RecursiveCte: {
      const size_t width = children[0]->Bindings().size();
      for (uint32_t i = 0; i < width; i++) r.push_back({table_index, i});
      break;
    }
    case LogicalKind::WorkingTable:
      for (uint32_t i = 0; i < column_types.size(); i++) r.push_back({table_index, i});
      break;
    case LogicalKind::Window:
      r = children[0]->Bindings();
      for (uint32_t i = 0; i < exprs.size(); i++) r.push_back({table_index, i});
      break;
    case LogicalKind::Materialized:
    case LogicalKind::SharedScan: r = shared_bindings; break;
    default: r = children[0]->Bindings();
  }
  return r;
}

std::vector<Type> LogicalOp::Types() const {
  std::vector<Type> r;
  switch (kind) {
    case LogicalKind::Get:
      for (int c : column_ids) r.push_back(table->schema.columns[c].type);
      break;
    case LogicalKind::Projection:
      for (auto& e : exprs) r.push_back(e->type);
      break;
    case LogicalKind::Aggregate:
      for (auto& e : groups) r.push_back(e->type);
      for (auto& e : aggs) r.push_back(e->type);
      break;
    case LogicalKind::Join: {
      if (ReturnsRightOnly(join_type)) {
        r = children[1]->Types();
        break;
      }
      r = children[0]->Types();
      if (join_type == LJoinType::Mark) {
        r.push_back(Type::Boolean());
      } else if (!ReturnsLeftOnly(join_type)) {
        auto rt = children[1]->Types();
        r.insert(r.end(), rt.begin(), rt.end());
      }
      break;
    }
    case LogicalKind::Dummy: break;
    case LogicalKind::Values:
      for (auto& e : values[0]) r.push_back(e->type);
      break;
    case LogicalKind::WorkingTable:
    case LogicalKind::Materialized:
    case LogicalKind::SharedScan: r = column_types; break;
    case LogicalKind::Window:
      r = children[0]->Types();
      for (auto& e : exprs) r.push_back(e->type);
      break;
    default: r = children[0]->Types();
  }
  return r;
}

LogicalOpPtr LogicalOp::Copy() const {
  auto r = std::make_unique<LogicalOp>(kind);
  auto copy = [](const std::vector<BoundExprPtr>& v) {
    std::vector<BoundExprPtr> out;
    for (auto& e : v) out.push_back(e->Copy());
    return out;
  };
  for (auto& c : children) r->children.push_back(c->Copy());
  r->table = table;
  r->alias = alias;
  r->table_index = table_index;
  r->column_ids = column_ids;
  r->count_only = count_only;
  r->filters = copy(filters);
  r->exprs = copy(exprs);
  r->join_type = join_type;
  r->left_keys = copy(left_keys);
  r->right_keys = copy(right_keys);
  if (residual) r->residual = residual->Copy();
  r->single_match = single_match;
  r->null_aware = null_aware;
  r->nulls_equal = nulls_equal;
  r->counted = counted;
  r->asof_op = asof_op;
  r->group_index = group_index;
  r->agg_index = agg_index;
  r->groups = copy(groups);
  r->aggs = copy(aggs);
  for (auto& row : values) r->values.push_back(copy(row));
  for (auto& o : orders) r->orders.push_back({o.expr->Copy(), o.desc, o.nulls_first});
  r->limit = limit;
  r->offset = offset;
  r->limit_percent = limit_percent;
  r->distinct_rows = distinct_rows;
  r->cte_index = cte_index;
  r->column_types = column_types;
  r->shared_id = shared_id;
  r->shared_columns = shared_columns;
  r->shared_bindings = shared_bindings;
  r->estimated_rows = estimated_rows;
  return r;
}

static std::string List(const std::vector<BoundExprPtr>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + v[i]->ToString();
  return s;
}

std::string LogicalOp::ToString(int indent) const {
  std::string pad(indent * 2, ' ');
  std::string s = pad;
  switch (kind) {
    case LogicalKind::Get:
      s += "GET " + table->schema.name;
      if (!filters.empty()) s += " [" + List(filters) + "]";
      break;
    case LogicalKind::Filter: s += "FILTER " + List(filters); break;
    case LogicalKind::Projection: s += "PROJECT " + List(exprs); break;
    case LogicalKind::Join: {
      s += std::string(JoinTypeName(join_type)) + " JOIN";
      for (size_t i = 0; i < left_keys.size(); i++)
        s += (i ? " AND " : " ") + left_keys[i]->ToString() +
             (IsAsOf(join_type) && i + 1 == left_keys.size() ? " " + AsOfOpText(asof_op) + " " : " = ") +
             right_keys[i]->ToString();
      if (residual) s += " [" + residual->ToString() + "]";
      if (nulls_equal) s += " (nulls equal)";
      if (counted) s += " (counted)";
      break;
    }
    case LogicalKind::Aggregate: s += "AGGREGATE [" + List(groups) + "] [" + List(aggs) + "]"; break;
    case LogicalKind::Order: s += "ORDER"; break;
    case LogicalKind::Limit:
      s += limit_percent >= 0 ? "LIMIT " + FormatDouble(limit_percent) + "%" : "LIMIT " + std::to_string(limit);
      break;
    case LogicalKind::Dummy: s += "DUMMY"; break;
    case LogicalKind::UnionAll: s += "UNION ALL"; break;
    case LogicalKind::Values: s += "VALUES " + std::to_string(values.size()) + " rows"; break;
    case LogicalKind::Window: s += "WINDOW " + List(exprs); break;
    case LogicalKind::RecursiveCte: s += distinct_rows ? "RECURSIVE CTE (UNION)" : "RECURSIVE CTE (UNION ALL)"; break;
    case LogicalKind::WorkingTable: s += "WORKING TABLE"; break;
    case LogicalKind::Materialized: s += "MATERIALIZED #" + std::to_string(shared_id); break;
    case LogicalKind::SharedScan: s += "SHARED SCAN #" + std::to_string(shared_id); break;
  }
  s += "\n";
  for (auto& c : children) s += c->ToString(indent + 1);
  return s;
}

uint32_t LargestBindingIndex(const LogicalOp& op) {
  uint32_t m = std::max({op.table_index, op.group_index, op.agg_index});
  for (auto& c : op.children) m = std::max(m, LargestBindingIndex(*c));
  return m;
}

static void Renumber(LogicalOp& op, std::map<uint32_t, uint32_t>& fresh, uint32_t& next) {
  auto to = [&](uint32_t& i) {
    auto [it, added] = fresh.emplace(i, next);
    if (added) next++;
    i = it->second;
  };
  to(op.table_index);
  to(op.group_index);
  to(op.agg_index);
  to(op.cte_index);
  std::function<void(BoundExpr&)> fix = [&](BoundExpr& e) {
    if (e.kind == BExpr::Column) to(e.binding.table);
    for (auto& c : e.children) fix(*c);
  };
  ForEachOwnExpr(op, [&](BoundExprPtr& e) { fix(*e); });
  for (auto& c : op.children) Renumber(*c, fresh, next);
}

LogicalOpPtr CopyWithFreshBindings(const LogicalOp& op, uint32_t& next, std::map<uint32_t, uint32_t>& fresh) {
  LogicalOpPtr c = op.Copy();
  Renumber(*c, fresh, next);
  return c;
}

void ForEachOwnExpr(LogicalOp& op, const std::function<void(BoundExprPtr&)>& f) {
  for (auto* v : {&op.filters, &op.exprs, &op.left_keys, &op.right_keys, &op.groups, &op.aggs})
    for (auto& e : *v) f(e);
  if (op.residual) f(op.residual);
  for (auto& o : op.orders) f(o.expr);
  for (auto& row : op.values)
    for (auto& e : row) f(e);
}

void ForEachOwnExpr(const LogicalOp& op, const std::function<void(const BoundExpr&)>& f) {
  ForEachOwnExpr(const_cast<LogicalOp&>(op), [&](BoundExprPtr& e) { f(*e); });
}

}  // namespace tessera
