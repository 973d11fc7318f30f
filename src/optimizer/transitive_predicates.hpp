// Transitive predicate inference (transitive_predicates.cpp). Columns joined by `=` form
// equivalence classes: in a region of inner joins every row of the result has one value in
// all of a class's columns. From that:
//  - implied join edges: a.x = b.y and b.y = c.z give a.x = c.z, so the join enumerator
//    may join a with c directly;
//  - copied filters: a term that reads one column of a class and otherwise only constants
//    (a.x < 5, a.x = 7, a.x BETWEEN 1 AND 9, a.x IN (...), their AND/OR/NOT) holds for every
//    other column of the class too, and filters that one's relation before the joins.
// The same holds across the keys of a LEFT, semi or anti join from its left side to its
// right side (a right row failing the term can match no remaining left row), never the
// other way (a left row is kept, NULL-padded or not, whatever its right side holds).
#pragma once
#include <vector>

#include "planner/logical_plan.hpp"

namespace tessera {

// An equi-join predicate `ea = eb` between relations a and b of a region.
struct EquiEdge {
  size_t a, b;
  const BoundExpr* ea;
  const BoundExpr* eb;
};
// A term over the columns of relation `rel` only.
struct RelationFilter {
  size_t rel;
  const BoundExpr* pred;
};

struct TransitiveInference {
  // Per input edge: its equivalence class, or -1 (an edge over expressions, columns of
  // different or unsuited types, or a class with two columns of one relation: kept as is).
  std::vector<int> edge_class;
  // The implied edges (one per pair of a class's columns not joined by an input edge).
  struct Edge {
    size_t a, b;
    BoundExprPtr ea, eb;
    int cls;
  };
  std::vector<Edge> edges;
  // The copied filters, each over the columns of `rel` only.
  struct Filter {
    size_t rel;
    BoundExprPtr pred;
  };
  std::vector<Filter> filters;
};

// The equivalence classes of a region of inner joins (its equi-join edges) and what they
// imply; `filters`: the region's single-relation terms.
TransitiveInference InferTransitive(const std::vector<EquiEdge>& edges, const std::vector<RelationFilter>& filters);

// The filter terms that hold on every row `op` outputs, over its output columns: a scan's and
// a filter's terms, through inner joins (both sides) and the left (preserved) side of LEFT,
// semi, anti and mark joins; not through projections or aggregations (other bindings).
void FiltersHolding(const LogicalOp& op, std::vector<const BoundExpr*>& out);

// `term` with column `from` read as `to` when `term` is a constant filter of `from` alone
// that holds for every value equal to it (see above) and `from`, `to` are plain columns of
// one type whose equal values are identical (not DOUBLE: -0.0 = 0.0; not INTERVAL);
// nullptr otherwise.
BoundExprPtr CopyFilterToEqualColumn(const BoundExpr& term, const BoundExpr& from, const BoundExpr& to);

}  // namespace tessera
