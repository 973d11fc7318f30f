// Hash aggregation: each worker aggregates into its own table (no sharing on the hot
// path); Combine merges the thread-local tables into the global one. Without GROUP BY
// the table has exactly one group, so aggregates over empty input give SUM = NULL,
// COUNT = 0.
#pragma once
#include <array>
#include <unordered_set>

#include "execution/physical_operator.hpp"

namespace tessera {

// Per-aggregate state for every group of a table.
struct AggColumn {
  std::string name;  // count_star, count, sum, avg, min, max, var_samp, var_pop, stddev_samp, stddev_pop
  bool distinct = false;
  bool variance = false, extremum = false, is_min = false;  // of `name`, for the merge loops
  Type in_type, out_type;
  std::vector<int64_t> count;
  std::vector<int128_t> isum;
  std::vector<double> dsum;      // the variance family: the running mean
  std::vector<double> m2;        // the variance family: the sum of squared deviations
  Vector ext;                    // min/max current values
  std::vector<uint8_t> has;      // min/max: ext holds a value
  std::vector<std::unordered_set<std::string>> sets;  // DISTINCT (and approx_count_distinct)
  // any_value, arg_min, arg_max: ext holds the value kept (has), arg_min/arg_max's `by`
  // value in ext2; first: any_value keeps the first, by_min: arg_min.
  bool first = false, arg_extremum = false, by_min = false;
  Vector ext2;
  // median, quantile_cont/disc, mode, string_agg: every non-NULL value of the group, in
  // input order; fraction is the quantile's (median: 0.5), separator string_agg's (',' when
  // left out).
  bool holistic = false;
  std::vector<std::vector<Value>> lists;
  double fraction = 0.5;
  std::string separator = ",";
  bool null_separator = false;  // string_agg(x, NULL) is NULL
  // covar_samp, covar_pop, corr: mean x, mean y, co-moment, and x's and y's sums of
  // squared deviations (Welford; merged as the variance family).
  bool covariance = false;
  std::vector<std::array<double, 5>> cov;
};

class GroupTable {
 public:
  GroupTable(const std::vector<Type>& key_types, const std::vector<const BoundExpr*>& aggs);
  // Finds or creates the group of every row; gids[i] receives its id.
  void FindOrCreate(const std::vector<Vector>& keys, uint32_t n, std::vector<uint32_t>& gids);
  // input2: the second argument of the aggregates TwoInputs names (null for others).
  void Update(size_t a, const Vector* input, const std::vector<uint32_t>& gids, uint32_t n,
              const Vector* input2 = nullptr);
  // The aggregate reads a second argument per row (arg_min(x, by), corr(y, x)); others'
  // second arguments are constants the table reads once (string_agg's separator).
  static bool TwoInputs(const std::string& name);
  // Merges all groups of `other` into this table.
  void Merge(GroupTable& other);
  uint32_t groups() const { return ngroups_; }
  // Sets aggregate a's state of group g from a finished partial result (the GPU's): rows
  // counted, integer/decimal sum, double sum, and MIN/MAX's value (nullptr: none).
  void SetState(size_t a, uint32_t g, int64_t count, int128_t isum, double dsum, const Value* ext);
  // Writes groups [from, from+n) as output columns (keys then finalized aggregates).
  void Emit(uint32_t from, uint32_t n, DataChunk& out) const;

  // A table without keys as an array of states (the window operator's segment trees):
  // exactly n empty states, ids [0, n); states [from, from+n) emptied; state src merged
  // into state dst (Merge's rule for one pair of groups).
  void ResetStates(uint32_t n);
  void ClearStates(uint32_t from, uint32_t n);
  void CombineStates(uint32_t dst, uint32_t src) {
    for (size_t a = 0; a < aggs_.size(); a++) CombineState(a, dst, *this, src);
  }

 private:
  void Grow(uint32_t need);
  void Rehash();
  void CombineState(size_t a, uint32_t dst, const GroupTable& src, uint32_t sg);
  std::vector<Type> key_types_;
  std::vector<Vector> keys_;
  std::vector<uint64_t> hashes_;
  std::vector<uint64_t> hash_scratch_;  // FindOrCreate: the hashes of one batch of rows
  std::vector<uint32_t> slots_;  // gid + 1; 0 = empty
  uint64_t mask_ = 0;
  uint32_t ngroups_ = 0, capacity_ = 0;
  std::vector<AggColumn> aggs_;
};

class PhysicalHashAggregate : public PhysicalOperator {
 public:
  PhysicalHashAggregate(std::vector<Type> t, std::vector<BoundExprPtr> groups,
                        std::vector<BoundExprPtr> aggs);
  std::string Name() const override { return groups.empty() ? "UNGROUPED_AGGREGATE" : "HASH_GROUP_BY"; }
  std::string Details() const override;
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  void Combine(LocalState& ls) override;
  void Finalize() override;
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  void ResetState() override {
    PhysicalOperator::ResetState();
    global_.reset();
  }
  uint64_t SourceMorsels() const override {
    return global_ ? (global_->groups() + kVectorSize - 1) / kVectorSize : 1;
  }

  std::vector<BoundExprPtr> groups, aggs;
  std::unique_ptr<GroupTable> NewTable() const;
  // The aggregation's result computed elsewhere (the GPU backend): the operator then acts
  // as a source over it, as after Finalize.
  void SetResult(std::unique_ptr<GroupTable> table) {
    global_ = std::move(table);
    rows_out = global_->groups();
  }

 private:
  std::unique_ptr<GroupTable> global_;
};

}  // namespace tessera
