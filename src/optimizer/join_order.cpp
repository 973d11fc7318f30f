#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include "optimizer/cardinality.hpp"
#include "optimizer/join_enumerator.hpp"
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

void Flatten(LogicalOpPtr op, std::vector<Relation>& rels, std::vector<BoundExprPtr>& preds, JoinOrderStrategy strategy) {
  if (op->kind == LogicalKind::Filter) {
    for (auto& f : op->filters) preds.push_back(std::move(f));
    Flatten(std::move(op->children[0]), rels, preds, strategy);
    return;
  }
  if (op->kind == LogicalKind::Join &&
      (op->join_type == LJoinType::Cross || op->join_type == LJoinType::Inner) && !op->residual &&
      !op->nulls_equal) {
    for (size_t i = 0; i < op->left_keys.size(); i++)
      preds.push_back(MakeCompare(ast::Op::Eq, std::move(op->left_keys[i]), std::move(op->right_keys[i])));
    Flatten(std::move(op->children[0]), rels, preds, strategy);
    Flatten(std::move(op->children[1]), rels, preds, strategy);
    return;
  }
  Relation r;
  r.op = ReorderJoins(std::move(op), strategy);
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

struct Built {
  LogicalOpPtr op;
  std::vector<bool> in;  // the relations under it
};

// The logical join tree of the enumerator's plan: each join takes the keys of the edges
// between its two sides (left: the probe side, right: the build side) and a filter above it
// takes the residual predicates it is the lowest join to cover.
Built BuildJoinTree(const JoinPlan& plan, int at, std::vector<Relation>& rels, std::vector<Edge>& edges,
                    std::vector<Residual>& residuals, double& rows) {
  const JoinPlanNode& node = plan.nodes[at];
  if (node.probe < 0) {
    Built b{std::move(rels[node.relation].op), std::vector<bool>(rels.size(), false)};
    b.in[node.relation] = true;
    rows = rels[node.relation].rows;
    return b;
  }
  double lrows = 0, rrows = 0;
  Built l = BuildJoinTree(plan, node.probe, rels, edges, residuals, lrows);
  Built r = BuildJoinTree(plan, node.build, rels, edges, residuals, rrows);
  auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
  j->join_type = LJoinType::Inner;
  std::vector<KeyEstimate> lke, rke;
  for (auto& e : edges) {
    if (!e.ea) continue;
    if (l.in[e.a] && r.in[e.b]) {
      j->left_keys.push_back(std::move(e.ea));
      j->right_keys.push_back(std::move(e.eb));
      lke.push_back(e.ka);
      rke.push_back(e.kb);
    } else if (r.in[e.a] && l.in[e.b]) {
      j->left_keys.push_back(std::move(e.eb));
      j->right_keys.push_back(std::move(e.ea));
      lke.push_back(e.kb);
      rke.push_back(e.ka);
    } else {
      continue;
    }
    e.ea.reset();
    e.eb.reset();
  }
  if (j->left_keys.empty()) j->join_type = LJoinType::Cross;
  rows = std::max(1.0, InnerJoinRows(lrows, rrows, lke, rke));
  j->estimated_rows = rows;
  j->children.push_back(std::move(l.op));
  j->children.push_back(std::move(r.op));
  Built out{std::move(j), std::move(l.in)};
  for (size_t i = 0; i < out.in.size(); i++) out.in[i] = out.in[i] || r.in[i];
  std::vector<BoundExprPtr> ready;
  for (auto& res : residuals) {
    if (!res.pred) continue;
    bool all = true;
    for (size_t x : res.rels) all = all && out.in[x];
    if (all) ready.push_back(std::move(res.pred));
  }
  if (!ready.empty()) {
    auto f = std::make_unique<LogicalOp>(LogicalKind::Filter);
    f->filters = std::move(ready);
    for (auto& t : f->filters) rows *= EstimateSelectivity(*t, nullptr);
    rows = std::max(1.0, rows);
    f->estimated_rows = rows;
    f->children.push_back(std::move(out.op));
    out.op = std::move(f);
  }
  return out;
}

}  // namespace

LogicalOpPtr ReorderJoins(LogicalOpPtr op, JoinOrderStrategy strategy) {
  bool region = op->kind == LogicalKind::Filter ||
                (op->kind == LogicalKind::Join &&
                 (op->join_type == LJoinType::Cross || op->join_type == LJoinType::Inner) && !op->residual &&
                 !op->nulls_equal);  // NULLs equal (a decorrelated subquery's): kept as it is
  if (!region) {
    for (auto& c : op->children) c = ReorderJoins(std::move(c), strategy);
    return op;
  }
  std::vector<Relation> rels;
  std::vector<BoundExprPtr> preds;
  Flatten(std::move(op), rels, preds, strategy);

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
  // The join graph: relations connected by equi-join keys and by residual predicates over
  // two relations; the enumerator (join_enumerator.cpp) chooses the tree.
  const size_t n = rels.size();
  std::vector<std::pair<uint64_t, BoundExpr*>> residual_sets;  // relations (mask), predicate
  if (n <= 64)
    for (auto& r : residuals) {
      uint64_t m = 0;
      for (size_t x : r.rels) m |= uint64_t{1} << x;
      residual_sets.push_back({m, r.pred.get()});
    }
  JoinPlan plan;
  if (n <= 64) {
    JoinGraph g;
    g.neighbors.assign(n, 0);
    for (auto& r : rels) {
      g.rows.push_back(r.rows);
      g.single_row.push_back(AtMostOneRow(*r.op));
    }
    for (auto& e : edges) {
      g.neighbors[e.a] |= uint64_t{1} << e.b;
      g.neighbors[e.b] |= uint64_t{1} << e.a;
    }
    for (auto& [m, pred] : residual_sets)
      if (std::popcount(m) == 2) {
        const int a = std::countr_zero(m), b = 63 - std::countl_zero(m);
        g.neighbors[a] |= uint64_t{1} << b;
        g.neighbors[b] |= uint64_t{1} << a;
      }
    g.join_rows = [&](uint64_t l, double lr, uint64_t r, double rr) {
      std::vector<KeyEstimate> lk, rk;
      for (auto& e : edges) {
        const uint64_t a = uint64_t{1} << e.a, b = uint64_t{1} << e.b;
        if ((l & a) && (r & b)) { lk.push_back(e.ka); rk.push_back(e.kb); }
        else if ((l & b) && (r & a)) { lk.push_back(e.kb); rk.push_back(e.ka); }
      }
      double out = InnerJoinRows(lr, rr, lk, rk);
      for (auto& [m, pred] : residual_sets)
        if ((m & ~(l | r)) == 0 && (m & ~l) && (m & ~r)) out *= EstimateSelectivity(*pred, nullptr);
      return out;
    };
    plan = strategy == JoinOrderStrategy::LeftDeep ? OrderJoinsGreedy(g) : OrderJoins(g);
  } else {
    // Beyond 64 relations: left-deep in the order written.
    plan.nodes.push_back({0, -1, -1, 0, rels[0].rows, 0});
    int cur = 0;
    for (size_t i = 1; i < n; i++) {
      plan.nodes.push_back({0, -1, -1, i, rels[i].rows, 0});
      plan.nodes.push_back({0, cur, (int)plan.nodes.size() - 1, 0, 0, 0});
      cur = (int)plan.nodes.size() - 1;
    }
    plan.root = (int)plan.nodes.size() - 1;
  }
  double cur_rows = 0;
  LogicalOpPtr cur = BuildJoinTree(plan, plan.root, rels, edges, residuals, cur_rows).op;
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
