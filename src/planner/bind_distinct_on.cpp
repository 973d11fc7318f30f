// SELECT DISTINCT ON (keys): a row_number() window partitioned by the keys and ordered
// by the query's ORDER BY, and a filter keeping each partition's first row. The keys are
// output columns of the select list's projection (hidden ones when not in the list), as
// ORDER BY's are; without ORDER BY the row kept is any one of its partition.
#include <memory>

#include "planner/binder.hpp"
#include "planner/binder_internal.hpp"
#include "planner/bound_window.hpp"

namespace tessera {

LogicalOpPtr Binder::ApplyDistinctOn(LogicalOpPtr plan, const std::vector<int>& keys, const std::vector<Type>& types,
                                     const std::vector<OrderSpec>& orders) {
  const uint32_t proj = plan->table_index;
  auto info = std::make_shared<WindowInfo>();
  info->func = WindowFunc::RowNumber;
  auto w = std::make_unique<BoundExpr>(BExpr::Window, Type::BigInt());
  w->name = "row_number";
  for (int k : keys) {
    w->children.push_back(MakeColumn({proj, (uint32_t)k}, types[k], ""));
    info->partitions++;
  }
  for (const OrderSpec& o : orders) {
    w->children.push_back(o.expr->Copy());
    info->orders.push_back({o.desc, o.nulls_first});
  }
  w->window = std::move(info);
  auto win = std::make_unique<LogicalOp>(LogicalKind::Window);
  win->table_index = next_index_++;
  win->exprs.push_back(std::move(w));
  win->children.push_back(std::move(plan));
  auto first = std::make_unique<LogicalOp>(LogicalKind::Filter);
  first->filters.push_back(
      MakeCompare(ast::Op::Eq, MakeColumn({win->table_index, 0}, Type::BigInt(), "row_number"),
                  MakeConstant(Value::BigInt(1))));
  first->children.push_back(std::move(win));
  return first;
}

}  // namespace tessera
