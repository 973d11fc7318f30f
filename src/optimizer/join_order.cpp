#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// At most one row: an aggregation without GROUP BY (under projections and filters).
bool AtMostOneRow(const LogicalOp& op) {
  if (op.kind == LogicalKind::Aggregate) return op.groups.empty();
  if ((op.kind == LogicalKind::Projection || op.kind == LogicalKind::Filter) && op.children.size() == 1)
    return AtMostOneRow(*op.children[0]);
  return false;
}

struct Relation {
  LogicalOpPtr op;
  std::vector<ColumnBinding> bindings;
  double rows = 1;  // estimated output rows
  std::vector<BoundExprPtr> extra_filters;  // for non-scan relations
  const LogicalOp* scan = nullptr;  // the relation's scan, stays valid after `op` moves
};

struct Edge {
  size_t a, b;
  BoundExprPtr ea, eb;  // ea refers to relation a, eb to relation b
};

struct Residual {
  std::set<size_t> rels;
  BoundExprPtr pred;
};

void Flatten(LogicalOpPtr op, std::vector<Relation>& rels, std::vector<BoundExprPtr>& preds) {
  if (op->kind == LogicalKind::Filter) {
    for (auto& f : op->filters) preds.push_back(std::move(f));
    Flatten(std::move(op->children[0]), rels, preds);
    return;
  }
  if (op->kind == LogicalKind::Join &&
      (op->join_type == LJoinType::Cross || op->join_type == LJoinType::Inner) && !op->residual) {
    for (size_t i = 0; i < op->left_keys.size(); i++)
      preds.push_back(MakeCompare(ast::Op::Eq, std::move(op->left_keys[i]), std::move(op->right_keys[i])));
    Flatten(std::move(op->children[0]), rels, preds);
    Flatten(std::move(op->children[1]), rels, preds);
    return;
  }
  Relation r;
  r.op = ReorderJoins(std::move(op));
  r.bindings = r.op->Bindings();
  rels.push_back(std::move(r));
}

std::set<size_t> RelsOf(const BoundExpr& e, const std::vector<Relation>& rels) {
  std::vector<ColumnBinding> used;
  e.CollectBindings(used);
  std::set<size_t> r;
  for (auto& b : used)
    for (size_t i = 0; i < rels.size(); i++)
      if (std::find(rels[i].bindings.begin(), rels[i].bindings.end(), b) != rels[i].bindings.end()) r.insert(i);
  return r;
}

const LogicalOp* ScanOfColumn(const BoundExpr& e, const Relation& r) {
  if (e.kind != BExpr::Column) return nullptr;
  return r.scan;
}

double ExprDistinct(const BoundExpr& e, const Relation& r) {
  if (auto* g = ScanOfColumn(e, r)) return DistinctValues(g, e.binding.column);
  return std::max(1.0, r.rows);
}

}  // namespace

// Global min/max of an integral or date column of a scan, from the row-group statistics.
bool ColumnRange(const LogicalOp* get, uint32_t col, double& lo, double& hi) {
  const Type& t = get->table->schema.columns[col].type;
  if (!(t.IsIntegral() || t.id == TypeId::Date)) return false;
  bool any = false;
  for (auto& g : get->table->data->row_groups) {
    const auto& st = g->columns[col]->stats;
    if (!st.has_stats) continue;
    double mn = (double)st.min.int_value(), mx = (double)st.max.int_value();
    lo = any ? std::min(lo, mn) : mn;
    hi = any ? std::max(hi, mx) : mx;
    any = true;
  }
  return any;
}

// Distinct-value estimate of a column of a scan.
double DistinctValues(const LogicalOp* get, uint32_t col) {
  double rows = std::max<double>(1, (double)get->table->data->row_count);
  const auto& groups = get->table->data->row_groups;
  if (groups.empty()) return 1;
  const Type& t = get->table->schema.columns[col].type;
  if (t.id == TypeId::Varchar) {
    const ColumnChunk& c = *groups[0]->columns[col];
    if (c.LayoutKnown() && c.str_enc == StringEncoding::Dictionary) return std::min<double>(rows, std::max<uint32_t>(1, c.dict_size));
    return rows;
  }
  double lo, hi;
  if (ColumnRange(get, col, lo, hi)) return std::min(rows, hi - lo + 1);
  return rows;
}

double EstimateSelectivity(const BoundExpr& p, const LogicalOp* get) {
  auto col_dv = [&](const BoundExpr& c) -> double {
    if (get && c.kind == BExpr::Column && c.binding.table == get->table_index)
      return DistinctValues(get, c.binding.column);
    return 10;
  };
  switch (p.kind) {
    case BExpr::And: {
      double s = 1;
      for (auto& c : p.children) s *= EstimateSelectivity(*c, get);
      return s;
    }
    case BExpr::Or: {
      double s = 0;
      for (auto& c : p.children) s += EstimateSelectivity(*c, get);
      return std::min(1.0, s);
    }
    case BExpr::Not: return 1 - EstimateSelectivity(*p.children[0], get);
    case BExpr::Compare: {
      const BoundExpr* c = p.children[0].get();
      const BoundExpr* k = p.children[1].get();
      ast::Op op = p.op;
      if (c->kind != BExpr::Column) {
        std::swap(c, k);
        op = FlipComparison(op);
      }
      if (op == ast::Op::Eq) return 1.0 / std::max(1.0, col_dv(*c));
      if (op == ast::Op::Ne) return 1.0 - 1.0 / std::max(1.0, col_dv(*c));
      // Ranges on integral columns: the fraction of [min, max] they keep (uniformity).
      double lo, hi;
      if (get && c->kind == BExpr::Column && c->binding.table == get->table_index &&
          k->kind == BExpr::Constant && !k->value.is_null() && k->type.id != TypeId::Double &&
          k->type.id != TypeId::Decimal && k->type.id != TypeId::Varchar &&
          ColumnRange(get, c->binding.column, lo, hi)) {
        double v = (double)k->value.int_value(), width = hi - lo + 1;
        double keep = op == ast::Op::Lt ? v - lo : op == ast::Op::Le ? v - lo + 1
                    : op == ast::Op::Gt ? hi - v : hi - v + 1;
        return std::clamp(keep / width, 1.0 / width, 1.0);
      }
      return 0.4;
    }
    case BExpr::InList: {
      double k = (double)p.children.size() - 1;
      double s = std::min(1.0, k / std::max(1.0, col_dv(*p.children[0])));
      return p.negated ? 1 - s : s;
    }
    case BExpr::Like: return p.negated ? 0.9 : 0.1;
    case BExpr::IsNull: return p.negated ? 0.95 : 0.05;
    default: return 0.5;
  }
}

LogicalOpPtr ReorderJoins(LogicalOpPtr op) {
  bool region = op->kind == LogicalKind::Filter ||
                (op->kind == LogicalKind::Join &&
                 (op->join_type == LJoinType::Cross || op->join_type == LJoinType::Inner) && !op->residual);
  if (!region) {
    for (auto& c : op->children) c = ReorderJoins(std::move(c));
    return op;
  }
  std::vector<Relation> rels;
  std::vector<BoundExprPtr> preds;
  Flatten(std::move(op), rels, preds);

  std::vector<BoundExprPtr> top;  // constant predicates
  std::vector<Edge> edges;
  std::vector<Residual> residuals;
  for (auto& p : preds) {
    auto rs = RelsOf(*p, rels);
    if (rs.empty()) {
      top.push_back(std::move(p));
      continue;
    }
    if (rs.size() == 1) {
      Relation& r = rels[*rs.begin()];
      if (r.op->kind == LogicalKind::Get) r.op->filters.push_back(std::move(p));
      else r.extra_filters.push_back(std::move(p));
      continue;
    }
    if (rs.size() == 2 && p->kind == BExpr::Compare && p->op == ast::Op::Eq) {
      auto ra = RelsOf(*p->children[0], rels), rb = RelsOf(*p->children[1], rels);
      if (ra.size() == 1 && rb.size() == 1 && *ra.begin() != *rb.begin()) {
        edges.push_back({*ra.begin(), *rb.begin(), std::move(p->children[0]), std::move(p->children[1])});
        continue;
      }
    }
    residuals.push_back({rs, std::move(p)});
  }
  // Cardinality estimates.
  for (auto& r : rels) {
    if (r.op->kind == LogicalKind::Get) {
      r.scan = r.op.get();
      double s = 1;
      for (auto& f : r.op->filters) s *= EstimateSelectivity(*f, r.op.get());
      r.rows = std::max(1.0, (double)r.op->table->data->row_count * s);
      r.op->estimated_rows = r.rows;
    } else {
      r.rows = AtMostOneRow(*r.op) ? 1 : r.op->estimated_rows >= 0 ? r.op->estimated_rows : 1000;
      double s = 1;
      for (auto& f : r.extra_filters) s *= EstimateSelectivity(*f, nullptr);
      r.rows = std::max(1.0, r.rows * s);
    }
    if (!r.extra_filters.empty()) {
      auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
      f->filters = std::move(r.extra_filters);
      f->estimated_rows = r.rows;
      f->children.push_back(std::move(r.op));
      r.op = std::move(f);
    }
  }
  // Greedy left-deep join order: start from the largest relation (the fact table).
  size_t n = rels.size();
  std::vector<bool> in(n, false);
  size_t start = 0;
  for (size_t i = 1; i < n; i++)
    if (rels[i].rows > rels[start].rows) start = i;
  LogicalOpPtr cur = std::move(rels[start].op);
  double cur_rows = rels[start].rows;
  in[start] = true;
  auto place_residuals = [&]() {
    std::vector<BoundExprPtr> ready;
    for (auto& r : residuals) {
      if (!r.pred) continue;
      bool all = true;
      for (size_t x : r.rels) all &= in[x];
      if (all) ready.push_back(std::move(r.pred));
    }
    if (ready.empty()) return;
    auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
    f->filters = std::move(ready);
    for (auto& t : f->filters) cur_rows *= EstimateSelectivity(*t, nullptr);
    f->estimated_rows = cur_rows;
    f->children.push_back(std::move(cur));
    cur = std::move(f);
  };
  for (size_t step = 1; step < n; step++) {
    size_t best = n;
    double best_rows = 0, best_rank = 0;
    for (size_t i = 0; i < n; i++) {
      if (in[i]) continue;
      bool connected = false;
      double dv = 1;
      for (auto& e : edges) {
        if (!e.ea || !((e.a == i && in[e.b]) || (e.b == i && in[e.a]))) continue;
        connected = true;
        const BoundExpr& mine = e.a == i ? *e.ea : *e.eb;
        const BoundExpr& other = e.a == i ? *e.eb : *e.ea;
        size_t other_rel = e.a == i ? e.b : e.a;
        // Key/foreign-key joins: the key side's distinct count (its row count) is the
        // smaller one; a foreign key's min/max range can overstate its distinct values
        // (yyyymmdd dates span 61 K integers for 2.5 K days).
        dv = std::max(dv, std::min(ExprDistinct(mine, rels[i]), ExprDistinct(other, rels[other_rel])));
      }
      // A relation not connected by a join key is taken last (a cross product), unless it
      // has at most one row: joining it then multiplies nothing.
      double out = connected ? cur_rows * rels[i].rows / dv : cur_rows * rels[i].rows;
      double rank = connected || AtMostOneRow(*rels[i].op) ? out : out * 1e6;
      if (best == n || rank < best_rank) { best = i; best_rows = out; best_rank = rank; }
    }
    auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
    j->join_type = LJoinType::Inner;
    std::vector<BoundExprPtr> lk, rk;
    for (auto& e : edges) {
      if (!e.ea) continue;
      if (e.a == best && in[e.b]) { rk.push_back(std::move(e.ea)); lk.push_back(std::move(e.eb)); }
      else if (e.b == best && in[e.a]) { lk.push_back(std::move(e.ea)); rk.push_back(std::move(e.eb)); }
      else continue;
      e.ea.reset();
      e.eb.reset();
    }
    if (lk.empty()) j->join_type = LJoinType::Cross;
    LogicalOpPtr other = std::move(rels[best].op);
    // The joined side is the streaming pipeline (for a star: the fact table) and stays
    // the probe side; the new relation builds. Swapping by estimated size would
    // materialise the whole pipeline's output whenever an estimate is too low (seen on
    // SSB q4.2 at SF10: 575 K rows estimated as 11 K), so the largest relation always
    // probes, as in Crystal's star joins.
    j->children.push_back(std::move(cur));
    j->children.push_back(std::move(other));
    j->left_keys = std::move(lk);
    j->right_keys = std::move(rk);
    in[best] = true;
    cur_rows = std::max(1.0, best_rows);
    j->estimated_rows = cur_rows;
    cur = std::move(j);
    place_residuals();
  }
  place_residuals();
  if (!top.empty()) {
    auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
    f->filters = std::move(top);
    f->estimated_rows = cur_rows;
    f->children.push_back(std::move(cur));
    cur = std::move(f);
  }
  return cur;
}

}  // namespace tessera
