// DISTINCT aggregates as two aggregations: an aggregation whose DISTINCT aggregates are
// all over the same argument x (COUNT/SUM/AVG(DISTINCT x), MIN/MAX(x), TPC-H q16's
// count(DISTINCT ps_suppkey)) becomes
//     Aggregate(G | agg(x'), outer(p))  over  Aggregate(G, x | p)
// the inner one de-duplicating (G, x), the outer one aggregating the distinct x' per group
// without DISTINCT. Plain aggregates beside them that split into a partial per (G, x) and
// a combination of the partials (sum over integers and decimals: the sum of sums; min,
// max: of the partials; count(e), count(*): the sum of the counts, still BIGINT) are
// computed as partials p by the inner aggregation and combined by the outer one. Without
// GROUP BY, an empty input leaves the outer aggregation no partials, and a sum of no counts
// is NULL where the count is 0: a projection above it (holding the aggregation's bindings)
// turns those NULLs into 0 (ZeroWhenNull, as decorrelated counts do). NULLs
// stay right: the inner aggregation keeps one NULL group of x per G, which agg(x') ignores
// as agg(DISTINCT x) does. Both are plain hash aggregations, so both backends run them in
// parallel (the GPU reads the inner groups in place) instead of keeping a set of values
// per group. The outer aggregation keeps its bindings, so nothing above it changes.
//
// DISTINCT over several different arguments, or over one beside plain aggregates that do
// not split so (avg, sum over DOUBLE, whose partial sums would round differently, the
// holistic ones): one branch per argument set, each this rewrite, and one for the plain
// aggregates, joined back on G (RewriteSeveral, below).
//
// Not rewritten (the hash aggregate's per-group sets, sets merged per group): DISTINCT
// aggregates other than count/sum/avg (string_agg(DISTINCT ...)), DOUBLE group keys beside
// several sets, inputs that two evaluations could answer differently (Repeatable), and an
// aggregation at the plan's root with several sets.
#include <algorithm>
#include <functional>
#include <map>

#include "function/function_registry.hpp"
#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// The same argument: the same expression over the same bindings (a display name alone
// would take t1.x for t2.x).
bool SameArgument(const BoundExpr& a, const BoundExpr& b) { return a.children[0]->Equals(*b.children[0]); }

// How the outer aggregation computes one aggregate of a rewritten aggregation.
enum class Split {
  OverDistinct,  // agg(x') over the inner groups' x: the DISTINCT ones, min/max(x)
  Partial,       // combine(p) over a partial p the inner aggregation computes
};

bool IsCount(const BoundExpr& g) { return g.name == "count" || g.name == "count_star"; }

// A plain aggregate that splits into a partial and its combination (see the file comment);
// counts only where a count over no rows can be made 0 (`counts`).
bool Splits(const BoundExpr& g, bool counts) {
  if (g.distinct || g.kind != BExpr::Agg) return false;
  if (g.name == "count_star") return counts;
  if (g.children.size() != 1) return false;
  if (g.name == "count") return counts;
  if (g.name == "min" || g.name == "max") return true;
  if (g.name == "sum") return g.children[0]->type.physical() != PhysType::F64 && g.type.physical() != PhysType::F64;
  return false;
}

// The DISTINCT argument's first aggregate, when `a` can be rewritten (else null).
const BoundExpr* DistinctArgument(const LogicalOp& a, bool counts, std::vector<Split>& how) {
  if (a.kind != LogicalKind::Aggregate || a.aggs.empty()) return nullptr;
  const BoundExpr* x = nullptr;
  for (auto& g : a.aggs)
    if (g->kind == BExpr::Agg && g->distinct && g->children.size() == 1) {
      if (g->name != "count" && g->name != "sum" && g->name != "avg") return nullptr;
      if (x && !SameArgument(*x, *g)) return nullptr;
      x = g.get();
    }
  if (!x) return nullptr;
  how.clear();
  for (auto& g : a.aggs) {
    // MIN/MAX count as DISTINCT aggregates of their argument: the binder drops their
    // DISTINCT (it changes nothing), and over the distinct x' they give what they give over x.
    const bool extremum = g->name == "min" || g->name == "max";
    if (g->kind == BExpr::Agg && g->children.size() == 1 && (g->distinct || extremum) && SameArgument(*x, *g))
      how.push_back(Split::OverDistinct);
    else if (Splits(*g, counts))
      how.push_back(Split::Partial);
    else
      return nullptr;
  }
  return x;
}

// The outer aggregate combining g's partials (column `col` of the inner aggregation) into
// what g computes, of g's type (a sum of counts stays BIGINT, as a sum of the partial sums
// of INTEGERs does: the sum's state and result rules take any integer result type).
BoundExprPtr Combine(const BoundExpr& g, BoundExprPtr col) {
  const bool count = IsCount(g);
  auto c = std::make_unique<BoundExpr>(BExpr::Agg, g.type);
  c->name = count ? "sum" : g.name;
  c->agg_fn = count ? &AggregateFunctionNamed("sum") : g.agg_fn;
  c->children.push_back(std::move(col));
  return c;
}

// Rewrites the aggregation `op` (in place). `slot`: where the plan holds it, for the
// projection an ungrouped one with counts gets (null: none may be put above it).
void RewriteOne(LogicalOp& op, LogicalOpPtr* slot, uint32_t& next) {
  std::vector<Split> how;
  const BoundExpr* xp = DistinctArgument(op, !op.groups.empty() || slot, how);
  if (!xp) return;
  std::vector<bool> zero;  // ungrouped counts: NULL over no rows, to be 0
  for (size_t i = 0; i < op.aggs.size(); i++)
    zero.push_back(op.groups.empty() && how[i] == Split::Partial && IsCount(*op.aggs[i]));
  auto inner = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
  inner->group_index = next++;
  inner->agg_index = next++;
  inner->children = std::move(op.children);
  inner->estimated_rows = op.estimated_rows;
  for (auto& g : op.groups) inner->groups.push_back(g->Copy());
  inner->groups.push_back(xp->children[0]->Copy());
  const uint32_t nk = (uint32_t)op.groups.size();
  for (uint32_t k = 0; k < nk; k++) {
    auto col = MakeColumn({inner->group_index, k}, op.groups[k]->type, op.groups[k]->ToString());
    op.groups[k] = std::move(col);
  }
  const BoundExpr& x = *inner->groups.back();
  for (size_t i = 0; i < op.aggs.size(); i++) {
    BoundExprPtr& g = op.aggs[i];
    if (how[i] == Split::OverDistinct) {
      g->distinct = false;
      g->children[0] = MakeColumn({inner->group_index, nk}, x.type, x.ToString());
      continue;
    }
    const uint32_t p = (uint32_t)inner->aggs.size();
    // The partial is g itself, moved to the inner aggregation (its type: g's).
    BoundExprPtr outer = Combine(*g, MakeColumn({inner->agg_index, p}, g->type, g->ToString()));
    inner->aggs.push_back(std::move(g));
    g = std::move(outer);
  }
  op.children.clear();
  op.children.push_back(std::move(inner));
  if (std::find(zero.begin(), zero.end(), true) == zero.end()) return;
  auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
  proj->table_index = op.agg_index;
  op.agg_index = next++;
  proj->estimated_rows = op.estimated_rows;
  for (uint32_t i = 0; i < op.aggs.size(); i++) {
    auto v = MakeColumn({op.agg_index, i}, op.aggs[i]->type, op.aggs[i]->ToString());
    proj->exprs.push_back(zero[i] ? ZeroWhenNull(std::move(v)) : std::move(v));
  }
  proj->children.push_back(std::move(*slot));
  *slot = std::move(proj);
}

// ---- DISTINCT aggregates over several arguments ----

bool DistinctKind(const BoundExpr& g) {
  return g.kind == BExpr::Agg && g.distinct && g.children.size() == 1 &&
         (g.name == "count" || g.name == "sum" || g.name == "avg");
}

// An aggregate giving the same value whatever order its rows come in (exact arithmetic).
bool OrderInsensitive(const BoundExpr& g) {
  if (g.name == "count" || g.name == "count_star" || g.name == "min" || g.name == "max" || g.name == "bool_and" ||
      g.name == "bool_or" || g.name == "bit_and" || g.name == "bit_or" || g.name == "bit_xor")
    return true;
  if (g.name == "sum" || g.name == "avg")
    return g.children.size() == 1 && g.children[0]->type.physical() != PhysType::F64 &&
           g.type.physical() != PhysType::F64;
  return false;
}

// Whether two evaluations of `op` give the same rows: each branch of the rewrite evaluates
// its own copy of the input. Not through LIMIT (which rows), windows (ties), volatile
// calls, nor aggregates whose values depend on the order of their rows (first, string_agg,
// floating sums): their copies could disagree on a group key the branches join on.
bool Repeatable(const LogicalOp& op) {
  switch (op.kind) {
    case LogicalKind::Limit:
    case LogicalKind::Window:
    case LogicalKind::RecursiveCte:
    case LogicalKind::WorkingTable: return false;
    default: break;
  }
  bool ok = true;
  ForEachOwnExpr(op, [&](const BoundExpr& e) { ok = ok && !e.CallsVolatile(); });
  if (op.kind == LogicalKind::Aggregate)
    for (auto& g : op.aggs) ok = ok && OrderInsensitive(*g);
  for (auto& c : op.children) ok = ok && Repeatable(*c);
  return ok;
}

// Points the column references of `op` and below at the bindings `remap` maps theirs to.
void Rebind(LogicalOp& op, const std::map<ColumnBinding, ColumnBinding>& remap) {
  std::function<void(BoundExpr&)> fix = [&](BoundExpr& e) {
    if (e.kind == BExpr::Column)
      if (auto it = remap.find(e.binding); it != remap.end()) e.binding = it->second;
    for (auto& c : e.children) fix(*c);
  };
  ForEachOwnExpr(op, [&](BoundExprPtr& e) { fix(*e); });
  for (auto& c : op.children) Rebind(*c, remap);
}

// An aggregation whose DISTINCT aggregates are over several arguments x1..xk (or over one,
// beside plain aggregates that do not split into partials, see DistinctArgument) becomes
// one branch per argument set and one for the plain aggregates, each over its own copy of
// the input, joined on G:
//     Join_G(Aggregate(G | agg(x1')) over Aggregate(G, x1), ...,
//            Aggregate(G | plain aggregates))
// Each set's branch is the one-argument rewrite (RewriteOne), so every branch is a plain
// parallel hash aggregation. Every branch has a row for every G of the input (a (G, NULL)
// group where x is NULL), so an inner join on G, NULLs equal, pairs them exactly; without
// GROUP BY each branch has one row (count 0, sum NULL over no rows) and they cross-join.
// The operators above read the branches' bindings: `remap` maps the aggregation's old ones
// to them (applied to the whole plan at the end). Returns whether `op` (now destroyed) was
// rewritten.
bool RewriteSeveral(LogicalOp& op, LogicalOpPtr* slot, uint32_t& next,
                    std::map<ColumnBinding, ColumnBinding>& remap) {
  if (!slot || op.kind != LogicalKind::Aggregate || op.aggs.empty() || op.children.size() != 1) return false;
  std::vector<const BoundExpr*> sets;       // each set's argument
  std::vector<int> branch(op.aggs.size(), -1);  // the set of each aggregate, -1: plain
  for (size_t i = 0; i < op.aggs.size(); i++) {
    const BoundExpr& g = *op.aggs[i];
    if (g.kind != BExpr::Agg || !g.distinct) continue;
    if (!DistinctKind(g)) return false;  // string_agg(DISTINCT ...) and others: the sets
    size_t j = 0;
    while (j < sets.size() && !sets[j]->Equals(*g.children[0])) j++;
    if (j == sets.size()) sets.push_back(g.children[0].get());
    branch[i] = (int)j;
  }
  if (sets.empty()) return false;
  bool plain = false, split = true;
  for (size_t i = 0; i < op.aggs.size(); i++) {
    if (branch[i] >= 0) continue;
    const BoundExpr& g = *op.aggs[i];
    // min/max(x) (whose DISTINCT the binder drops) over a set's distinct x
    if (g.kind == BExpr::Agg && (g.name == "min" || g.name == "max") && g.children.size() == 1)
      for (size_t j = 0; j < sets.size() && branch[i] < 0; j++)
        if (sets[j]->Equals(*g.children[0])) branch[i] = (int)j;
    if (branch[i] >= 0) continue;
    plain = true;
    split = split && Splits(g, true);
  }
  if (sets.size() == 1 && (!plain || split)) return false;  // RewriteOne's single argument
  // The join on G: DOUBLE keys (0.0 and -0.0, NaN) could pair differently than they group.
  for (auto& g : op.groups)
    if (g->type.physical() == PhysType::F64) return false;
  if (!Repeatable(*op.children[0])) return false;
  // An aggregation rewritten below: its readers here are copied, so point them at its
  // branches first (a copy gets fresh bindings the final remap would not know).
  if (!remap.empty()) Rebind(op, remap);

  const size_t nb = sets.size() + (plain ? 1 : 0);
  const uint32_t nk = (uint32_t)op.groups.size();
  // Each branch but the last aggregates a fresh copy of op (its input, its groups and
  // aggregates under fresh bindings), the last one op's own input.
  std::vector<LogicalOpPtr> branches(nb);
  for (size_t b = 0; b < nb; b++) {
    LogicalOpPtr a;
    if (b + 1 < nb) {
      std::map<uint32_t, uint32_t> fresh;  // told apart: column pruning then reads in each only its columns
      a = CopyWithFreshBindings(op, next, fresh);
    } else {
      a = std::make_unique<LogicalOp>(LogicalKind::Aggregate);
      a->group_index = next++;
      a->agg_index = next++;
      a->estimated_rows = op.estimated_rows;
      a->groups = std::move(op.groups);
      a->aggs = std::move(op.aggs);
      a->children = std::move(op.children);
    }
    branches[b] = std::move(a);
  }
  // Each branch keeps its set's aggregates (the plain branch the plain ones), in order.
  std::vector<std::vector<BoundExprPtr>> aggs(nb);
  for (size_t b = 0; b < nb; b++) aggs[b] = std::move(branches[b]->aggs);
  for (uint32_t k = 0; k < nk; k++) remap[{op.group_index, k}] = {branches[0]->group_index, k};
  for (size_t i = 0; i < branch.size(); i++) {
    const size_t b = branch[i] < 0 ? nb - 1 : (size_t)branch[i];
    LogicalOp& a = *branches[b];
    remap[{op.agg_index, (uint32_t)i}] = {a.agg_index, (uint32_t)a.aggs.size()};
    a.aggs.push_back(std::move(aggs[b][i]));
  }
  std::vector<BoundExprPtr> keys;
  for (auto& g : branches[0]->groups) keys.push_back(g->Copy());  // the key types and names
  // Each set's branch: the one-argument rewrite, which keeps its output bindings.
  for (size_t b = 0; b < sets.size(); b++) RewriteOne(*branches[b], &branches[b], next);
  LogicalOpPtr tree = std::move(branches[0]);
  const uint32_t g0 = tree->group_index;
  const double rows = op.estimated_rows;
  for (size_t b = 1; b < nb; b++) {
    auto j = std::make_unique<LogicalOp>(LogicalKind::Join);
    j->join_type = nk ? LJoinType::Inner : LJoinType::Cross;
    j->nulls_equal = nk > 0;
    for (uint32_t k = 0; k < nk; k++) {
      j->left_keys.push_back(MakeColumn({g0, k}, keys[k]->type, keys[k]->ToString()));
      j->right_keys.push_back(MakeColumn({branches[b]->group_index, k}, keys[k]->type, keys[k]->ToString()));
    }
    j->estimated_rows = rows;
    j->children.push_back(std::move(tree));
    j->children.push_back(std::move(branches[b]));
    tree = std::move(j);
  }
  *slot = std::move(tree);  // destroys op
  return true;
}

void Rewrite(LogicalOp& op, uint32_t& next, std::map<ColumnBinding, ColumnBinding>& remap) {
  for (auto& c : op.children) {
    LogicalOp& child = *c;  // stays alive when a projection takes c's place
    Rewrite(child, next, remap);
    if (!RewriteSeveral(child, &c, next, remap)) RewriteOne(child, &c, next);
  }
}

}  // namespace

void SplitDistinctAggregates(LogicalOp& root) {
  uint32_t next = LargestBindingIndex(root) + 1;  // new bindings do not collide
  std::map<ColumnBinding, ColumnBinding> remap;
  Rewrite(root, next, remap);
  RewriteOne(root, nullptr, next);
  if (!remap.empty()) Rebind(root, remap);
}

}  // namespace tessera
