// GroupTable's aggregate states: update from input rows, merge of two tables' states,
// states set from the GPU's partial results, and the finished values (see group_table.hpp
// for which state each AggKind keeps). Every rule is written once, as a loop over a batch
// of (group, row) pairs, typed outside the loop; the input's row of pair i is at[i] (a
// selected chunk's physical row, or i: WithRows, common/vector.hpp), one instantiation for
// each.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/decimal.hpp"
#include "common/interval.hpp"
#include "execution/expression_executor.hpp"
#include "execution/operators/group_table.hpp"
#include "function/arith_errors.hpp"
#include "function/scalar_ops.hpp"

namespace tessera {

// An exact (128-bit) SUM or AVG accumulator overflowed: an error, as in DuckDB.
[[noreturn]] static void SumOverflow(const AggColumn& a) {
  throw UserError(ErrorKind::Conversion, ops::SumOverflowMessage(a.name == "avg" ? "AVG" : "SUM", a.in_type));
}

void AggColumn::Widen() {
  if (wide) return;
  isum.assign(lsum.begin(), lsum.end());
  lsum.clear();
  lsum.shrink_to_fit();
  wide = true;
}

void AggColumn::AddSum(uint32_t g, int128_t v) {
  if (!wide) {
    int64_t r;
    if (ops::SumFitsInt64(v) && !__builtin_add_overflow(lsum[g], (int64_t)v, &r)) {
      lsum[g] = r;
      return;
    }
    Widen();
  }
  if (!ops::AddChecked(isum[g], v, isum[g])) SumOverflow(*this);
}

// var_samp, var_pop, stddev_samp, stddev_pop: count, running mean (dsum) and sum of
// squared deviations (m2), updated with Welford's method and merged with Chan's, in double
// (DuckDB's results and types: DOUBLE, NULL for fewer than two rows of a sample).
template <class At>
static void VarianceUpdate(AggColumn& a, const Vector& in, At at, const uint32_t* gids, uint32_t n) {
  const int scale = in.type().id == TypeId::Decimal ? in.type().scale : 0;
  DispatchPhys(in.type().physical(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, int128_t>) {
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t r = at[i];
        if (!in.IsValid(r)) continue;
        const T v = in.data<T>()[r];
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
template <class At, class At2>
static void CovarianceUpdate(AggColumn& a, const Vector& y, At aty, const Vector& x, At2 atx, const uint32_t* gids,
                             uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t ry = aty[i], rx = atx[i];
    if (!y.IsValid(ry) || !x.IsValid(rx)) continue;
    const uint32_t g = gids[i];
    auto& c = a.cov[g];  // mean x, mean y, co-moment, m2 x, m2 y
    const double xv = x.data<double>()[rx], yv = y.data<double>()[ry];
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

// bit_and, bit_or, bit_xor over 64-bit bits (INTEGER values sign-extended: the low 32
// bits are the INTEGER result).
static int64_t BitsApply(const std::string& name, int64_t acc, int64_t v) {
  if (name == "bit_and") return acc & v;
  if (name == "bit_or") return acc | v;
  return acc ^ v;
}

// fsum, favg: Kahan's compensated sum; the exact sum is about sum - err.
static void KahanAdd(double x, double& sum, double& err) {
  const double y = x - err, t = sum + y;
  err = (t - sum) - y;
  sum = t;
}

// skewness, kurtosis, kurtosis_pop: count n and m = {mean, M2, M3, M4}, the sums of the
// 2nd..4th powers of the deviations from the mean, updated one value at a time and merged
// pairwise with the exact update formulas of central moments (Welford's and Chan's method
// carried to the 4th power), so no large power sums cancel.
static void MomentsAdd(int64_t& count, std::array<double, 5>& m, double x) {
  const double n1 = (double)count, n = n1 + 1;
  count++;
  const double d = x - m[0], dn = d / n, dn2 = dn * dn, t1 = d * dn * n1;
  m[0] += dn;
  m[3] += t1 * dn2 * (n * n - 3 * n + 3) + 6 * dn2 * m[1] - 4 * dn * m[2];
  m[2] += t1 * dn * (n - 2) - 3 * dn * m[1];
  m[1] += t1;
}
static void MomentsMerge(int64_t& count, std::array<double, 5>& a, int64_t bcount, const std::array<double, 5>& b) {
  if (bcount == 0) return;
  if (count == 0) {
    count = bcount;
    a = b;
    return;
  }
  const double na = (double)count, nb = (double)bcount, n = na + nb;
  const double d = b[0] - a[0], d2 = d * d;
  const double m2 = a[1] + b[1] + d2 * na * nb / n;
  const double m3 = a[2] + b[2] + d2 * d * na * nb * (na - nb) / (n * n) + 3 * d * (na * b[1] - nb * a[1]) / n;
  const double m4 = a[3] + b[3] + d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
                    6 * d2 * (na * na * b[1] + nb * nb * a[1]) / (n * n) + 4 * d * (na * b[2] - nb * a[2]) / n;
  a[0] += d * nb / n;
  a[1] = m2;
  a[2] = m3;
  a[3] = m4;
  count += bcount;
}
// The finished value (false: NULL), DuckDB's definitions: skewness NULL under 3 rows, NaN
// where the values do not vary; kurtosis (sample, excess) NULL under 4 rows or where they
// do not vary; kurtosis_pop (population excess) NULL under 2 rows or where they do not
// vary; a result out of the doubles' range is an error.
static bool MomentsFinish(const std::string& name, int64_t count, const std::array<double, 5>& m, double& out) {
  const double n = (double)count;
  if (name == "skewness") {
    if (count < 3) return false;
    const double m2 = m[1] / n, m3 = m[2] / n;
    if (m2 == 0) {
      out = std::nan("");
      return true;
    }
    out = std::sqrt(n * (n - 1)) / (n - 2) * m3 / std::pow(m2, 1.5);
    if (!std::isfinite(out)) throw UserError(ErrorKind::Conversion, "SKEW is out of range!");
    return true;
  }
  if (count < (name == "kurtosis" ? 4 : 2) || m[1] == 0) return false;
  const double m2 = m[1] / n, m4 = m[3] / n, g = m4 / (m2 * m2);  // g - 3: the population excess kurtosis
  if (name == "kurtosis") out = (n - 1) * ((n + 1) * g - 3 * (n - 1)) / ((n - 2) * (n - 3));
  else out = g - 3;
  if (!std::isfinite(out)) throw UserError(ErrorKind::Conversion, "Kurtosis is out of range!");
  return true;
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

// Row i of src into row j of dst: the value and its validity, a string as a view (the
// caller shares its owner).
static void CopyCell(const Vector& src, uint32_t i, Vector& dst, uint32_t j) {
  const size_t w = (size_t)src.type().width();
  std::memcpy(dst.raw() + (size_t)j * w, src.raw() + (size_t)i * w, w);
  if (!src.IsValid(i)) dst.SetNull(j);
  else if (dst.has_nulls()) dst.validity()[j] = 1;
}

static std::string CellBytes(const Vector& v, uint32_t i) {
  if (v.type().physical() == PhysType::Str) return std::string(v.data<StrRef>()[i]);
  if (v.type().physical() == PhysType::F64) {  // -0.0 is 0.0 and NaNs are one value, as in GROUP BY
    const double d = ops::CanonicalDouble(v.data<double>()[i]);
    return std::string((const char*)&d, sizeof d);
  }
  size_t w = (size_t)v.type().width();
  return std::string((const char*)v.raw() + i * w, w);
}

// The exact sum of n 64-bit integers, those whose validity byte is 0 left out
// (valid null: all), and how many were added. Each value's unsigned form is split into its
// low and high 32 bits, summed apart in 64-bit lanes (neither wraps for any n < 2^32),
// and every negative value subtracts the 2^64 its unsigned form added: no branch or
// overflow check per value, so the loop vectorises (AVX2 where the CPU has it) and runs at
// the speed of reading the values, where a checked running sum waits on each add.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TESSERA_SUM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TESSERA_SUM_CLONES
#endif
template <class At>
[[gnu::always_inline]] inline int128_t ExactSum64Rows(const int64_t* d, const uint8_t* valid, At at, uint32_t n,
                                                       int64_t* rows) {
  uint64_t lo = 0, hi = 0, neg = 0, cnt = n;
  if (!valid) {
    for (uint32_t i = 0; i < n; i++) {
      const uint64_t u = (uint64_t)d[at[i]];
      lo += u & 0xffffffffu;
      hi += u >> 32;
      neg += u >> 63;
    }
  } else {
    cnt = 0;
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t r = at[i];
      const uint64_t keep = (uint64_t)0 - (uint64_t)(valid[r] != 0);
      const uint64_t u = (uint64_t)d[r] & keep;
      lo += u & 0xffffffffu;
      hi += u >> 32;
      neg += u >> 63;
      cnt += keep & 1;
    }
  }
  *rows += (int64_t)cnt;
  return (int128_t)(((unsigned __int128)hi << 32) + lo) - ((int128_t)neg << 64);
}
// The same for 32-bit integers: 64-bit lanes hold any sum of fewer than 2^32 of them.
template <class At>
[[gnu::always_inline]] inline int64_t ExactSum32Rows(const int32_t* d, const uint8_t* valid, At at, uint32_t n,
                                                      int64_t* rows) {
  int64_t s = 0, cnt = n;
  if (!valid) {
    for (uint32_t i = 0; i < n; i++) s += d[at[i]];
  } else {
    cnt = 0;
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t r = at[i];
      const int64_t keep = valid[r] != 0;
      s += d[r] * keep;
      cnt += keep;
    }
  }
  *rows += cnt;
  return s;
}
// The rows of a batch in order or through a selection, each compiled for AVX2 where the
// CPU has it.
TESSERA_SUM_CLONES static int128_t ExactSum64(const int64_t* d, const uint8_t* valid, DenseRows at, uint32_t n,
                                              int64_t* rows) {
  return ExactSum64Rows(d, valid, at, n, rows);
}
TESSERA_SUM_CLONES static int128_t ExactSum64(const int64_t* d, const uint8_t* valid, SelRows at, uint32_t n,
                                              int64_t* rows) {
  return ExactSum64Rows(d, valid, at, n, rows);
}
TESSERA_SUM_CLONES static int64_t ExactSum32(const int32_t* d, const uint8_t* valid, DenseRows at, uint32_t n,
                                             int64_t* rows) {
  return ExactSum32Rows(d, valid, at, n, rows);
}
TESSERA_SUM_CLONES static int64_t ExactSum32(const int32_t* d, const uint8_t* valid, SelRows at, uint32_t n,
                                             int64_t* rows) {
  return ExactSum32Rows(d, valid, at, n, rows);
}

// sum/avg when the table has one group (an aggregate without GROUP BY, or one group so
// far): the batch's total computed exactly in registers (ExactSum64/32) and added to the
// group's state once (AddSum: 64-bit while it fits, widened to 128 bits when it would
// overflow, as the per-row path); 128-bit inputs keep the checked 128-bit add; DOUBLE
// adds in row order.
template <class At>
static void SumOneGroup(AggColumn& a, const Vector& in, At at, uint32_t n) {
  const bool nulls = in.has_nulls();
  const uint8_t* valid = in.validity_or_null();
  int64_t rows = 0;
  switch (in.type().physical()) {
    case PhysType::I32: a.AddSum(0, ExactSum32(in.data<int32_t>(), valid, at, n, &rows)); break;
    case PhysType::I64: a.AddSum(0, ExactSum64(in.data<int64_t>(), valid, at, n, &rows)); break;
    case PhysType::I128: {
      const int128_t* d = in.data<int128_t>();
      int128_t acc = a.isum[0];
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t r = at[i];
        if (nulls && !in.IsValid(r)) continue;
        if (!ops::AddChecked(acc, d[r], acc)) SumOverflow(a);
        rows++;
      }
      a.isum[0] = acc;
      break;
    }
    case PhysType::F64: {
      const double* d = in.data<double>();
      double acc = a.dsum[0];
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t r = at[i];
        if (nulls && !in.IsValid(r)) continue;
        acc += d[r];
        rows++;
      }
      a.dsum[0] = acc;
      break;
    }
    default: throw InternalError("sum over " + in.type().ToString());
  }
  a.count[0] += rows;
}

// sum/avg over many groups. 32/64-bit inputs add into int64 sums, checked; the first
// overflow widens the aggregate's sums to int128 and the rest of the batch adds there.
template <class At>
static void SumRows(AggColumn& a, const Vector& in, At at, const uint32_t* gids, uint32_t n) {
  const uint8_t* valid = in.validity_or_null();
  int64_t* cnt = a.count.data();
  auto add = [&]<class T>() {
    const T* d = in.data<T>();
    uint32_t i = 0;
    if constexpr (!std::is_same_v<T, int128_t>) {
      if (!a.wide) {
        int64_t* s = a.lsum.data();
        for (; i < n; i++) {
          const uint32_t x = at[i];
          if (valid && !valid[x]) continue;
          const uint32_t g = gids[i];
          int64_t r;
          if (__builtin_add_overflow(s[g], (int64_t)d[x], &r)) {  // row i adds again below, in 128 bits
            a.Widen();
            break;
          }
          s[g] = r;
          cnt[g]++;
        }
        if (i == n) return;
      }
    }
    int128_t* s = a.isum.data();
    for (; i < n; i++) {
      const uint32_t x = at[i];
      if (valid && !valid[x]) continue;
      const uint32_t g = gids[i];
      if constexpr (std::is_same_v<T, int128_t>) {
        if (!ops::AddChecked(s[g], d[x], s[g])) SumOverflow(a);
      } else {
        s[g] += d[x];  // 64-bit values into 128 bits: no overflow in 2^63 rows
      }
      cnt[g]++;
    }
  };
  switch (in.type().physical()) {
    case PhysType::I32: add.template operator()<int32_t>(); break;
    case PhysType::I64: add.template operator()<int64_t>(); break;
    case PhysType::I128: add.template operator()<int128_t>(); break;
    case PhysType::F64: {
      const double* d = in.data<double>();
      double* s = a.dsum.data();
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t x = at[i];
        if (valid && !valid[x]) continue;
        s[gids[i]] += d[x];
        cnt[gids[i]]++;
      }
      break;
    }
    default: throw InternalError("sum over " + in.type().ToString());
  }
}

void GroupTable::Update(size_t ai, const AggInput& x, const uint32_t* gids, uint32_t n) {
  AggColumn& a = aggs_[ai];
  const Vector* in = x.arg;
  if (a.kind == AggKind::CountStar) {
    if (ngroups_ == 1) {  // every gid is 0
      a.count[0] += n;
      return;
    }
    int64_t* c = a.count.data();
    for (uint32_t i = 0; i < n; i++) c[gids[i]]++;
    return;
  }
  WithRows(x.sel, [&](auto at) {
    switch (a.kind) {
      case AggKind::CountStar: return;  // above
      case AggKind::Variance: return VarianceUpdate(a, *in, at, gids, n);
      case AggKind::Covariance:
        return WithRows(x.sel2, [&](auto at2) { CovarianceUpdate(a, *in, at, *x.arg2, at2, gids, n); });
      case AggKind::Holistic:
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t r = at[i];
          if (!a.keep_nulls && !in->IsValid(r)) continue;
          std::vector<Value>& l = a.lists[gids[i]];
          l.push_back(in->GetValue(r));
          for (uint32_t k = 0; k < a.order_keys; k++)
            l.push_back(x.keys[k]->GetValue(x.key_sels && x.key_sels[k] ? x.key_sels[k][i] : i));
        }
        return;
      case AggKind::First:
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t g = gids[i], r = at[i];
          if (a.has[g] || !in->IsValid(r)) continue;
          CopyCell(*in, r, a.ext, g);
          a.has[g] = 1;
        }
        if (in->type().physical() == PhysType::Str) a.ext.ShareStrings(*in);
        return;
      case AggKind::ArgExt: {
        const Vector* in2 = x.arg2;
        WithRows(x.sel2, [&](auto at2) {
          for (uint32_t i = 0; i < n; i++) {
            const uint32_t g = gids[i], r = at[i], r2 = at2[i];
            if (!in->IsValid(r) || !in2->IsValid(r2) || !ArgBetter(a, *in2, r2, g)) continue;
            CopyCell(*in, r, a.ext, g);
            CopyCell(*in2, r2, a.ext2, g);
            a.has[g] = 1;
          }
        });
        if (in->type().physical() == PhysType::Str) a.ext.ShareStrings(*in);
        if (in2->type().physical() == PhysType::Str) a.ext2.ShareStrings(*in2);
        return;
      }
      case AggKind::BoolCount: {  // count: rows, lsum: trues
        const uint8_t* d = in->data<uint8_t>();
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t r = at[i];
          if (!in->IsValid(r)) continue;
          a.count[gids[i]]++;
          a.lsum[gids[i]] += d[r] != 0;
        }
        return;
      }
      case AggKind::Bits: {  // count: rows, lsum: the bits
        const bool wide = in->type().physical() == PhysType::I64;
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t r = at[i], g = gids[i];
          if (!in->IsValid(r)) continue;
          const int64_t v = wide ? in->data<int64_t>()[r] : (int64_t)in->data<int32_t>()[r];
          a.lsum[g] = a.count[g]++ ? BitsApply(a.name, a.lsum[g], v) : v;
        }
        return;
      }
      case AggKind::Product: {
        const double* d = in->data<double>();
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t r = at[i], g = gids[i];
          if (!in->IsValid(r)) continue;
          a.dsum[g] = a.count[g]++ ? a.dsum[g] * d[r] : d[r];
        }
        return;
      }
      case AggKind::Kahan: {
        const double* d = in->data<double>();
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t r = at[i], g = gids[i];
          if (!in->IsValid(r)) continue;
          KahanAdd(d[r], a.dsum[g], a.m2[g]);
          a.count[g]++;
        }
        return;
      }
      case AggKind::Moments: {
        const double* d = in->data<double>();
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t r = at[i], g = gids[i];
          if (in->IsValid(r)) MomentsAdd(a.count[g], a.cov[g], d[r]);
        }
        return;
      }
      case AggKind::Distinct:
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t r = at[i];
          if (in->IsValid(r)) a.sets[gids[i]].insert(CellBytes(*in, r));
        }
        return;
      case AggKind::Count: {
        int64_t* c = a.count.data();
        const uint8_t* valid = in->validity_or_null();
        if (!valid) {
          if (ngroups_ == 1) a.count[0] += n;
          else
            for (uint32_t i = 0; i < n; i++) c[gids[i]]++;
        } else {
          for (uint32_t i = 0; i < n; i++) c[gids[i]] += valid[at[i]];
        }
        return;
      }
      case AggKind::Sum:
        if (ngroups_ == 1) return SumOneGroup(a, *in, at, n);  // every gid is 0
        return SumRows(a, *in, at, gids, n);
      case AggKind::MinMax: {
        const PhysType p = in->type().physical();
        const bool is_min = a.is_min;
        const uint8_t* valid = in->validity_or_null();
        DispatchPhys(p, [&]<class T>() {
          const T* d = in->data<T>();
          T* cur = a.ext.data<T>();
          uint8_t* has = a.has.data();
          for (uint32_t i = 0; i < n; i++) {
            const uint32_t r = at[i];
            if (valid && !valid[r]) continue;
            const uint32_t g = gids[i];
            if (!has[g] || (is_min ? ops::LessThan(d[r], cur[g]) : ops::LessThan(cur[g], d[r]))) {
              cur[g] = d[r];
              has[g] = 1;
            }
          }
        });
        if (p == PhysType::Str) a.ext.ShareStrings(*in);
        return;
      }
    }
  });
}

void GroupTable::CombineBatch(size_t ai, const uint32_t* dst, const GroupTable& src, const uint32_t* sg, uint32_t n) {
  AggColumn& a = aggs_[ai];
  const AggColumn& b = src.aggs_[ai];
  switch (a.kind) {
    case AggKind::Distinct:
      for (uint32_t i = 0; i < n; i++) a.sets[dst[i]].insert(b.sets[sg[i]].begin(), b.sets[sg[i]].end());
      return;
    case AggKind::Variance:
      for (uint32_t i = 0; i < n; i++) VarianceCombine(a, dst[i], b, sg[i]);
      return;
    case AggKind::Covariance:
      for (uint32_t i = 0; i < n; i++) CovarianceCombine(a, dst[i], b, sg[i]);
      return;
    case AggKind::Moments:
      for (uint32_t i = 0; i < n; i++) MomentsMerge(a.count[dst[i]], a.cov[dst[i]], b.count[sg[i]], b.cov[sg[i]]);
      return;
    case AggKind::Bits:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = dst[i], s = sg[i];
        if (!b.count[s]) continue;
        a.lsum[g] = a.count[g] ? BitsApply(a.name, a.lsum[g], b.lsum[s]) : b.lsum[s];
        a.count[g] += b.count[s];
      }
      return;
    case AggKind::Product:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = dst[i], s = sg[i];
        if (!b.count[s]) continue;
        a.dsum[g] = a.count[g] ? a.dsum[g] * b.dsum[s] : b.dsum[s];
        a.count[g] += b.count[s];
      }
      return;
    case AggKind::Kahan:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = dst[i], s = sg[i];
        if (!b.count[s]) continue;
        KahanAdd(b.dsum[s], a.dsum[g], a.m2[g]);
        KahanAdd(-b.m2[s], a.dsum[g], a.m2[g]);
        a.count[g] += b.count[s];
      }
      return;
    case AggKind::Holistic:
      for (uint32_t i = 0; i < n; i++) {
        auto& l = a.lists[dst[i]];
        const auto& r = b.lists[sg[i]];
        l.insert(l.end(), r.begin(), r.end());
      }
      return;
    case AggKind::First:
    case AggKind::ArgExt:  // strings kept as views: see CombineBatch's contract
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = dst[i], s = sg[i];
        if (!b.has[s]) continue;
        if (a.kind == AggKind::First ? a.has[g] : !ArgBetter(a, b.ext2, s, g)) continue;
        CopyCell(b.ext, s, a.ext, g);
        if (a.kind == AggKind::ArgExt) CopyCell(b.ext2, s, a.ext2, g);
        a.has[g] = 1;
      }
      return;
    case AggKind::CountStar:
    case AggKind::Count:
      for (uint32_t i = 0; i < n; i++) a.count[dst[i]] += b.count[sg[i]];
      return;
    case AggKind::BoolCount:
      for (uint32_t i = 0; i < n; i++) {
        a.count[dst[i]] += b.count[sg[i]];
        a.lsum[dst[i]] += b.lsum[sg[i]];
      }
      return;
    case AggKind::Sum:
      for (uint32_t i = 0; i < n; i++) a.count[dst[i]] += b.count[sg[i]];
      if (!a.IntSum()) {
        for (uint32_t i = 0; i < n; i++) a.dsum[dst[i]] += b.dsum[sg[i]];
      } else if (!a.wide && !b.wide) {
        int64_t* s = a.lsum.data();
        for (uint32_t i = 0; i < n; i++) {
          int64_t r;
          if (__builtin_add_overflow(s[dst[i]], b.lsum[sg[i]], &r)) {
            for (; i < n; i++) a.AddSum(dst[i], b.SumAt(sg[i]));  // widens at the first
            return;
          }
          s[dst[i]] = r;
        }
      } else {
        for (uint32_t i = 0; i < n; i++) a.AddSum(dst[i], b.SumAt(sg[i]));
      }
      return;
    case AggKind::MinMax: {
      const bool is_min = a.is_min;
      DispatchPhys(a.in_type.physical(), [&]<class T>() {
        const T* x = b.ext.data<T>();
        T* cur = a.ext.data<T>();
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t g = dst[i], s = sg[i];
          if (!b.has[s]) continue;
          if (!a.has[g] || (is_min ? ops::LessThan(x[s], cur[g]) : ops::LessThan(cur[g], x[s]))) cur[g] = x[s];
          a.has[g] = 1;
        }
      });
      return;
    }
  }
}

void GroupTable::SetState(size_t ai, uint32_t g, int64_t count, int128_t isum, double dsum, const Value* ext) {
  AggColumn& a = aggs_[ai];
  if (!a.count.empty()) a.count[g] = count;
  if (a.kind == AggKind::Sum) {
    if (!a.IntSum()) {
      a.dsum[g] = dsum;
    } else {
      if (a.wide) a.isum[g] = 0;
      else a.lsum[g] = 0;
      a.AddSum(g, isum);
    }
  }
  if (a.kind == AggKind::BoolCount) a.lsum[g] = (int64_t)isum;  // the TRUE rows
  if (ext && !a.has.empty()) {
    a.ext.SetValue(g, *ext);
    a.has[g] = 1;
  }
}

void GroupTable::ResetStates(uint32_t n) {
  TESSERA_ASSERT(key_types_.empty(), "ResetStates on a table with keys");
  Grow(std::max<uint32_t>(n, 1));
  ngroups_ = n;
  for (auto& a : aggs_) {  // emptied, then sized
    a.count.clear();
    a.lsum.clear();
    a.isum.clear();
    a.dsum.clear();
    a.m2.clear();
    a.has.clear();
    a.sets.clear();
    a.lists.clear();
    a.cov.clear();
  }
  ResizeStates(n);
}

void GroupTable::ClearStates(uint32_t from, uint32_t n) {
  for (auto& a : aggs_) {
    auto zero = [&](auto& v) {
      if (!v.empty()) std::fill_n(v.begin() + from, n, typename std::decay_t<decltype(v)>::value_type{});
    };
    zero(a.count);
    zero(a.lsum);
    zero(a.isum);
    zero(a.dsum);
    zero(a.m2);
    zero(a.has);
    zero(a.cov);
    if (!a.sets.empty())
      for (uint32_t g = from; g < from + n; g++) a.sets[g].clear();
    if (!a.lists.empty())
      for (uint32_t g = from; g < from + n; g++) a.lists[g].clear();
  }
}

// The values of a list of rows (value, keys...) in the order of the keys (stable: equal
// keys keep their input order); NULL keys last unless NULLS FIRST, DESC or not.
static std::vector<Value> InKeyOrder(const AggColumn& a, const std::vector<Value>& rows) {
  const size_t stride = a.order_keys + 1, n = rows.size() / stride;
  std::vector<uint32_t> idx(n);
  for (uint32_t i = 0; i < n; i++) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](uint32_t x, uint32_t y) {
    for (uint32_t k = 0; k < a.order_keys; k++) {
      const Value& p = rows[x * stride + 1 + k];
      const Value& q = rows[y * stride + 1 + k];
      if (p.is_null() || q.is_null()) {
        if (p.is_null() == q.is_null()) continue;
        return p.is_null() == a.order[k].nulls_first;
      }
      int c = p.Compare(q);
      if (c == 0) continue;
      return a.order[k].desc ? c > 0 : c < 0;
    }
    return false;
  });
  std::vector<Value> out;
  out.reserve(n);
  for (uint32_t i : idx) out.push_back(rows[i * stride]);
  return out;
}

// entropy: the sum of p log2(1 / p) over the frequencies p = c / total of the distinct
// values (0 for none), each term computed as (c / total) * log2(total / c), as DuckDB
// rounds it. A NaN counts as a value of its own each time (DuckDB's: NaN is not equal to
// NaN there; DISTINCT keeps one).
static double Entropy(std::vector<Value> v) {
  std::sort(v.begin(), v.end(), [](const Value& x, const Value& y) { return x.Compare(y) < 0; });
  const double total = (double)v.size();
  double h = 0;
  for (size_t i = 0; i < v.size();) {
    size_t j = i + 1;
    const bool nan = v[i].type().id == TypeId::Double && std::isnan(v[i].double_value());
    while (!nan && j < v.size() && v[j].Compare(v[i]) == 0) j++;
    const double c = (double)(j - i);
    h += c / total * std::log2(total / c);
    i = j;
  }
  return h;
}

// Doubles in ascending order, NaNs last (a strict weak order, which `<` is not with NaNs).
static void SortDoubles(std::vector<double>& x) {
  std::sort(x.begin(), x.end(), [](double p, double q) { return p < q || (!std::isnan(p) && std::isnan(q)); });
}

// mad: the median (interpolated as median's) of the distances of sorted values v from their
// median; in double, or in a DECIMAL's scaled integers with each interpolation step
// truncated (DuckDB's).
static Value MedianAbsoluteDeviation(const AggColumn& a, const std::vector<Value>& v) {
  const size_t n = v.size(), lo = (n - 1) / 2, hi = n / 2;  // the middle one or two
  if (a.out_type.id == TypeId::Decimal) {
    auto median = [&](const std::vector<int128_t>& x) { return x[lo] + (x[hi] - x[lo]) / 2; };
    std::vector<int128_t> x(n);
    for (size_t i = 0; i < n; i++) x[i] = v[i].int_value();
    const int128_t m = median(x);
    for (auto& e : x) e = e < m ? m - e : e - m;
    std::sort(x.begin(), x.end());
    return Value::Decimal(median(x), a.out_type.precision, a.out_type.scale);
  }
  if (a.out_type.id == TypeId::Interval) {  // dates, timestamps, times: in microseconds
    // Between the middle two in double, rounded half away from zero (DuckDB's).
    auto median = [&](const std::vector<int64_t>& x) {
      return lo == hi ? x[lo] : (int64_t)std::llround((double)x[lo] * 0.5 + (double)x[hi] * 0.5);
    };
    constexpr int64_t kDay = 86400000000;
    std::vector<int64_t> x(n);
    for (size_t i = 0; i < n; i++) {
      const int64_t w = (int64_t)v[i].int_value();
      x[i] = v[i].type().id == TypeId::Date ? w * kDay : w;
    }
    const int64_t m = median(x);
    for (auto& e : x) e = e < m ? m - e : e - m;
    std::sort(x.begin(), x.end());
    const int64_t us = median(x);
    return Value::Interval(PackInterval({0, (int32_t)(us / kDay), us % kDay}));
  }
  auto median = [&](const std::vector<double>& x) { return lo == hi ? x[lo] : x[lo] * 0.5 + x[hi] * 0.5; };
  std::vector<double> x(n);
  for (size_t i = 0; i < n; i++) x[i] = v[i].AsDouble();
  const double m = median(x);
  for (auto& e : x) e = std::fabs(e - m);
  SortDoubles(x);
  return Value::Double(median(x));
}

// A holistic aggregate's result over a group's values (at least one, in input order, or
// rows of a value and its keys with ORDER BY).
static Value FinishHolistic(const AggColumn& a, std::vector<Value> v) {
  if (a.order_keys) v = InKeyOrder(a, v);
  if (a.name == "first" || a.name == "any_value") return v.front();
  if (a.name == "last") return v.back();
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
  if (a.name == "entropy") return Value::Double(Entropy(std::move(v)));
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
  if (a.name == "mad") return MedianAbsoluteDeviation(a, v);
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

static double KahanFinish(const std::string& name, double sum, double err, int64_t count) {
  const double total = sum - err;
  return name == "favg" ? total / (double)count : total;
}

// bit_xor, product, fsum, favg, skewness, kurtosis, kurtosis_pop over the distinct values a
// set holds (their bytes, as CellBytes keeps them; DOUBLE but for bit_xor): the plain rule
// over each value once. False for other aggregates.
static bool DistinctOther(const AggColumn& a, const std::unordered_set<std::string>& set, Vector& o, uint32_t i) {
  const std::string& n = a.name;
  if (n == "bit_xor") {
    if (set.empty()) {
      o.SetNull(i);
      return true;
    }
    int64_t acc = 0;
    for (const std::string& b : set) {
      int64_t v;
      if (a.in_type.physical() == PhysType::I64) {
        std::memcpy(&v, b.data(), sizeof v);
      } else {
        int32_t w;
        std::memcpy(&w, b.data(), sizeof w);
        v = w;
      }
      acc ^= v;
    }
    if (a.out_type.physical() == PhysType::I64) o.data<int64_t>()[i] = acc;
    else o.data<int32_t>()[i] = (int32_t)acc;
    return true;
  }
  if (n != "product" && n != "fsum" && n != "favg" && n != "skewness" && n != "kurtosis" && n != "kurtosis_pop")
    return false;
  std::vector<double> v;
  v.reserve(set.size());
  for (const std::string& b : set) {
    double x;
    std::memcpy(&x, b.data(), sizeof x);
    v.push_back(x);
  }
  SortDoubles(v);  // one order, whatever order the set holds them in
  int64_t count = 0;
  if (n == "skewness" || n == "kurtosis" || n == "kurtosis_pop") {
    std::array<double, 5> m{};
    for (double x : v) MomentsAdd(count, m, x);
    double r;
    if (MomentsFinish(n, count, m, r)) o.data<double>()[i] = r;
    else o.SetNull(i);
    return true;
  }
  if (v.empty()) {
    o.SetNull(i);
    return true;
  }
  if (n == "product") {
    double p = 1;
    for (double x : v) p *= x;
    o.data<double>()[i] = p;
    return true;
  }
  double sum = 0, err = 0;
  for (double x : v) KahanAdd(x, sum, err);
  o.data<double>()[i] = KahanFinish(n, sum, err, (int64_t)v.size());
  return true;
}

// Aggregate a's finished values of groups [from, from+n) into o (initialised).
void GroupTable::EmitAggregate(const AggColumn& a, uint32_t from, uint32_t n, Vector& o) const {
  switch (a.kind) {
    case AggKind::Holistic:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = from + i;
        if (a.lists[g].empty() && a.name == "entropy") o.data<double>()[i] = 0;
        else if (a.lists[g].empty() || a.null_separator) o.SetNull(i);
        else o.SetValue(i, FinishHolistic(a, a.lists[g]));
      }
      return;
    case AggKind::BoolCount:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = from + i;
        if (!a.count[g]) {
          o.SetNull(i);
        } else if (a.name == "count_if") {  // DuckDB's: a sum of the BOOLEANs; DISTINCT: TRUE counts once
          o.data<int128_t>()[i] = a.distinct ? a.lsum[g] > 0 : a.lsum[g];
        } else {
          o.data<uint8_t>()[i] = a.name == "bool_and" ? ops::BoolAndOf(a.lsum[g], a.count[g]) : ops::BoolOrOf(a.lsum[g]);
        }
      }
      return;
    case AggKind::Distinct:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = from + i;
        if (a.name == "sum" || a.name == "avg") {
          DistinctSum(a, a.sets[g], o, i);
          continue;
        }
        if (DistinctOther(a, a.sets[g], o, i)) continue;
        if (a.name != "count" && a.name != "approx_count_distinct")
          throw UserError(ErrorKind::Unsupported, a.name + "(DISTINCT ...) is not supported yet");
        o.data<int64_t>()[i] = (int64_t)a.sets[g].size();
      }
      return;
    case AggKind::Covariance:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = from + i;
        const auto& c = a.cov[g];
        const double cnt = (double)a.count[g];
        if (a.name == "covar_samp") {
          if (cnt < 2) o.SetNull(i);
          else o.data<double>()[i] = c[2] / (cnt - 1);
        } else if (a.name == "covar_pop") {
          if (cnt < 1) o.SetNull(i);
          else o.data<double>()[i] = c[2] / cnt;
        } else if (a.name == "corr") {  // NULL over no rows, NaN where either standard deviation is 0 (DuckDB's)
          const double sx = std::sqrt(c[3] / cnt), sy = std::sqrt(c[4] / cnt);
          if (cnt < 1) o.SetNull(i);
          else o.data<double>()[i] = sx * sy == 0 ? std::nan("") : (c[2] / cnt) / (sx * sy);
        } else if (a.name == "regr_count") {
          o.data<int64_t>()[i] = a.count[g];
        } else if (cnt < 1) {  // the other regr_*: NULL over no rows
          o.SetNull(i);
        } else {
          // c: mean x, mean y, co-moment, m2 x, m2 y. Slope covar_pop / var_pop(x) (NaN
          // when x does not vary), the intercept NULL then; r2 the squared correlation (NULL
          // when x does not vary, 1 when y does not); the sums of squares and products are
          // the moments.
          double r = 0;
          bool null = false;
          if (a.name == "regr_slope") r = c[2] / c[3];  // NaN when x does not vary (DuckDB's)
          else if (a.name == "regr_intercept") null = c[3] == 0, r = c[1] - c[2] / c[3] * c[0];
          else if (a.name == "regr_r2") null = c[3] == 0, r = c[4] == 0 ? 1.0 : (c[2] * c[2]) / (c[3] * c[4]);
          else if (a.name == "regr_avgx") r = c[0];
          else if (a.name == "regr_avgy") r = c[1];
          else if (a.name == "regr_sxx") r = c[3];
          else if (a.name == "regr_syy") r = c[4];
          else r = c[2];  // regr_sxy
          if (null) o.SetNull(i);
          else o.data<double>()[i] = r;
        }
      }
      return;
    case AggKind::Bits:
    case AggKind::Product:
    case AggKind::Kahan:
    case AggKind::Moments:
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = from + i;
        switch (a.kind) {
          case AggKind::Bits:
            if (!a.count[g]) o.SetNull(i);
            else if (a.out_type.physical() == PhysType::I64) o.data<int64_t>()[i] = a.lsum[g];
            else o.data<int32_t>()[i] = (int32_t)a.lsum[g];
            break;
          case AggKind::Product:
            if (!a.count[g]) o.SetNull(i);
            else o.data<double>()[i] = a.dsum[g];
            break;
          case AggKind::Kahan:
            if (!a.count[g]) o.SetNull(i);
            else o.data<double>()[i] = KahanFinish(a.name, a.dsum[g], a.m2[g], a.count[g]);
            break;
          default: {
            double r;
            if (MomentsFinish(a.name, a.count[g], a.cov[g], r)) o.data<double>()[i] = r;
            else o.SetNull(i);
          }
        }
      }
      return;
    case AggKind::CountStar:
    case AggKind::Count: std::memcpy(o.data<int64_t>(), a.count.data() + from, n * sizeof(int64_t)); return;
    case AggKind::Sum: {
      const int64_t* cnt = a.count.data() + from;
      if (a.name == "avg") {  // integer and decimal sums are exact; the mean is taken in double
        const int scale = a.in_type.id == TypeId::Decimal ? a.in_type.scale : 0;
        double* d = o.data<double>();
        for (uint32_t i = 0; i < n; i++) {
          if (!cnt[i]) { o.SetNull(i); continue; }
          d[i] = a.IntSum() ? ops::AvgOfSum(a.SumAt(from + i), scale, cnt[i]) : ops::AvgOfSum(a.dsum[from + i], cnt[i]);
        }
        return;
      }
      switch (a.out_type.physical()) {
        case PhysType::I64:
          for (uint32_t i = 0; i < n; i++) {
            if (!cnt[i]) { o.SetNull(i); continue; }
            const int128_t s = a.SumAt(from + i);
            if (!ops::SumFitsInt64(s)) throw UserError(ErrorKind::Conversion, ops::SumResultOverflowMessage());
            o.data<int64_t>()[i] = (int64_t)s;
          }
          return;
        case PhysType::I128:
          for (uint32_t i = 0; i < n; i++) {
            if (!cnt[i]) o.SetNull(i);
            else o.data<int128_t>()[i] = a.SumAt(from + i);
          }
          return;
        default:
          for (uint32_t i = 0; i < n; i++) {
            if (!cnt[i]) o.SetNull(i);
            else o.data<double>()[i] = a.dsum[from + i];
          }
          return;
      }
    }
    case AggKind::Variance: {
      const bool sample = a.name.ends_with("_samp"), stddev = a.name.starts_with("stddev");
      for (uint32_t i = 0; i < n; i++) {
        const uint32_t g = from + i;
        if (a.count[g] < (sample ? 2 : 1)) { o.SetNull(i); continue; }
        const double var = a.m2[g] / (double)(a.count[g] - (sample ? 1 : 0));
        o.data<double>()[i] = stddev ? std::sqrt(var) : var;
      }
      return;
    }
    case AggKind::MinMax:
    case AggKind::First:
    case AggKind::ArgExt: {  // the kept value
      std::vector<uint32_t> sel(n);
      for (uint32_t i = 0; i < n; i++) sel[i] = from + i;
      CopyRows(a.ext, sel.data(), n, o, 0);
      for (uint32_t i = 0; i < n; i++)
        if (!a.has[from + i]) o.SetNull(i);
      return;
    }
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
    Vector& o = out.cols[keys_.size() + ai];
    o.Init(aggs_[ai].out_type, std::max<uint32_t>(n, 1));
    EmitAggregate(aggs_[ai], from, n, o);
  }
  out.size = n;
}

}  // namespace tessera
