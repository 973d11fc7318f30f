// Hash join. The right child is the build side (a pipeline ending in this operator as a
// sink); the left child streams through Execute() as the probe side. Keys are equi-join
// expressions of equal types. A single integer key whose values are dense and unique is
// looked up in a direct-mapped array (perfect hash, as star-schema dimension keys are);
// otherwise a chained hash table is used. EXPLAIN ANALYZE shows which one was built. NULL keys never match,
// except in the semi/anti joins of INTERSECT/EXCEPT (nulls_equal), where they match NULL keys.
// Those of INTERSECT ALL/EXCEPT ALL (counted) build on distinct rows with their count as
// the last build column, and each probe row uses up one of its match's count.
// Join types: see LJoinType (Mark adds one BOOLEAN column to the probe row). A Full join
// probes as a Left join and marks the build rows it matched; the build rows left unmarked
// are then emitted by a PhysicalJoinUnmatched source (join_unmatched.hpp). A RightSemi /
// RightAnti join (the side whose rows are returned builds) only marks the build rows that
// a probe row matches (where the residual is TRUE) and emits nothing while probing; the
// same source then emits the marked (RightSemi) or unmarked (RightAnti) build rows.
#pragma once
#include "execution/physical_operator.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

class PhysicalHashJoin : public PhysicalOperator {
 public:
  PhysicalHashJoin(std::vector<Type> t, LJoinType jt, std::vector<BoundExprPtr> lk,
                   std::vector<BoundExprPtr> rk, BoundExprPtr residual);
  std::string Name() const override { return "HASH_JOIN"; }
  std::string Details() const override;

  // build (sink)
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  void Combine(LocalState& ls) override;
  void Finalize() override;
  // probe (operator)
  void Execute(DataChunk& in, DataChunk& out, LocalState& ls) override;
  void ResetState() override;

  LJoinType join_type;
  std::vector<BoundExprPtr> left_keys, right_keys;
  BoundExprPtr residual;  // evaluated over (probe columns ++ build columns)
  bool single_match = false;  // see LogicalOp::single_match
  bool null_aware = false;    // see LogicalOp::null_aware
  bool nulls_equal = false;   // see LogicalOp::nulls_equal
  bool counted = false;       // see LogicalOp::counted
  std::vector<Type> build_types;  // right child's output types

  // After the build (cost model, EXPLAIN ANALYZE): build rows, and the bytes of the index a
  // probe looks a key up in (direct-mapped array or bucket heads + chains) and of the
  // build columns a match gathers from.
  uint64_t BuildRows() const { return build_rows_; }
  double IndexBytes() const { return 4.0 * (double)(dense_.size() + heads_.size() + next_.size()); }
  double BuildColumnBytes() const;

  // After every probe, the build rows in [begin, end) the join returns as output rows
  // (`probe_types` columns of NULLs, then the build columns): of a Full or RightAnti join
  // those no probe row matched, of a RightSemi join those some probe row matched.
  void EmitBuildRows(uint32_t begin, uint32_t end, const std::vector<Type>& probe_types, DataChunk& out) const;

 private:
  uint64_t Hash(const std::vector<Vector>& keys, uint32_t i) const;
  bool KeysEqual(const std::vector<Vector>& probe, uint32_t i, uint32_t row) const;
  void Match(DataChunk& in, std::vector<Vector>& keys, std::vector<uint32_t>& pi,
             std::vector<uint32_t>& bi) const;

  std::mutex mu_;
  std::vector<DataChunk> collected_;
  uint64_t build_rows_ = 0;
  std::vector<Vector> build_cols_;  // payload then keys, build_rows_ each
  size_t nkeys_ = 0;
  bool build_has_null_key_ = false;
  // counted: per build row, the count not used up yet by probe rows
  std::unique_ptr<std::atomic<int64_t>[]> remaining_;
  // Full, RightSemi, RightAnti: per build row, whether a probe row matched it
  std::unique_ptr<std::atomic<uint8_t>[]> matched_;
  // perfect hash
  bool is_dense_ = false;
  int64_t dense_min_ = 0;
  std::vector<uint32_t> dense_;  // row + 1, 0 = empty
  // chained hash table
  std::vector<uint32_t> heads_, next_;
  uint64_t mask_ = 0;
};

}  // namespace tessera
