#include "optimizer/join_enumerator.hpp"

#include <algorithm>
#include <bit>

namespace tessera {

namespace {

using Set = uint64_t;

Set Neighborhood(const std::vector<Set>& adj, Set s) {
  Set r = 0;
  for (Set t = s; t; t &= t - 1) r |= adj[std::countr_zero(t)];
  return r & ~s;
}

// Every non-empty subset of `n`, in ascending order of the masks.
template <class F>
void ForEachSubset(Set n, F&& f) {
  for (Set sub = (0 - n) & n; sub; sub = (sub - n) & n) f(sub);
}

// DPccp's EnumerateCsgRec: the connected sets that extend `s` by neighbours not in `x`.
template <class F>
void ConnectedExtensions(const std::vector<Set>& adj, Set s, Set x, F&& emit) {
  const Set n = Neighborhood(adj, s) & ~x;
  if (!n) return;
  ForEachSubset(n, [&](Set sub) { emit(s | sub); });
  ForEachSubset(n, [&](Set sub) { ConnectedExtensions(adj, s | sub, x | n, emit); });
}

// Every pair (S1, S2) of disjoint connected sets joined by an edge, each unordered pair
// once (DPccp's EnumerateCsg and EnumerateCmp).
std::vector<std::pair<Set, Set>> CsgCmpPairs(const std::vector<Set>& adj) {
  const size_t n = adj.size();
  std::vector<std::pair<Set, Set>> pairs;
  auto complements = [&](Set s1) {
    const Set lowest_and_below = (s1 & (0 - s1)) * 2 - 1;  // B_min(S1): relations numbered <= S1's lowest
    const Set x = lowest_and_below | s1;
    const Set nb = Neighborhood(adj, s1) & ~x;
    for (int i = 63; i >= 0; i--) {
      const Set v = Set{1} << i;
      if (!(nb & v)) continue;
      pairs.push_back({s1, v});
      const Set below = (v << 1) - 1;  // B_i
      ConnectedExtensions(adj, v, x | (below & nb), [&](Set s2) { pairs.push_back({s1, s2}); });
    }
  };
  for (size_t i = n; i-- > 0;) {
    const Set v = Set{1} << i;
    complements(v);
    ConnectedExtensions(adj, v, (v << 1) - 1, complements);
  }
  return pairs;
}

// The adjacency with every relation also connected to all relations of the other
// components (cross products) when the graph is disconnected.
std::vector<Set> ConnectComponents(std::vector<Set> adj) {
  const size_t n = adj.size();
  const Set all = n == 64 ? ~Set{0} : (Set{1} << n) - 1;
  std::vector<Set> comp_of(n, 0);
  Set seen = 0;
  size_t components = 0;
  for (size_t i = 0; i < n; i++) {
    if (seen & (Set{1} << i)) continue;
    Set comp = Set{1} << i, frontier = comp;
    while (frontier) {
      const Set next = Neighborhood(adj, comp) & all;
      frontier = next & ~comp;
      comp |= next;
    }
    for (Set t = comp; t; t &= t - 1) comp_of[std::countr_zero(t)] = comp;
    seen |= comp;
    components++;
  }
  if (components > 1)
    for (size_t i = 0; i < n; i++) adj[i] |= all & ~comp_of[i];
  return adj;
}

// Copies the subtree at `at` of `from` into `to`; returns its index there.
int CopyTree(const std::vector<JoinPlanNode>& from, int at, std::vector<JoinPlanNode>& to) {
  JoinPlanNode n = from[at];
  if (n.probe >= 0) {
    n.probe = CopyTree(from, n.probe, to);
    n.build = CopyTree(from, n.build, to);
  }
  to.push_back(n);
  return (int)to.size() - 1;
}

JoinPlanNode Leaf(const JoinGraph& g, size_t i) {
  JoinPlanNode n;
  n.set = Set{1} << i;
  n.relation = i;
  n.rows = std::max(1.0, g.rows[i]);
  return n;
}

}  // namespace

double JoinStepCost(double probe_rows, double build_rows, double out_rows, bool direct) {
  const double probe = build_rows > kCacheResidentRows ? (direct ? 2 : 4) : 1;
  return out_rows + (direct ? kDirectBuildWeight : kBuildWeight) * build_rows + probe * probe_rows;
}

JoinPlan OrderJoins(const JoinGraph& g) {
  if (g.rows.size() <= kMaxDpRelations) {
    JoinPlan p = OrderJoinsDP(g);
    if (p.root >= 0) return p;
  }
  return OrderJoinsGreedy(g);
}

namespace {

// The units of the graph (a mask) and whether a set holds every relation its units read.
struct Units {
  const JoinGraph& g;
  Set mask = 0;
  explicit Units(const JoinGraph& graph) : g(graph) {
    for (size_t i = 0; i < g.needs.size(); i++)
      if (g.needs[i]) mask |= Set{1} << i;
  }
  // The unit a set is, when it is one unit alone; -1 otherwise.
  int Lone(Set s) const { return std::popcount(s) == 1 && (s & mask) ? std::countr_zero(s) : -1; }
  bool Closed(Set s) const {
    for (Set t = s & mask; t; t &= t - 1)
      if (g.needs[std::countr_zero(t)] & ~s) return false;
    return true;
  }
};

// The adjacency the enumerators walk: the graph's edges, each unit joined to the relations
// it reads, and those relations to each other (a unit reading two relations with no key
// between them needs them joined first, by a cross product if nothing else connects them).
std::vector<Set> Adjacency(const JoinGraph& g) {
  std::vector<Set> adj = g.neighbors;
  for (size_t u = 0; u < g.needs.size() && u < adj.size(); u++) {
    const Set req = g.needs[u];
    if (!req) continue;
    adj[u] |= req;
    for (Set t = req; t; t &= t - 1) adj[std::countr_zero(t)] |= (Set{1} << u) | (req & ~(Set{1} << std::countr_zero(t)));
  }
  return adj;
}

// A unit's join: the outer side probes the unit's table, or (OuterSideBuilds, where the
// graph allows it) builds its own table that the unit's rows probe.
void CostUnitJoin(const JoinGraph& g, size_t unit, const JoinPlanNode& outer, const JoinPlanNode& u, JoinPlanNode& j) {
  j.unit_join = true;
  j.outer_builds = unit < g.outer_may_build.size() && g.outer_may_build[unit] && OuterSideBuilds(outer.rows, u.rows);
  j.cost = outer.cost + u.cost +
           (j.outer_builds ? JoinStepCost(u.rows, outer.rows, j.rows) : JoinStepCost(outer.rows, u.rows, j.rows));
}

}  // namespace

JoinPlan OrderJoinsDP(const JoinGraph& g) {
  const size_t n = g.rows.size();
  JoinPlan plan;
  plan.dynamic_programming = true;
  if (n == 0 || n > kMaxDpRelations) return plan;
  const Units units(g);
  const std::vector<Set> adj = ConnectComponents(Adjacency(g));
  auto pairs = CsgCmpPairs(adj);
  // Smaller unions first: a pair's two sets then have their best plans when it is met.
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return std::popcount(a.first | a.second) < std::popcount(b.first | b.second);
  });
  std::vector<int> best(size_t{1} << n, -1);  // per set: its node in `nodes`
  std::vector<JoinPlanNode> nodes;
  for (size_t i = 0; i < n; i++) {
    best[Set{1} << i] = (int)nodes.size();
    nodes.push_back(Leaf(g, i));
  }
  for (const auto& [s1, s2] : pairs) {
    const int a = best[s1], b = best[s2];
    if (a < 0 || b < 0) continue;  // a set no legal plan makes (a unit without what it reads)
    const Set s = s1 | s2;
    const int u1 = units.Lone(s1), u2 = units.Lone(s2);
    if (u1 >= 0 && u2 >= 0) continue;
    const int unit = u1 >= 0 ? u1 : u2;
    // A unit joins a set holding what it reads; a set holding a unit joined by other
    // means (not alone) was closed when it got its plan.
    if (unit >= 0 && (g.needs[unit] & ~(s & ~(Set{1} << unit)))) continue;
    if (unit < 0 && !units.Closed(s)) continue;
    double rows;
    if (best[s] >= 0) {
      rows = nodes[best[s]].rows;  // the estimate of a set does not depend on its split
    } else if (unit >= 0) {
      const int outer = u1 >= 0 ? b : a, un = u1 >= 0 ? a : b;
      rows = std::max(1.0, g.join_rows(nodes[outer].set, nodes[outer].rows, nodes[un].set, nodes[un].rows));
    } else {
      rows = std::max(1.0, g.join_rows(s1, nodes[a].rows, s2, nodes[b].rows));
    }
    JoinPlanNode j;
    j.set = s;
    j.rows = rows;
    if (unit >= 0) {
      j.probe = u1 >= 0 ? b : a;
      j.build = u1 >= 0 ? a : b;
      CostUnitJoin(g, (size_t)unit, nodes[j.probe], nodes[j.build], j);
    } else {
      // The smaller side builds; on equal estimates the side of fewer relations, then the
      // one with the higher relation numbers (any fixed rule: plans must be stable). The
      // larger side builds instead where its table would be direct-mapped and that costs
      // less, where the smaller side's table would be beyond the caches anyway (TPC-H q09:
      // orders on its dense key, not 600 K joined lineitem rows; a small generic table is
      // cache-resident and keeps building).
      auto builds_first = [&](int x, int y) {
        if (nodes[x].rows != nodes[y].rows) return nodes[x].rows < nodes[y].rows;
        const int cx = std::popcount(nodes[x].set), cy = std::popcount(nodes[y].set);
        if (cx != cy) return cx < cy;
        return nodes[x].set > nodes[y].set;
      };
      auto direct = [&](int probe, int build) {
        return g.direct_mapped && g.direct_mapped(nodes[probe].set, nodes[build].set, nodes[build].rows);
      };
      const int build = builds_first(a, b) ? a : b, probe = build == a ? b : a;
      j.probe = probe;
      j.build = build;
      j.direct = direct(probe, build);
      j.cost = nodes[a].cost + nodes[b].cost + JoinStepCost(nodes[probe].rows, nodes[build].rows, rows, j.direct);
      if (!j.direct && nodes[build].rows > kCacheResidentRows && direct(build, probe)) {
        const double swapped = nodes[a].cost + nodes[b].cost + JoinStepCost(nodes[build].rows, nodes[probe].rows, rows, true);
        if (swapped < j.cost) {
          j.probe = build;
          j.build = probe;
          j.direct = true;
          j.cost = swapped;
        }
      }
    }
    if (best[s] >= 0 && !(j.cost < nodes[best[s]].cost)) continue;
    if (best[s] >= 0) {
      nodes[best[s]] = j;
    } else {
      best[s] = (int)nodes.size();
      nodes.push_back(j);
    }
  }
  const Set all = (Set{1} << n) - 1;
  if (best[all] < 0) return plan;  // no legal plan over the connected pairs: the greedy order
  plan.root = CopyTree(nodes, best[all], plan.nodes);
  return plan;
}

JoinPlan OrderJoinsGreedy(const JoinGraph& g) {
  const size_t n = g.rows.size();
  JoinPlan plan;
  if (n == 0) return plan;
  const Units units(g);
  const std::vector<Set> adj = Adjacency(g);
  // Left-deep from the largest ordinary relation (the fact table), which stays the probe side.
  size_t start = n;
  for (size_t i = 0; i < n; i++)
    if (!(units.mask >> i & 1) && (start == n || g.rows[i] > g.rows[start])) start = i;
  if (start == n) return plan;  // units only: cannot happen (a unit reads some relation)
  plan.nodes.push_back(Leaf(g, start));
  int cur = 0;
  Set in = Set{1} << start;
  for (size_t step = 1; step < n; step++) {
    size_t best = n;
    double best_rows = 0, best_rank = 0;
    const JoinPlanNode c = plan.nodes[cur];
    for (size_t i = 0; i < n; i++) {
      const Set v = Set{1} << i;
      if (in & v) continue;
      const bool unit = units.mask & v;
      if (unit && (g.needs[i] & ~in)) continue;  // a unit joins after what it reads
      const double out = std::max(1.0, g.join_rows(in, c.rows, v, g.rows[i]));
      // The rows it produces, builds and probes; a relation not connected by a join key
      // is taken last (a cross product) unless it has at most one row.
      double rank = out + g.rows[i] + c.rows * (g.rows[i] > 65536 ? 4 : 1);
      if (!(adj[i] & in) && !g.single_row[i]) rank *= 1e6;
      if (best == n || rank < best_rank) {
        best = i;
        best_rows = out;
        best_rank = rank;
      }
    }
    if (best == n) return JoinPlan{};  // cannot happen: the written order was legal
    plan.nodes.push_back(Leaf(g, best));
    JoinPlanNode j;
    j.set = in | (Set{1} << best);
    j.probe = cur;
    j.build = (int)plan.nodes.size() - 1;
    j.rows = best_rows;
    if (units.mask >> best & 1) {
      CostUnitJoin(g, best, c, plan.nodes[j.build], j);
    } else {
      j.cost = c.cost + JoinStepCost(c.rows, plan.nodes[j.build].rows, best_rows);
    }
    plan.nodes.push_back(j);
    cur = (int)plan.nodes.size() - 1;
    in = j.set;
  }
  plan.root = cur;
  return plan;
}

}  // namespace tessera
