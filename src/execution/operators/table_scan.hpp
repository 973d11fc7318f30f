// Table scan: morsel-driven over row groups (a worker takes a whole row group and walks it
// vector by vector). Pushed-down filters are evaluated inside the scan: the columns they
// need are read first, and the other columns are read only for the surviving rows (late
// materialisation); a filter's columns are read when it comes to be evaluated, only for the
// rows the filters before it kept. A filter over one dictionary-encoded VARCHAR column is
// evaluated once per dictionary entry of the row group and then looked up by code; such a
// column's rows are handed on with their codes too (Vector's dictionary form). Row
// groups whose min/max statistics rule a filter out are skipped. Join filters passed
// sideways from hash joins above (join_filter.hpp) are applied after the pushed-down
// filters, the same way (key column read for the rows still selected, row groups skipped
// by the key range); a thread stops applying one that lets most of its rows through.
#pragma once
#include "execution/operators/join_filter.hpp"
#include "execution/physical_operator.hpp"
#include "storage/catalog.hpp"

namespace tessera {

class PhysicalTableScan : public PhysicalOperator {
 public:
  PhysicalTableScan(std::shared_ptr<const TableEntry> table, std::shared_ptr<const TableData> data,
                    std::vector<int> column_ids, std::vector<BoundExprPtr> filters);
  std::string Name() const override { return "TABLE_SCAN"; }
  std::string Details() const override;
  std::unique_ptr<GlobalSourceState> InitSource() override;
  std::unique_ptr<LocalState> InitLocalSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState& ls, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return data->row_groups.size(); }
  void ResetState() override {
    PhysicalOperator::ResetState();
    groups_skipped = 0;
    rows_skipped = 0;
    join_filter_groups_skipped = 0;
  }

  std::shared_ptr<const TableEntry> table;
  std::shared_ptr<const TableData> data;
  std::vector<int> column_ids;        // schema column of each output column
  std::vector<BoundExprPtr> filters;  // indices refer to output positions
  // The one column is kept for its row count only (LogicalOp::count_only): never read,
  // its vectors stay zero (Vector::Init).
  bool count_only = false;
  // Join filters on output columns (set by the physical planner; not part of the logical
  // plan, which the GPU lowers).
  struct JoinFilterUse {
    int col;
    std::shared_ptr<const JoinKeyFilter> filter;
  };
  std::vector<JoinFilterUse> join_filters;
  // A LIMIT over this scan through projections only, without filters (set by the physical
  // planner): the first this many rows are all it needs, so no row group is started once
  // the groups before it hold them (the rest of the table is not read, or decoded).
  uint64_t row_limit = UINT64_MAX;
  std::atomic<uint64_t> groups_skipped{0};
  std::atomic<uint64_t> rows_skipped{0};  // rows of the skipped row groups
  // Row groups skipped by the join filters' key ranges (not in rows_skipped: the cost
  // model's scan rows stay those the pushed-down filters leave).
  std::atomic<uint64_t> join_filter_groups_skipped{0};
  // True when output column i is read by a pushed-down filter (read for every row).
  bool IsFilterColumn(size_t i) const { return filter_col_[i]; }

 private:
  bool GroupMayMatch(const RowGroup& rg) const;
  bool JoinFiltersMayMatch(const RowGroup& rg) const;
  std::vector<bool> filter_col_;  // output column is read by a filter
  // Per filter: the output columns it reads, and whether it may be evaluated once per
  // dictionary entry (it reads one VARCHAR column and calls no volatile function).
  std::vector<std::vector<int>> filter_cols_;
  std::vector<bool> filter_dict_;
};

}  // namespace tessera
