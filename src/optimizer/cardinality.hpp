// Cardinality estimation: distinct counts from the column chunks' sketches, selectivities
// of filter terms, join sizes, and the estimated rows of every logical operator. The join
// order (join_order.cpp), the semi-join reduction and any pass choosing build sides read
// these; EXPLAIN ANALYZE and `bench --json` compare them with the rows counted by the CPU.
#pragma once
#include <vector>

#include "planner/logical_plan.hpp"

namespace tessera {

// Global min/max of a numeric or date column of a scan (DECIMAL as its value), from the
// row-group statistics. False when the column is not numeric or has no statistics.
bool ColumnRange(const LogicalOp* get, uint32_t col, double& lo, double& hi);
// Distinct non-NULL values of a column of a scan's table: the merged sketches of its chunks
// (distinct_sketch.hpp); where a chunk has none (older files, Parquet), the min/max range of
// an integer column or the dictionary size of a string column, else the row count.
double DistinctValues(const LogicalOp* get, uint32_t col);
// Estimated fraction of rows a predicate keeps; `get`: the scan whose columns it reads (its
// statistics are used), or nullptr.
double EstimateSelectivity(const BoundExpr& pred, const LogicalOp* get);
// The same for AND-ed terms (a scan's filters): range terms on one column combine into
// one range (a BETWEEN keeps the width between its bounds, not the product of two halves).
double ConjunctionSelectivity(const std::vector<BoundExprPtr>& terms, const LogicalOp* get);
// The share of a column's values that the scan's filter terms reading that column alone
// keep (1 without any): the values a join key of the scan is drawn from.
double ColumnFilterFraction(const LogicalOp* get, uint32_t col);
// The fraction of `input`'s rows a filter of these terms keeps: over a scan, as above; over
// an aggregation (HAVING), from the aggregated columns' ranges and the group size.
double FilterSelectivity(const std::vector<BoundExprPtr>& terms, const LogicalOp& input);

// What the estimator knows about a join key (an expression over an operator's output).
struct KeyEstimate {
  double ndv = 1;        // distinct values in the operator's output (after its filters)
  double domain = 1;     // distinct values of the base column (before filters)
  double base_rows = 1;  // rows of the base table (domain ~ base_rows: the column is a key)
  const LogicalOp* table = nullptr;  // the scan it comes from (nullptr: not traced to one)
  uint32_t column = 0;               // and its column there
};
// Whether every row group of the scanned table has a distinct-count sketch of column
// `col` (written since storage format 3, or refreshed by ANALYZE): without one, distinct
// counts are upper bounds (the rows, or the min/max span), which say nothing of a key.
bool DistinctCountMeasured(const LogicalOp* get, uint32_t col);
// Traces a column through projections, joins and group keys down to its scan.
KeyEstimate EstimateKey(const BoundExpr& e, const LogicalOp& op);
// Distinct values of `d` drawn when `r` of `n` rows are kept at random.
double DistinctAfterSampling(double d, double n, double r);
// Rows of an inner equi-join: |L| |R| / domain of the keys, the domain being the larger
// side's distinct count for one key; for composite keys the side whose combination is a
// key (the product of its columns' distinct counts reaches its rows) bounds it.
double InnerJoinRows(double left_rows, double right_rows, const std::vector<KeyEstimate>& left,
                     const std::vector<KeyEstimate>& right);
// The fraction of left rows a semi join keeps (1 - that for an anti join).
double SemiJoinFraction(const std::vector<KeyEstimate>& left, const std::vector<KeyEstimate>& right);

// Rows of a join of `type` of sides estimated `left_rows` and `right_rows` on these keys, its
// residual keeping the fraction `residual` of the pairs (EstimateRows' rule for a join; the
// join order's for a LEFT/semi/anti/mark join it places).
double JoinRows(LJoinType type, double left_rows, double right_rows, const std::vector<KeyEstimate>& left,
                const std::vector<KeyEstimate>& right, double residual);

// Fills in estimated_rows of every operator of the tree that has none (-1), children first.
void EstimateRows(LogicalOp& op);

}  // namespace tessera
