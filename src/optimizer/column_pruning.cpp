#include <algorithm>

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
  for (auto& c : op.children) Collect(*c, used);
}

static void Prune(LogicalOp& op, const std::vector<ColumnBinding>& used) {
  if (op.kind == LogicalKind::Get) {
    std::vector<int> keep;
    for (int c : op.column_ids)
      if (std::find(used.begin(), used.end(), ColumnBinding{op.table_index, (uint32_t)c}) != used.end())
        keep.push_back(c);
    if (keep.empty() && !op.column_ids.empty()) {
      // Row counts still matter (COUNT(*)): read the narrowest column.
      int best = op.column_ids[0];
      for (int c : op.column_ids)
        if (op.table->schema.columns[c].type.width() < op.table->schema.columns[best].type.width()) best = c;
      keep.push_back(best);
    }
    op.column_ids = std::move(keep);
  }
  for (auto& c : op.children) Prune(*c, used);
}

void PruneColumns(LogicalOp& root) {
  std::vector<ColumnBinding> used;
  Collect(root, used);
  // The root's own outputs are used by the client.
  for (auto& b : root.Bindings()) used.push_back(b);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  Prune(root, used);
}

}  // namespace tessera
