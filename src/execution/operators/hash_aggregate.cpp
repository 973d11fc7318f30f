#include "execution/operators/hash_aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "common/decimal.hpp"
#include "execution/expression_executor.hpp"
#include "execution/hashing.hpp"
#include "function/arith_errors.hpp"
#include "function/scalar_ops.hpp"

namespace tessera {

// An exact (128-bit) SUM or AVG accumulator overflowed: an error, as in DuckDB.
[[noreturn]] static void SumOverflow(const AggColumn& a) {
  throw UserError(ErrorKind::Conversion, ops::SumOverflowMessage(a.name == "avg" ? "AVG" : "SUM", a.in_type));
}

static bool IsVariance(const std::string& n) {
  return n == "var_samp" || n == "var_pop" || n == "stddev_samp" || n == "stddev_pop";
}
static bool IsCovariance(const std::string& n) { return n == "covar_samp" || n == "covar_pop" || n == "corr"; }
static bool IsHolistic(const std::string& n) {
  return n == "median" || n == "quantile_cont" || n == "quantile_disc" || n == "mode" || n == "string_agg";
}
bool GroupTable::TwoInputs(const std::string& n) { return n == "arg_min" || n == "arg_max" || IsCovariance(n); }

GroupTable::GroupTable(const std::vector<Type>& key_types, const std::vector<const BoundExpr*>& aggs)
    : key_types_(key_types) {
  for (auto* a : aggs) {
    AggColumn c;
    c.name = a->name;
    // approx_count_distinct counts exactly: count(DISTINCT x)'s set.
    c.distinct = a->distinct || c.name == "approx_count_distinct";
    c.out_type = a->type;
    c.in_type = a->children.empty() ? Type::BigInt() : a->children[0]->type;
    c.first = c.name == "any_value";
    c.arg_extremum = c.name == "arg_min" || c.name == "arg_max";
    c.by_min = c.name == "arg_min";
    c.holistic = IsHolistic(c.name);
    c.covariance = IsCovariance(c.name);
    if (c.name == "min" || c.name == "max" || c.first || c.arg_extremum) c.ext.Init(c.in_type, 16);
    if (c.arg_extremum) c.ext2.Init(a->children[1]->type, 16);
    if (c.holistic && a->children.size() > 1) {  // the constant quantile or separator
      const Value& v = a->children[1]->value;
      if (c.name == "string_agg") {
        c.null_separator = v.is_null();
        if (!v.is_null()) c.separator = v.str_value();
      }
      else c.fraction = v.double_value();
    }
    c.variance = IsVariance(c.name);
    c.extremum = c.name == "min" || c.name == "max";
    c.is_min = c.name == "min";
    aggs_.push_back(std::move(c));
  }
  keys_.resize(key_types_.size());
  for (size_t k = 0; k < keys_.size(); k++) keys_[k].Init(key_types_[k], 16);
  capacity_ = 16;
  slots_.assign(64, 0);
  mask_ = 63;
  if (key_types_.empty()) {  // the single group of an ungrouped aggregate
    std::vector<uint32_t> g;
    FindOrCreate({}, 1, g);
  }
}

static void GrowVector(Vector& v, uint32_t used, uint32_t cap) {
  Vector nv(v.type(), cap);
  CopyRows(v, nullptr, used, nv, 0);
  nv.ShareStrings(v);
  v = std::move(nv);
}

void GroupTable::Grow(uint32_t need) {
  if (need <= capacity_) {
    return;
  }
  uint32_t cap = capacity_;
  while (cap < need) cap *= 2;
  for (auto& k : keys_) GrowVector(k, ngroups_, cap);
  for (auto& a : aggs_) {
    if (a.name == "min" || a.name == "max" || a.first || a.arg_extremum) GrowVector(a.ext, ngroups_, cap);
    if (a.arg_extremum) GrowVector(a.ext2, ngroups_, cap);
  }
  capacity_ = cap;
}

void GroupTable::Rehash() {
  uint64_t cap = (mask_ + 1) * 2;
  slots_.assign(cap, 0);
  mask_ = cap - 1;
  for (uint32_t g = 0; g < ngroups_; g++) {
    uint64_t s = hashes_[g] & mask_;
    while (slots_[s]) s = (s + 1) & mask_;
    slots_[s] = g + 1;
  }
}

void GroupTable::FindOrCreate(const std::vector<Vector>& keys, uint32_t n, std::vector<uint32_t>& gids) {
  gids.resize(n);
  if (key_types_.empty()) {
    if (ngroups_ == 0) {
      ngroups_ = 1;
      hashes_.push_back(0);
      for (auto& a : aggs_) {
        a.count.push_back(0);
        a.isum.push_back(0);
        a.dsum.push_back(0);
        a.m2.push_back(0);
        a.has.push_back(0);
        if (a.distinct) a.sets.emplace_back();
        if (a.holistic) a.lists.emplace_back();
        if (a.covariance) a.cov.push_back({});
      }
    }
    std::fill(gids.begin(), gids.end(), 0);
    return;
  }
  hash_scratch_.resize(n);
  HashRows(keys, n, hash_scratch_.data());
  for (uint32_t i = 0; i < n; i++) {
    const uint64_t h = hash_scratch_[i];
    uint64_t s = h & mask_;
    for (;;) {
      uint32_t g = slots_[s];
      if (!g) break;
      g--;
      if (hashes_[g] == h) {
        bool eq = true;
        for (size_t k = 0; k < keys.size() && eq; k++) eq = ValuesEqual(keys[k], i, keys_[k], g);
        if (eq) { gids[i] = g; goto found; }
      }
      s = (s + 1) & mask_;
    }
    {
      uint32_t g = ngroups_;
      Grow(g + 1);
      for (size_t k = 0; k < keys.size(); k++) CopyRows(keys[k], &i, 1, keys_[k], g);
      hashes_.push_back(h);
      for (auto& a : aggs_) {
        a.count.push_back(0);
        a.isum.push_back(0);
        a.dsum.push_back(0);
        a.m2.push_back(0);
        a.has.push_back(0);
        if (a.distinct) a.sets.emplace_back();
        if (a.holistic) a.lists.emplace_back();
        if (a.covariance) a.cov.push_back({});
      }
      ngroups_++;
      slots_[s] = g + 1;
      gids[i] = g;
      if ((uint64_t)ngroups_ * 2 > mask_ + 1) Rehash();
    }
  found:;
  }
}

static std::string CellBytes(const Vector& v, uint32_t i) {
  if (v.type().physical() == PhysType::Str) return std::string(v.data<StrRef>()[i]);
  size_t w = (size_t)v.type().width();
  return std::string((const char*)v.raw() + i * w, w);
}

// var_samp, var_pop, stddev_samp, stddev_pop: count, running mean (dsum) and sum of
// squared deviations (m2), updated with Welford's method and merged with Chan's, in double
// (DuckDB's results and types: DOUBLE, NULL for fewer than two rows of a sample).

static void VarianceUpdate(AggColumn& a, const Vector& in, const std::vector<uint32_t>& gids, uint32_t n) {
  const int scale = in.type().id == TypeId::Decimal ? in.type().scale : 0;
  DispatchPhys(in.type().physical(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, int128_t>) {
      for (uint32_t i = 0; i < n; i++) {
        if (!in.IsValid(i)) continue;
        const T v = in.data<T>()[i];
        double x;
        if constexpr (std::is_floating_point_v<T>) x = v;
        else x = ops::DecimalToDouble((__int128)v, scale);
        const uint32_t g = gids[i];
        const double delta = x - a.dsum[g];
        a.dsum[g] += delta / (double)++a.count[g];
        a.m2[g] += delta * (x - a.dsum[g]);
      }
    }
  });
}

static void VarianceCombine(AggColumn& a, uint32_t g, const AggColumn& b, uint32_t sg) {
  const double na = (double)a.count[g], nb = (double)b.count[sg];
  if (nb == 0) return;
  const double delta = b.dsum[sg] - a.dsum[g], total = na + nb;
  a.dsum[g] += delta * nb / total;
  a.m2[g] += b.m2[sg] + delta * delta * na * nb / total;
  a.count[g] += b.count[sg];
}

// covar_samp, covar_pop, corr over DOUBLE arguments (y, x): rows where both are non-NULL.
static void CovarianceUpdate(AggColumn& a, const Vector& y, const Vector& x, const std::vector<uint32_t>& gids,
                             uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (!y.IsValid(i) || !x.IsValid(i)) continue;
    const uint32_t g = gids[i];
    auto& c = a.cov[g];  // mean x, mean y, co-moment, m2 x, m2 y
    const double xv = x.data<double>()[i], yv = y.data<double>()[i];
    const double cnt = (double)++a.count[g];
    const double dx = xv - c[0], dy = yv - c[1];
    c[0] += dx / cnt;
    c[1] += dy / cnt;
    c[2] += dx * (yv - c[1]);
    c[3] += dx * (xv - c[0]);
    c[4] += dy * (yv - c[1]);
  }
}

static void CovarianceCombine(AggColumn& a, uint32_t g, const AggColumn& b, uint32_t sg) {
  const double na = (double)a.count[g], nb = (double)b.count[sg];
  if (nb == 0) return;
  auto& c = a.cov[g];
  const auto& d = b.cov[sg];
  const double total = na + nb, dx = d[0] - c[0], dy = d[1] - c[1];
  c[2] += d[2] + dx * dy * na * nb / total;
  c[3] += d[3] + dx * dx * na * nb / total;
  c[4] += d[4] + dy * dy * na * nb / total;
  c[0] += dx * nb / total;
  c[1] += dy * nb / total;
  a.count[g] += b.count[sg];
}

// arg_min/arg_max: row i of (x, by) replaces group g's pair where its `by` is smaller
// (greater); ties keep the first.
static bool ArgBetter(const AggColumn& a, const Vector& by, uint32_t i, uint32_t g) {
  if (!a.has[g]) return true;
  bool better = false;
  DispatchPhys(by.type().physical(), [&]<class T>() {
    const T x = by.data<T>()[i], cur = a.ext2.data<T>()[g];
    better = a.by_min ? ops::LessThan(x, cur) : ops::LessThan(cur, x);
  });
  return better;
}

// sum/avg when the table has one group (an aggregate without GROUP BY, or one group so
// far): the same additions in the same order, accumulated in registers instead of the
// group's state per row. 32/64-bit integers add in 64 bits (DECIMAL(15,2) and BIGINT sums
// need no 128-bit add per row) and widen into the 128-bit total when a partial sum would
// overflow; 128-bit inputs keep the checked 128-bit add; DOUBLE adds in row order.
static void SumOneGroup(AggColumn& a, const Vector& in, uint32_t n) {
  const bool nulls = in.has_nulls();
  int64_t rows = 0;
  auto add_narrow = [&]<class T>() {
    const T* d = in.data<T>();
    int128_t wide = 0;
    int64_t part = 0;
    for (uint32_t i = 0; i < n; i++) {
      if (nulls && !in.IsValid(i)) continue;
      int64_t next;
      if (__builtin_add_overflow(part, (int64_t)d[i], &next)) {
        wide += part;
        next = (int64_t)d[i];
      }
      part = next;
      rows++;
    }
    a.isum[0] += wide + part;  // at most 2^32 rows of 64-bit values: no 128-bit overflow
  };
  switch (in.type().physical()) {
    case PhysType::I32: add_narrow.operator()<int32_t>(); break;
    case PhysType::I64: add_narrow.operator()<int64_t>(); break;
    case PhysType::I128: {
      const int128_t* d = in.data<int128_t>();
      int128_t acc = a.isum[0];
      for (uint32_t i = 0; i < n; i++) {
        if (nulls && !in.IsValid(i)) continue;
        if (!ops::AddChecked(acc, d[i], acc)) SumOverflow(a);
        rows++;
      }
      a.isum[0] = acc;
      break;
    }
    case PhysType::F64: {
      const double* d = in.data<double>();
      double acc = a.dsum[0];
      for (uint32_t i = 0; i < n; i++) {
        if (nulls && !in.IsValid(i)) continue;
        acc += d[i];
        rows++;
      }
      a.dsum[0] = acc;
      break;
    }
    default: throw InternalError("sum over " + in.type().ToString());
  }
  a.count[0] += rows;
}

void GroupTable::Update(size_t ai, const Vector* in, const std::vector<uint32_t>& gids, uint32_t n,
                        const Vector* in2) {
  AggColumn& a = aggs_[ai];
  if (!a.distinct && IsVariance(a.name)) return VarianceUpdate(a, *in, gids, n);
  if (a.covariance) return CovarianceUpdate(a, *in, *in2, gids, n);
  if (a.holistic) {
    for (uint32_t i = 0; i < n; i++)
      if (in->IsValid(i)) a.lists[gids[i]].push_back(in->GetValue(i));
    return;
  }
  if (a.first) {
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t g = gids[i];
      if (a.has[g] || !in->IsValid(i)) continue;
      CopyRows(*in, &i, 1, a.ext, g);
      a.has[g] = 1;
    }
    if (in->type().physical() == PhysType::Str) a.ext.ShareStrings(*in);
    return;
  }
  if (a.arg_extremum) {
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t g = gids[i];
      if (!in->IsValid(i) || !in2->IsValid(i) || !ArgBetter(a, *in2, i, g)) continue;
      CopyRows(*in, &i, 1, a.ext, g);
      CopyRows(*in2, &i, 1, a.ext2, g);
      a.has[g] = 1;
    }
    if (in->type().physical() == PhysType::Str) a.ext.ShareStrings(*in);
    if (in2->type().physical() == PhysType::Str) a.ext2.ShareStrings(*in2);
    return;
  }
  if (a.name == "bool_and" || a.name == "bool_or" || a.name == "count_if") {  // count: rows, isum: trues
    const uint8_t* d = in->data<uint8_t>();
    for (uint32_t i = 0; i < n; i++) {
      if (!in->IsValid(i)) continue;
      a.count[gids[i]]++;
      a.isum[gids[i]] += d[i] != 0;
    }
    return;
  }
  if (a.name == "count_star") {
    if (ngroups_ == 1) {  // every gid is 0
      a.count[0] += n;
      return;
    }
    for (uint32_t i = 0; i < n; i++) a.count[gids[i]]++;
    return;
  }
  if (a.distinct) {
    for (uint32_t i = 0; i < n; i++)
      if (in->IsValid(i)) a.sets[gids[i]].insert(CellBytes(*in, i));
    return;
  }
  PhysType p = in->type().physical();
  if (a.name == "count") {
    for (uint32_t i = 0; i < n; i++) a.count[gids[i]] += in->IsValid(i);
    return;
  }
  if (a.name == "sum" || a.name == "avg") {
    bool nulls = in->has_nulls();
    if (ngroups_ == 1) return SumOneGroup(a, *in, n);  // every gid is 0
    auto add_int = [&]<class T>() {
      const T* d = in->data<T>();
      for (uint32_t i = 0; i < n; i++) {
        if (nulls && !in->IsValid(i)) continue;
        int128_t& acc = a.isum[gids[i]];
        if constexpr (std::is_same_v<T, int128_t>) {  // 32/64-bit inputs cannot overflow 128 bits
          if (!ops::AddChecked(acc, d[i], acc)) SumOverflow(a);
        } else {
          acc += d[i];
        }
        a.count[gids[i]]++;
      }
    };
    switch (p) {
      case PhysType::I32: add_int.operator()<int32_t>(); break;
      case PhysType::I64: add_int.operator()<int64_t>(); break;
      case PhysType::I128: add_int.operator()<int128_t>(); break;
      case PhysType::F64: {
        const double* d = in->data<double>();
        for (uint32_t i = 0; i < n; i++) {
          if (nulls && !in->IsValid(i)) continue;
          a.dsum[gids[i]] += d[i];
          a.count[gids[i]]++;
        }
        break;
      }
      default: throw InternalError("sum over " + in->type().ToString());
    }
    return;
  }
  // min / max
  bool is_min = a.name == "min";
  DispatchPhys(p, [&]<class T>() {
    const T* d = in->data<T>();
    T* cur = a.ext.data<T>();
    for (uint32_t i = 0; i < n; i++) {
      if (!in->IsValid(i)) continue;
      uint32_t g = gids[i];
      if (!a.has[g] || (is_min ? ops::LessThan(d[i], cur[g]) : ops::LessThan(cur[g], d[i]))) {
        cur[g] = d[i];
        a.has[g] = 1;
      }
    }
  });
  if (p == PhysType::Str) a.ext.ShareStrings(*in);
}

void GroupTable::CombineState(size_t ai, uint32_t g, const GroupTable& src, uint32_t sg) {
  AggColumn& a = aggs_[ai];
  const AggColumn& b = src.aggs_[ai];
  if (a.distinct && !a.holistic && a.name != "count_if") {  // those two keep their DISTINCT otherwise
    a.sets[g].insert(b.sets[sg].begin(), b.sets[sg].end());
    return;
  }
  if (a.variance) return VarianceCombine(a, g, b, sg);
  if (a.covariance) return CovarianceCombine(a, g, b, sg);
  if (a.holistic) {
    a.lists[g].insert(a.lists[g].end(), b.lists[sg].begin(), b.lists[sg].end());
    return;
  }
  if ((a.first || a.arg_extremum) && b.has[sg]) {
    if (a.first ? a.has[g] : !ArgBetter(a, b.ext2, sg, g)) return;
    CopyRows(b.ext, &sg, 1, a.ext, g);
    if (a.ext.type().physical() == PhysType::Str) a.ext.ShareStrings(b.ext);
    if (a.arg_extremum) {
      CopyRows(b.ext2, &sg, 1, a.ext2, g);
      if (a.ext2.type().physical() == PhysType::Str) a.ext2.ShareStrings(b.ext2);
    }
    a.has[g] = 1;
    return;
  }
  a.count[g] += b.count[sg];
  if (!ops::AddChecked(a.isum[g], b.isum[sg], a.isum[g])) SumOverflow(a);
  a.dsum[g] += b.dsum[sg];
  if (a.extremum && b.has[sg]) {
    bool is_min = a.is_min;
    DispatchPhys(a.in_type.physical(), [&]<class T>() {
      T x = b.ext.data<T>()[sg];
      T& cur = a.ext.data<T>()[g];
      if (!a.has[g] || (is_min ? ops::LessThan(x, cur) : ops::LessThan(cur, x))) cur = x;
    });
    a.has[g] = 1;
    if (a.in_type.physical() == PhysType::Str) a.ext.ShareStrings(b.ext);
  }
}

void GroupTable::SetState(size_t ai, uint32_t g, int64_t count, int128_t isum, double dsum, const Value* ext) {
  AggColumn& a = aggs_[ai];
  a.count[g] = count;
  a.isum[g] = isum;
  a.dsum[g] = dsum;
  if (ext) {
    a.ext.SetValue(g, *ext);
    a.has[g] = 1;
  }
}

void GroupTable::ResetStates(uint32_t n) {
  TESSERA_ASSERT(key_types_.empty(), "ResetStates on a table with keys");
  Grow(std::max<uint32_t>(n, 1));
  ngroups_ = n;
  hashes_.assign(n, 0);
  for (auto& a : aggs_) {
    a.count.assign(n, 0);
    a.isum.assign(n, 0);
    a.dsum.assign(n, 0);
    a.m2.assign(n, 0);
    a.has.assign(n, 0);
    if (a.distinct) a.sets.assign(n, {});
    if (a.holistic) a.lists.assign(n, {});
    if (a.covariance) a.cov.assign(n, {});
  }
}

void GroupTable::ClearStates(uint32_t from, uint32_t n) {
  for (auto& a : aggs_) {
    std::fill_n(a.count.begin() + from, n, 0);
    std::fill_n(a.isum.begin() + from, n, 0);
    std::fill_n(a.dsum.begin() + from, n, 0);
    std::fill_n(a.m2.begin() + from, n, 0);
    std::fill_n(a.has.begin() + from, n, 0);
    if (a.distinct)
      for (uint32_t g = from; g < from + n; g++) a.sets[g].clear();
    if (a.holistic)
      for (uint32_t g = from; g < from + n; g++) a.lists[g].clear();
    if (a.covariance) std::fill_n(a.cov.begin() + from, n, std::array<double, 5>{});
  }
}

void GroupTable::Merge(GroupTable& other) {
  std::vector<uint32_t> gids;
  const uint32_t step = 2048;
  for (uint32_t from = 0; from < other.ngroups_; from += step) {
    uint32_t n = std::min(step, other.ngroups_ - from);
    std::vector<Vector> keys(other.keys_.size());
    std::vector<uint32_t> sel(n);
    for (uint32_t i = 0; i < n; i++) sel[i] = from + i;
    for (size_t k = 0; k < keys.size(); k++) {
      keys[k].Init(other.key_types_[k], n);
      CopyRows(other.keys_[k], sel.data(), n, keys[k], 0);
    }
    FindOrCreate(keys, n, gids);
    for (size_t a = 0; a < aggs_.size(); a++)
      for (uint32_t i = 0; i < n; i++) CombineState(a, gids[i], other, from + i);
  }
}

// A holistic aggregate's result over a group's values (at least one, in input order).
static Value FinishHolistic(const AggColumn& a, std::vector<Value> v) {
  if (a.distinct) {  // each value once, where it first appears
    std::vector<uint32_t> order(v.size());
    for (uint32_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return v[x].Compare(v[y]) < 0; });
    std::vector<uint8_t> keep(v.size(), 0);
    for (size_t i = 0; i < order.size(); i++) keep[order[i]] = i == 0 || v[order[i]].Compare(v[order[i - 1]]) != 0;
    std::vector<Value> u;
    for (size_t i = 0; i < v.size(); i++)
      if (keep[i]) u.push_back(std::move(v[i]));
    v = std::move(u);
  }
  if (a.name == "string_agg") {
    std::string r;
    for (size_t i = 0; i < v.size(); i++) r += (i ? a.separator : "") + v[i].str_value();
    return Value::Varchar(std::move(r));
  }
  if (a.name == "mode") {  // the most frequent value; of equally frequent ones the first seen
    std::vector<uint32_t> order(v.size());
    for (uint32_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return v[x].Compare(v[y]) < 0; });
    size_t best = 0, best_count = 0;
    for (size_t i = 0; i < order.size();) {
      size_t j = i;
      while (j < order.size() && v[order[j]].Compare(v[order[i]]) == 0) j++;
      if (j - i > best_count || (j - i == best_count && order[i] < best)) {
        best = order[i];
        best_count = j - i;
      }
      i = j;
    }
    return v[best];
  }
  std::sort(v.begin(), v.end(), [](const Value& x, const Value& y) { return x.Compare(y) < 0; });
  const size_t n = v.size();
  if (a.name == "quantile_disc") {  // DuckDB's index: ceil(n * q) - 1, at least 0
    const double rn = (double)n * a.fraction;
    const size_t k = std::max<double>(1, (double)n - std::floor((double)n - rn)) - 1;
    return v[std::min(k, n - 1)];
  }
  // median, quantile_cont: between the values at floor and ceil of (n - 1) * q.
  const double rn = (double)(n - 1) * a.fraction;
  const size_t lo = (size_t)std::floor(rn), hi = (size_t)std::ceil(rn);
  const double d = rn - (double)lo;
  switch (a.out_type.id) {
    case TypeId::Varchar: return v[lo];  // the lower value
    case TypeId::Decimal: {  // in the scaled integers: lo + (hi - lo) * d, the step truncated (DuckDB's)
      if (lo == hi) return v[lo];
      const int128_t l = v[lo].int_value(), h = v[hi].int_value();
      return Value::Decimal(l + (int128_t)std::trunc((double)(h - l) * d), a.out_type.precision, a.out_type.scale);
    }
    default: {
      const double l = v[lo].AsDouble(), h = v[hi].AsDouble();
      return Value::Double(lo == hi ? l : l * (1 - d) + h * d);  // DuckDB's double interpolation
    }
  }
}

// The sum or mean of the distinct values a set holds (their bytes, as CellBytes keeps them).
static void DistinctSum(const AggColumn& a, const std::unordered_set<std::string>& set, Vector& o, uint32_t i) {
  if (set.empty()) return o.SetNull(i);
  int128_t isum = 0;
  double dsum = 0;
  DispatchPhys(a.in_type.physical(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, int128_t>) {
      for (const std::string& b : set) {
        T x;
        std::memcpy(&x, b.data(), sizeof(T));
        if constexpr (std::is_floating_point_v<T>) dsum += x;
        else if (!ops::AddChecked(isum, (int128_t)x, isum)) SumOverflow(a);
      }
    }
  });
  const int64_t count = (int64_t)set.size();
  if (a.name == "avg") {
    const int scale = a.in_type.id == TypeId::Decimal ? a.in_type.scale : 0;
    o.data<double>()[i] = a.in_type.id == TypeId::Double ? ops::AvgOfSum(dsum, count) : ops::AvgOfSum(isum, scale, count);
    return;
  }
  switch (a.out_type.physical()) {
    case PhysType::I64:
      if (!ops::SumFitsInt64(isum)) throw UserError(ErrorKind::Conversion, ops::SumResultOverflowMessage());
      o.data<int64_t>()[i] = (int64_t)isum;
      break;
    case PhysType::I128: o.data<int128_t>()[i] = isum; break;
    default: o.data<double>()[i] = dsum;
  }
}

void GroupTable::Emit(uint32_t from, uint32_t n, DataChunk& out) const {
  out.cols.resize(keys_.size() + aggs_.size());
  std::vector<uint32_t> sel(n);
  for (uint32_t i = 0; i < n; i++) sel[i] = from + i;
  for (size_t k = 0; k < keys_.size(); k++) {
    out.cols[k].Init(key_types_[k], std::max<uint32_t>(n, 1));
    CopyRows(keys_[k], sel.data(), n, out.cols[k], 0);
  }
  for (size_t ai = 0; ai < aggs_.size(); ai++) {
    const AggColumn& a = aggs_[ai];
    Vector& o = out.cols[keys_.size() + ai];
    o.Init(a.out_type, std::max<uint32_t>(n, 1));
    for (uint32_t i = 0; i < n; i++) {
      uint32_t g = from + i;
      if (a.holistic) {
        if (a.lists[g].empty() || a.null_separator) o.SetNull(i);
        else o.SetValue(i, FinishHolistic(a, a.lists[g]));
        continue;
      }
      if (a.name == "count_if") {  // DuckDB's: a sum of the BOOLEANs, NULL over no non-NULL rows
        if (!a.count[g]) o.SetNull(i);
        else o.data<int128_t>()[i] = a.distinct ? a.isum[g] > 0 : a.isum[g];  // DISTINCT: TRUE counts once
        continue;
      }
      if (a.distinct) {
        if (a.name == "sum" || a.name == "avg") {
          DistinctSum(a, a.sets[g], o, i);
          continue;
        }
        if (a.name != "count" && a.name != "approx_count_distinct")
          throw UserError(ErrorKind::Unsupported, a.name + "(DISTINCT ...) is not supported yet");
        o.data<int64_t>()[i] = (int64_t)a.sets[g].size();
        continue;
      }
      if (a.covariance) {
        const auto& c = a.cov[g];
        const double cnt = (double)a.count[g];
        if (a.name == "covar_samp") {
          if (cnt < 2) o.SetNull(i);
          else o.data<double>()[i] = c[2] / (cnt - 1);
        } else if (a.name == "covar_pop") {
          if (cnt < 1) o.SetNull(i);
          else o.data<double>()[i] = c[2] / cnt;
        } else {  // corr: NULL over no rows, NaN where either standard deviation is 0 (DuckDB's)
          const double sx = std::sqrt(c[3] / cnt), sy = std::sqrt(c[4] / cnt);
          if (cnt < 1) o.SetNull(i);
          else o.data<double>()[i] = sx * sy == 0 ? std::nan("") : (c[2] / cnt) / (sx * sy);
        }
        continue;
      }
      if (a.name == "bool_and" || a.name == "bool_or") {
        if (!a.count[g]) { o.SetNull(i); continue; }
        o.data<uint8_t>()[i] = a.name == "bool_and" ? a.isum[g] == a.count[g] : a.isum[g] > 0;
        continue;
      }
      if (a.name == "count" || a.name == "count_star") {
        o.data<int64_t>()[i] = a.count[g];
      } else if (a.name == "sum") {
        if (!a.count[g]) { o.SetNull(i); continue; }
        switch (a.out_type.physical()) {
          case PhysType::I64:
            if (!ops::SumFitsInt64(a.isum[g])) throw UserError(ErrorKind::Conversion, ops::SumResultOverflowMessage());
            o.data<int64_t>()[i] = (int64_t)a.isum[g];
            break;
          case PhysType::I128: o.data<int128_t>()[i] = a.isum[g]; break;
          default: o.data<double>()[i] = a.dsum[g];
        }
      } else if (a.name == "avg") {
        if (!a.count[g]) { o.SetNull(i); continue; }
        // Integer and decimal sums are exact (int128); the mean is taken in double.
        const int scale = a.in_type.id == TypeId::Decimal ? a.in_type.scale : 0;
        o.data<double>()[i] = a.in_type.id == TypeId::Double ? ops::AvgOfSum(a.dsum[g], a.count[g])
                                                             : ops::AvgOfSum(a.isum[g], scale, a.count[g]);
      } else if (IsVariance(a.name)) {
        const bool sample = a.name.ends_with("_samp");
        if (a.count[g] < (sample ? 2 : 1)) { o.SetNull(i); continue; }
        const double var = a.m2[g] / (double)(a.count[g] - (sample ? 1 : 0));
        o.data<double>()[i] = a.name.starts_with("stddev") ? std::sqrt(var) : var;
      } else {  // min / max
        if (!a.has[g]) { o.SetNull(i); continue; }
        CopyRows(a.ext, &g, 1, o, i);
      }
    }
  }
  out.size = n;
}

PhysicalHashAggregate::PhysicalHashAggregate(std::vector<Type> t, std::vector<BoundExprPtr> g,
                                             std::vector<BoundExprPtr> a)
    : PhysicalOperator(PhysKind::HashAggregate, std::move(t)), groups(std::move(g)), aggs(std::move(a)) {}

std::string PhysicalHashAggregate::Details() const {
  std::string s;
  for (size_t i = 0; i < groups.size(); i++) s += (i ? ", " : "") + groups[i]->ToString();
  if (!groups.empty()) s += " | ";
  for (size_t i = 0; i < aggs.size(); i++) s += (i ? ", " : "") + aggs[i]->ToString();
  return s;
}

std::unique_ptr<GroupTable> PhysicalHashAggregate::NewTable() const {
  std::vector<Type> kt;
  for (auto& g : groups) kt.push_back(g->type);
  std::vector<const BoundExpr*> a;
  for (auto& x : aggs) a.push_back(x.get());
  return std::make_unique<GroupTable>(kt, a);
}

struct AggLocal : LocalState {
  std::unique_ptr<GroupTable> table;
  std::vector<uint32_t> gids;
};

std::unique_ptr<LocalState> PhysicalHashAggregate::InitLocalSink() {
  auto l = std::make_unique<AggLocal>();
  l->table = NewTable();
  return l;
}

void PhysicalHashAggregate::Sink(DataChunk& in, LocalState& ls) {
  auto& l = static_cast<AggLocal&>(ls);
  std::vector<Vector> keys(groups.size());
  for (size_t k = 0; k < groups.size(); k++) Evaluate(*groups[k], in, keys[k]);
  l.table->FindOrCreate(keys, in.size, l.gids);
  for (size_t a = 0; a < aggs.size(); a++) {
    if (aggs[a]->children.empty()) {
      l.table->Update(a, nullptr, l.gids, in.size);
      continue;
    }
    Vector s, s2;
    const Vector& v = EvaluateOperand(*aggs[a]->children[0], in, s);
    const bool two = GroupTable::TwoInputs(aggs[a]->name);
    const Vector* v2 = two ? &EvaluateOperand(*aggs[a]->children[1], in, s2) : nullptr;
    l.table->Update(a, &v, l.gids, in.size, v2);
  }
}

void PhysicalHashAggregate::Combine(LocalState& ls) {
  auto& l = static_cast<AggLocal&>(ls);
  if (!global_) global_ = NewTable();
  global_->Merge(*l.table);
}

void PhysicalHashAggregate::Finalize() {
  if (!global_) global_ = NewTable();
  rows_out = global_->groups();
}

struct AggSource : GlobalSourceState {
  std::atomic<uint32_t> next{0};
};
std::unique_ptr<GlobalSourceState> PhysicalHashAggregate::InitSource() { return std::make_unique<AggSource>(); }

bool PhysicalHashAggregate::GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) {
  auto& s = static_cast<AggSource&>(gs);
  uint32_t from = s.next.fetch_add(kVectorSize);
  if (from >= global_->groups()) return false;
  uint32_t n = std::min(kVectorSize, global_->groups() - from);
  global_->Emit(from, n, out);
  return true;
}

}  // namespace tessera
