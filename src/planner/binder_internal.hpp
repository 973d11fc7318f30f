// Helpers shared by the binder's source files (binder.cpp, bind_*.cpp); not part of the
// planner's interface (binder.hpp).
#pragma once
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "parser/ast.hpp"
#include "planner/binder.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

// A UserError of kind Binder at `pos` (binder.cpp).
UserError BindError(const std::string& msg, SourcePos pos);

// l = r, both sides cast to the type they are compared in (bind_expression.cpp).
BoundExprPtr MakeEquality(BoundExprPtr l, BoundExprPtr r, SourcePos pos);
// A call of the registry's scalar function `name` over bound arguments (bind_expression.cpp).
BoundExprPtr MakeScalarCall(std::string_view name, std::vector<BoundExprPtr> args, SourcePos pos);

// The query's plan with its columns cast to `types` (a projection bound (table_index, i)
// when any differs; bind_set_operation.cpp).
LogicalOpPtr CastColumns(BoundQuery q, const std::vector<Type>& types, uint32_t table_index);

// A LATERAL subquery's join waiting for its left side (Binder::BindLateral).
inline bool IsPendingJoin(const LogicalOp& op) { return op.kind == LogicalKind::Join && op.children.size() == 1; }

// The error for a construct the binder does not handle yet ("<what> is not supported yet").
inline UserError UnsupportedYet(const std::string& what, SourcePos pos) {
  return UserError(ErrorKind::Unsupported, what + " is not supported yet", pos);
}

// A cross join of l and r (bind_table_ref.cpp).
LogicalOpPtr CrossJoin(LogicalOpPtr l, LogicalOpPtr r);

// `plan` under a Limit node for the query node's LIMIT/OFFSET, if it has any
// (bind_select.cpp).
// A GROUP BY / ORDER BY position as written (digits only): -1 when it is beyond int64
// (bind_select.cpp).
int64_t SelectListPosition(const std::string& digits);

LogicalOpPtr ApplyLimit(LogicalOpPtr plan, const ast::SelectStmt& stmt);

// A name as a quoted SQL identifier and a string as a SQL literal, for the binders that
// write SQL and bind it (SUMMARIZE, PIVOT / UNPIVOT; sql_quote.cpp).
std::string QuoteIdent(const std::string& name);
std::string QuoteText(const std::string& s);

}  // namespace tessera
