// Equal subplans computed once (CPU plans only).
//
// A query can hold the same subplan twice: a view or CTE read in two places (TPC-H q15
// reads its revenue view in the join and in the scalar subquery's max, both an
// aggregation of lineitem), or the copies of one input the DISTINCT rewrite makes
// (distinct_aggregates.cpp: `count(DISTINCT l_suppkey), count(DISTINCT c_nationkey)` over
// one join). Each copy was bound on its own, so the copies read the same tables and
// compute the same expressions under different table indexes; and column pruning left each
// copy only the columns its own readers use (the DISTINCT copies: each its argument). This
// pass finds such copies, keeps the first one (in a pre-order walk) under a Materialized
// node, widened to compute every copy's columns, whose rows are collected once, and
// replaces the others by SharedScans of those rows; each reader (the Materialized node
// too) reads its own columns of them under its replaced copy's bindings
// (planner/logical_plan.hpp; execution/operators/materialized.hpp).
//
// Equal (up to pruning) means: the same operators with the same fields, over the same
// tables, and expressions equal (BoundExpr::Equals) once each column reference of one
// copy is translated to the binding the other copy gives the same column; except that
// scans may read different columns of their table (the same rows whatever they read) and
// projections keep different expressions (each computed on the same rows): the kept copy
// reads the union of the columns and computes the union of the expressions. Only Get,
// Filter, Projection, Join, Aggregate, Order and Limit nodes compare; a subplan with
// anything else (a window, VALUES, a UNION, a recursive CTE's working table), or a
// volatile call (random()), or a reference to a column it does not produce itself, is
// never shared. Nothing under a recursive CTE is shared (its plans run once per iteration).
//
// Worth sharing: a subplan with a join or an aggregation (or an ORDER BY inside): reading
// a table again with its filters costs about what reading the collected rows costs, so
// bare scans are recomputed; a subplan ending in ORDER BY or LIMIT is not shared. The
// largest equal subplans are shared first; what lies inside a shared subplan is not
// considered again. Collected are only the columns some reader's operators read (a copy's
// output also held its joins' keys): a projection of them tops the shared subplan.
//
// Applied last, after the estimates, only to plans for the CPU: the GPU backend runs the
// copies as they are.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "optimizer/optimizer.hpp"

namespace tessera {

namespace {

// Whether subplan `a` computes the rows `b` computes, equal up to their bindings and up to
// column pruning (which left each copy only the columns its readers use): their scans may
// read different columns and their projections keep different expressions. Matching makes b
// produce every column a does as well (its scans read the union of the columns, its
// projections compute the union of the expressions; b is a scratch copy the caller keeps
// only when the match succeeds), and Translate gives the binding of b that holds a column
// of a.
class SubplanMatcher {
 public:
  bool Same(const LogicalOp& a, LogicalOp& b) {
    if (a.kind != b.kind || a.children.size() != b.children.size()) return false;
    for (size_t i = 0; i < a.children.size(); i++)
      if (!Same(*a.children[i], *b.children[i])) return false;
    switch (a.kind) {
      case LogicalKind::Get: {
        if (a.table != b.table) return false;
        Produce(a.table_index, b.table_index);
        if (!Exprs(a.filters, b.filters)) return false;
        // The same rows whatever columns are read; a column read only for the row count
        // (count_only) stays so only where both read just that one.
        b.count_only = a.count_only && b.count_only && a.column_ids == b.column_ids;
        for (int c : a.column_ids)
          if (std::find(b.column_ids.begin(), b.column_ids.end(), c) == b.column_ids.end()) b.column_ids.push_back(c);
        return true;
      }
      case LogicalKind::Filter: return Exprs(a.filters, b.filters);
      case LogicalKind::Projection: {
        // Each of a's expressions is one of b's, or is added to b's (over the same rows:
        // a computes it there too).
        std::map<uint32_t, uint32_t> columns;
        for (uint32_t j = 0; j < a.exprs.size(); j++) {
          uint32_t i = 0;
          while (i < b.exprs.size() && !Expr(a.exprs[j].get(), b.exprs[i].get())) i++;
          if (i == b.exprs.size()) {
            BoundExprPtr e = TranslatedCopy(*a.exprs[j]);
            if (!e) return false;
            b.exprs.push_back(std::move(e));
          }
          columns[j] = i;
        }
        tables_[a.table_index] = {b.table_index, std::move(columns)};
        return true;
      }
      case LogicalKind::Aggregate:
        if (!Exprs(a.groups, b.groups) || !Exprs(a.aggs, b.aggs)) return false;
        Produce(a.group_index, b.group_index);
        Produce(a.agg_index, b.agg_index);
        return true;
      case LogicalKind::Join:
        if (a.join_type != b.join_type || a.single_match != b.single_match || a.null_aware != b.null_aware ||
            a.nulls_equal != b.nulls_equal || a.counted != b.counted || a.asof_op != b.asof_op || !Exprs(a.left_keys, b.left_keys) ||
            !Exprs(a.right_keys, b.right_keys) || !Expr(a.residual.get(), b.residual.get()))
          return false;
        if (a.join_type == LJoinType::Mark) Produce(a.table_index, b.table_index);
        return true;
      case LogicalKind::Order:
        if (a.orders.size() != b.orders.size()) return false;
        for (size_t i = 0; i < a.orders.size(); i++)
          if (a.orders[i].desc != b.orders[i].desc || a.orders[i].nulls_first != b.orders[i].nulls_first ||
              !Expr(a.orders[i].expr.get(), b.orders[i].expr.get()))
            return false;
        return true;
      case LogicalKind::Limit: return a.limit == b.limit && a.offset == b.offset && a.limit_percent == b.limit_percent;
      default: return false;
    }
  }

  // The binding of b holding column `x` of a (none: x is not produced inside a).
  std::optional<ColumnBinding> Translate(ColumnBinding x) const {
    auto it = tables_.find(x.table);
    if (it == tables_.end()) return std::nullopt;
    const Produced& p = it->second;
    if (!p.columns) return ColumnBinding{p.table, x.column};
    auto c = p.columns->find(x.column);
    if (c == p.columns->end()) return std::nullopt;
    return ColumnBinding{p.table, c->second};
  }

 private:
  // Where a's bindings of one table index are in b: the same columns of `table`, or (a
  // projection's) the columns `columns` maps them to.
  struct Produced {
    uint32_t table = 0;
    std::optional<std::map<uint32_t, uint32_t>> columns;
  };
  void Produce(uint32_t a, uint32_t b) { tables_[a] = {b, std::nullopt}; }
  bool Expr(const BoundExpr* a, const BoundExpr* b) {
    if (!a || !b) return a == b;
    if (a->CallsVolatile() || b->CallsVolatile()) return false;
    return a->Equals(*b, [&](ColumnBinding x, ColumnBinding y) {
      auto t = Translate(x);
      return t && *t == y;
    });
  }
  bool Exprs(const std::vector<BoundExprPtr>& a, const std::vector<BoundExprPtr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++)
      if (!Expr(a[i].get(), b[i].get())) return false;
    return true;
  }
  // a's expression `e` over b's bindings (null: it reads a column not produced in a, or
  // calls a volatile function).
  BoundExprPtr TranslatedCopy(const BoundExpr& e) const {
    if (e.CallsVolatile()) return nullptr;
    BoundExprPtr c = e.Copy();
    bool ok = true;
    std::function<void(BoundExpr&)> fix = [&](BoundExpr& x) {
      if (x.kind == BExpr::Column) {
        if (auto t = Translate(x.binding))
          x.binding = *t;
        else
          ok = false;
      }
      for (auto& ch : x.children) fix(*ch);
    };
    fix(*c);
    return ok ? std::move(c) : nullptr;
  }
  std::map<uint32_t, Produced> tables_;
};

// A node with its place in the plan (the owning pointer, to replace it) and its size.
struct Candidate {
  LogicalOpPtr* slot;
  size_t nodes;
  size_t order;  // pre-order position
  bool taken = false;
};

size_t CountNodes(const LogicalOp& op) {
  size_t n = 1;
  for (auto& c : op.children) n += CountNodes(*c);
  return n;
}

bool Computes(const LogicalOp& op) {
  if (op.kind == LogicalKind::Join || op.kind == LogicalKind::Aggregate || op.kind == LogicalKind::Order) return true;
  for (auto& c : op.children)
    if (Computes(*c)) return true;
  return false;
}

// A subplan whose rows' order matters (an ORDER BY, a LIMIT) is not shared: the collected
// rows are handed out in order, but the operators above would not know it.
bool WorthSharing(const LogicalOp& op) {
  return op.kind != LogicalKind::Order && op.kind != LogicalKind::Limit && Computes(op);
}

void Collect(LogicalOpPtr& slot, std::vector<Candidate>& out) {
  if (slot->kind == LogicalKind::RecursiveCte) return;  // its plans run once per iteration
  out.push_back({&slot, CountNodes(*slot), out.size()});
  for (auto& c : slot->children) Collect(c, out);
}

bool Inside(const LogicalOp& outer, const LogicalOp* inner) {
  if (&outer == inner) return true;
  for (auto& c : outer.children)
    if (Inside(*c, inner)) return true;
  return false;
}

void Take(const LogicalOp& root, std::vector<Candidate>& all) {
  for (auto& c : all)
    if (!c.taken && Inside(root, c.slot->get())) c.taken = true;
}

// The positions of `want` among `all`.
std::vector<uint32_t> Positions(const std::vector<ColumnBinding>& all, const std::vector<ColumnBinding>& want) {
  std::vector<uint32_t> r;
  for (const ColumnBinding& b : want) {
    auto it = std::find(all.begin(), all.end(), b);
    TESSERA_ASSERT(it != all.end(), "a shared subplan's reader needs a column it does not compute");
    r.push_back((uint32_t)(it - all.begin()));
  }
  return r;
}

// How EXPLAIN names column `b` of op's output.
std::string ColumnName(const LogicalOp& op, ColumnBinding b) {
  if (op.kind == LogicalKind::Get && b.table == op.table_index) return op.table->schema.columns[b.column].name;
  if (op.kind == LogicalKind::Projection && b.table == op.table_index) return op.exprs[b.column]->ToString();
  if (op.kind == LogicalKind::Aggregate && b.table == op.group_index) return op.groups[b.column]->ToString();
  if (op.kind == LogicalKind::Aggregate && b.table == op.agg_index) return op.aggs[b.column]->ToString();
  for (auto& c : op.children) {
    const std::vector<ColumnBinding> cb = c->Bindings();
    if (std::find(cb.begin(), cb.end(), b) != cb.end()) return ColumnName(*c, b);
  }
  return "mark";  // a mark join's column
}

void Readers(LogicalOp& op, std::map<uint32_t, std::vector<LogicalOp*>>& out) {
  if (op.kind == LogicalKind::Materialized || op.kind == LogicalKind::SharedScan) out[op.shared_id].push_back(&op);
  for (auto& c : op.children) Readers(*c, out);
}

// Each reader of a materialisation keeps only the columns some operator above it reads (a
// copy's output held its joins' keys too; at least one column, for the row count), and the
// materialisation collects only the columns some reader keeps: a projection of them goes
// on top of its subplan (under fresh bindings from `next`).
void CollectOnlyWhatIsRead(LogicalOp& root, uint32_t& next) {
  const std::vector<ColumnBinding> used = ColumnsUsed(root);
  std::map<uint32_t, std::vector<LogicalOp*>> readers;
  Readers(root, readers);
  for (auto& [id, ops] : readers) {
    std::vector<uint32_t> collected;  // positions in the subplan's output, ascending
    LogicalOp* mat = nullptr;
    for (LogicalOp* r : ops) {
      if (r->kind == LogicalKind::Materialized) mat = r;
      std::vector<size_t> keep;
      size_t narrowest = 0;
      for (size_t i = 0; i < r->shared_bindings.size(); i++) {
        if (std::binary_search(used.begin(), used.end(), r->shared_bindings[i])) keep.push_back(i);
        if (r->column_types[i].width() < r->column_types[narrowest].width()) narrowest = i;
      }
      if (keep.empty() && !r->shared_bindings.empty()) keep.push_back(narrowest);
      std::vector<uint32_t> columns;
      std::vector<ColumnBinding> bindings;
      std::vector<Type> types;
      for (size_t i : keep) {
        columns.push_back(r->shared_columns[i]);
        bindings.push_back(r->shared_bindings[i]);
        types.push_back(r->column_types[i]);
      }
      r->shared_columns = std::move(columns);
      r->shared_bindings = std::move(bindings);
      r->column_types = std::move(types);
      collected.insert(collected.end(), r->shared_columns.begin(), r->shared_columns.end());
    }
    std::sort(collected.begin(), collected.end());
    collected.erase(std::unique(collected.begin(), collected.end()), collected.end());
    LogicalOpPtr& sub = mat->children[0];
    const std::vector<ColumnBinding> computed = sub->Bindings();
    if (collected.size() == computed.size()) continue;  // every column is read
    const std::vector<Type> types = sub->Types();
    auto proj = std::make_unique<LogicalOp>(LogicalKind::Projection);
    proj->table_index = next++;
    proj->estimated_rows = sub->estimated_rows;
    for (uint32_t p : collected) proj->exprs.push_back(MakeColumn(computed[p], types[p], ColumnName(*sub, computed[p])));
    for (LogicalOp* r : ops)
      for (uint32_t& p : r->shared_columns)
        p = (uint32_t)(std::lower_bound(collected.begin(), collected.end(), p) - collected.begin());
    proj->children.push_back(std::move(sub));
    sub = std::move(proj);
  }
}

}  // namespace

void ShareEqualSubplans(LogicalOpPtr& root) {
  std::vector<Candidate> all;
  Collect(root, all);
  std::vector<size_t> by_size(all.size());
  for (size_t i = 0; i < all.size(); i++) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t x, size_t y) { return all[x].nodes > all[y].nodes; });
  uint32_t next_id = 1;
  for (size_t xi = 0; xi < by_size.size(); xi++) {
    Candidate& first = all[by_size[xi]];
    if (first.taken || first.nodes < 2 || !WorthSharing(**first.slot)) continue;
    // The later (pre-order) copies of the same size, disjoint from it and from each other,
    // each with its columns' bindings in `shared`: a copy of the first one that computes
    // every copy's columns (what the Materialized node will compute).
    LogicalOpPtr shared = (*first.slot)->Copy();
    std::vector<std::pair<Candidate*, std::vector<ColumnBinding>>> copies;
    for (size_t yi = xi + 1; yi < by_size.size() && all[by_size[yi]].nodes == first.nodes; yi++) {
      Candidate& other = all[by_size[yi]];
      if (other.taken || (*other.slot)->kind != shared->kind) continue;
      LogicalOpPtr trial = shared->Copy();
      SubplanMatcher m;
      if (!m.Same(**other.slot, *trial)) continue;
      std::vector<ColumnBinding> columns;
      for (const ColumnBinding& b : (*other.slot)->Bindings()) columns.push_back(*m.Translate(b));
      shared = std::move(trial);
      copies.emplace_back(&other, std::move(columns));
    }
    if (copies.empty()) continue;
    // The first copy, the earliest in the plan (copies of one size are in pre-order),
    // materialises (it runs first in most plans; any order is correct, the pipelines wait
    // for the materialisation); each reader takes its own columns of the shared rows.
    const uint32_t id = next_id++;
    Take(**first.slot, all);
    for (auto& [c, columns] : copies) Take(**c->slot, all);
    const std::vector<ColumnBinding> computed = shared->Bindings();
    for (auto& [c, columns] : copies) {
      LogicalOpPtr& slot = *c->slot;
      auto scan = std::make_unique<LogicalOp>(LogicalKind::SharedScan);
      scan->shared_id = id;
      scan->shared_columns = Positions(computed, columns);
      scan->shared_bindings = slot->Bindings();
      scan->column_types = slot->Types();
      scan->estimated_rows = slot->estimated_rows;
      slot = std::move(scan);
    }
    LogicalOpPtr& slot = *first.slot;
    auto mat = std::make_unique<LogicalOp>(LogicalKind::Materialized);
    mat->shared_id = id;
    mat->shared_bindings = slot->Bindings();
    mat->shared_columns = Positions(computed, mat->shared_bindings);
    mat->column_types = slot->Types();
    mat->estimated_rows = slot->estimated_rows;
    mat->children.push_back(std::move(shared));
    slot = std::move(mat);  // the first copy itself goes: `shared` replaces it
  }
  if (next_id == 1) return;  // nothing shared
  uint32_t next = LargestBindingIndex(*root) + 1;
  CollectOnlyWhatIsRead(*root, next);
}

}  // namespace tessera
