// The join enumerator (optimizer/join_enumerator.*) on hand-made join graphs: a chain, a
// star, a cycle, a clique and random graphs give the cheapest tree an exhaustive search over
// connected pairs finds; every join builds its smaller side and joins sides connected by an
// edge (a cross product only between the components of a disconnected graph); estimates can
// force a bushy tree; more than kMaxDpRelations relations fall to the greedy left-deep order;
// plans are deterministic. Join sizes here: the product of the relations' rows and of the
// selectivities of the edges inside the set. Units (the right sides of LEFT/semi/anti/mark
// joins) join whole, only after the relations they read, as the build side of their own
// join (or, where allowed, probing a small outer side); a selective one joins first, an
// unselective large one last; a direct-mapped build may take the larger side.
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "check.hpp"
#include "optimizer/join_enumerator.hpp"

using namespace tessera;

namespace {

struct TestGraph {
  std::vector<double> rows;
  std::map<std::pair<size_t, size_t>, double> sel;  // edge (a < b) -> selectivity

  void Edge(size_t a, size_t b, double s) { sel[{std::min(a, b), std::max(a, b)}] = s; }

  JoinGraph Graph() const {
    JoinGraph g;
    g.rows = rows;
    g.neighbors.assign(rows.size(), 0);
    g.single_row.assign(rows.size(), false);
    for (auto& [e, s] : sel) {
      g.neighbors[e.first] |= uint64_t{1} << e.second;
      g.neighbors[e.second] |= uint64_t{1} << e.first;
    }
    // The rows of the joined set from its relations (not from lr, rr): the same for every
    // split, even where an estimate is clamped to one row.
    g.join_rows = [rows = rows, sel = sel](uint64_t l, double, uint64_t r, double) {
      const uint64_t s = l | r;
      double out = 1;
      for (size_t i = 0; i < rows.size(); i++)
        if (s & (uint64_t{1} << i)) out *= rows[i];
      for (auto& [e, f] : sel)
        if ((s >> e.first & 1) && (s >> e.second & 1)) out *= f;
      return out;
    };
    return g;
  }
  bool Connected(uint64_t x, uint64_t y) const {
    for (auto& [e, s] : sel) {
      const uint64_t a = uint64_t{1} << e.first, b = uint64_t{1} << e.second;
      if (((x & a) && (y & b)) || ((x & b) && (y & a))) return true;
    }
    return false;
  }
};

// The cheapest cost over every bushy tree of connected pairs (the same cost and build-side
// rule as the enumerator), by dynamic programming over all subsets.
double ExhaustiveCost(const TestGraph& t) {
  const JoinGraph g = t.Graph();
  const size_t n = t.rows.size();
  const uint64_t all = (uint64_t{1} << n) - 1;
  std::vector<double> cost(all + 1, -1), rows(all + 1, 0);
  for (size_t i = 0; i < n; i++) {
    cost[uint64_t{1} << i] = 0;
    rows[uint64_t{1} << i] = t.rows[i];
  }
  for (uint64_t s = 1; s <= all; s++) {
    if (std::popcount(s) < 2) continue;
    for (uint64_t a = (s - 1) & s; a; a = (a - 1) & s) {
      const uint64_t b = s & ~a;
      if (cost[a] < 0 || cost[b] < 0 || !t.Connected(a, b)) continue;
      const double out = std::max(1.0, g.join_rows(a, rows[a], b, rows[b]));
      const double c = cost[a] + cost[b] + JoinStepCost(std::max(rows[a], rows[b]), std::min(rows[a], rows[b]), out);
      if (cost[s] < 0 || c < cost[s]) {
        cost[s] = c;
        rows[s] = out;
      }
    }
  }
  return cost[all];
}

// Checks the tree: every relation once, the smaller side builds, the sides of each join
// connected (unless `cross_ok`); returns the number of cross products.
int CheckTree(const TestGraph& t, const JoinPlan& p, bool cross_ok = false) {
  CHECK(p.root >= 0);
  if (p.root < 0) return 0;
  CHECK_EQ(p.nodes[p.root].set, (uint64_t{1} << t.rows.size()) - 1);
  int crosses = 0;
  for (const auto& n : p.nodes) {
    if (n.probe < 0) {
      CHECK_EQ(n.set, uint64_t{1} << n.relation);
      continue;
    }
    const auto &l = p.nodes[n.probe], &r = p.nodes[n.build];
    CHECK_EQ(l.set & r.set, uint64_t{0});
    CHECK_EQ(l.set | r.set, n.set);
    CHECK(r.rows <= l.rows);
    if (!t.Connected(l.set, r.set)) crosses++;
  }
  if (!cross_ok) CHECK_EQ(crosses, 0);
  return crosses;
}

std::string Shape(const JoinPlan& p, int at) {
  const auto& n = p.nodes[at];
  if (n.probe < 0) return std::to_string(n.relation);
  return "(" + Shape(p, n.probe) + " " + Shape(p, n.build) + ")";
}

// Ordinary relations joined by edges (as TestGraph) and units, each reading `needs` and
// keeping a fraction of the rows of the set it joins (a semi/anti join).
struct UnitGraph {
  TestGraph t;  // rows of every relation (the units' too), edges between ordinary ones
  std::map<size_t, std::pair<uint64_t, double>> units;  // unit -> (needs, fraction kept)

  JoinGraph Graph(bool outer_may_build = false) const {
    JoinGraph g = t.Graph();
    g.needs.assign(t.rows.size(), 0);
    g.outer_may_build.assign(t.rows.size(), false);
    for (auto& [u, nf] : units) {
      g.needs[u] = nf.first;
      g.outer_may_build[u] = outer_may_build;
    }
    g.join_rows = [rows = t.rows, sel = t.sel, units = units](uint64_t l, double, uint64_t r, double) {
      const uint64_t s = l | r;
      double out = 1;
      for (size_t i = 0; i < rows.size(); i++) {
        if (!(s >> i & 1)) continue;
        auto u = units.find(i);
        out *= u == units.end() ? rows[i] : u->second.second;
      }
      for (auto& [e, f] : sel)
        if ((s >> e.first & 1) && (s >> e.second & 1)) out *= f;
      return out;
    };
    return g;
  }

  // Every relation once; a lone unit only as the build side of its own join, after what it
  // reads; no set holds a unit without what it reads.
  void Check(const JoinPlan& p) const {
    CHECK(p.root >= 0);
    if (p.root < 0) return;
    CHECK_EQ(p.nodes[p.root].set, (uint64_t{1} << t.rows.size()) - 1);
    for (const auto& n : p.nodes) {
      for (auto& [u, nf] : units)
        if (n.set >> u & 1 && n.set != (uint64_t{1} << u)) CHECK_EQ(n.set & nf.first, nf.first);
      if (n.probe < 0) continue;
      const auto &l = p.nodes[n.probe], &r = p.nodes[n.build];
      CHECK_EQ(l.set & r.set, uint64_t{0});
      const bool lone_l = l.probe < 0 && units.count(l.relation), lone_r = r.probe < 0 && units.count(r.relation);
      CHECK(!lone_l);  // a unit is never the probe side of a join
      CHECK_EQ(n.unit_join, lone_r);
      if (lone_r) {
        const uint64_t needs = units.at(r.relation).first;
        CHECK_EQ(l.set & needs, needs);
      }
    }
  }
};

size_t BuildRelation(const JoinPlan& p) { return p.nodes[p.nodes[p.root].build].relation; }

bool Near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

TEST(chain_is_optimal) {
  TestGraph t;
  t.rows = {1e6, 5e4, 2e3, 100, 10};
  for (size_t i = 0; i + 1 < t.rows.size(); i++) t.Edge(i, i + 1, 1.0 / t.rows[i + 1]);
  JoinPlan p = OrderJoins(t.Graph());
  CHECK(p.dynamic_programming);
  CheckTree(t, p);
  CHECK(Near(p.nodes[p.root].cost, ExhaustiveCost(t)));
}

TEST(star_builds_the_dimensions) {
  // A fact table and four dimensions, two of them filtered: the fact table is never a build
  // side, the most selective dimension joins first.
  TestGraph t;
  t.rows = {6e6, 2556, 30000, 200, 10000};
  const double domain[] = {0, 2556, 150000, 200000, 10000};
  for (size_t d = 1; d < t.rows.size(); d++) t.Edge(0, d, 1.0 / domain[d]);
  JoinPlan p = OrderJoins(t.Graph());
  CheckTree(t, p);
  CHECK(Near(p.nodes[p.root].cost, ExhaustiveCost(t)));
  for (const auto& n : p.nodes)
    if (n.probe >= 0) CHECK(p.nodes[n.build].set != 1);  // the fact table never builds
  // The first join is the fact table with its most selective dimension (part: 200 of 200000).
  CHECK(Shape(p, p.root).find("(0 3)") != std::string::npos);
}

TEST(cycle_is_optimal) {
  TestGraph t;
  t.rows = {1500, 6000, 10000, 25, 5, 800};
  t.Edge(0, 1, 1.0 / 1500);
  t.Edge(1, 2, 1.0 / 10000);
  t.Edge(2, 3, 1.0 / 25);
  t.Edge(3, 4, 1.0 / 5);
  t.Edge(4, 5, 1.0 / 800);
  t.Edge(5, 0, 1.0 / 25);
  JoinPlan p = OrderJoins(t.Graph());
  CheckTree(t, p);
  CHECK(Near(p.nodes[p.root].cost, ExhaustiveCost(t)));
}

TEST(random_graphs_are_optimal) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 60; round++) {
    TestGraph t;
    const size_t n = 2 + rng() % 8;
    for (size_t i = 0; i < n; i++) t.rows.push_back(double(1 + rng() % 100000));
    for (size_t i = 1; i < n; i++) t.Edge(rng() % i, i, 1.0 / double(1 + rng() % 50000));  // a spanning tree
    for (size_t k = rng() % (n + 1); k > 0; k--) {  // and some extra edges
      size_t a = rng() % n, b = rng() % n;
      if (a != b) t.Edge(a, b, 1.0 / double(1 + rng() % 1000));
    }
    JoinPlan p = OrderJoins(t.Graph());
    CheckTree(t, p);
    CHECK(Near(p.nodes[p.root].cost, ExhaustiveCost(t)));
  }
}

TEST(clique_of_twelve) {
  TestGraph t;
  for (size_t i = 0; i < kMaxDpRelations; i++) t.rows.push_back(double(100 * (i + 1)));
  for (size_t a = 0; a < t.rows.size(); a++)
    for (size_t b = a + 1; b < t.rows.size(); b++) t.Edge(a, b, 1.0 / double(100 * (b + 1)));
  JoinPlan p = OrderJoins(t.Graph());
  CHECK(p.dynamic_programming);
  CheckTree(t, p);
  CHECK(Near(p.nodes[p.root].cost, ExhaustiveCost(t)));
}

TEST(estimates_force_a_bushy_tree) {
  // 0-1 and 2-3 each join to a few rows; 1-2 multiplies: the best tree joins the two
  // pairs first, then each other.
  TestGraph t;
  t.rows = {100000, 100000, 100000, 100000};
  t.Edge(0, 1, 1e-8);
  t.Edge(2, 3, 1e-8);
  t.Edge(1, 2, 1e-2);
  JoinPlan p = OrderJoins(t.Graph());
  CheckTree(t, p);
  const auto& root = p.nodes[p.root];
  CHECK(p.nodes[root.probe].probe >= 0 && p.nodes[root.build].probe >= 0);  // both sides are joins
  CHECK(Near(root.cost, ExhaustiveCost(t)));
}

TEST(disconnected_graph_crosses_components_once) {
  TestGraph t;
  t.rows = {1000, 50, 3000, 20, 1};
  t.Edge(0, 1, 1.0 / 50);
  t.Edge(2, 3, 1.0 / 20);
  // relation 4 (a scalar subquery's single row) is joined to nothing
  JoinPlan p = OrderJoins(t.Graph());
  CHECK(p.dynamic_programming);
  CHECK_EQ(CheckTree(t, p, /*cross_ok=*/true), 2);  // three components: two cross products
}

TEST(more_than_twelve_relations_fall_to_greedy) {
  // A chain of 13 relations: left-deep from the largest, each step builds one relation.
  TestGraph t;
  for (size_t i = 0; i <= kMaxDpRelations; i++) t.rows.push_back(i == 6 ? 1e6 : double(1000 + i));
  for (size_t i = 0; i < kMaxDpRelations; i++) t.Edge(i, i + 1, 1.0 / 1000);
  JoinPlan p = OrderJoins(t.Graph());
  CHECK(!p.dynamic_programming);
  CHECK(p.root >= 0);
  CHECK_EQ(p.nodes[p.root].set, (uint64_t{1} << t.rows.size()) - 1);
  int joins = 0;
  for (const auto& n : p.nodes) {
    if (n.probe < 0) continue;
    joins++;
    CHECK(p.nodes[n.build].probe < 0);                   // left-deep: every build is one relation
    CHECK(t.Connected(p.nodes[n.probe].set, p.nodes[n.build].set));  // no cross product
  }
  CHECK_EQ(joins, (int)kMaxDpRelations);
  int at = p.root;
  while (p.nodes[at].probe >= 0) at = p.nodes[at].probe;
  CHECK_EQ(p.nodes[at].relation, size_t{6});  // the largest relation probes
  // The same graph cut to 12 relations is enumerated.
  t.rows.pop_back();
  t.sel.erase({kMaxDpRelations - 1, kMaxDpRelations});
  CHECK(OrderJoins(t.Graph()).dynamic_programming);
}

TEST(plans_are_deterministic) {
  // Equal estimates everywhere: ties broken the same way on every run.
  TestGraph t;
  t.rows = {500, 500, 500, 500, 500, 500};
  for (size_t i = 0; i < 6; i++) t.Edge(i, (i + 1) % 6, 1.0 / 500);
  const std::string first = Shape(OrderJoins(t.Graph()), OrderJoins(t.Graph()).root);
  for (int k = 0; k < 5; k++) {
    JoinPlan p = OrderJoins(t.Graph());
    CHECK_EQ(Shape(p, p.root), first);
  }
  CheckTree(t, OrderJoins(t.Graph()));
}

TEST(single_relation) {
  TestGraph t;
  t.rows = {42};
  JoinPlan p = OrderJoins(t.Graph());
  CHECK(p.root >= 0 && p.nodes[p.root].probe < 0);
}

TEST(selective_unit_joins_first) {
  // A fact table, a dimension (a key join) and an IN subquery of 100 rows keeping 1% of
  // the fact rows: the semi join filters the fact table before its join.
  UnitGraph u;
  u.t.rows = {1e6, 1000, 100};
  u.t.Edge(0, 1, 1.0 / 1000);
  u.units[2] = {1, 0.01};
  JoinPlan p = OrderJoins(u.Graph());
  CHECK(p.dynamic_programming);
  u.Check(p);
  CHECK_EQ(Shape(p, p.root), std::string("((0 2) 1)"));
}

TEST(unselective_large_unit_joins_last) {
  // The dimension keeps 10 of 1000 keys; the subquery side is large and keeps 90%: it
  // meets the rows the inner join left.
  UnitGraph u;
  u.t.rows = {1e6, 10, 1e5};
  u.t.Edge(0, 1, 1.0 / 1000);
  u.units[2] = {1, 0.9};
  JoinPlan p = OrderJoins(u.Graph());
  u.Check(p);
  CHECK_EQ(Shape(p, p.root), std::string("((0 1) 2)"));
  CHECK(p.nodes[p.root].unit_join);
  CHECK(!p.nodes[p.root].outer_builds);
  // Where the outer side may build (a CPU plan), its 10 000 rows build and the 100 000 probe.
  JoinPlan q = OrderJoins(u.Graph(/*outer_may_build=*/true));
  u.Check(q);
  CHECK(q.nodes[q.root].unit_join && q.nodes[q.root].outer_builds);
}

TEST(unit_reading_two_relations_waits_for_both) {
  // The unit reads 0 and 2, which only 1 connects: it joins after all three.
  UnitGraph u;
  u.t.rows = {1e5, 1e3, 1e4, 10};
  u.t.Edge(0, 1, 1.0 / 1e3);
  u.t.Edge(1, 2, 1.0 / 1e3);
  u.units[3] = {0b101, 0.001};
  JoinPlan p = OrderJoins(u.Graph());
  u.Check(p);
  CHECK(p.nodes[p.root].unit_join);
}

TEST(random_graphs_with_units_are_legal) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 80; round++) {
    UnitGraph u;
    const size_t n = 2 + rng() % 7, k = 1 + rng() % 3;
    for (size_t i = 0; i < n + k; i++) u.t.rows.push_back(double(1 + rng() % 100000));
    for (size_t i = 1; i < n; i++) u.t.Edge(rng() % i, i, 1.0 / double(1 + rng() % 50000));
    for (size_t j = 0; j < k; j++) {
      uint64_t needs = 0;
      while (!needs) needs = rng() & ((uint64_t{1} << n) - 1);
      if (j > 0 && rng() % 3 == 0) needs |= uint64_t{1} << (n + j - 1);  // reads an earlier unit (a LEFT join's columns)
      u.units[n + j] = {needs, double(1 + rng() % 100) / 100};
    }
    u.Check(OrderJoins(u.Graph(round % 2 == 1)));
    u.Check(OrderJoinsGreedy(u.Graph()));
  }
}

TEST(greedy_places_units_after_what_they_read) {
  UnitGraph u;
  for (size_t i = 0; i <= kMaxDpRelations; i++) u.t.rows.push_back(i == 3 ? 1e6 : double(1000 + i));
  for (size_t i = 0; i + 1 < kMaxDpRelations; i++) u.t.Edge(i, i + 1, 1.0 / 1000);
  u.t.rows.push_back(5e6);  // a unit larger than every relation: never the probe side
  u.units[kMaxDpRelations] = {uint64_t{1} << 5 | uint64_t{1} << 9, 0.5};
  u.units[kMaxDpRelations + 1] = {uint64_t{1} << 0, 0.2};
  JoinPlan p = OrderJoins(u.Graph());
  CHECK(!p.dynamic_programming);
  u.Check(p);
}

TEST(direct_mapped_build_may_take_the_larger_side) {
  // 600 000 joined rows against 1.5 M orders on the orders' dense unique key (TPC-H q09):
  // the generic rule builds the smaller side; priced as direct-mapped, orders builds.
  TestGraph t;
  t.rows = {6e5, 1.5e6};
  t.Edge(0, 1, 1.0 / 1.5e6);
  JoinGraph g = t.Graph();
  JoinPlan generic = OrderJoins(g);
  CHECK_EQ(BuildRelation(generic), size_t{0});
  g.direct_mapped = [](uint64_t, uint64_t build, double) { return build == 2; };
  JoinPlan direct = OrderJoins(g);
  CHECK_EQ(BuildRelation(direct), size_t{1});
  CHECK(direct.nodes[direct.root].direct);
  CHECK(direct.nodes[direct.root].cost < generic.nodes[generic.root].cost);
  // Where the table is small either way the rule of the smaller side stands.
  TestGraph s;
  s.rows = {6e5, 1000};
  s.Edge(0, 1, 1.0 / 1000);
  JoinGraph h = s.Graph();
  h.direct_mapped = [](uint64_t, uint64_t, double) { return true; };
  CHECK_EQ(BuildRelation(OrderJoins(h)), size_t{1});
}

TEST_MAIN()
