#include "execution/physical_planner.hpp"

#include <algorithm>

#include "execution/expression_executor.hpp"

#include "execution/operators/asof_join.hpp"
#include "execution/operators/basic_operators.hpp"
#include "execution/operators/hash_aggregate.hpp"
#include "execution/operators/hash_join.hpp"
#include "execution/operators/join_unmatched.hpp"
#include "execution/operators/materialized.hpp"
#include "execution/operators/order.hpp"
#include "execution/operators/recursive_cte.hpp"
#include "execution/operators/table_scan.hpp"
#include "execution/operators/union_all.hpp"
#include "execution/operators/values_scan.hpp"
#include "execution/operators/window.hpp"

namespace tessera {

static void Resolve(BoundExpr& e, const std::vector<ColumnBinding>& input) {
  if (e.kind == BExpr::Column) {
    for (size_t i = 0; i < input.size(); i++)
      if (input[i] == e.binding) {
        e.index = (int)i;
        return;
      }
    throw InternalError("column " + e.ToString() + " not found in its operator's input");
  }
  for (auto& c : e.children) Resolve(*c, input);
  if (e.kind == BExpr::Like) e.like = CompileLikePattern(e);  // once per expression
}

// The working tables of the recursive CTEs being planned on this thread, by the CTE's
// table_index (LogicalOp::cte_index).
static thread_local std::vector<std::pair<uint32_t, std::shared_ptr<WorkingRows>>> working_tables;

// count(*) (and only that, ungrouped) of a table read whole, without a filter: its row
// groups' counts, no scan (a Parquet file's come from its footer, so nothing is decoded;
// DuckDB answers it the same way). The one row, as VALUES.
static PhysicalOperatorPtr CountOfWholeTable(const LogicalOp& op) {
  if (!op.groups.empty() || op.aggs.empty() || op.children.size() != 1) return nullptr;
  const LogicalOp& get = *op.children[0];
  if (get.kind != LogicalKind::Get || !get.count_only || !get.filters.empty() || !get.table || !get.table->data)
    return nullptr;
  for (const auto& a : op.aggs)
    if (a->kind != BExpr::Agg || a->name != "count_star" || a->distinct || !a->children.empty()) return nullptr;
  uint64_t rows = 0;
  for (const auto& rg : get.table->data->row_groups) rows += rg->count;
  std::vector<std::vector<BoundExprPtr>> values(1);
  std::vector<Type> types;
  for (const auto& a : op.aggs) {
    values[0].push_back(MakeConstant(Value::BigInt((int64_t)rows)));
    types.push_back(a->type);
  }
  return std::make_unique<PhysicalValues>(std::move(types), std::move(values));
}

static PhysicalOperatorPtr Plan(LogicalOp& op, int64_t top_n_hint) {
  PhysicalOperatorPtr r;
  // Children's bindings and types must be read before planning them moves their
  // expressions out.
  std::vector<std::vector<ColumnBinding>> cb;
  std::vector<std::vector<Type>> ct;
  for (auto& c : op.children) {
    cb.push_back(c->Bindings());
    ct.push_back(c->Types());
  }
  const std::vector<Type> out_types = op.Types();
  switch (op.kind) {
    case LogicalKind::Get: {
      auto b = op.Bindings();
      for (auto& f : op.filters) Resolve(*f, b);
      auto scan = std::make_unique<PhysicalTableScan>(op.table, op.table->data, op.column_ids, std::move(op.filters));
      scan->count_only = op.count_only;
      r = std::move(scan);
      break;
    }
    case LogicalKind::Dummy: r = std::make_unique<PhysicalDummy>(); break;
    case LogicalKind::Filter: {
      auto child = Plan(*op.children[0], -1);
      auto& b = cb[0];
      for (auto& f : op.filters) Resolve(*f, b);
      auto pred = MakeAnd(std::move(op.filters));
      r = std::make_unique<PhysicalFilter>(out_types, std::move(pred));
      r->children.push_back(std::move(child));
      break;
    }
    case LogicalKind::Projection: {
      auto child = Plan(*op.children[0], -1);
      auto& b = cb[0];
      for (auto& e : op.exprs) Resolve(*e, b);
      r = std::make_unique<PhysicalProjection>(out_types, std::move(op.exprs));
      r->children.push_back(std::move(child));
      break;
    }
    case LogicalKind::Join: {
      auto left = Plan(*op.children[0], -1);
      auto right = Plan(*op.children[1], -1);
      auto &lb = cb[0], &rb = cb[1];
      for (auto& k : op.left_keys) Resolve(*k, lb);
      for (auto& k : op.right_keys) Resolve(*k, rb);
      if (IsAsOf(op.join_type)) {
        auto j = std::make_unique<PhysicalAsOfJoin>(out_types, op.join_type, op.asof_op, std::move(op.left_keys),
                                                    std::move(op.right_keys));
        j->build_types = ct[1];
        j->children.push_back(std::move(left));
        j->children.push_back(std::move(right));
        j->estimated_rows = op.estimated_rows;
        if (op.join_type == LJoinType::AsOfRight || op.join_type == LJoinType::AsOfFull) {
          // The probe's rows, then the build rows it left unmatched.
          auto unmatched = std::make_unique<PhysicalAsOfUnmatched>(*j);
          auto u = std::make_unique<PhysicalUnionAll>(out_types);
          u->children.push_back(std::move(j));
          u->children.push_back(std::move(unmatched));
          r = std::move(u);
        } else {
          r = std::move(j);
        }
        break;
      }
      if (op.residual) {
        auto all = lb;
        all.insert(all.end(), rb.begin(), rb.end());
        Resolve(*op.residual, all);
      }
      auto j = std::make_unique<PhysicalHashJoin>(out_types, op.join_type, std::move(op.left_keys),
                                                  std::move(op.right_keys), std::move(op.residual));
      j->build_types = ct[1];
      j->single_match = op.single_match;
      j->null_aware = op.null_aware;
      j->nulls_equal = op.nulls_equal;
      j->counted = op.counted;
      j->children.push_back(std::move(left));
      j->children.push_back(std::move(right));
      if (op.join_type == LJoinType::Full || op.join_type == LJoinType::Right) {
        // The probe's rows, then the build rows it left unmatched (join_unmatched.hpp).
        j->estimated_rows = op.estimated_rows;
        auto unmatched = std::make_unique<PhysicalJoinUnmatched>(*j);
        auto u = std::make_unique<PhysicalUnionAll>(out_types);
        u->children.push_back(std::move(j));
        u->children.push_back(std::move(unmatched));
        r = std::move(u);
        break;
      }
      if (ReturnsRightOnly(op.join_type)) {
        // The probe only marks build rows; the marked (or unmarked) ones come after it.
        j->estimated_rows = op.estimated_rows;
        auto emit = std::make_unique<PhysicalJoinUnmatched>(*j);
        emit->children.push_back(std::move(j));
        r = std::move(emit);
        break;
      }
      r = std::move(j);
      break;
    }
    case LogicalKind::Aggregate: {
      if (auto rows = CountOfWholeTable(op)) {
        r = std::move(rows);
        break;
      }
      auto child = Plan(*op.children[0], -1);
      auto& b = cb[0];
      for (auto& g : op.groups) Resolve(*g, b);
      for (auto& a : op.aggs) Resolve(*a, b);
      r = std::make_unique<PhysicalHashAggregate>(out_types, std::move(op.groups), std::move(op.aggs));
      r->children.push_back(std::move(child));
      break;
    }
    case LogicalKind::Order: {
      auto child = Plan(*op.children[0], -1);
      auto& b = cb[0];
      for (auto& o : op.orders) Resolve(*o.expr, b);
      r = std::make_unique<PhysicalOrder>(out_types, std::move(op.orders), top_n_hint);
      r->children.push_back(std::move(child));
      break;
    }
    case LogicalKind::UnionAll: {
      auto u = std::make_unique<PhysicalUnionAll>(out_types);
      for (auto& c : op.children) u->children.push_back(Plan(*c, -1));
      r = std::move(u);
      break;
    }
    case LogicalKind::Values: r = std::make_unique<PhysicalValues>(out_types, std::move(op.values)); break;
    case LogicalKind::RecursiveCte: {
      auto working = std::make_shared<WorkingRows>();
      working_tables.emplace_back(op.table_index, working);
      struct Pop {
        ~Pop() { working_tables.pop_back(); }
      } pop;
      auto anchor = CreatePhysicalPlan(*op.children[0]);
      auto recursive = CreatePhysicalPlan(*op.children[1]);
      r = std::make_unique<PhysicalRecursiveCte>(out_types, op.distinct_rows, std::move(working), std::move(anchor),
                                                 std::move(recursive));
      break;
    }
    case LogicalKind::WorkingTable: {
      std::shared_ptr<WorkingRows> working;
      for (auto& [index, rows] : working_tables)
        if (index == op.cte_index) working = rows;
      if (!working) throw InternalError("working table of an unknown recursive CTE");
      r = std::make_unique<PhysicalWorkingTableScan>(out_types, std::move(working));
      break;
    }
    case LogicalKind::Materialized:
      r = std::make_unique<PhysicalMaterialized>(out_types, op.shared_id, op.shared_columns);
      r->children.push_back(Plan(*op.children[0], -1));
      break;
    case LogicalKind::SharedScan:
      r = std::make_unique<PhysicalSharedScan>(out_types, op.shared_id, op.shared_columns);
      break;
    case LogicalKind::Window: {
      auto child = Plan(*op.children[0], -1);
      for (auto& e : op.exprs) Resolve(*e, cb[0]);
      r = std::make_unique<PhysicalWindow>(out_types, std::move(op.exprs));
      r->children.push_back(std::move(child));
      break;
    }
    case LogicalKind::Limit: {
      int64_t hint = op.limit >= 0 && op.limit_percent < 0 ? op.limit + op.offset : -1;
      auto child = Plan(*op.children[0], op.children[0]->kind == LogicalKind::Order ? hint : -1);
      if (hint >= 0) {  // a scan under projections alone stops once it has read `hint` rows
        PhysicalOperator* below = child.get();
        while (below->kind == PhysKind::Projection) below = below->children[0].get();
        if (below->kind == PhysKind::TableScan) static_cast<PhysicalTableScan*>(below)->row_limit = (uint64_t)hint;
      }
      r = std::make_unique<PhysicalLimit>(out_types, op.limit, op.offset, op.limit_percent);
      r->children.push_back(std::move(child));
      break;
    }
  }
  r->estimated_rows = op.estimated_rows;
  return r;
}

// The table scan that produces column `col` of `op`'s output unchanged, through the
// operators that pass columns on (filters, column projections, the probe side of hash
// joins, and the build side of inner joins: a build row whose key the filtering join lacks
// only makes joined rows that join drops); null when there is none. Its output column goes
// into `col`.
static PhysicalTableScan* ScanOfColumn(PhysicalOperator* op, int& col) {
  for (;;) {
    switch (op->kind) {
      case PhysKind::TableScan: {
        auto* scan = static_cast<PhysicalTableScan*>(op);
        return scan->count_only ? nullptr : scan;
      }
      case PhysKind::Filter: break;
      case PhysKind::Projection: {
        const BoundExpr& e = *static_cast<PhysicalProjection*>(op)->exprs[col];
        if (e.kind != BExpr::Column || e.index < 0 || e.type != op->children[0]->types[e.index]) return nullptr;
        col = e.index;
        break;
      }
      case PhysKind::HashJoin: {  // its output starts with the probe side's columns
        auto* j = static_cast<PhysicalHashJoin*>(op);
        if (ReturnsRightOnly(j->join_type)) return nullptr;
        const size_t np = j->children[0]->types.size();
        if ((size_t)col < np) break;
        // An inner join's build column (its build pipeline runs after the filtering join's
        // build where that join is above it in the same pipeline: dependencies run in order).
        if ((j->join_type != LJoinType::Inner && j->join_type != LJoinType::Cross) ||
            (size_t)col - np >= j->build_types.size())
          return nullptr;
        col -= (int)np;
        op = j->children[1].get();
        continue;
      }
      default: return nullptr;
    }
    op = op->children[0].get();
  }
}

// Join filters passed sideways (operators/join_filter.hpp): each hash join that may drop
// probe rows without a match before it hands its build keys to the scan of its probe key.
static void AttachJoinFilters(PhysicalOperator& op) {
  for (auto& c : op.children) AttachJoinFilters(*c);
  if (op.kind != PhysKind::HashJoin) return;
  auto& j = static_cast<PhysicalHashJoin&>(op);
  if (!j.CanFilterProbe()) return;
  int col = j.left_keys[0]->index;
  if (col < 0 || (size_t)col >= j.children[0]->types.size()) return;
  PhysicalTableScan* scan = ScanOfColumn(j.children[0].get(), col);
  if (!scan || scan->types[col] != j.left_keys[0]->type) return;
  j.key_filter = std::make_shared<JoinKeyFilter>();
  j.key_filter->description = j.right_keys[0]->ToString();
  const uint64_t probe_rows = scan->data ? scan->data->row_count : 0;
  j.key_filter->max_bits =
      std::max(JoinKeyFilter::kMinMaxBits, std::min(JoinKeyFilter::kMaxMaxBits, 8 * probe_rows));
  scan->join_filters.push_back({col, j.key_filter});
}

// Points every shared scan at its materialisation (planned wherever it stands in the tree).
static void LinkSharedScans(PhysicalOperator& op, std::vector<PhysicalMaterialized*>& mats,
                            std::vector<PhysicalSharedScan*>& scans) {
  if (op.kind == PhysKind::Materialized) mats.push_back(static_cast<PhysicalMaterialized*>(&op));
  if (op.kind == PhysKind::SharedScan) scans.push_back(static_cast<PhysicalSharedScan*>(&op));
  for (auto& c : op.children) LinkSharedScans(*c, mats, scans);
}

PhysicalOperatorPtr CreatePhysicalPlan(LogicalOp& op, bool join_filters) {
  auto root = Plan(op, -1);
  std::vector<PhysicalMaterialized*> mats;
  std::vector<PhysicalSharedScan*> scans;
  LinkSharedScans(*root, mats, scans);
  for (PhysicalSharedScan* s : scans) {
    for (PhysicalMaterialized* m : mats)
      if (m->id == s->id) s->source = m;
    if (!s->source) throw InternalError("a shared scan without its materialization");
  }
  if (join_filters) AttachJoinFilters(*root);
  auto res = std::make_unique<PhysicalResult>(root->types);
  res->children.push_back(std::move(root));
  return res;
}

}  // namespace tessera
