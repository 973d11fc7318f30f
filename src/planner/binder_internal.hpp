// Helpers shared by the binder's source files (binder.cpp, bind_*.cpp); not part of the
// planner's interface (binder.hpp).
#pragma once
#include <string>

#include "common/error.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

// A UserError of kind Binder at `pos` (binder.cpp).
UserError BindError(const std::string& msg, SourcePos pos);

// A cross join of l and r (bind_table_ref.cpp).
LogicalOpPtr CrossJoin(LogicalOpPtr l, LogicalOpPtr r);

}  // namespace tessera
