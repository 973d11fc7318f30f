#include "optimizer/cardinality.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tessera {

namespace {

double Rows(const LogicalOp& op) { return op.estimated_rows >= 0 ? std::max(1.0, op.estimated_rows) : 1000; }

const BoundExpr* StripCasts(const BoundExpr* e) {
  while (e->kind == BExpr::Cast && !e->negated && !e->children.empty()) e = e->children[0].get();
  return e;
}

// A column of `get` (under order-preserving casts), or nullptr.
const BoundExpr* ScanColumn(const BoundExpr& e, const LogicalOp* get) {
  const BoundExpr* c = StripCasts(&e);
  if (get && c->kind == BExpr::Column && c->binding.table == get->table_index) return c;
  return nullptr;
}

// A numeric or temporal value as a double (DECIMAL as its value); false otherwise.
bool AsNumber(const Value& v, double& out) {
  if (v.is_null()) return false;
  const Type& t = v.type();
  switch (t.id) {
    case TypeId::Integer:
    case TypeId::BigInt:
    case TypeId::Date:
    case TypeId::Timestamp:
    case TypeId::Time: out = (double)v.int_value(); return true;
    case TypeId::Decimal: out = (double)v.int_value() / std::pow(10.0, t.scale); return true;
    case TypeId::Double: out = v.double_value(); return std::isfinite(out);
    default: return false;
  }
}

// The smallest difference between two values of a column's type (0: continuous).
double Step(const Type& t) {
  if (t.id == TypeId::Double) return 0;
  if (t.id == TypeId::Decimal) return std::pow(10.0, -(double)t.scale);
  return 1;
}

double TableRows(const LogicalOp* get) { return std::max<double>(1, (double)get->table->data->row_count); }

// A comparison `column op constant` over a numeric column of `get`, as bounds on the column.
struct RangeTerm {
  uint32_t column = 0;
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
};
bool AsRange(const BoundExpr& p, const LogicalOp* get, RangeTerm& r) {
  if (p.kind != BExpr::Compare || !get) return false;
  const BoundExpr* c = p.children[0].get();
  const BoundExpr* k = p.children[1].get();
  ast::Op op = p.op;
  if (!ScanColumn(*c, get)) {
    std::swap(c, k);
    op = FlipComparison(op);
  }
  const BoundExpr* col = ScanColumn(*c, get);
  const BoundExpr* kc = StripCasts(k);
  double v;
  if (!col || kc->kind != BExpr::Constant || !AsNumber(kc->value, v)) return false;
  const Type& t = get->table->schema.columns[col->binding.column].type;
  // A DATE column against a TIMESTAMP constant (DATE + INTERVAL): in days.
  constexpr double kMicrosPerDay = 86400.0 * 1e6;
  const TypeId kt = kc->value.type().id;
  if (t.id == TypeId::Date && kt == TypeId::Timestamp) v /= kMicrosPerDay;
  else if (t.id == TypeId::Timestamp && kt == TypeId::Date) v *= kMicrosPerDay;
  else if ((t.id == TypeId::Date || t.id == TypeId::Timestamp || t.id == TypeId::Time) != (kt == TypeId::Date || kt == TypeId::Timestamp || kt == TypeId::Time))
    return false;
  const double step = Step(t);
  r.column = col->binding.column;
  switch (op) {
    case ast::Op::Lt: r.hi = v - step; return true;
    case ast::Op::Le: r.hi = v; return true;
    case ast::Op::Gt: r.lo = v + step; return true;
    case ast::Op::Ge: r.lo = v; return true;
    default: return false;
  }
}

// The fraction of a column's [min, max] that [lo, hi] keeps (uniformity); -1 without statistics.
double RangeFraction(const LogicalOp* get, uint32_t col, double lo, double hi) {
  double mn, mx;
  if (!ColumnRange(get, col, mn, mx)) return -1;
  const double step = Step(get->table->schema.columns[col].type);
  const double width = mx - mn + step;
  const double keep = std::min(hi, mx) - std::max(lo, mn) + step;
  const double floor = 1.0 / TableRows(get);
  if (width <= 0) return keep >= 0 ? 1.0 : floor;
  return std::clamp(keep / width, floor, 1.0);
}

// LIKE with a constant pattern: equality without wildcards; a prefix's share of the
// column's [min, max] (the first character where min and max differ spreads uniformly over
// their range, each further character of the prefix keeps 0.8); 0.1 otherwise.
double LikeSelectivity(const BoundExpr& p, const LogicalOp* get) {
  const BoundExpr* c = ScanColumn(*p.children[0], get);
  const BoundExpr* k = p.children.size() > 1 ? StripCasts(p.children[1].get()) : nullptr;
  if (!c || !k || k->kind != BExpr::Constant || k->value.is_null() || p.children.size() > 2 ||
      get->table->schema.columns[c->binding.column].type.id != TypeId::Varchar)
    return 0.1;
  const std::string& pat = k->value.str_value();
  size_t wild = pat.find_first_of("%_\\");
  const double ndv = DistinctValues(get, c->binding.column);
  if (wild == std::string::npos) return 1.0 / std::max(1.0, ndv);
  if (wild == 0) return 0.1;
  const std::string prefix = pat.substr(0, wild);
  bool any = false;
  std::string mn, mx;
  for (auto& g : get->table->data->row_groups) {
    const auto& st = g->columns[c->binding.column]->stats;
    if (!st.has_stats) continue;
    if (!any || st.min.str_value() < mn) mn = st.min.str_value();
    if (!any || st.max.str_value() > mx) mx = st.max.str_value();
    any = true;
  }
  if (!any) return 0.1;
  const double floor = 1.0 / TableRows(get);
  // Outside [min, max]: nothing qualifies.
  if (mx.compare(0, prefix.size(), prefix) < 0 || mn.substr(0, prefix.size()) > prefix) return floor;
  size_t common = 0;
  while (common < mn.size() && common < mx.size() && mn[common] == mx[common]) common++;
  if (prefix.size() <= common) return 1.0;  // every value in [min, max] starts with it
  const unsigned lo = common < mn.size() ? (unsigned char)mn[common] : 0;
  const unsigned hi = common < mx.size() ? (unsigned char)mx[common] : 255;
  double s = 1.0 / std::max(1u, hi >= lo ? hi - lo + 1 : 1u);
  s *= std::pow(0.8, (double)std::min<size_t>(prefix.size() - common - 1, 4));
  return std::clamp(s, std::max(floor, 1.0 / std::max(1.0, ndv)), 1.0);
}

double NullFraction(const LogicalOp* get, uint32_t col) {
  uint64_t nulls = 0;
  for (auto& g : get->table->data->row_groups) nulls += g->columns[col]->stats.null_count;
  return std::min(1.0, (double)nulls / TableRows(get));
}

double ComputeDistinctValues(const LogicalOp* get, uint32_t col) {
  const double rows = TableRows(get);
  const auto& groups = get->table->data->row_groups;
  if (groups.empty()) return 1;
  DistinctSketch merged;
  bool sketched = true;
  uint64_t nulls = 0;
  for (auto& g : groups) {
    const auto& st = g->columns[col]->stats;
    nulls += st.null_count;
    if (!st.sketch) {
      sketched = false;
      break;
    }
    merged.Merge(*st.sketch);
  }
  const Type& t = get->table->schema.columns[col].type;
  double lo, hi;
  const bool ranged = (t.IsIntegral() || t.id == TypeId::Date) && ColumnRange(get, col, lo, hi);
  if (sketched) {
    double d = std::min(merged.Estimate(), std::max(1.0, rows - (double)nulls));
    if (ranged) d = std::min(d, hi - lo + 1);
    return std::max(1.0, d);
  }
  if (t.id == TypeId::Varchar) {
    const ColumnChunk& c = *groups[0]->columns[col];
    if (c.LayoutKnown() && c.str_enc == StringEncoding::Dictionary) return std::min<double>(rows, std::max<uint32_t>(1, c.dict_size));
    return rows;
  }
  if (ranged) return std::max(1.0, std::min(rows, hi - lo + 1));
  return rows;
}

// Traces `b` through the operators below `op` to the scan that reads it.
bool Trace(const LogicalOp& op, ColumnBinding b, KeyEstimate& out) {
  const double rows = Rows(op);
  auto opaque = [&] {
    out = {rows, rows, rows};
    return true;
  };
  switch (op.kind) {
    case LogicalKind::Get: {
      if (op.table_index != b.table) return false;
      const double d = DistinctValues(&op, b.column);
      const double n = TableRows(&op);
      // The scan's filters on this column itself restrict the values a join meets (by
      // their share of the values, under uniformity): a filter copied to both sides of a
      // join by the transitive inference restricts both domains alike, so it is counted
      // once (L f R f / (d f)), not as an independent selectivity (L f R f / d).
      const double dom = std::max(1.0, d * ColumnFilterFraction(&op, b.column));
      out = {std::min(DistinctAfterSampling(d, n, std::min(n, rows)), dom), dom, n, &op, b.column};
      return true;
    }
    case LogicalKind::Projection: {
      if (op.table_index != b.table) return false;
      const BoundExpr* e = StripCasts(op.exprs[b.column].get());
      if (e->kind != BExpr::Column || !Trace(*op.children[0], e->binding, out)) return opaque();
      out.ndv = DistinctAfterSampling(out.ndv, Rows(*op.children[0]), rows);
      return true;
    }
    case LogicalKind::Aggregate: {
      if (b.table == op.agg_index) return opaque();
      if (b.table != op.group_index) return false;
      const BoundExpr* e = StripCasts(op.groups[b.column].get());
      if (e->kind != BExpr::Column || !Trace(*op.children[0], e->binding, out)) return opaque();
      out.ndv = std::min(out.ndv, rows);
      if (op.groups.size() == 1) out.base_rows = out.domain;  // one row per value: a key
      return true;
    }
    case LogicalKind::Join:
      if (op.join_type == LJoinType::Mark && b.table == op.table_index) {
        out = {2, 2, rows};
        return true;
      }
      break;
    case LogicalKind::Window:
      if (b.table == op.table_index) return opaque();
      break;
    case LogicalKind::UnionAll:
    case LogicalKind::Values:
    case LogicalKind::RecursiveCte:
    case LogicalKind::WorkingTable:
      return b.table == op.table_index ? opaque() : false;
    default: break;
  }
  for (auto& c : op.children) {
    if (!Trace(*c, b, out)) continue;
    if (op.kind != LogicalKind::Join) out.ndv = DistinctAfterSampling(out.ndv, Rows(*c), rows);
    out.ndv = std::min(out.ndv, rows);
    return true;
  }
  return false;
}

// A HAVING term `aggregate op constant` over an aggregation's output: the fraction of groups
// it keeps. The aggregated column is taken as uniform over its [min, max] (mean mu, standard
// deviation sigma), a group as about g = input rows / groups values (Poisson): a SUM is then
// about normal (g mu, sqrt(g (sigma^2 + mu^2))), an AVG (mu, sigma / sqrt(g)), MIN/MAX (mu, sigma), a COUNT (g,
// sqrt(g)). -1 where that does not apply.
double HavingSelectivity(const BoundExpr& p, const LogicalOp& agg) {
  if (p.kind != BExpr::Compare) return -1;
  const BoundExpr* c = StripCasts(p.children[0].get());
  const BoundExpr* k = StripCasts(p.children[1].get());
  ast::Op op = p.op;
  if (c->kind != BExpr::Column) {
    std::swap(c, k);
    op = FlipComparison(op);
  }
  double v;
  if (c->kind != BExpr::Column || c->binding.table != agg.agg_index || c->binding.column >= agg.aggs.size() ||
      k->kind != BExpr::Constant || !AsNumber(k->value, v))
    return -1;
  if (op != ast::Op::Lt && op != ast::Op::Le && op != ast::Op::Gt && op != ast::Op::Ge) return -1;
  const BoundExpr& a = *agg.aggs[c->binding.column];
  const LogicalOp& child = *agg.children[0];
  const double groups = Rows(agg), g = std::max(1.0, Rows(child) / groups);
  double mean, sd;
  if (a.name == "count_star" || a.name == "count") {
    mean = g;
    sd = std::sqrt(g);
  } else {
    if (a.children.empty() || a.distinct) return -1;
    KeyEstimate col;
    const BoundExpr* arg = StripCasts(a.children[0].get());
    double lo, hi;
    if (arg->kind != BExpr::Column || !Trace(child, arg->binding, col) || !col.table ||
        !ColumnRange(col.table, col.column, lo, hi))
      return -1;
    const double mu = (lo + hi) / 2, sigma = (hi - lo) / std::sqrt(12.0);
    // A SUM over a group of a random (Poisson) number of rows: variance g (sigma^2 + mu^2).
    if (a.name == "sum") mean = g * mu, sd = std::sqrt(g * (sigma * sigma + mu * mu));
    else if (a.name == "avg") mean = mu, sd = sigma / std::sqrt(g);
    else if (a.name == "min" || a.name == "max") mean = mu, sd = sigma;
    else return -1;
  }
  const double above = sd > 0 ? 0.5 * std::erfc((v - mean) / (sd * std::sqrt(2.0))) : (v < mean ? 1 : 0);
  const double keep = op == ast::Op::Gt || op == ast::Op::Ge ? above : 1 - above;
  return std::clamp(keep, 1.0 / groups, 1.0);
}

std::vector<KeyEstimate> Keys(const std::vector<BoundExprPtr>& keys, const LogicalOp& side) {
  std::vector<KeyEstimate> r;
  for (auto& k : keys) r.push_back(EstimateKey(*k, side));
  return r;
}

// Distinct combinations of composite keys: the product of the columns', at most `rows`.
double CombinedNdv(const std::vector<KeyEstimate>& keys, double rows) {
  double p = 1;
  for (auto& k : keys) p *= std::max(1.0, k.ndv);
  return std::min(p, std::max(1.0, rows));
}

// The domain both sides' keys are drawn from (see InnerJoinRows).
double KeyDomain(const std::vector<KeyEstimate>& left, const std::vector<KeyEstimate>& right) {
  double dom = 1;
  for (size_t i = 0; i < left.size() && i < right.size(); i++) dom = std::max({dom, left[i].domain, right[i].domain});
  if (left.size() > 1) {
    // Columns of one table on each side (a composite foreign key, lineitem's (partkey,
    // suppkey) into partsupp): the combinations are correlated, and those of the side
    // with fewer rows hold the other's. Otherwise the keys are independent conditions.
    auto one_table = [](const std::vector<KeyEstimate>& keys) {
      for (auto& k : keys)
        if (k.table == nullptr || k.table != keys[0].table) return false;
      return true;
    };
    if (!one_table(left) || !one_table(right)) {
      double p = 1;
      for (size_t i = 0; i < left.size() && i < right.size(); i++) p *= std::max({1.0, left[i].domain, right[i].domain});
      return p;
    }
    auto side = [](const std::vector<KeyEstimate>& keys) {
      double p = 1, base = 1;
      for (auto& k : keys) {
        p *= std::max(1.0, k.domain);
        base = std::max(base, k.base_rows);
      }
      return std::min(p, base);
    };
    dom = std::max(dom, std::min(side(left), side(right)));
  }
  return dom;
}

}  // namespace

bool ColumnRange(const LogicalOp* get, uint32_t col, double& lo, double& hi) {
  const Type& t = get->table->schema.columns[col].type;
  if (!(t.IsIntegral() || t.IsTemporal() || t.id == TypeId::Decimal || t.id == TypeId::Double)) return false;
  bool any = false;
  for (auto& g : get->table->data->row_groups) {
    const auto& st = g->columns[col]->stats;
    double mn, mx;
    if (!st.has_stats || !AsNumber(st.min, mn) || !AsNumber(st.max, mx)) continue;
    lo = any ? std::min(lo, mn) : mn;
    hi = any ? std::max(hi, mx) : mx;
    any = true;
  }
  return any;
}

double DistinctValues(const LogicalOp* get, uint32_t col) {
  // Memo of the last answers, per table snapshot and column: planning one query asks for the
  // same columns many times, and merging a large table's sketches takes microseconds.
  struct Memo {
    std::weak_ptr<const TableData> data;
    uint32_t col;
    double ndv;
  };
  thread_local std::vector<Memo> memo;
  const std::shared_ptr<const TableData>& data = get->table->data;
  for (const Memo& m : memo)
    if (m.col == col && m.data.lock() == data) return m.ndv;
  const double ndv = ComputeDistinctValues(get, col);
  if (memo.size() >= 256) memo.clear();
  memo.push_back({data, col, ndv});
  return ndv;
}


namespace {
double ConjunctionOf(const std::vector<const BoundExpr*>& terms, const LogicalOp* get) {
  // Range terms on one column combine into one range; the rest multiply.
  double s = 1;
  std::map<uint32_t, RangeTerm> ranges;
  for (const BoundExpr* c : terms) {
    RangeTerm r;
    if (AsRange(*c, get, r)) {
      auto [it, fresh] = ranges.emplace(r.column, r);
      if (!fresh) {
        it->second.lo = std::max(it->second.lo, r.lo);
        it->second.hi = std::min(it->second.hi, r.hi);
      }
      continue;
    }
    s *= EstimateSelectivity(*c, get);
  }
  for (auto& [col, r] : ranges) {
    double f = RangeFraction(get, col, r.lo, r.hi);
    s *= f >= 0 ? f : 0.4;
  }
  return s;
}
}  // namespace

double ConjunctionSelectivity(const std::vector<BoundExprPtr>& terms, const LogicalOp* get) {
  std::vector<const BoundExpr*> t;
  for (auto& c : terms) t.push_back(c.get());
  return ConjunctionOf(t, get);
}

double ColumnFilterFraction(const LogicalOp* get, uint32_t col) {
  std::vector<const BoundExpr*> own;
  for (auto& f : get->filters) {
    if (f->kind == BExpr::IsNull) continue;  // NULLs are outside the domain either way
    std::vector<ColumnBinding> used;
    f->CollectBindings(used);
    if (!used.empty() && std::all_of(used.begin(), used.end(), [&](const ColumnBinding& b) {
          return b.table == get->table_index && b.column == col;
        }))
      own.push_back(f.get());
  }
  return own.empty() ? 1.0 : std::clamp(ConjunctionOf(own, get), 0.0, 1.0);
}

double FilterSelectivity(const std::vector<BoundExprPtr>& terms, const LogicalOp& input) {
  if (input.kind == LogicalKind::Get) return ConjunctionSelectivity(terms, &input);
  if (input.kind != LogicalKind::Aggregate) return ConjunctionSelectivity(terms, nullptr);
  double s = 1;  // HAVING
  for (auto& f : terms) {
    double h = HavingSelectivity(*f, input);
    s *= h >= 0 ? h : EstimateSelectivity(*f, nullptr);
  }
  return s;
}

double EstimateSelectivity(const BoundExpr& p, const LogicalOp* get) {
  auto col_dv = [&](const BoundExpr& e) -> double {
    if (const BoundExpr* c = ScanColumn(e, get)) return DistinctValues(get, c->binding.column);
    return 10;
  };
  switch (p.kind) {
    case BExpr::And: return ConjunctionSelectivity(p.children, get);
    case BExpr::Or: {
      double none = 1;
      for (auto& c : p.children) none *= 1 - EstimateSelectivity(*c, get);
      return 1 - none;
    }
    case BExpr::Not: return 1 - EstimateSelectivity(*p.children[0], get);
    case BExpr::Compare: {
      const BoundExpr* c = p.children[0].get();
      const BoundExpr* k = p.children[1].get();
      if (!ScanColumn(*c, get)) std::swap(c, k);
      if (p.op == ast::Op::Eq) return 1.0 / std::max(1.0, std::max(col_dv(*c), ScanColumn(*k, get) ? col_dv(*k) : 1.0));
      if (p.op == ast::Op::Ne) return 1.0 - 1.0 / std::max(1.0, col_dv(*c));
      RangeTerm r;
      if (AsRange(p, get, r)) {
        double f = RangeFraction(get, r.column, r.lo, r.hi);
        if (f >= 0) return f;
      }
      return 0.4;
    }
    case BExpr::InList: {
      double k = (double)p.children.size() - 1;
      double s = std::min(1.0, k / std::max(1.0, col_dv(*p.children[0])));
      return p.negated ? 1 - s : s;
    }
    case BExpr::Like: {
      double s = LikeSelectivity(p, get);
      return p.negated ? 1 - s : s;
    }
    case BExpr::IsNull: {
      double s = 0.05;
      if (const BoundExpr* c = ScanColumn(*p.children[0], get)) s = NullFraction(get, c->binding.column);
      return p.negated ? 1 - s : s;
    }
    default: return 0.5;
  }
}

double DistinctAfterSampling(double d, double n, double r) {
  if (d <= 1 || n <= 0 || r >= n) return std::max(1.0, d);
  if (r <= 0) return 1;
  // Each of the d values (n / d rows each) survives unless all its rows are dropped.
  double kept = d * (1 - std::pow(1 - r / n, n / d));
  return std::clamp(kept, 1.0, std::min(d, r));
}

KeyEstimate EstimateKey(const BoundExpr& e, const LogicalOp& op) {
  const BoundExpr* x = StripCasts(&e);
  KeyEstimate k;
  if (x->kind == BExpr::Column && Trace(op, x->binding, k)) return k;
  const double rows = Rows(op);
  if (x->IsConstant()) return {1, 1, rows};
  return {rows, rows, rows};
}

double InnerJoinRows(double left_rows, double right_rows, const std::vector<KeyEstimate>& left,
                     const std::vector<KeyEstimate>& right) {
  if (left.empty() || right.empty()) return std::max(1.0, left_rows * right_rows);
  return std::max(1.0, left_rows * right_rows / KeyDomain(left, right));
}

double SemiJoinFraction(const std::vector<KeyEstimate>& left, const std::vector<KeyEstimate>& right) {
  if (left.empty() || right.empty()) return 1;
  double ndv = right.size() == 1 ? right[0].ndv : CombinedNdv(right, std::numeric_limits<double>::infinity());
  return std::clamp(ndv / KeyDomain(left, right), 0.0, 1.0);
}

double JoinRows(LJoinType type, double lr, double rr, const std::vector<KeyEstimate>& lk,
                const std::vector<KeyEstimate>& rk, double residual) {
  const double inner = InnerJoinRows(lr, rr, lk, rk) * residual;
  switch (type) {
    case LJoinType::Inner:
    case LJoinType::Cross: return inner;
    case LJoinType::Left: return std::max(lr, inner);
    case LJoinType::Full: return std::max({lr, rr, inner});
    case LJoinType::Right: return std::max(rr, inner);  // a Left join, sides swapped
    case LJoinType::Mark: return lr;
    // ASOF: at most one match per left row (the keys' match fraction: a semi join's).
    case LJoinType::AsOf: return lr * SemiJoinFraction(lk, rk);
    case LJoinType::AsOfLeft: return lr;
    case LJoinType::AsOfRight: return std::max(lr * SemiJoinFraction(lk, rk), rr);
    case LJoinType::AsOfFull: return lr + rr;
    case LJoinType::Semi: return lr * SemiJoinFraction(lk, rk);
    // An anti join is taken to keep at least a tenth: the containment of the keys that
    // says none is kept is the estimate's least certain part (min/max-based distinct
    // counts of files without sketches say it for every foreign key).
    case LJoinType::Anti: return lr * std::max(0.1, 1 - SemiJoinFraction(lk, rk));
    // Sides swapped (semi_join_side.cpp): the right side's rows are returned.
    case LJoinType::RightSemi: return rr * SemiJoinFraction(rk, lk);
    case LJoinType::RightAnti: return rr * std::max(0.1, 1 - SemiJoinFraction(rk, lk));
  }
  return inner;
}

void EstimateRows(LogicalOp& op) {
  for (auto& c : op.children) EstimateRows(*c);
  if (op.estimated_rows >= 0) return;
  double rows = 1;
  switch (op.kind) {
    case LogicalKind::Get: rows = TableRows(&op) * ConjunctionSelectivity(op.filters, &op); break;
    case LogicalKind::Filter: rows = Rows(*op.children[0]) * FilterSelectivity(op.filters, *op.children[0]); break;
    case LogicalKind::Projection:
    case LogicalKind::Order:
    case LogicalKind::Materialized:
    case LogicalKind::Window: rows = Rows(*op.children[0]); break;
    case LogicalKind::SharedScan: break;  // estimated when made (shared_subplans.cpp)
    case LogicalKind::Limit:
      rows = Rows(*op.children[0]);
      if (op.limit >= 0) rows = std::min(rows, (double)op.limit);
      if (op.limit_percent >= 0) rows = std::floor(rows * op.limit_percent / 100);
      break;
    case LogicalKind::Aggregate: {
      if (op.groups.empty()) {
        rows = 1;
        break;
      }
      const LogicalOp& child = *op.children[0];
      double g = 1;
      for (auto& e : op.groups) g *= std::max(1.0, EstimateKey(*e, child).ndv);
      rows = std::min(g, Rows(child));
      break;
    }
    case LogicalKind::Join: {
      const LogicalOp &l = *op.children[0], &r = *op.children[1];
      const double lr = Rows(l), rr = Rows(r);
      auto lk = Keys(op.left_keys, l), rk = Keys(op.right_keys, r);
      if (IsAsOf(op.join_type) && !lk.empty()) {  // the last key pair is the inequality
        lk.pop_back();
        rk.pop_back();
      }
      const double residual = op.residual ? EstimateSelectivity(*op.residual, nullptr) : 1;
      rows = JoinRows(op.join_type, lr, rr, lk, rk, residual);
      break;
    }
    case LogicalKind::UnionAll:
      rows = 0;
      for (auto& c : op.children) rows += Rows(*c);
      break;
    case LogicalKind::Values: rows = (double)op.values.size(); break;
    case LogicalKind::Dummy: rows = 1; break;
    case LogicalKind::RecursiveCte: rows = Rows(*op.children[0]) * 10; break;
    case LogicalKind::WorkingTable: rows = 100; break;
  }
  op.estimated_rows = std::max(1.0, rows);
}

bool DistinctCountMeasured(const LogicalOp* get, uint32_t col) {
  const auto& groups = get->table->data->row_groups;
  if (groups.empty()) return false;
  for (auto& g : groups)
    if (!g->columns[col]->stats.sketch) return false;
  return true;
}

}  // namespace tessera
