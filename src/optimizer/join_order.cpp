#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "optimizer/cardinality.hpp"
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
  KeyEstimate ka, kb;   // what the estimator knows about ea and eb
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
      (op->join_type == LJoinType::Cross || op->join_type == LJoinType::Inner) && !op->residual &&
      !op->nulls_equal) {
    for (size_t i = 0; i < op->left_keys.size(); i++)
      preds.push_back(MakeCompare(ast::Op::Eq, std::move(op->left_keys[i]), std::move(op->right_keys[i])));
    Flatten(std::move(op->children[0]), rels, preds);
    Flatten(std::move(op->children[1]), rels, preds);
    return;
  }
  Relation r;
  r.op = ReorderJoins(std::move(op));
  EstimateRows(*r.op);
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

}  // namespace

LogicalOpPtr ReorderJoins(LogicalOpPtr op) {
  bool region = op->kind == LogicalKind::Filter ||
                (op->kind == LogicalKind::Join &&
                 (op->join_type == LJoinType::Cross || op->join_type == LJoinType::Inner) && !op->residual &&
                 !op->nulls_equal);  // NULLs equal (a decorrelated subquery's): kept as it is
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
        edges.push_back({*ra.begin(), *rb.begin(), std::move(p->children[0]), std::move(p->children[1]), {}, {}});
        continue;
      }
    }
    residuals.push_back({rs, std::move(p)});
  }
  // Cardinality estimates.
  for (auto& r : rels) {
    if (r.op->kind == LogicalKind::Get) {
      r.scan = r.op.get();
      double s = ConjunctionSelectivity(r.op->filters, r.op.get());
      r.rows = std::max(1.0, (double)r.op->table->data->row_count * s);
      r.op->estimated_rows = r.rows;
    } else {
      r.rows = AtMostOneRow(*r.op) ? 1 : r.op->estimated_rows >= 0 ? r.op->estimated_rows : 1000;
      r.rows = std::max(1.0, r.rows * FilterSelectivity(r.extra_filters, *r.op));
    }
    if (!r.extra_filters.empty()) {
      auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
      f->filters = std::move(r.extra_filters);
      f->estimated_rows = r.rows;
      f->children.push_back(std::move(r.op));
      r.op = std::move(f);
    }
  }
  for (auto& e : edges) {
    e.ka = EstimateKey(*e.ea, *rels[e.a].op);
    e.kb = EstimateKey(*e.eb, *rels[e.b].op);
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
      std::vector<KeyEstimate> mine, other;  // the keys joining i to what is joined
      for (auto& e : edges) {
        if (!e.ea || !((e.a == i && in[e.b]) || (e.b == i && in[e.a]))) continue;
        connected = true;
        mine.push_back(e.a == i ? e.ka : e.kb);
        other.push_back(e.a == i ? e.kb : e.ka);
      }
      // A relation not connected by a join key is taken last (a cross product), unless it
      // has at most one row: joining it then multiplies nothing.
      double out = InnerJoinRows(cur_rows, rels[i].rows, other, mine);
      // The cost of the step: the rows it produces, the hash table it builds and the probes
      // into it, a probe into a table beyond the caches (over 64 K rows) costing about four
      // in-cache ones. So between joins that keep every probe row the smaller build side
      // goes first (a dimension reached through it may filter next), and a large table is
      // probed after the small ones that filter.
      const double probe = rels[i].rows > 65536 ? 4 : 1;
      double rank = out + rels[i].rows + cur_rows * probe;
      if (!connected && !AtMostOneRow(*rels[i].op)) rank *= 1e6;
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
