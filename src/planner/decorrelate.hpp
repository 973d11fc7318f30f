// The general decorrelation of a subquery (the dependent join unnested; Neumann and
// Kemper, "Unnesting Arbitrary Queries", BTW 2015), for the correlated subqueries the
// pull-up of bind_subquery.cpp cannot turn into a plain join.
//
// A subquery S referring to outer columns C is evaluated once per distinct value of C
// that the outer query holds: the domain D = DISTINCT C over a copy of the outer plan.
// PushDomain rewrites S into S', which computes S for every row of D at once and outputs
// S's columns plus D's: D is cross-joined in at the leaves that do not see C, every
// reference to C becomes a reference to D's columns, a projection passes D's columns up,
// an aggregate groups by them too (an ungrouped aggregate, which yields one row even
// over no rows, is LEFT-joined back to D, its zero_on_empty aggregates 0 where no row
// was, others NULL), a join whose sides both refer to C joins on D's columns as well.
// The caller joins S' back to the outer plan on C = D with NULLs equal (a NULL outer value
// is a value of the domain like any other).
//
// D's operator is made before the outer plan exists (the subquery is bound while its
// expression is): a placeholder, an Aggregate grouping by C with no child, which
// AttachLeft fills with a copy of the plan the join gets on its left.
#pragma once
#include <functional>
#include <vector>

#include "common/error.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

struct DependentPlan {
  LogicalOpPtr plan;                  // S': S's columns, then D's (`domain`)
  std::vector<ColumnBinding> outer;   // C: the outer columns S refers to
  std::vector<Type> types;            // their types
  std::vector<ColumnBinding> domain;  // D's columns in S' output, as `outer`
};

// Whether an expression of `op`'s subtree refers to a column of `set`.
bool SubtreeRefers(const LogicalOp& op, const std::vector<ColumnBinding>& set);
// The columns of `outer` that `op`'s subtree refers to, in first-use order.
std::vector<ColumnBinding> OuterColumnsUsed(const LogicalOp& op, const std::vector<ColumnBinding>& outer,
                                            std::vector<Type>* types = nullptr);

// S' for the subquery `plan` whose expressions refer to the outer columns `outer` (those
// it does not use are ignored). `next_index` hands out binding indices. Throws an
// Unsupported UserError at `pos` for what it cannot rewrite (LIMIT, window functions,
// set operations over correlated rows).
DependentPlan PushDomain(LogicalOpPtr plan, const std::vector<ColumnBinding>& outer, uint32_t& next_index,
                         SourcePos pos);

// `f` on each domain placeholder under `op` (not yet filled: see AttachLeft).
void ForEachDomainPlaceholder(LogicalOp& op, const std::function<void(LogicalOp&)>& f);

// The join `join` (only its right child so far) completed with `left` as its left child;
// the domain placeholders of its right side made DISTINCT over copies of `left` (an
// Unsupported error at `pos` when `left` may not give the same rows twice: LIMIT, random()).
LogicalOpPtr AttachLeft(LogicalOpPtr join, LogicalOpPtr left, SourcePos pos = {});

}  // namespace tessera
