#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include "common/join_rules.hpp"
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
  // A unit (join_enumerator.hpp): the right side `op` of this LEFT/semi/anti/mark join,
  // kept without its children; `needs` the relations its keys and residual read.
  LogicalOpPtr join;
  uint64_t needs = 0;
  std::vector<KeyEstimate> left_keys, right_keys;  // estimates of the join's keys
  bool left_keys_known = false;  // every left key reads one relation (its estimate is known)
};

// A LEFT, semi, anti or mark join the enumerator may place as a unit: with keys (a keyless
// one tries every pair wherever it is), not a scalar subquery's single-match join, not NOT
// IN's null-aware mark join, not INTERSECT/EXCEPT's NULLs-equal or counted joins.
bool UnitJoin(const LogicalOp& op) {
  return op.kind == LogicalKind::Join &&
         (op.join_type == LJoinType::Left || op.join_type == LJoinType::Semi || op.join_type == LJoinType::Anti ||
          op.join_type == LJoinType::Mark) &&
         !op.left_keys.empty() && !op.single_match && !op.null_aware && !op.nulls_equal && !op.counted;
}

bool InnerJoin(const LogicalOp& op) {
  return op.kind == LogicalKind::Join && (op.join_type == LJoinType::Cross || op.join_type == LJoinType::Inner) &&
         !op.residual && !op.nulls_equal;  // NULLs equal (a decorrelated subquery's): kept as it is
}

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

void Flatten(LogicalOpPtr op, std::vector<Relation>& rels, std::vector<BoundExprPtr>& preds, bool for_cpu) {
  if (op->kind == LogicalKind::Filter) {
    for (auto& f : op->filters) preds.push_back(std::move(f));
    Flatten(std::move(op->children[0]), rels, preds, for_cpu);
    return;
  }
  if (InnerJoin(*op)) {
    for (size_t i = 0; i < op->left_keys.size(); i++)
      preds.push_back(MakeCompare(ast::Op::Eq, std::move(op->left_keys[i]), std::move(op->right_keys[i])));
    Flatten(std::move(op->children[0]), rels, preds, for_cpu);
    Flatten(std::move(op->children[1]), rels, preds, for_cpu);
    return;
  }
  if (UnitJoin(*op)) {
    // The left side joins the region; the right side becomes a unit relation.
    Flatten(std::move(op->children[0]), rels, preds, for_cpu);
    Relation u;
    u.op = ReorderJoins(std::move(op->children[1]), for_cpu);
    EstimateRows(*u.op);
    if (op->join_type == LJoinType::Mark) u.bindings = {ColumnBinding{op->table_index, 0}};
    else u.bindings = u.op->Bindings();
    op->children.clear();
    op->estimated_rows = -1;
    u.join = std::move(op);
    rels.push_back(std::move(u));
    return;
  }
  Relation r;
  r.op = ReorderJoins(std::move(op), for_cpu);
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

// The rows of a unit's join with an outer side of `lrows` (join_rows' rule and the
// tree's): the join's own estimate (cardinality.cpp's JoinRows).
double UnitJoinRows(const Relation& u, double lrows, double rrows) {
  const LogicalOp& j = *u.join;
  const double residual = j.residual ? EstimateSelectivity(*j.residual, nullptr) : 1;
  return std::max(1.0, JoinRows(j.join_type, lrows, rrows, u.left_keys, u.right_keys, residual));
}

// The logical join tree of the enumerator's plan: each inner join takes the keys of the
// edges between its two sides (left: the probe side, right: the build side); a unit's join
// (LEFT/semi/anti/mark) keeps its own keys and residual, and the edges between its sides
// (WHERE terms over the unit's columns) become a filter above it; a filter above each join
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
  const JoinPlanNode& b = plan.nodes[node.build];
  Relation* unit = b.probe < 0 && rels[b.relation].join ? &rels[b.relation] : nullptr;
  LogicalOpPtr j;
  std::vector<BoundExprPtr> ready;
  if (unit) {
    rows = UnitJoinRows(*unit, lrows, rrows);
    j = std::move(unit->join);
    for (auto& e : edges) {
      if (!e.ea || !((l.in[e.a] && r.in[e.b]) || (r.in[e.a] && l.in[e.b]))) continue;
      ready.push_back(MakeCompare(ast::Op::Eq, std::move(e.ea), std::move(e.eb)));
    }
  } else {
    j = std::make_unique<LogicalOp>(LogicalKind::Join);
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
  }
  j->estimated_rows = rows;
  j->children.push_back(std::move(l.op));
  j->children.push_back(std::move(r.op));
  Built out{std::move(j), std::move(l.in)};
  for (size_t i = 0; i < out.in.size(); i++) out.in[i] = out.in[i] || r.in[i];
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

// Whether a table built on `build` for the inner join with `probe` would be direct-mapped
// (common/join_rules.hpp's DirectMappedKeys, as both backends decide it): one key, an
// integer column traced to its scan, unique there (a key of its table: distinct values
// about its rows) and not multiplied by the build side's other joins (its rows at most
// about that key's distinct values), its span (the column's min/max) small enough for the
// build's rows.
bool DirectMappedBuild(const std::vector<Edge>& edges, const std::vector<Relation>& rels, uint64_t probe,
                       uint64_t build, double build_rows) {
  // The join's keys as the tree will take them (one per equivalence class).
  auto keys = JoinKeys(edges, [&](size_t x) { return ((probe >> x) & 1) != 0; }, [&](size_t x) { return ((build >> x) & 1) != 0; });
  if (keys.size() != 1) return false;  // no key, or several: a generic table
  const Edge* key = &edges[keys[0].first];
  const bool build_is_a = keys[0].second;
  if (std::popcount(build) == 1 && rels[std::countr_zero(build)].join) return false;  // a unit's own join
  const KeyEstimate& k = build_is_a ? key->ka : key->kb;
  const BoundExpr* x = build_is_a ? key->ea.get() : key->eb.get();
  // A key only where its distinct count was measured (an older database without sketches
  // bounds it by the min/max span: TPC-H's sparse l_orderkey looked unique).
  if (!k.table || !x || k.table->kind != LogicalKind::Get || !DistinctCountMeasured(k.table, k.column)) return false;
  const PhysType p = x->type.physical();
  if (p != PhysType::I32 && p != PhysType::I64) return false;
  if (k.domain < 0.9 * k.base_rows || build_rows > 1.1 * k.ndv) return false;
  double lo = 0, hi = 0;
  if (!ColumnRange(k.table, k.column, lo, hi) || !(hi >= lo)) return false;
  return DirectMappedKeys((uint64_t)(hi - lo), (uint64_t)std::max(1.0, build_rows));
}

}  // namespace

LogicalOpPtr ReorderJoins(LogicalOpPtr op, bool for_cpu) {
  const bool region = op->kind == LogicalKind::Filter || InnerJoin(*op) || UnitJoin(*op);
  if (!region) {
    for (auto& c : op->children) c = ReorderJoins(std::move(c), for_cpu);
    return op;
  }
  // The estimates of the units' keys, on their join's sides as written (before the left
  // side is flattened): the estimate the join had in place.
  std::vector<Relation> rels;
  std::vector<BoundExprPtr> preds;
  Flatten(std::move(op), rels, preds, for_cpu);
  // What each unit reads: the relations of its left keys and residual (all relations
  // before it where none is found: it stays above them).
  for (size_t u = 0; u < rels.size(); u++) {
    if (!rels[u].join) continue;
    std::set<size_t> reads;
    for (auto& k : rels[u].join->left_keys)
      for (size_t x : RelsOf(*k, rels)) reads.insert(x);
    if (rels[u].join->residual)
      for (size_t x : RelsOf(*rels[u].join->residual, rels)) reads.insert(x);
    reads.erase(u);
    uint64_t m = 0;
    for (size_t x : reads) m |= x < 64 ? uint64_t{1} << x : 0;
    if (!m) m = u < 64 ? (uint64_t{1} << u) - 1 : ~uint64_t{0};
    rels[u].needs = m;
  }

  std::vector<BoundExprPtr> top;  // constant predicates
  std::vector<Edge> edges;
  std::vector<Residual> residuals;
  for (auto& p : preds) {
    auto rs = RelsOf(*p, rels);
    if (rs.empty()) {
      top.push_back(std::move(p));
      continue;
    }
    if (rs.size() == 1 && !rels[*rs.begin()].join) {
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
  // Transitive inference (transitive_predicates.hpp): implied edges and copied filters,
  // over the edges between relations that are not units (a unit's columns are a LEFT
  // join's NULL-padded side, a semi/anti join's subquery or a mark: nothing is inferred
  // through them, nothing copied into them).
  if (rels.size() <= 64) {
    std::vector<EquiEdge> eq;
    std::vector<size_t> eq_edge;  // eq[k] is edges[eq_edge[k]]
    for (size_t i = 0; i < edges.size(); i++) {
      const Edge& e = edges[i];
      if (rels[e.a].join || rels[e.b].join) continue;
      eq.push_back({e.a, e.b, e.ea.get(), e.eb.get()});
      eq_edge.push_back(i);
    }
    std::vector<RelationFilter> singles;
    for (size_t i = 0; i < rels.size(); i++) {
      if (rels[i].join) continue;
      for (auto& f : rels[i].extra_filters) singles.push_back({i, f.get()});
      std::vector<const BoundExpr*> holding;  // a scan's filters; those inside a LEFT join's left side, ...
      FiltersHolding(*rels[i].op, holding);
      for (const BoundExpr* f : holding) singles.push_back({i, f});
    }
    TransitiveInference inf = InferTransitive(eq, singles);
    for (size_t k = 0; k < eq_edge.size(); k++) edges[eq_edge[k]].cls = inf.edge_class[k];
    for (auto& e : inf.edges) edges.push_back({e.a, e.b, std::move(e.ea), std::move(e.eb), {}, {}, e.cls});
    for (auto& f : inf.filters) {
      Relation& r = rels[f.rel];
      (r.op->kind == LogicalKind::Get ? r.op->filters : r.extra_filters).push_back(std::move(f.pred));
    }
  }
  // Cardinality estimates.
  for (auto& r : rels) {
    if (r.join) {
      r.rows = std::max(1.0, r.op->estimated_rows >= 0 ? r.op->estimated_rows : 1000);
      continue;
    }
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
  // A unit's keys: its left keys on the relation each reads (an estimate without one where
  // a key reads several), its right keys on its own side.
  for (auto& u : rels) {
    if (!u.join) continue;
    for (auto& k : u.join->left_keys) {
      auto rs = RelsOf(*k, rels);
      u.left_keys.push_back(rs.size() == 1 ? EstimateKey(*k, *rels[*rs.begin()].op) : KeyEstimate{});
    }
    for (auto& k : u.join->right_keys) u.right_keys.push_back(EstimateKey(*k, *u.op));
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
    bool any_unit = false;
    for (auto& r : rels) {
      g.rows.push_back(r.rows);
      g.single_row.push_back(!r.join && AtMostOneRow(*r.op));
      g.needs.push_back(r.needs);
      // Semi/anti joins of CPU plans: semi_join_side.cpp may swap them (its Swappable
      // rule holds for every unit: keys, no NULLs-equal, counted or null-aware joins).
      g.outer_may_build.push_back(for_cpu && r.join && ReturnsLeftOnly(r.join->join_type));
      any_unit = any_unit || r.join;
    }
    if (!any_unit) {
      g.needs.clear();
      g.outer_may_build.clear();
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
      const Relation* unit = std::popcount(r) == 1 && rels[std::countr_zero(r)].join ? &rels[std::countr_zero(r)] : nullptr;
      double out;
      if (unit) {
        // The unit's own join; WHERE terms between its sides filter its result.
        out = UnitJoinRows(*unit, lr, rr);
        if (!lk.empty()) out *= InnerJoinRows(1e6, 1e6, lk, rk) / 1e12;
      } else {
        out = InnerJoinRows(lr, rr, lk, rk);
      }
      for (auto& [m, pred] : residual_sets)
        if ((m & ~(l | r)) == 0 && (m & ~l) && ((m & ~r) || unit)) out *= EstimateSelectivity(*pred, nullptr);
      return out;
    };
    g.direct_mapped = [&](uint64_t probe, uint64_t build, double build_rows) {
      return DirectMappedBuild(edges, rels, probe, build, build_rows);
    };
    plan = OrderJoins(g);
  }
  if (plan.root < 0) {
    // Beyond 64 relations (or no plan found): left-deep in the order written (a unit comes
    // after the relations of its join's left side).
    plan = JoinPlan{};
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
