// Turns an optimized logical plan into physical operators, resolving every column
// reference (ColumnBinding) to a position in its operator's input.
#pragma once
#include "execution/physical_operator.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

// join_filters: hash joins pass their build keys sideways to probe-side scans
// (operators/join_filter.hpp); false: none (SET join_filters = false).
PhysicalOperatorPtr CreatePhysicalPlan(LogicalOp& op, bool join_filters = true);

}  // namespace tessera
