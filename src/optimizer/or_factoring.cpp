// OR predicates in filters (before join ordering):
//  1. Terms common to every disjunct move out of the OR:
//       (a AND b) OR (a AND c)  ->  a AND (b OR c)
//     so that a join condition written inside each branch (TPC-H q19) becomes a join key.
//  2. For each relation (binding table) that every disjunct restricts, the OR of those
//     restrictions is added as an implied filter the scan can apply:
//       (p.x = 1 AND l.y < 5) OR (p.x = 2 AND l.y > 9)
//         adds  (p.x = 1 OR p.x = 2)  and  (l.y < 5 OR l.y > 9);
//     the original OR stays (it is what decides).
#include <map>
#include <set>

#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

void SplitOr(BoundExprPtr e, std::vector<BoundExprPtr>& out) {
  if (e->kind == BExpr::Or) {
    for (auto& c : e->children) SplitOr(std::move(c), out);
    return;
  }
  out.push_back(std::move(e));
}

BoundExprPtr MakeOr(std::vector<BoundExprPtr> terms) {
  if (terms.size() == 1) return std::move(terms[0]);
  auto e = std::make_unique<BoundExpr>(BExpr::Or, Type::Boolean());
  e->children = std::move(terms);
  return e;
}

// The single binding table an expression reads, or -1 (none or several).
int64_t TableOf(const BoundExpr& e) {
  std::vector<ColumnBinding> used;
  e.CollectBindings(used);
  if (used.empty()) return -1;
  for (auto& b : used)
    if (b.table != used[0].table) return -1;
  return used[0].table;
}

bool ContainsAgg(const BoundExpr& e) { return e.ContainsAggregate(); }

// Rewrites one OR term into the terms that replace it.
void FactorOr(BoundExprPtr term, std::vector<BoundExprPtr>& out) {
  std::vector<BoundExprPtr> disjuncts;
  SplitOr(std::move(term), disjuncts);
  std::vector<std::vector<BoundExprPtr>> conj(disjuncts.size());
  for (size_t i = 0; i < disjuncts.size(); i++) SplitConjunction(std::move(disjuncts[i]), conj[i]);
  // 1. common terms
  std::vector<BoundExprPtr> common;
  for (size_t k = 0; k < conj[0].size(); k++) {
    const BoundExpr& cand = *conj[0][k];
    bool everywhere = true;
    for (size_t i = 1; i < conj.size() && everywhere; i++) {
      bool found = false;
      for (auto& t : conj[i]) found |= t && t->Equals(cand);
      everywhere = found;
    }
    if (!everywhere) continue;
    common.push_back(cand.Copy());
    for (size_t i = 0; i < conj.size(); i++)
      for (auto& t : conj[i])
        if (t && t->Equals(*common.back())) {
          t.reset();
          break;
        }
  }
  bool always = false;  // a disjunct left empty: the OR holds whenever the common terms do
  for (auto& c : conj) {
    size_t live = 0;
    for (auto& t : c) live += t != nullptr;
    always |= live == 0;
  }
  for (auto& c : common) out.push_back(std::move(c));
  if (always) return;
  // 2. implied single-table filters
  std::map<int64_t, size_t> seen;  // table -> number of disjuncts restricting it
  for (auto& c : conj) {
    std::set<int64_t> tables;
    for (auto& t : c)
      if (t && !ContainsAgg(*t)) {
        int64_t tb = TableOf(*t);
        if (tb >= 0) tables.insert(tb);
      }
    for (auto tb : tables) seen[tb]++;
  }
  for (auto& [tb, n] : seen) {
    if (n != conj.size()) continue;
    bool only_tb = true;  // then the implied filter would repeat the OR itself
    for (auto& c : conj)
      for (auto& t : c)
        if (t) only_tb &= !ContainsAgg(*t) && TableOf(*t) == tb;
    if (only_tb) continue;
    std::vector<BoundExprPtr> branches;
    for (auto& c : conj) {
      std::vector<BoundExprPtr> mine;
      for (auto& t : c)
        if (t && !ContainsAgg(*t) && TableOf(*t) == tb) mine.push_back(t->Copy());
      branches.push_back(MakeAnd(std::move(mine)));
    }
    out.push_back(MakeOr(std::move(branches)));
  }
  std::vector<BoundExprPtr> rest;
  for (auto& c : conj) {
    std::vector<BoundExprPtr> live;
    for (auto& t : c)
      if (t) live.push_back(std::move(t));
    rest.push_back(MakeAnd(std::move(live)));
  }
  out.push_back(MakeOr(std::move(rest)));
}

}  // namespace

void FactorOrPredicates(LogicalOp& op) {
  if (op.kind == LogicalKind::Filter) {
    std::vector<BoundExprPtr> next;
    for (auto& f : op.filters) {
      if (f->kind == BExpr::Or) FactorOr(std::move(f), next);
      else next.push_back(std::move(f));
    }
    op.filters = std::move(next);
  }
  for (auto& c : op.children) FactorOrPredicates(*c);
}

}  // namespace tessera
