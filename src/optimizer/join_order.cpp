#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include "optimizer/cardinality.hpp"
#include "optimizer/join_enumerator.hpp"
#include "optimizer/optimizer.hpp"
#include "optimizer/transitive_predicates.hpp"

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
  int cls = -1;         // its equivalence class (transitive_predicates.hpp), or -1
};

// The edges joining two sides (in_l, in_r: whether a relation is on that side), as (edge,
// swapped: its relation a is on the right): every edge outside a class, and one edge of
// each class with columns on both sides. The columns of a class on one side are equal
// already (the join that brought them together took an edge of the class: a class has an
// edge between any two of its columns), so one key says the rest. Preferred: the edge
// whose relations the other keys read already (composite keys of one table on each side
// estimate as a key, e.g. partsupp's (partkey, suppkey), not as independent conditions).
template <class InL, class InR>
std::vector<std::pair<size_t, bool>> JoinKeys(const std::vector<Edge>& edges, InL in_l, InR in_r) {
  std::vector<std::pair<size_t, bool>> out;
  std::set<size_t> lrels, rrels;
  std::map<int, std::vector<std::pair<size_t, bool>>> by_class;
  for (size_t i = 0; i < edges.size(); i++) {
    const Edge& e = edges[i];
    if (!e.ea) continue;
    bool swapped;
    if (in_l(e.a) && in_r(e.b)) swapped = false;
    else if (in_r(e.a) && in_l(e.b)) swapped = true;
    else continue;
    if (e.cls >= 0) {
      by_class[e.cls].push_back({i, swapped});
      continue;
    }
    out.push_back({i, swapped});
    lrels.insert(swapped ? e.b : e.a);
    rrels.insert(swapped ? e.a : e.b);
  }
  // One edge per class; each pick scored by the relations the other keys read, in two
  // rounds (the second revisits the first's picks knowing the others).
  std::vector<std::vector<std::pair<size_t, bool>>> classes;
  for (auto& [cls, cands] : by_class) classes.push_back(cands);
  std::vector<size_t> pick(classes.size(), 0);
  auto side_rels = [&](const std::pair<size_t, bool>& c) {
    const Edge& e = edges[c.first];
    return std::pair<size_t, size_t>{c.second ? e.b : e.a, c.second ? e.a : e.b};
  };
  for (int round = 0; round < 2; round++)
    for (size_t k = 0; k < classes.size(); k++) {
      std::multiset<size_t> l = {lrels.begin(), lrels.end()}, r = {rrels.begin(), rrels.end()};
      for (size_t o = 0; o < classes.size(); o++)
        if (o != k && (round > 0 || o < k)) {
          auto [a, b] = side_rels(classes[o][pick[o]]);
          l.insert(a);
          r.insert(b);
        }
      auto score = [&](size_t c) {
        auto [a, b] = side_rels(classes[k][c]);
        return (int)(l.count(a) > 0) + (int)(r.count(b) > 0);
      };
      for (size_t c = 0; c < classes[k].size(); c++)
        if (score(c) > score(pick[k])) pick[k] = c;
    }
  for (size_t k = 0; k < classes.size(); k++) out.push_back(classes[k][pick[k]]);
  std::sort(out.begin(), out.end());  // the keys in the order written (implied edges last)
  return out;
}

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
  for (auto [i, swapped] : JoinKeys(edges, [&](size_t x) { return (bool)l.in[x]; }, [&](size_t x) { return (bool)r.in[x]; })) {
    Edge& e = edges[i];
    j->left_keys.push_back(std::move(swapped ? e.eb : e.ea));
    j->right_keys.push_back(std::move(swapped ? e.ea : e.eb));
    lke.push_back(swapped ? e.kb : e.ka);
    rke.push_back(swapped ? e.ka : e.kb);
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
  // Transitive inference (transitive_predicates.hpp): implied edges and copied filters.
  if (rels.size() <= 64) {
    std::vector<EquiEdge> eq;
    for (auto& e : edges) eq.push_back({e.a, e.b, e.ea.get(), e.eb.get()});
    std::vector<RelationFilter> singles;
    for (size_t i = 0; i < rels.size(); i++) {
      for (auto& f : rels[i].extra_filters) singles.push_back({i, f.get()});
      std::vector<const BoundExpr*> holding;  // a scan's filters; those inside a LEFT join's left side, ...
      FiltersHolding(*rels[i].op, holding);
      for (const BoundExpr* f : holding) singles.push_back({i, f});
    }
    TransitiveInference inf = InferTransitive(eq, singles);
    for (size_t i = 0; i < edges.size(); i++) edges[i].cls = inf.edge_class[i];
    for (auto& e : inf.edges) edges.push_back({e.a, e.b, std::move(e.ea), std::move(e.eb), {}, {}, e.cls});
    for (auto& f : inf.filters) {
      Relation& r = rels[f.rel];
      (r.op->kind == LogicalKind::Get ? r.op->filters : r.extra_filters).push_back(std::move(f.pred));
    }
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
      for (auto [i, swapped] : JoinKeys(edges, [&](size_t x) { return ((l >> x) & 1) != 0; },
                                        [&](size_t x) { return ((r >> x) & 1) != 0; })) {
        lk.push_back(swapped ? edges[i].kb : edges[i].ka);
        rk.push_back(swapped ? edges[i].ka : edges[i].kb);
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
