// Turns an optimized logical plan into physical operators, resolving every column
// reference (ColumnBinding) to a position in its operator's input.
#pragma once
#include "execution/physical_operator.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

PhysicalOperatorPtr CreatePhysicalPlan(LogicalOp& op);

}  // namespace tessera
