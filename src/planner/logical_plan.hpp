// Logical plan: a tree of relational operators over bound expressions. Each operator's
// output is a list of ColumnBindings (see Bindings()); parents refer to those.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "planner/bound_expr.hpp"
#include "storage/catalog.hpp"

namespace tessera {

// UnionAll: its children's rows one after another (all of the same column types); outputs
// (table_index, i). Values: the rows of a VALUES list; outputs (table_index, i). Window:
// its child's columns, then one per window function of `exprs` (BExpr::Window), bound
// (table_index, i).
// RecursiveCte (WITH RECURSIVE): children[0] the anchor query, children[1] the recursive
// part, evaluated again over the rows the last evaluation added (its WorkingTable nodes,
// `cte_index` = this node's table_index) until it adds none; outputs every row added,
// (table_index, i). WorkingTable: those rows, `column_types`, bound (table_index, i).
// Materialized: children[0] computed once, its rows kept for the SharedScans of the same
// `shared_id` (optimizer/shared_subplans.cpp; CPU plans only). SharedScan: the rows of the
// Materialized node of its `shared_id`. Each of them reads the columns at `shared_columns`
// of those rows, under the bindings of the subplan it replaced (`shared_bindings`,
// `column_types`): children[0] may compute more columns than one reader needs (the union of
// what the copies it replaced kept).
enum class LogicalKind { Get, Filter, Projection, Join, Aggregate, Order, Limit, Dummy, UnionAll, Values, Window,
                         RecursiveCte, WorkingTable, Materialized, SharedScan };
// Mark: every probe row once, plus a BOOLEAN column (binding {table_index, 0}) saying
// whether it found a match: how [NOT] EXISTS / [NOT] IN subqueries are evaluated where
// they are not a top-level conjunct of WHERE (those become Semi/Anti joins).
// Full: a FULL OUTER join (every row of both sides; the CPU's hash join emits the build
// rows no probe row matched after the probe). RIGHT joins are bound as Left joins with
// their sides swapped.
// RightSemi/RightAnti: a Semi/Anti join with its sides swapped (optimizer/semi_join_side.cpp,
// CPU plans only): children[0] is the subquery side (probes), children[1] the side whose
// rows are returned (builds); the output is children[1]'s columns, each row of it once when
// some children[0] row matches it (RightSemi) or none does (RightAnti). Keys: left_keys over
// children[0], right_keys over children[1], as for every join.
// Right: a Left join with its sides swapped (semi_join_side.cpp, CPU plans only):
// children[1] is the preserved side (builds), children[0] the NULL-supplying side (probes);
// the output is children[0]'s columns then children[1]'s, the matched pairs, then each
// children[1] row no children[0] row matched, with NULLs for children[0]'s columns.
// AsOf / AsOfLeft / AsOfRight / AsOfFull: ASOF joins (planner/bind_asof_join.cpp,
// execution/operators/asof_join.hpp). left_keys/right_keys hold the equality keys and, last,
// the inequality's two sides, compared by `asof_op` (left_keys.back() asof_op
// right_keys.back(), one of >=, >, <=, <): each children[0] row matches the one children[1]
// row with equal keys whose inequality value is nearest among those satisfying it (none:
// dropped by AsOf/AsOfRight, NULL-padded by AsOfLeft/AsOfFull); AsOfRight/AsOfFull also
// emit each children[1] row no children[0] row matched, NULL-padded. Never reordered; the
// last key pair is no equality (passes that read keys as equalities skip these joins).
enum class LJoinType { Inner, Left, Semi, Anti, Cross, Mark, Full, RightSemi, RightAnti, Right, AsOf, AsOfLeft, AsOfRight, AsOfFull };
inline bool IsAsOf(LJoinType t) {
  return t == LJoinType::AsOf || t == LJoinType::AsOfLeft || t == LJoinType::AsOfRight || t == LJoinType::AsOfFull;
}
// Whether the join returns only one side's rows: children[0]'s (Semi, Anti) or
// children[1]'s (RightSemi, RightAnti).
inline bool ReturnsLeftOnly(LJoinType t) { return t == LJoinType::Semi || t == LJoinType::Anti; }
inline bool ReturnsRightOnly(LJoinType t) { return t == LJoinType::RightSemi || t == LJoinType::RightAnti; }
// ">=", ">", "<=", "<": an ASOF join's `asof_op` (EXPLAIN).
std::string AsOfOpText(ast::Op op);
// "INNER", "LEFT", ... (EXPLAIN).
const char* JoinTypeName(LJoinType t);

struct OrderSpec {
  BoundExprPtr expr;
  bool desc = false;
  bool nulls_first = false;
};

struct LogicalOp;
using LogicalOpPtr = std::unique_ptr<LogicalOp>;

struct LogicalOp {
  LogicalKind kind;
  std::vector<LogicalOpPtr> children;

  // Get: table, its binding index, the schema columns read (pruned by the optimizer)
  std::shared_ptr<const TableEntry> table;
  std::string alias;
  uint32_t table_index = 0;
  std::vector<int> column_ids;
  // Get: column_ids is one fixed-width column kept only for the row count (COUNT(*)): no
  // operator reads its values, so the scan emits zeros without reading (or decoding) it.
  bool count_only = false;
  // Get: pushed-down filter terms; Filter: its terms (AND-ed)
  std::vector<BoundExprPtr> filters;

  // Projection: exprs, outputs (table_index, i); Join (Mark): the mark's binding table
  std::vector<BoundExprPtr> exprs;

  // Join: equi-keys (left_keys[i] = right_keys[i]) and, for non-inner joins, a residual
  LJoinType join_type = LJoinType::Inner;
  std::vector<BoundExprPtr> left_keys, right_keys;
  BoundExprPtr residual;
  // Left join of a scalar subquery: a probe row matching two build rows is an error.
  bool single_match = false;
  // Mark join of IN (SELECT ...): SQL's NULL semantics (no match is NULL, not FALSE,
  // when the probe key is NULL or the build side holds a NULL key, unless it is empty).
  bool null_aware = false;
  // Semi/Anti join of INTERSECT/EXCEPT: NULL keys equal NULL keys (set semantics).
  bool nulls_equal = false;
  // Semi/Anti join of INTERSECT ALL/EXCEPT ALL: the build side is grouped on the keys with
  // a COUNT(*) as its last column; each probe row uses up one of its group's count (Semi
  // keeps the rows that found one left, Anti the others).
  bool counted = false;
  // AsOf joins: how the last key pair compares (Ge, Gt, Le, Lt; see LJoinType).
  ast::Op asof_op = ast::Op::Ge;

  // Aggregate: groups -> (group_index, i), aggregates (BExpr::Agg) -> (agg_index, i)
  uint32_t group_index = 0, agg_index = 0;
  std::vector<BoundExprPtr> groups, aggs;

  // Values: one expression per column of each row (no column references)
  std::vector<std::vector<BoundExprPtr>> values;

  // Order
  std::vector<OrderSpec> orders;
  // Limit
  int64_t limit = -1;
  int64_t offset = 0;
  double limit_percent = -1;  // LIMIT p%: the first floor(rows * p / 100) rows (limit is then -1)

  // RecursiveCte: UNION (a row already added is not added again) rather than UNION ALL
  bool distinct_rows = false;
  // WorkingTable: the RecursiveCte's table_index, and the column types
  uint32_t cte_index = 0;
  std::vector<Type> column_types;

  // Materialized / SharedScan: which materialization; the positions of the columns read
  // from its rows, and their output bindings (with column_types)
  uint32_t shared_id = 0;
  std::vector<uint32_t> shared_columns;
  std::vector<ColumnBinding> shared_bindings;

  double estimated_rows = -1;

  explicit LogicalOp(LogicalKind k) : kind(k) {}
  // A deep copy (same bindings: only for a place no operator sees both copies from). A
  // field added to LogicalOp must be copied there too.
  LogicalOpPtr Copy() const;
  std::vector<ColumnBinding> Bindings() const;
  std::vector<Type> Types() const;
  std::string ToString(int indent = 0) const;
};

// The largest binding index (table, group or aggregate index) `op` and its subtree use: a
// pass making new bindings numbers them above it.
uint32_t LargestBindingIndex(const LogicalOp& op);
// A deep copy of the closed subtree `op` (its column references are to its own columns)
// under fresh binding indices, numbered from `next` (which moves past them): the copy and
// the original can stand in one plan. `fresh` maps each old index to its new one.
LogicalOpPtr CopyWithFreshBindings(const LogicalOp& op, uint32_t& next, std::map<uint32_t, uint32_t>& fresh);

// Every expression of `op` itself (not its children's).
void ForEachOwnExpr(LogicalOp& op, const std::function<void(BoundExprPtr&)>& f);
void ForEachOwnExpr(const LogicalOp& op, const std::function<void(const BoundExpr&)>& f);

}  // namespace tessera
