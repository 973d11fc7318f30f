#include "execution/operators/table_scan.hpp"

#include <algorithm>
#include <cstring>

#include "execution/expression_executor.hpp"
#include "function/function_registry.hpp"

namespace tessera {

PhysicalTableScan::PhysicalTableScan(std::shared_ptr<const TableEntry> t,
                                     std::shared_ptr<const TableData> d, std::vector<int> cols,
                                     std::vector<BoundExprPtr> f)
    : PhysicalOperator(PhysKind::TableScan, {}), table(std::move(t)), data(std::move(d)),
      column_ids(std::move(cols)), filters(std::move(f)) {
  for (int c : column_ids) types.push_back(table->schema.columns[c].type);
  filter_col_.assign(column_ids.size(), false);
  for (auto& e : filters) {
    std::vector<int> cols;
    bool is_volatile = false;
    std::vector<const BoundExpr*> stack{e.get()};
    while (!stack.empty()) {
      auto* x = stack.back();
      stack.pop_back();
      if (x->kind == BExpr::Column) {
        filter_col_[x->index] = true;
        if (std::find(cols.begin(), cols.end(), x->index) == cols.end()) cols.push_back(x->index);
      }
      if (x->kind == BExpr::Func && x->fn && x->fn->is_volatile) is_volatile = true;
      for (auto& c : x->children) stack.push_back(c.get());
    }
    filter_dict_.push_back(cols.size() == 1 && !is_volatile && types[cols[0]].physical() == PhysType::Str);
    filter_cols_.push_back(std::move(cols));
  }
}

std::string PhysicalTableScan::Details() const {
  std::string s = table->schema.name + " [";
  for (size_t i = 0; i < column_ids.size(); i++)
    s += (i ? ", " : "") + table->schema.columns[column_ids[i]].name;
  s += "]";
  for (size_t i = 0; i < filters.size(); i++) s += (i ? " AND " : " WHERE ") + filters[i]->ToString();
  for (const auto& u : join_filters)
    s += " JOIN FILTER " + table->schema.columns[column_ids[u.col]].name + " IN build " + u.filter->description;
  return s;
}

struct ScanGlobal : GlobalSourceState {
  std::atomic<size_t> next_group{0};
  size_t end_group = 0;  // groups from here on are not read (row_limit)
};
struct ScanLocal : LocalState {
  const RowGroup* group = nullptr;
  uint64_t group_index = 0;
  uint32_t offset = 0;
  std::vector<uint32_t> sel, sel2;
  // Per filter, for the current row group: 0 not computed yet, 1 the filter's outcome per
  // dictionary code (dict_pass, the last entry for NULL), 2 evaluated row by row.
  std::vector<uint8_t> dict_state;
  std::vector<std::vector<uint8_t>> dict_pass;
  std::vector<uint8_t> loaded;  // per output column: read into the chunk being built
  DataChunk work, view;  // a window's filter columns, and the selected rows a filter reads
  // Per join filter: rows tested and passed on this thread, and whether it was given up
  // (it let most rows through).
  std::vector<uint64_t> jf_in, jf_pass;
  std::vector<uint8_t> jf_off;
  // The current row group's chunks as this scan reads them: the group's own, or a view a
  // lazily loaded chunk was streamed into (ChunkVerifier::LoadTransient: a file table's
  // first read decodes into reused buffers instead of keeping the decoded column). Filled
  // per column on first use, so columns a filter leaves unread are not decoded.
  std::vector<const ColumnChunk*> chunks;
  std::vector<ColumnChunk> views;
};

// Column c (an index into column_ids) of the scan's current row group.
static const ColumnChunk& ScanColumn(ScanLocal& l, const RowGroup& rg, const std::vector<int>& column_ids, size_t c) {
  if (!l.chunks[c]) {
    const ColumnChunk& ch = *rg.columns[column_ids[c]];
    l.chunks[c] = !ch.Loaded() && ch.verifier->LoadTransient(l.views[c]) ? &l.views[c] : &ch;
  }
  return *l.chunks[c];
}

// A join filter is tested on this many rows of a thread before it may be given up, and
// given up when more than kJoinFilterKeep/8 of them passed.
static constexpr uint64_t kJoinFilterTrialRows = 16 * kVectorSize;
static constexpr uint64_t kJoinFilterKeep = 6;

std::unique_ptr<GlobalSourceState> PhysicalTableScan::InitSource() {
  auto g = std::make_unique<ScanGlobal>();
  const auto& groups = data->row_groups;
  g->end_group = groups.size();
  if (row_limit != UINT64_MAX && filters.empty() && join_filters.empty()) {
    uint64_t rows = 0;
    for (size_t i = 0; i < groups.size(); i++) {
      if (rows >= row_limit) {
        g->end_group = i;
        break;
      }
      rows += groups[i]->count;
    }
  }
  return g;
}
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

// Row groups whose key statistics miss a join filter's range (counted apart from the
// pushed-down filters' skips, which the cost model's scan rows leave out).
bool PhysicalTableScan::JoinFiltersMayMatch(const RowGroup& rg) const {
  for (const auto& u : join_filters) {
    if (!u.filter->Ready()) continue;
    const ColumnStats& st = rg.columns[column_ids[u.col]]->stats;
    if (!st.has_stats) {
      if (st.null_count == rg.count) return false;  // NULL keys never match
      continue;
    }
    if (st.min.is_null() || st.max.is_null()) continue;
    if (!u.filter->MayOverlap((int64_t)st.min.int_value(), (int64_t)st.max.int_value())) return false;
  }
  return true;
}

// Reads rows base + rows[i] of a column chunk into out[i] (i in [0, n)), or with
// `in_place` into out[rows[i]] (the other rows of out are left as they are).
// Without `in_place`, row i goes to out[dst_off + i]; rows before dst_off (earlier windows
// of the same output chunk, see GetChunk) are left as they are.
template <bool in_place>
static void GatherRows(const ColumnChunk& c, uint32_t base, const uint32_t* rows, uint32_t n, Vector& out,
                       uint32_t dst_off) {
  c.EnsureVerified();
  if (in_place || dst_off == 0) out.ClearNulls();
  auto at = [rows, dst_off](uint32_t i) { return in_place ? rows[i] : dst_off + i; };
  if (c.validity) {
    uint8_t* v = out.validity();
    for (uint32_t i = 0; i < n; i++) v[at(i)] = c.IsValid(base + rows[i]);
  } else if (out.has_nulls()) {  // an earlier window had NULLs: mark these rows valid
    uint8_t* v = out.validity();
    for (uint32_t i = 0; i < n; i++) v[at(i)] = 1;
  }
  if (c.type.physical() == PhysType::Str) {
    // A dictionary chunk's rows appended to a vector also keep their codes (Vector's
    // dictionary form), when the rows before them are codes of the same dictionary.
    const bool dict = !in_place && c.str_enc == StringEncoding::Dictionary && c.owner &&
                      (dst_off == 0 || (out.has_dict() && !out.dict_codes_external() && out.dict().SameAs(c.Dict())));
    StrRef* o = out.data<StrRef>();
    for (uint32_t i = 0; i < n; i++) o[at(i)] = c.GetString(base + rows[i]);
    out.KeepAlive(c.owner);
    if (dict) {
      const uint32_t* src = reinterpret_cast<const uint32_t*>(c.data) + base;
      uint32_t* codes = out.DictCodesBuffer() + dst_off;
      for (uint32_t i = 0; i < n; i++) codes[i] = src[rows[i]];
      out.SetDict(c.Dict(), c.owner, nullptr);
    }
    return;
  }
  size_t w = (size_t)c.type.width();
  const uint8_t* src = c.data + (size_t)base * w;
  uint8_t* dst = out.raw();
  switch (w) {
    case 4: for (uint32_t i = 0; i < n; i++) ((uint32_t*)dst)[at(i)] = ((const uint32_t*)src)[rows[i]]; break;
    case 8: for (uint32_t i = 0; i < n; i++) ((uint64_t*)dst)[at(i)] = ((const uint64_t*)src)[rows[i]]; break;
    default: for (uint32_t i = 0; i < n; i++) std::memcpy(dst + at(i) * w, src + rows[i] * w, w);
  }
  if (c.validity) {  // NULL rows read as zero (imported Arrow data leaves anything there)
    const uint8_t* v = out.validity_or_null();
    for (uint32_t i = 0; i < n; i++)
      if (!v[at(i)]) std::memset(dst + at(i) * w, 0, w);
  }
}
static void GatherChunk(const ColumnChunk& c, uint32_t base, const uint32_t* rows, uint32_t n, Vector& out,
                        bool in_place = false, uint32_t dst_off = 0) {
  if (in_place) GatherRows<true>(c, base, rows, n, out, 0);
  else GatherRows<false>(c, base, rows, n, out, dst_off);
}

// A filter over one VARCHAR column evaluated over the chunk's dictionary: pass[code] for
// every code, pass[dict_size] for a NULL row. False when the chunk has no dictionary or
// evaluating raises an error (then the rows are evaluated one by one, where an error is
// raised only for a row that reaches the filter).
static bool EvaluateOverDictionary(const BoundExpr& f, const ColumnChunk& c, int col, size_t ncols,
                                   std::vector<uint8_t>& pass) {
  c.EnsureVerified();
  if (c.str_enc != StringEncoding::Dictionary) return false;
  const uint32_t entries = c.dict_size + 1;
  pass.assign(entries, 0);
  DataChunk chunk;
  chunk.cols.resize(ncols);
  std::vector<uint32_t> sel;
  try {
    for (uint32_t from = 0; from < entries; from += kVectorSize) {
      const uint32_t m = std::min(kVectorSize, entries - from);
      Vector& v = chunk.cols[col];
      v.Init(c.type, m);
      StrRef* o = v.data<StrRef>();
      for (uint32_t i = 0; i < m; i++) {
        if (from + i < c.dict_size) o[i] = c.DictEntry(from + i);
        else v.SetNull(i);
      }
      v.KeepAlive(c.owner);
      chunk.size = m;
      const uint32_t k = EvaluateFilter(f, chunk, sel);
      for (uint32_t i = 0; i < k; i++) pass[from + sel[i]] = 1;
    }
  } catch (const UserError&) {
    return false;
  }
  return true;
}

// A filtered scan fills its output chunk from several windows of the row group: each window
// of up to kVectorSize - filled rows is filtered in the scratch chunk `work`, and its
// surviving rows are appended to `out`, until `out` holds at least kMinFilteredRows rows or
// the row group ends. A selective filter (TPC-H q14 and q12 keep 1-2% of lineitem) thus
// hands its consumers chunks of a thousand rows or more instead of 20-40, and each chunk's
// fixed costs downstream (a hash-join build stores, hashes and copies per chunk; every
// operator sets up its vectors per chunk) are paid once per thousand rows. Windows never
// cross a row group, so `out.batch` (the first window's position) still orders the rows.
static constexpr uint32_t kMinFilteredRows = kVectorSize / 2;

bool PhysicalTableScan::GetChunk(GlobalSourceState& gs, LocalState& ls, DataChunk& out) {
  auto& g = static_cast<ScanGlobal&>(gs);
  auto& l = static_cast<ScanLocal&>(ls);
  uint32_t filled = 0;  // rows already appended to `out` from earlier windows
  for (;;) {
    if (!l.group || l.offset >= l.group->count) {
      if (filled > 0) {  // the row group ended: hand out what was gathered
        out.size = filled;
        return true;
      }
      size_t gi = g.next_group.fetch_add(1);
      if (gi >= g.end_group) return false;
      l.group = data->row_groups[gi].get();
      l.group_index = gi;
      l.offset = 0;
      // The last group's streamed views let go first, so their buffers can be reused.
      for (auto& v : l.views) v = ColumnChunk{};
      l.views.resize(column_ids.size());
      l.chunks.assign(column_ids.size(), nullptr);
      if (!GroupMayMatch(*l.group)) {
        groups_skipped++;
        rows_skipped += l.group->count;
        l.group = nullptr;
        continue;
      }
      if (!JoinFiltersMayMatch(*l.group)) {
        join_filter_groups_skipped++;
        l.group = nullptr;
        continue;
      }
      l.dict_state.assign(filters.size(), 0);
      l.dict_pass.resize(filters.size());
    }
    const RowGroup& rg = *l.group;
    uint32_t n = std::min(kVectorSize - filled, rg.count - l.offset);
    uint32_t base = l.offset;
    l.offset += n;
    const uint64_t batch = (l.group_index << 32) | base;
    if (l.jf_off.size() != join_filters.size()) {
      l.jf_in.assign(join_filters.size(), 0);
      l.jf_pass.assign(join_filters.size(), 0);
      l.jf_off.assign(join_filters.size(), 0);
    }
    bool join_filtered = false;
    for (size_t ji = 0; ji < join_filters.size(); ji++)
      join_filtered |= !l.jf_off[ji] && join_filters[ji].filter->Ready();
    // (filled > 0: a join filter given up in this chunk; its rows are appended below)
    if (filters.empty() && !join_filtered && filled == 0) {
      if (count_only) {
        out.Init(types, kVectorSize);
      } else {  // Read writes rows [0, n): no zero-fill of the vectors first
        out.cols.resize(types.size());
        for (size_t c = 0; c < column_ids.size(); c++) {
          out.cols[c].InitForOverwrite(types[c], kVectorSize);
          ScanColumn(l, rg, column_ids, c).Read(base, n, out.cols[c]);
        }
      }
      out.size = n;
      out.batch = batch;
      return true;
    }
    // Each filter term narrows the selection; a term's columns are read as it comes, for
    // the rows still selected (in place: row i of `work` stays row base + i).
    // Only the filters' columns are set up here; the others are read into the result.
    DataChunk& work = l.work;
    work.cols.resize(types.size());
    for (size_t c = 0; c < column_ids.size(); c++)
      if (filter_col_[c]) work.cols[c].Init(types[c], kVectorSize);
    work.size = n;
    l.loaded.assign(column_ids.size(), 0);
    // Read only once count < n (every filter writes the rows it keeps), or as the identity
    // written below when all rows passed into a partly filled chunk.
    l.sel.resize(n);
    uint32_t count = n;
    DataChunk& view = l.view;
    for (size_t fi = 0; fi < filters.size() && count > 0; fi++) {
      const BoundExpr& f = *filters[fi];
      const std::vector<int>& fcols = filter_cols_[fi];
      const uint32_t* in_sel = count == n ? nullptr : l.sel.data();
      if (filter_dict_[fi] && l.dict_state[fi] != 2) {
        const ColumnChunk& chunk = ScanColumn(l, rg, column_ids, fcols[0]);
        if (l.dict_state[fi] == 0)
          l.dict_state[fi] = EvaluateOverDictionary(f, chunk, fcols[0], column_ids.size(), l.dict_pass[fi]) ? 1 : 2;
        if (l.dict_state[fi] == 1) {
          const uint8_t* pass = l.dict_pass[fi].data();
          const uint32_t* codes = reinterpret_cast<const uint32_t*>(chunk.data) + base;
          const uint32_t null_code = chunk.dict_size;
          uint32_t k = 0;
          if (!chunk.validity) {
            for (uint32_t i = 0; i < count; i++) {
              const uint32_t r = in_sel ? in_sel[i] : i;
              l.sel[k] = r;
              k += pass[codes[r]];
            }
          } else {
            for (uint32_t i = 0; i < count; i++) {
              const uint32_t r = in_sel ? in_sel[i] : i;
              l.sel[k] = r;
              k += pass[chunk.IsValid(base + r) ? codes[r] : null_code];
            }
          }
          count = k;
          continue;
        }
      }
      for (int c : fcols) {
        if (l.loaded[c]) continue;
        const ColumnChunk& chunk = ScanColumn(l, rg, column_ids, c);
        if (count == n) chunk.Read(base, n, work.cols[c]);
        else GatherChunk(chunk, base, l.sel.data(), count, work.cols[c], /*in_place=*/true);
        l.loaded[c] = 1;
      }
      uint32_t k = 0;
      if (FilterColumnConstant(f, work, in_sel, count, l.sel.data(), k)) {
        count = k;
        continue;
      }
      const DataChunk* src = &work;
      if (count != n) {
        // Evaluate on the rows still selected (copies of the columns this filter reads).
        view.cols.resize(work.cols.size());
        for (int c : fcols) {
          view.cols[c].Init(work.cols[c].type(), count);
          CopyRows(work.cols[c], l.sel.data(), count, view.cols[c], 0);
        }
        view.size = count;
        src = &view;
      }
      k = EvaluateFilter(f, *src, l.sel2);
      if (count != n)
        for (uint32_t i = 0; i < k; i++) l.sel2[i] = l.sel[l.sel2[i]];
      std::swap(l.sel, l.sel2);
      count = k;
    }
    // Join filters, on the rows the filters kept.
    for (size_t ji = 0; ji < join_filters.size() && count > 0; ji++) {
      const JoinKeyFilter& jf = *join_filters[ji].filter;
      if (l.jf_off[ji] || !jf.Ready()) continue;
      const int c = join_filters[ji].col;
      const uint32_t before = count;
      const ColumnChunk& chunk = ScanColumn(l, rg, column_ids, c);
      if (!l.loaded[c] && count == n && (chunk.EnsureVerified(), !chunk.validity)) {
        // Tested where the keys lie; the column is read after, like any other.
        const size_t w = (size_t)types[c].width();
        count = jf.Apply(types[c].physical(), chunk.data + (size_t)base * w, nullptr, nullptr, n, l.sel.data());
      } else {
        if (!l.loaded[c]) {
          if (!filter_col_[c]) work.cols[c].Init(types[c], kVectorSize);
          if (count == n) chunk.Read(base, n, work.cols[c]);
          else GatherChunk(chunk, base, l.sel.data(), count, work.cols[c], /*in_place=*/true);
          l.loaded[c] = 1;
        }
        count = jf.Apply(work.cols[c], count == n ? nullptr : l.sel.data(), count, l.sel.data());
      }
      l.jf_in[ji] += before;
      l.jf_pass[ji] += count;
      if (l.jf_in[ji] >= kJoinFilterTrialRows && l.jf_pass[ji] * 8 > l.jf_in[ji] * kJoinFilterKeep) l.jf_off[ji] = 1;
    }
    if (count == n && filled == 0) {  // every row passed: the window is the chunk, no copy
      for (size_t c = 0; c < column_ids.size(); c++) {
        if (l.loaded[c]) continue;
        if (count_only) {
          if (!filter_col_[c]) work.cols[c].Init(types[c], kVectorSize);
        } else {
          work.cols[c].InitForOverwrite(types[c], kVectorSize);
          ScanColumn(l, rg, column_ids, c).Read(base, n, work.cols[c]);
        }
      }
      std::swap(out, work);
      out.batch = batch;
      return true;
    }
    if (count > 0) {
      if (count == n)
        for (uint32_t i = 0; i < n; i++) l.sel[i] = i;
      if (filled == 0) {
        out.Init(types, kVectorSize);
        out.batch = batch;
      }
      for (size_t c = 0; c < column_ids.size(); c++) {
        if (l.loaded[c]) CopyRows(work.cols[c], l.sel.data(), count, out.cols[c], filled);
        else if (!count_only) GatherChunk(ScanColumn(l, rg, column_ids, c), base, l.sel.data(), count, out.cols[c], false, filled);
      }
      filled += count;
    }
    if (filled >= kMinFilteredRows) {
      out.size = filled;
      return true;
    }
  }
}

}  // namespace tessera
