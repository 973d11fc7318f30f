#include "execution/operators/table_scan.hpp"

#include <cstring>

#include "execution/expression_executor.hpp"

namespace tessera {

PhysicalTableScan::PhysicalTableScan(std::shared_ptr<const TableEntry> t,
                                     std::shared_ptr<const TableData> d, std::vector<int> cols,
                                     std::vector<BoundExprPtr> f)
    : PhysicalOperator(PhysKind::TableScan, {}), table(std::move(t)), data(std::move(d)),
      column_ids(std::move(cols)), filters(std::move(f)) {
  for (int c : column_ids) types.push_back(table->schema.columns[c].type);
  filter_col_.assign(column_ids.size(), false);
  for (auto& e : filters) {
    std::vector<const BoundExpr*> stack{e.get()};
    while (!stack.empty()) {
      auto* x = stack.back();
      stack.pop_back();
      if (x->kind == BExpr::Column) filter_col_[x->index] = true;
      for (auto& c : x->children) stack.push_back(c.get());
    }
  }
}

std::string PhysicalTableScan::Details() const {
  std::string s = table->schema.name + " [";
  for (size_t i = 0; i < column_ids.size(); i++)
    s += (i ? ", " : "") + table->schema.columns[column_ids[i]].name;
  s += "]";
  for (size_t i = 0; i < filters.size(); i++) s += (i ? " AND " : " WHERE ") + filters[i]->ToString();
  return s;
}

struct ScanGlobal : GlobalSourceState {
  std::atomic<size_t> next_group{0};
};
struct ScanLocal : LocalState {
  const RowGroup* group = nullptr;
  uint64_t group_index = 0;
  uint32_t offset = 0;
  std::vector<uint32_t> sel, sel2;
};

std::unique_ptr<GlobalSourceState> PhysicalTableScan::InitSource() { return std::make_unique<ScanGlobal>(); }
std::unique_ptr<LocalState> PhysicalTableScan::InitLocalSource() { return std::make_unique<ScanLocal>(); }

// Zone maps: a term `col op constant` (either side) that no value in [min, max] satisfies
// rules the row group out.
bool PhysicalTableScan::GroupMayMatch(const RowGroup& rg) const {
  for (auto& f : filters) {
    const BoundExpr* t = f.get();
    if (t->kind != BExpr::Compare) continue;
    const BoundExpr* col = t->children[0].get();
    const BoundExpr* cst = t->children[1].get();
    ast::Op op = t->op;
    if (col->kind != BExpr::Column) {
      std::swap(col, cst);
      op = FlipComparison(op);
    }
    if (col->kind != BExpr::Column || cst->kind != BExpr::Constant || cst->value.is_null()) continue;
    const ColumnStats& st = rg.columns[column_ids[col->index]]->stats;
    if (!st.has_stats) {
      if (rg.columns[column_ids[col->index]]->stats.null_count == rg.count) return false;
      continue;
    }
    const Value& v = cst->value;
    int cmin = st.min.Compare(v), cmax = st.max.Compare(v);
    switch (op) {
      case ast::Op::Eq: if (cmin > 0 || cmax < 0) return false; break;
      case ast::Op::Lt: if (cmin >= 0) return false; break;
      case ast::Op::Le: if (cmin > 0) return false; break;
      case ast::Op::Gt: if (cmax <= 0) return false; break;
      case ast::Op::Ge: if (cmax < 0) return false; break;
      default: break;
    }
  }
  return true;
}

// Reads rows base + rows[i] of a column chunk into out[0..n).
static void GatherChunk(const ColumnChunk& c, uint32_t base, const uint32_t* rows, uint32_t n,
                        Vector& out) {
  c.EnsureVerified();
  out.ClearNulls();
  if (c.validity) {
    uint8_t* v = out.validity();
    for (uint32_t i = 0; i < n; i++) v[i] = c.IsValid(base + rows[i]);
  }
  if (c.type.physical() == PhysType::Str) {
    StrRef* o = out.data<StrRef>();
    for (uint32_t i = 0; i < n; i++) o[i] = c.GetString(base + rows[i]);
    out.KeepAlive(c.owner);
    return;
  }
  size_t w = (size_t)c.type.width();
  const uint8_t* src = c.data + (size_t)base * w;
  uint8_t* dst = out.raw();
  switch (w) {
    case 4: for (uint32_t i = 0; i < n; i++) ((uint32_t*)dst)[i] = ((const uint32_t*)src)[rows[i]]; break;
    case 8: for (uint32_t i = 0; i < n; i++) ((uint64_t*)dst)[i] = ((const uint64_t*)src)[rows[i]]; break;
    default: for (uint32_t i = 0; i < n; i++) std::memcpy(dst + i * w, src + rows[i] * w, w);
  }
  if (c.validity) {  // NULL rows read as zero (imported Arrow data leaves anything there)
    const uint8_t* v = out.validity_or_null();
    for (uint32_t i = 0; i < n; i++)
      if (!v[i]) std::memset(dst + i * w, 0, w);
  }
}

bool PhysicalTableScan::GetChunk(GlobalSourceState& gs, LocalState& ls, DataChunk& out) {
  auto& g = static_cast<ScanGlobal&>(gs);
  auto& l = static_cast<ScanLocal&>(ls);
  for (;;) {
    if (!l.group || l.offset >= l.group->count) {
      size_t gi = g.next_group.fetch_add(1);
      if (gi >= data->row_groups.size()) return false;
      l.group = data->row_groups[gi].get();
      l.group_index = gi;
      l.offset = 0;
      if (!GroupMayMatch(*l.group)) {
        groups_skipped++;
        rows_skipped += l.group->count;
        l.group = nullptr;
        continue;
      }
    }
    const RowGroup& rg = *l.group;
    uint32_t n = std::min(kVectorSize, rg.count - l.offset);
    uint32_t base = l.offset;
    l.offset += n;
    out.Init(types, kVectorSize);
    out.batch = (l.group_index << 32) | base;
    if (filters.empty()) {
      if (!count_only)
        for (size_t c = 0; c < column_ids.size(); c++) rg.columns[column_ids[c]]->Read(base, n, out.cols[c]);
      out.size = n;
      return true;
    }
    // Filter columns first, then each filter term narrows the selection.
    for (size_t c = 0; c < column_ids.size(); c++)
      if (filter_col_[c]) rg.columns[column_ids[c]]->Read(base, n, out.cols[c]);
    out.size = n;
    l.sel.resize(n);
    for (uint32_t i = 0; i < n; i++) l.sel[i] = i;
    uint32_t count = n;
    DataChunk view;
    for (auto& f : filters) {
      if (count == 0) break;
      uint32_t k = 0;
      if (FilterColumnConstant(*f, out, count == n ? nullptr : l.sel.data(), count, l.sel.data(), k)) {
        count = k;
        continue;
      }
      const DataChunk* src = &out;
      if (count != n) {
        // Evaluate on the rows still selected.
        view.cols.resize(out.cols.size());
        for (size_t c = 0; c < out.cols.size(); c++) {
          if (!filter_col_[c]) continue;
          view.cols[c].Init(out.cols[c].type(), count);
          CopyRows(out.cols[c], l.sel.data(), count, view.cols[c], 0);
        }
        view.size = count;
        src = &view;
      }
      k = EvaluateFilter(*f, *src, l.sel2);
      for (uint32_t i = 0; i < k; i++) l.sel2[i] = l.sel[l.sel2[i]];
      std::swap(l.sel, l.sel2);
      count = k;
    }
    if (count == 0) continue;
    DataChunk res;
    res.Init(types, count);
    for (size_t c = 0; c < column_ids.size(); c++) {
      if (filter_col_[c]) CopyRows(out.cols[c], l.sel.data(), count, res.cols[c], 0);
      else if (!count_only) GatherChunk(*rg.columns[column_ids[c]], base, l.sel.data(), count, res.cols[c]);
    }
    res.size = count;
    res.batch = out.batch;
    out = std::move(res);
    return true;
  }
}

}  // namespace tessera
