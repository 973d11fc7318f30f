// GroupTable: groups found by their keys and every aggregate's state per group (hash
// aggregation, DISTINCT, UNION's de-duplication, the window operator's frame states).
//
// The hash table is an array of 64-bit slots, each (the hash's upper 32 bits as a tag,
// group id + 1), probed linearly: a probe reads one slot and compares keys only where the
// tag matches. Keys are compared per key type (a single integer key as integers; others
// through one typed comparison function per column), hashes are computed a column at a
// time (HashGroupKeys), the slots of rows further on are prefetched (their cache misses
// overlap), slot arrays of 2 MiB and more ask for huge pages, and the keys of a batch's
// new groups are appended in one copy per column. Group ids are dense and in order of
// first appearance (UNION's de-duplication in recursive CTEs relies on it). Keys and
// aggregate inputs may come as a selected chunk's vectors with their selections: hashing,
// key comparison, the new groups' key copy and every state update read physical row
// sel[i] for the batch's row i (WithRows, common/vector.hpp), so nothing is gathered first.
//
// Each aggregate keeps only the states its kind needs (AggKind). SUM/AVG over 32/64-bit
// integers (and DECIMALs of precision <= 18) accumulate in int64 while no sum overflows
// it; the first overflow widens that aggregate's sums to int128 (`wide`), so results and
// overflow errors stay exact.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/vector.hpp"
#include "planner/bound_expr.hpp"

namespace tessera {

// What an aggregate's state is (and so which of AggColumn's vectors it uses).
enum class AggKind : uint8_t {
  CountStar,   // count
  Count,       // count
  Sum,         // sum, avg: count + lsum / isum (integers, decimals) or dsum (DOUBLE)
  BoolCount,   // bool_and, bool_or, count_if: count (non-NULL rows) + lsum (TRUE rows)
  MinMax,      // min, max: ext + has
  First,       // any_value: ext + has
  ArgExt,      // arg_min, arg_max: ext (value) + ext2 (by) + has
  Variance,    // var_*, stddev_*: count + dsum (running mean) + m2
  Covariance,  // covar_samp, covar_pop, corr: count + cov
  Bits,        // bit_and, bit_or, bit_xor: count + lsum (the bits so far; set by the first value)
  Product,     // product: count + dsum (the product so far; set by the first value)
  Kahan,       // fsum, favg: count + dsum (sum) + m2 (the compensation: the exact sum is dsum - m2)
  Moments,     // skewness, kurtosis, kurtosis_pop: count + cov (mean, M2, M3, M4)
  Holistic,    // median, quantile_*, mode, string_agg, first, last, any_value with ORDER BY: lists
  Distinct,    // count/sum/avg(DISTINCT), approx_count_distinct: sets
};

// Per-aggregate state for every group of a table.
struct AggColumn {
  std::string name;  // count_star, count, sum, avg, min, max, var_samp, var_pop, stddev_samp, stddev_pop, ...
  AggKind kind = AggKind::CountStar;
  bool distinct = false;
  bool is_min = false;  // min (of MinMax)
  Type in_type, out_type;
  std::vector<int64_t> count;
  std::vector<int64_t> lsum;     // Sum over 32/64-bit inputs while not `wide`; BoolCount: TRUE rows
  std::vector<int128_t> isum;    // Sum over 128-bit inputs, or once `wide`
  bool wide = false;             // Sum over integers: the sums live in isum
  std::vector<double> dsum;      // Sum over DOUBLE; the variance family: the running mean
  std::vector<double> m2;        // the variance family: the sum of squared deviations
  Vector ext;                    // min/max current values
  std::vector<uint8_t> has;      // min/max: ext holds a value
  std::vector<std::unordered_set<std::string>> sets;  // DISTINCT (and approx_count_distinct)
  // any_value, arg_min, arg_max: ext holds the value kept (has), arg_min/arg_max's `by`
  // value in ext2; by_min: arg_min.
  bool by_min = false;
  Vector ext2;
  // median, quantile_cont/disc, mode, string_agg: every non-NULL value of the group, in
  // input order; fraction is the quantile's (median: 0.5), separator string_agg's (',' when
  // left out).
  // With ORDER BY inside the call (order_keys > 0) each row adds its value and then its
  // order_keys key values; first and last keep NULL values (keep_nulls).
  std::vector<std::vector<Value>> lists;
  uint32_t order_keys = 0;
  std::vector<BoundExpr::AggOrder> order;
  bool keep_nulls = false;
  double fraction = 0.5;
  std::string separator = ",";
  bool null_separator = false;  // string_agg(x, NULL) is NULL
  // covar_samp, covar_pop, corr: mean x, mean y, co-moment, and x's and y's sums of
  // squared deviations (Welford; merged as the variance family).
  // skewness, kurtosis, kurtosis_pop: the running mean and sums of the 2nd, 3rd and 4th
  // powers of the deviations from it (cov[g][0..3]).
  std::vector<std::array<double, 5>> cov;

  bool IntSum() const { return kind == AggKind::Sum && in_type.physical() != PhysType::F64; }
  // The exact sum of group g (Sum over integers and decimals).
  int128_t SumAt(uint32_t g) const { return wide ? isum[g] : (int128_t)lsum[g]; }
  void Widen();                         // lsum -> isum, for good
  void AddSum(uint32_t g, int128_t v);  // checked: an overflow of 128 bits is the user's error
};

// An aggregate's inputs for a batch of rows: row i of the batch is physical row sel[i] of
// `arg` (row i where sel is null), likewise sel2 for `arg2` and key_sels[k] for `keys[k]`
// (key_sels null: all dense). A selected chunk's columns are read in place this way.
struct AggInput {
  const Vector* arg = nullptr;  // null for count(*)
  const uint32_t* sel = nullptr;
  const Vector* arg2 = nullptr;  // the second argument of the aggregates TwoInputs names
  const uint32_t* sel2 = nullptr;
  const Vector* const* keys = nullptr;  // ORDER BY keys of an aggregate with an order
  const uint32_t* const* key_sels = nullptr;
};

class GroupTable {
 public:
  GroupTable(const std::vector<Type>& key_types, const std::vector<const BoundExpr*>& aggs);
  // Finds or creates the group of every row; gids[i] receives its id. `hashes`: the rows'
  // hashes when known (a merge reuses the source table's), else computed here. `sels`:
  // row i of key k is physical row sels[k][i] of its vector (a selected chunk's columns,
  // read in place: common/vector.hpp's WithRows); null, or a null entry, for dense keys.
  void FindOrCreate(const std::vector<Vector>& keys, uint32_t n, std::vector<uint32_t>& gids);
  void FindOrCreate(const Vector* const* keys, uint32_t n, uint32_t* gids, const uint64_t* hashes = nullptr,
                    const uint32_t* const* sels = nullptr);
  // Adds rows [0, n) of `in` to the groups gids[i] of aggregate a. The one update rule per
  // aggregate kind; each input is read through its selection (AggInput).
  void Update(size_t a, const AggInput& in, const uint32_t* gids, uint32_t n);
  // The same over dense inputs. input2: the second argument of the aggregates TwoInputs
  // names (null for others); keys: the ORDER BY keys of an aggregate with an order
  // (OrderKeys of them).
  void Update(size_t a, const Vector* input, const std::vector<uint32_t>& gids, uint32_t n,
              const Vector* input2 = nullptr, const Vector* const* keys = nullptr) {
    Update(a, AggInput{input, nullptr, input2, nullptr, keys, nullptr}, gids.data(), n);
  }
  void Update(size_t a, const Vector* input, const uint32_t* gids, uint32_t n, const Vector* input2 = nullptr,
              const Vector* const* keys = nullptr) {
    Update(a, AggInput{input, nullptr, input2, nullptr, keys, nullptr}, gids, n);
  }
  // The aggregate reads a second argument per row (arg_min(x, by), corr(y, x)); others'
  // second arguments are constants the table reads once (string_agg's separator).
  static bool TwoInputs(const std::string& name);
  // Merges all groups of `other` into this table.
  void Merge(GroupTable& other);
  // Merges groups src_gids[0..n) of `other` into this table (keys found or created with
  // other's hashes, states combined). Strings are copied as views: the caller keeps their
  // bytes alive with AdoptStrings(other.StringOwners()) (once, not a batch).
  // `hashes`: the groups' hashes where the caller has them in this order (else read from other).
  void MergeGroups(const GroupTable& other, const uint32_t* src_gids, uint32_t n, const uint64_t* hashes = nullptr);
  // What keeps the bytes of this table's strings alive (keys and kept values), as one
  // owner; AdoptStrings makes this table keep such an owner.
  std::shared_ptr<const void> StringOwners() const;
  void AdoptStrings(const std::shared_ptr<const void>& owners);
  uint32_t groups() const { return ngroups_; }
  // Room for n groups without growing (a merge that knows how many groups may come).
  void Reserve(uint32_t n);
  // The stored hash of group g (a table with keys).
  uint64_t hash(uint32_t g) const { return hashes_[g]; }
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
    for (size_t a = 0; a < aggs_.size(); a++) CombineBatch(a, &dst, *this, &src, 1);
  }

 private:
  void Grow(uint32_t need);        // key and kept-value vectors hold at least `need` groups
  void ResizeStates(uint32_t n);   // every aggregate's states for groups [0, n)
  void Rehash(uint64_t slots);
  template <class Eq, class EqNew>
  void Probe(const uint64_t* h, uint32_t n, uint32_t* gids, Eq eq, EqNew eq_new);
  // Merges src's states of groups sg[i] into this table's groups dst[i], i < n. Kept
  // strings are copied as views: src is this table, or its owners were adopted.
  void CombineBatch(size_t a, const uint32_t* dst, const GroupTable& src, const uint32_t* sg, uint32_t n);
  void EmitAggregate(const AggColumn& a, uint32_t from, uint32_t n, Vector& o) const;
  std::vector<Type> key_types_;
  std::vector<Vector> keys_;
  std::vector<uint64_t> hashes_;        // per group (capacity_ entries)
  std::vector<uint64_t> hash_scratch_;  // FindOrCreate: the hashes of one batch of rows
  std::vector<uint32_t> new_rows_;      // FindOrCreate: the input rows of a batch's new groups
  std::vector<uint32_t> new_phys_;      // FindOrCreate: those rows' physical rows in a selected key
  struct FreeSlots {
    void operator()(uint64_t* p) const;
  };
  std::unique_ptr<uint64_t[], FreeSlots> slots_;  // mask_ + 1 of them: tag << 32 | (gid + 1); 0 = empty
  uint64_t mask_ = 0;
  uint32_t ngroups_ = 0, capacity_ = 0;
  std::vector<AggColumn> aggs_;
};

}  // namespace tessera
