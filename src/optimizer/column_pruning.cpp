#include <algorithm>
#include <map>

#include "optimizer/optimizer.hpp"

namespace tessera {

static void Collect(const LogicalOp& op, std::vector<ColumnBinding>& used) {
  auto add = [&](const std::vector<BoundExprPtr>& v) {
    for (auto& e : v) e->CollectBindings(used);
  };
  add(op.filters);
  add(op.exprs);
  add(op.groups);
  add(op.aggs);
  add(op.left_keys);
  add(op.right_keys);
  if (op.residual) op.residual->CollectBindings(used);
  for (auto& o : op.orders) o.expr->CollectBindings(used);
  // A UNION ALL (and a recursive CTE) reads every column of its inputs, by position.
  if (op.kind == LogicalKind::UnionAll || op.kind == LogicalKind::RecursiveCte)
    for (auto& c : op.children)
      for (auto& b : c->Bindings()) used.push_back(b);
  // What a Materialized node's subplan reads is its own (shared_subplans.cpp); its rows
  // are read through the node's bindings and its SharedScans'.
  if (op.kind == LogicalKind::Materialized) return;
  for (auto& c : op.children) Collect(*c, used);
}

static void Prune(LogicalOp& op, const std::vector<ColumnBinding>& used) {
  if (op.kind == LogicalKind::Get) {
    std::vector<int> keep;
    op.count_only = false;
    for (int c : op.column_ids)
      if (std::find(used.begin(), used.end(), ColumnBinding{op.table_index, (uint32_t)c}) != used.end())
        keep.push_back(c);
    if (keep.empty() && !op.column_ids.empty()) {
      // Row counts still matter (COUNT(*)): keep the narrowest column, a fixed-width one
      // not even read (count_only: the scan emits zeros of its type).
      int best = op.column_ids[0];
      for (int c : op.column_ids)
        if (op.table->schema.columns[c].type.width() < op.table->schema.columns[best].type.width()) best = c;
      keep.push_back(best);
      op.count_only = op.table->schema.columns[best].type.physical() != PhysType::Str;
    }
    op.column_ids = std::move(keep);
  }
  for (auto& c : op.children) Prune(*c, used);
}

static void Rename(BoundExpr& e, const std::map<ColumnBinding, ColumnBinding>& m) {
  if (e.kind == BExpr::Column) {
    auto it = m.find(e.binding);
    if (it != m.end()) e.binding = it->second;
  }
  for (auto& c : e.children) Rename(*c, m);
}

static void RenameAll(LogicalOp& op, const std::map<ColumnBinding, ColumnBinding>& m) {
  auto each = [&](std::vector<BoundExprPtr>& v) {
    for (auto& e : v) Rename(*e, m);
  };
  each(op.filters);
  each(op.exprs);
  each(op.groups);
  each(op.aggs);
  each(op.left_keys);
  each(op.right_keys);
  if (op.residual) Rename(*op.residual, m);
  for (auto& o : op.orders) Rename(*o.expr, m);
  for (auto& c : op.children) RenameAll(*c, m);
}

// Drops projection outputs nobody reads (SELECT * in a subquery or view), renumbering the
// references to the others. Returns whether anything was dropped.
static bool PruneProjections(LogicalOp& op, const std::vector<ColumnBinding>& used,
                             std::map<ColumnBinding, ColumnBinding>& rename, bool is_root) {
  bool changed = false;
  if (op.kind == LogicalKind::Projection && !is_root) {
    std::vector<BoundExprPtr> keep;
    for (uint32_t i = 0; i < op.exprs.size(); i++) {
      ColumnBinding b{op.table_index, i};
      bool live = std::binary_search(used.begin(), used.end(), b);
      if (!live && !(keep.empty() && i + 1 == op.exprs.size())) {  // keep at least one
        changed = true;
        continue;
      }
      rename[b] = {op.table_index, (uint32_t)keep.size()};
      keep.push_back(std::move(op.exprs[i]));
    }
    op.exprs = std::move(keep);
  }
  for (auto& c : op.children) changed |= PruneProjections(*c, used, rename, false);
  return changed;
}

std::vector<ColumnBinding> ColumnsUsed(const LogicalOp& root) {
  std::vector<ColumnBinding> used;
  Collect(root, used);
  // The root's own outputs are used by the client.
  for (auto& b : root.Bindings()) used.push_back(b);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  return used;
}

void PruneColumns(LogicalOp& root) {
  for (;;) {
    std::map<ColumnBinding, ColumnBinding> rename;
    if (!PruneProjections(root, ColumnsUsed(root), rename, true)) break;
    RenameAll(root, rename);
  }
  Prune(root, ColumnsUsed(root));
}

}  // namespace tessera
