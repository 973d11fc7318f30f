#include "optimizer/optimizer.hpp"

namespace tessera {

LogicalOpPtr Optimize(LogicalOpPtr plan) {
  FoldConstants(*plan);
  FactorOrPredicates(*plan);
  plan = ReorderJoins(std::move(plan));
  PruneColumns(*plan);
  return plan;
}

}  // namespace tessera
