// The join order of one region of inner joins, chosen over an abstract join graph (no
// logical operators: join_order.cpp builds the graph from a region and the join tree from
// the plan; the unit tests build graphs by hand).
//
// Up to kMaxDpRelations relations: dynamic programming over connected-subgraph /
// connected-complement pairs (DPccp, Moerkotte & Neumann), bushy trees allowed, no cross
// product unless the graph is disconnected (then the components are joined to each other by
// cross products wherever that is cheapest). Beyond it: the greedy left-deep order (the
// largest relation probes, the cheapest step joins next as a build side).
//
// Besides ordinary relations (joined by inner joins and cross products) a graph may hold
// "units": the right side of a LEFT, semi, anti or mark join (DPhyp's hyperedges, with the
// conflict rules of outer joins). A unit joins only as a whole, only as the right side of
// its own join, and only to a set holding every relation its condition reads (`needs`);
// any set holding a unit holds those relations too. Everything else commutes with it: a
// semi, anti or mark join keeps or drops (or marks) each left row by that row's own columns,
// and a LEFT join pads each left row by its own columns, so inner joins with other
// relations (whose predicates do not read the unit) may come before or after it; two units
// reading only the left side commute with each other (A ⟕ R1 ⟕ R2 = A ⟕ R2 ⟕ R1). FULL
// joins, scalar subqueries' single-match joins, NOT IN's null-aware mark joins and
// INTERSECT/EXCEPT's joins are never units: they stay whole relations (join_order.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tessera {

constexpr size_t kMaxDpRelations = 12;

struct JoinGraph {
  std::vector<double> rows;          // estimated rows of each relation (at least 1)
  std::vector<uint64_t> neighbors;   // per relation: the relations a join predicate connects it to
  std::vector<bool> single_row;      // at most one row (a scalar subquery's): the greedy order joins it freely
  // Estimated rows of joining two disjoint sets of relations (bit masks) whose estimates
  // are given: the keys and residual predicates between them applied. When `right` is a
  // single unit: the rows of its join (semi: the left rows it keeps; LEFT: at least the
  // left rows; mark: the left rows).
  std::function<double(uint64_t left, double left_rows, uint64_t right, double right_rows)> join_rows;
  // Per relation: 0 for an ordinary relation; for a unit, the relations its join condition
  // reads (nonzero). Empty: no units.
  std::vector<uint64_t> needs;
  // Per unit: its join may build the left (outer) side instead of the unit (a semi or anti
  // join in a CPU plan: semi_join_side.cpp swaps it when OuterSideBuilds says so). Empty:
  // never.
  std::vector<bool> outer_may_build;
  // Whether an inner join of `probe` into a table built on `build` (estimated
  // `build_rows`) would be direct-mapped (common/join_rules.hpp's DirectMappedKeys, the
  // build's one integer key unique). Unset: never.
  std::function<bool(uint64_t probe, uint64_t build, double build_rows)> direct_mapped;
};

// The semi/anti join build-side rule (semi_join_side.cpp applies it to CPU plans): the
// outer side builds when it is estimated at most half the subquery side. Building a row
// (materialising it, inserting it) costs about two to three probes, and the outer side
// carries its payload columns into the table.
constexpr double kOuterBuildRatio = 2.0;
inline bool OuterSideBuilds(double outer_rows, double subquery_rows) {
  return outer_rows * kOuterBuildRatio <= subquery_rows;
}

// A node of the chosen tree: a relation (leaf) or a hash join, `probe` streaming into the
// table built on `build` (indices of nodes).
struct JoinPlanNode {
  uint64_t set = 0;
  int probe = -1, build = -1;  // -1: a leaf, `relation` is its index
  size_t relation = 0;
  double rows = 0;  // estimated output rows
  double cost = 0;  // the cost of the subtree
  // A unit's join (JoinGraph::needs): `build` is the unit's leaf, `probe` the outer
  // side; `outer_builds`: costed with the outer side building (OuterSideBuilds).
  bool unit_join = false, outer_builds = false;
  bool direct = false;  // an inner join costed as a direct-mapped build
};

struct JoinPlan {
  std::vector<JoinPlanNode> nodes;
  int root = -1;
  bool dynamic_programming = false;  // false: the greedy order (too many relations)
};

// The cost of one hash join: the rows it produces, the rows it builds (building costs more
// per row than probing: kBuildWeight) and the probes (a probe into a table beyond the caches,
// over 64 K rows, counted as four in-cache ones). Plans sum it over their joins.
// A direct-mapped build (`direct`: slot = key - min, no hashing, no chains) costs
// kDirectBuildWeight a row, as much as a probe: one slot written and the row copied
// (measured on the CPU about 50 ns a row against about 280 for a generic hash table,
// TPC-H q09's orders at SF1); its probes, one array read, count as two in-cache probes
// beyond the caches (a generic table's as four).
constexpr double kBuildWeight = 2;
constexpr double kDirectBuildWeight = 1;
constexpr double kCacheResidentRows = 65536;  // a table of more rows is beyond the caches
double JoinStepCost(double probe_rows, double build_rows, double out_rows, bool direct = false);

// The join tree for the graph: dynamic programming up to kMaxDpRelations relations, the
// greedy order beyond. Deterministic: equal inputs give equal trees.
JoinPlan OrderJoins(const JoinGraph& g);
// The two strategies themselves (OrderJoins picks one).
JoinPlan OrderJoinsDP(const JoinGraph& g);
JoinPlan OrderJoinsGreedy(const JoinGraph& g);

}  // namespace tessera
