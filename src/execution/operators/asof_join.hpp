// ASOF join (LJoinType::AsOf, AsOfLeft, AsOfRight, AsOfFull; planner/bind_asof_join.cpp).
// The right child is the build side (a pipeline ending in this operator as a sink); the left
// child streams through Execute() as the probe side, on every thread of its pipeline.
//
// Keys: left_keys/right_keys are the equality keys, then, last, the inequality's two sides,
// compared by `op` (left op right: >=, >, <=, <). Each probe row matches the one build row
// with equal keys whose inequality value is nearest among those satisfying the inequality
// (>=: the greatest right value <= the left one; >: the greatest below it; <=: the least
// right value >= it; <: the least above it). Rows with a NULL key or inequality value never
// match. Among build rows tied on the nearest value the join returns one of them (which one
// depends on how the build rows arrived; DuckDB too returns any one).
//
// Build (Finalize, in parallel over the sink's threads): the sunk chunks are copied into
// one set of columns (payload, then the evaluated keys); each row without NULL keys gets
// the hash of its equality keys; rows are radix-partitioned by the hash's top bits and each
// partition is sorted by (hash, keys, inequality value), so that every distinct key is one
// run ("group") sorted by its inequality value, and the runs are sorted by hash. Probe: a
// row's hash is binary-searched among the groups, its keys compared with the groups of that
// hash, then its inequality value binary-searched within the group: O(log n) a row.
//
// AsOfRight / AsOfFull mark the build rows a probe row matched; the build rows left
// unmarked are emitted after the probe, NULL-padded on the probe side, by a
// PhysicalAsOfUnmatched source beside the join under a UNION ALL (as a FULL hash join's).
#pragma once
#include <atomic>
#include <memory>
#include <mutex>

#include "execution/physical_operator.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

class PhysicalAsOfJoin : public PhysicalOperator {
 public:
  PhysicalAsOfJoin(std::vector<Type> t, LJoinType jt, ast::Op op, std::vector<BoundExprPtr> lk,
                   std::vector<BoundExprPtr> rk);
  std::string Name() const override { return "ASOF_JOIN"; }
  std::string Details() const override;

  // build (sink)
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  void Combine(LocalState& ls) override;
  void Finalize() override;
  // probe (operator)
  std::unique_ptr<LocalState> InitLocalOperator() override;
  void Execute(DataChunk& in, DataChunk& out, LocalState& ls) override;
  void ResetState() override;

  LJoinType join_type;
  ast::Op op;  // how the last key pair compares (left op right)
  std::vector<BoundExprPtr> left_keys, right_keys;
  std::vector<Type> build_types;  // right child's output types

  uint64_t BuildRows() const { return rows_; }
  // After the probe (AsOfRight / AsOfFull): the build rows in [begin, end) no probe row
  // matched, as output rows (`probe_types` columns of NULLs, then the build columns).
  void EmitUnmatched(uint64_t begin, uint64_t end, const std::vector<Type>& probe_types, DataChunk& out) const;

 private:
  struct SinkLocal;
  struct ProbeLocal;
  // Rows of equal equality keys, cols_ rows order_[begin, end) sorted by inequality value.
  struct Group {
    uint64_t hash;
    uint32_t begin, end;
  };
  bool MarksBuildRows() const { return join_type == LJoinType::AsOfRight || join_type == LJoinType::AsOfFull; }
  bool KeepsUnmatchedProbe() const { return join_type == LJoinType::AsOfLeft || join_type == LJoinType::AsOfFull; }
  // Orders build rows a, b by (hash, equality keys, inequality value, row).
  bool RowLess(uint32_t a, uint32_t b) const;
  // The build row probe row i (of the key vectors `keys`, inequality last) matches, or
  // UINT32_MAX.
  uint32_t Find(const std::vector<const Vector*>& keys, uint32_t i) const;

  std::mutex mu_;
  std::vector<DataChunk> collected_;  // build columns, then the evaluated right keys
  uint64_t rows_ = 0;
  std::vector<Vector> cols_;  // collected_'s columns, all rows
  std::vector<uint64_t> hash_;  // per row: its equality keys' hash
  std::vector<uint32_t> order_;  // the rows without a NULL key, by (hash, keys, inequality value)
  std::vector<Group> groups_;  // by hash
  std::unique_ptr<std::atomic<uint8_t>[]> matched_;  // AsOfRight / AsOfFull
};

// After an AsOfRight / AsOfFull join's probe pipeline: its build rows no probe row matched
// (placed beside the join under a UNION ALL, whose operands' pipelines run in order).
class PhysicalAsOfUnmatched : public PhysicalOperator {
 public:
  explicit PhysicalAsOfUnmatched(const PhysicalAsOfJoin& join)
      : PhysicalOperator(PhysKind::JoinUnmatched, join.types), join_(join) {}
  std::string Name() const override { return "ASOF_JOIN_UNMATCHED"; }
  std::string Details() const override { return "build rows of " + join_.Details() + " without a match"; }
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return join_.BuildRows() / kVectorSize + 1; }

 private:
  const PhysicalAsOfJoin& join_;
};

}  // namespace tessera
