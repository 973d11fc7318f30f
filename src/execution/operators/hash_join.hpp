// Hash join. The right child is the build side (a pipeline ending in this operator as a
// sink); the left child streams through Execute() as the probe side. Keys are equi-join
// expressions of equal types. A single integer key whose values are dense and unique (or
// dense at all, for semi, anti and mark joins without a residual, which only ask whether a
// key is there) is looked up in a direct-mapped array (perfect hash, as star-schema
// dimension keys are);
// otherwise a partitioned hash table (join_hash_table.hpp), built in parallel from key
// words and hashes computed a chunk at a time in the sink. EXPLAIN ANALYZE shows which one
// was built. NULL keys never match,
// except in the semi/anti joins of INTERSECT/EXCEPT (nulls_equal), where they match NULL keys.
// A single VARCHAR probe key in dictionary form (a scan of a dictionary-encoded chunk,
// common/vector.hpp) is hashed and looked up once per dictionary entry its rows use, and
// each row then finds its build rows by its code (DictProbe).
// Those of INTERSECT ALL/EXCEPT ALL (counted) build on distinct rows with their count as
// the last build column, and each probe row uses up one of its match's count.
// Join types: see LJoinType (Mark adds one BOOLEAN column to the probe row). A Full join
// probes as a Left join and marks the build rows it matched; the build rows left unmarked
// are then emitted by a PhysicalJoinUnmatched source (join_unmatched.hpp); a Right join (a
// Left join built on its preserved side) probes as an Inner join, marking the same way,
// and that source emits its unmarked build rows too. A RightSemi /
// RightAnti join (the side whose rows are returned builds) only marks the build rows that
// a probe row matches (where the residual is TRUE) and emits nothing while probing; the
// same source then emits the marked (RightSemi) or unmarked (RightAnti) build rows.
#pragma once
#include "execution/operators/join_filter.hpp"
#include "execution/operators/join_hash_table.hpp"
#include "execution/physical_operator.hpp"
#include "planner/logical_plan.hpp"

namespace tessera {

class SelPool;  // execution/selection.hpp

class PhysicalHashJoin : public PhysicalOperator {
 public:
  PhysicalHashJoin(std::vector<Type> t, LJoinType jt, std::vector<BoundExprPtr> lk,
                   std::vector<BoundExprPtr> rk, BoundExprPtr residual);
  std::string Name() const override { return "HASH_JOIN"; }
  std::string Details() const override;

  // build (sink)
  std::unique_ptr<LocalState> InitLocalSink() override;
  void Sink(DataChunk& in, LocalState& ls) override;
  // A selected build chunk is kept selected (its keys gathered) and gathered once, into the
  // build columns.
  bool SinkTakesSelection() const override { return true; }
  void Combine(LocalState& ls) override;
  void Finalize() override;
  // probe (operator)
  std::unique_ptr<LocalState> InitLocalOperator() override;
  void Execute(DataChunk& in, DataChunk& out, LocalState& ls) override;
  // A selected probe chunk: keys evaluated through its selection, the probe columns handed
  // on as a selection composed with it.
  bool ExecuteTakesSelection() const override { return true; }
  void ResetState() override;

  LJoinType join_type;
  std::vector<BoundExprPtr> left_keys, right_keys;
  BoundExprPtr residual;  // evaluated over (probe columns ++ build columns)
  bool single_match = false;  // see LogicalOp::single_match
  bool null_aware = false;    // see LogicalOp::null_aware
  bool nulls_equal = false;   // see LogicalOp::nulls_equal
  bool counted = false;       // see LogicalOp::counted
  std::vector<Type> build_types;  // right child's output types
  // The filter this join passes sideways to the scan of its probe key (join_filter.hpp),
  // filled when the build finishes; null when none was attached.
  std::shared_ptr<JoinKeyFilter> key_filter;
  // Whether a probe row whose key no build row has can be dropped before the join (its
  // type returns nothing for it) and the one key is an integer column compared as such:
  // the physical planner then may attach a key filter.
  bool CanFilterProbe() const;

  // After the build (cost model, EXPLAIN ANALYZE): build rows, and the bytes of the index a
  // probe looks a key up in (direct-mapped array, or hash table entries and chains) and of
  // the build columns a match gathers from (none for joins that gather none).
  uint64_t BuildRows() const { return build_rows_; }
  double IndexBytes() const { return 4.0 * (double)dense_.size() + 8.0 * (double)presence_.BitmapWords() + table_.Bytes(); }
  double BuildColumnBytes() const;

  // After every probe, the build rows in [begin, end) the join returns as output rows
  // (`probe_types` columns of NULLs, then the build columns): of a Full, Right or RightAnti join
  // those no probe row matched, of a RightSemi join those some probe row matched.
  void EmitBuildRows(uint32_t begin, uint32_t end, const std::vector<Type>& probe_types, DataChunk& out) const;

 private:
  struct BuildLocal;
  struct ProbeLocal;
  // Whether matches read build columns (all joins but semi, anti and mark without a
  // residual): otherwise the build keeps only its keys' index.
  bool GathersBuildColumns() const;
  // Whether a probe row only asks if its key has a match (semi, anti, mark without a
  // residual or counts): the table then keeps one row per key.
  bool FirstMatchOnly() const;
  void PlanKeys();
  void FillKeySet(JoinKeyFilter& f);
  void KeyWords(const std::vector<const Vector*>& keys, uint32_t n, uint64_t* words) const;
  struct BuildChunk;
  // f(row, word, hash) over a sunk chunk's rows that go into the hash table.
  template <class F>
  void ForTableRows(const BuildChunk& b, F&& f) const;
  bool KeysEqual(const std::vector<const Vector*>& probe, uint32_t i, uint32_t row) const;
  void Match(uint32_t n, const std::vector<const Vector*>& keys, ProbeLocal& L) const;
  bool DictProbe(uint32_t n, const Vector& key, const uint8_t* valid, ProbeLocal& L) const;
  void Assemble(const DataChunk& in, const std::vector<uint32_t>& p, const std::vector<uint32_t>& b, DataChunk& o,
                const std::vector<uint8_t>* only) const;
  void SelectProbe(DataChunk& in, const std::vector<uint32_t>& p, const std::vector<uint32_t>& b, DataChunk& o,
                   SelPool& pool) const;

  // A sunk chunk: its payload columns (those the sink does not read may be selected:
  // DataChunk::sel), then the keys that are not payload columns, and each row's key word
  // (packed key or hash).
  struct BuildChunk {
    DataChunk chunk;
    std::vector<uint64_t> words;
    std::vector<uint32_t> radix_rows;  // rows the table gets per hash radix (JoinHashTable::Radix)
    bool null_key = false;  // some row has a NULL key
  };
  std::vector<BuildChunk> collected_;
  uint64_t build_rows_ = 0;
  // Key plan (from the key expressions, before the build): where each key is among a build
  // chunk's columns (a payload column, or evaluated and appended), and whether the keys
  // pack into one word (hashing.hpp PackableKeys).
  std::once_flag keys_planned_;
  std::vector<size_t> key_col_;
  std::vector<Type> build_col_types_;  // of the build_ncols_ columns
  // Per column of (probe ++ build): whether the residual reads it (only those are gathered
  // for it; a semi, anti or mark join keeps only those build columns).
  std::vector<uint8_t> residual_reads_;
  size_t build_ncols_ = 0;  // payload + appended key columns
  bool packed_ = false;
  std::vector<Vector> build_cols_;  // build_ncols_ columns of build_rows_ (those gathered or compared)
  size_t nkeys_ = 0;
  bool build_has_null_key_ = false;
  // counted: per build row, the count not used up yet by probe rows
  std::unique_ptr<std::atomic<int64_t>[]> remaining_;
  // Full, Right, RightSemi, RightAnti: per build row, whether a probe row matched it
  std::unique_ptr<std::atomic<uint8_t>[]> matched_;
  // Probe chunks matched by dictionary codes (DictProbe); EXPLAIN ANALYZE shows them.
  mutable std::atomic<uint64_t> dict_probe_chunks_{0};
  // perfect hash
  bool is_dense_ = false;
  int64_t dense_min_ = 0;
  UninitVector<uint32_t> dense_;  // row + 1, 0 = empty (zeroed in parallel)
  // One integer key whose span is at most kPresenceBits values, in a hash table, and no
  // key_filter: the build keys' set (a bit per value of the span), which the probe tests
  // before any hashing.
  JoinKeyFilter presence_;
  // single integer key: range of the build's non-NULL keys (from the sink)
  int64_t key_min_ = INT64_MAX, key_max_ = INT64_MIN;
  // hash table
  JoinHashTable table_;
};

}  // namespace tessera
