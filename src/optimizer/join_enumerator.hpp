// The join order of one region of inner joins, chosen over an abstract join graph (no
// logical operators: join_order.cpp builds the graph from a region and the join tree from
// the plan; the unit tests build graphs by hand).
//
// Up to kMaxDpRelations relations: dynamic programming over connected-subgraph /
// connected-complement pairs (DPccp, Moerkotte & Neumann), bushy trees allowed, no cross
// product unless the graph is disconnected (then the components are joined to each other by
// cross products wherever that is cheapest). Beyond it: the greedy left-deep order (the
// largest relation probes, the cheapest step joins next as a build side).
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
  // are given: the keys and residual predicates between them applied.
  std::function<double(uint64_t left, double left_rows, uint64_t right, double right_rows)> join_rows;
};

// A node of the chosen tree: a relation (leaf) or a hash join, `probe` streaming into the
// table built on `build` (indices of nodes).
struct JoinPlanNode {
  uint64_t set = 0;
  int probe = -1, build = -1;  // -1: a leaf, `relation` is its index
  size_t relation = 0;
  double rows = 0;  // estimated output rows
  double cost = 0;  // the cost of the subtree
};

struct JoinPlan {
  std::vector<JoinPlanNode> nodes;
  int root = -1;
  bool dynamic_programming = false;  // false: the greedy order (too many relations)
};

// The cost of one hash join: the rows it produces, the rows it builds (building costs more
// per row than probing: kBuildWeight) and the probes (a probe into a table beyond the caches,
// over 64 K rows, counted as four in-cache ones). Plans sum it over their joins.
constexpr double kBuildWeight = 2;
double JoinStepCost(double probe_rows, double build_rows, double out_rows);

// The join tree for the graph: dynamic programming up to kMaxDpRelations relations, the
// greedy order beyond. Deterministic: equal inputs give equal trees.
JoinPlan OrderJoins(const JoinGraph& g);
// The two strategies themselves (OrderJoins picks one).
JoinPlan OrderJoinsDP(const JoinGraph& g);
JoinPlan OrderJoinsGreedy(const JoinGraph& g);

}  // namespace tessera
