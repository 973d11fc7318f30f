#include "optimizer/transitive_predicates.hpp"

#include <algorithm>
#include <map>

namespace tessera {

namespace {

// Types whose equal values (by `=`) are the same value: any term reads them alike. Not
// DOUBLE (-0.0 = 0.0, and a term may tell them apart), not INTERVAL ('1 month' = '30 days').
bool IdenticalWhenEqual(const Type& t) {
  switch (t.id) {
    case TypeId::Boolean:
    case TypeId::Integer:
    case TypeId::BigInt:
    case TypeId::Decimal:
    case TypeId::Date:
    case TypeId::Timestamp:
    case TypeId::Time:
    case TypeId::Varchar:
    case TypeId::Blob: return true;
    default: return false;
  }
}

bool PlainColumn(const BoundExpr& e) { return e.kind == BExpr::Column && IdenticalWhenEqual(e.type); }

// A cast of a column that cannot fail (the copied term runs on rows the original never
// saw: it must not raise an error the query would not).
bool SafeCast(const Type& from, const Type& to) {
  if (from == to) return true;
  switch (from.id) {
    case TypeId::Integer:
      return to.id == TypeId::BigInt || to.id == TypeId::Double || (to.id == TypeId::Decimal && to.precision - to.scale >= 10);
    case TypeId::BigInt:
      return to.id == TypeId::Double || (to.id == TypeId::Decimal && to.precision - to.scale >= 19);
    case TypeId::Decimal: return to.id == TypeId::Double;
    case TypeId::Date: return to.id == TypeId::Timestamp;
    default: return false;
  }
}

// Whether `e` reads only `col` and constants through operators that raise no error and
// give equal results for equal inputs.
bool ConstantFilterOf(const BoundExpr& e, const ColumnBinding& col) {
  switch (e.kind) {
    case BExpr::Column: return e.binding == col;
    case BExpr::Constant: return true;
    case BExpr::Cast:
      return !e.children.empty() && e.children[0]->kind == BExpr::Column && SafeCast(e.children[0]->type, e.type) &&
             ConstantFilterOf(*e.children[0], col);
    case BExpr::Compare:
    case BExpr::InList:
    case BExpr::And:
    case BExpr::Or:
    case BExpr::Not:
      for (auto& c : e.children)
        if (!ConstantFilterOf(*c, col)) return false;
      return true;
    case BExpr::Like:  // the pattern (and escape) constant
      for (size_t i = 1; i < e.children.size(); i++)
        if (e.children[i]->kind != BExpr::Constant) return false;
      return !e.children.empty() && ConstantFilterOf(*e.children[0], col);
    default: return false;
  }
}

bool ReadsColumn(const BoundExpr& e) {
  if (e.kind == BExpr::Column) return true;
  for (auto& c : e.children)
    if (ReadsColumn(*c)) return true;
  return false;
}

void Rebind(BoundExpr& e, const ColumnBinding& from, const BoundExpr& to) {
  if (e.kind == BExpr::Column && e.binding == from) {
    e.binding = to.binding;
    e.name = to.name;
    return;
  }
  for (auto& c : e.children) Rebind(*c, from, to);
}

struct Member {
  size_t rel;
  const BoundExpr* col;
};

}  // namespace

void FiltersHolding(const LogicalOp& op, std::vector<const BoundExpr*>& out) {
  switch (op.kind) {
    case LogicalKind::Get:
      for (auto& f : op.filters) out.push_back(f.get());
      return;
    case LogicalKind::Filter:
      for (auto& f : op.filters) out.push_back(f.get());
      FiltersHolding(*op.children[0], out);
      return;
    case LogicalKind::Join:
      if (op.children.size() != 2) return;
      switch (op.join_type) {
        case LJoinType::Inner:
        case LJoinType::Cross:
          FiltersHolding(*op.children[0], out);
          FiltersHolding(*op.children[1], out);
          return;
        case LJoinType::Left:
        case LJoinType::Semi:
        case LJoinType::Anti:
        case LJoinType::Mark: FiltersHolding(*op.children[0], out); return;
        default: return;
      }
    default: return;
  }
}

BoundExprPtr CopyFilterToEqualColumn(const BoundExpr& term, const BoundExpr& from, const BoundExpr& to) {
  if (!PlainColumn(from) || !PlainColumn(to) || !(from.type == to.type) || from.binding == to.binding) return nullptr;
  if (term.kind == BExpr::Column || term.kind == BExpr::Constant) return nullptr;  // no filter of the column
  if (!ReadsColumn(term) || !ConstantFilterOf(term, from.binding)) return nullptr;
  auto copy = term.Copy();
  Rebind(*copy, from.binding, to);
  return copy;
}

TransitiveInference InferTransitive(const std::vector<EquiEdge>& edges, const std::vector<RelationFilter>& filters) {
  TransitiveInference out;
  out.edge_class.assign(edges.size(), -1);
  // Union-find over the columns of the edges between plain columns of one type.
  std::map<ColumnBinding, size_t> id;
  std::vector<Member> members;
  std::vector<size_t> parent;
  auto node = [&](size_t rel, const BoundExpr* c) {
    auto [it, fresh] = id.emplace(c->binding, members.size());
    if (fresh) {
      members.push_back({rel, c});
      parent.push_back(parent.size());
    }
    return it->second;
  };
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<bool> usable(edges.size(), false);
  for (size_t i = 0; i < edges.size(); i++) {
    const EquiEdge& e = edges[i];
    if (!PlainColumn(*e.ea) || !PlainColumn(*e.eb) || !(e.ea->type == e.eb->type)) continue;
    usable[i] = true;
    parent[find(node(e.a, e.ea))] = find(node(e.b, e.eb));
  }
  // Classes: their members in order of appearance; a class with two columns of one
  // relation (a.x = b.y AND a.w = b.y) is left alone: its edges stay as written.
  std::map<size_t, int> class_of_root;
  std::vector<std::vector<size_t>> classes;
  std::vector<bool> valid;
  for (size_t m = 0; m < members.size(); m++) {
    auto [it, fresh] = class_of_root.emplace(find(m), (int)classes.size());
    if (fresh) {
      classes.emplace_back();
      valid.push_back(true);
    }
    for (size_t o : classes[it->second])
      if (members[o].rel == members[m].rel) valid[it->second] = false;
    classes[it->second].push_back(m);
  }
  auto class_of = [&](const BoundExpr* c) -> int {
    auto it = id.find(c->binding);
    if (it == id.end()) return -1;
    const int k = class_of_root.at(find(it->second));
    return valid[k] ? k : -1;
  };
  // The edges a class already has; the missing pairs become implied edges.
  std::map<std::pair<size_t, size_t>, bool> joined;
  for (size_t i = 0; i < edges.size(); i++) {
    if (!usable[i]) continue;
    out.edge_class[i] = class_of(edges[i].ea);
    if (out.edge_class[i] < 0) continue;
    const size_t x = id.at(edges[i].ea->binding), y = id.at(edges[i].eb->binding);
    joined[{std::min(x, y), std::max(x, y)}] = true;
  }
  for (size_t k = 0; k < classes.size(); k++) {
    if (!valid[k]) continue;
    const auto& ms = classes[k];
    for (size_t i = 0; i < ms.size(); i++)
      for (size_t j = i + 1; j < ms.size(); j++) {
        const size_t x = std::min(ms[i], ms[j]), y = std::max(ms[i], ms[j]);
        if (joined.count({x, y})) continue;
        out.edges.push_back({members[x].rel, members[y].rel, members[x].col->Copy(), members[y].col->Copy(), (int)k});
      }
  }
  // Copied filters: each constant filter of a class's column, onto its other columns
  // (unless that relation has the same term already).
  auto has = [&](size_t rel, const BoundExpr& t) {
    for (auto& f : filters)
      if (f.rel == rel && f.pred->Equals(t)) return true;
    for (auto& f : out.filters)
      if (f.rel == rel && f.pred->Equals(t)) return true;
    return false;
  };
  for (auto& f : filters) {
    std::vector<ColumnBinding> used;
    f.pred->CollectBindings(used);
    if (used.empty()) continue;
    auto it = id.find(used[0]);
    if (it == id.end()) continue;
    const int k = class_of(members[it->second].col);
    if (k < 0) continue;
    const BoundExpr& from = *members[it->second].col;
    for (size_t m : classes[k]) {
      if (m == it->second) continue;
      BoundExprPtr copy = CopyFilterToEqualColumn(*f.pred, from, *members[m].col);
      if (copy && !has(members[m].rel, *copy)) out.filters.push_back({members[m].rel, std::move(copy)});
    }
  }
  return out;
}

}  // namespace tessera
