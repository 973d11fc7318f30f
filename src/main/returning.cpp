// RETURNING: the statement's rows as a query result. The executor of INSERT, UPDATE and
// DELETE collects the rows it inserts, updates (their new values) or deletes as row
// groups, binds them in place of the target table (Binder::SetTableOverrides, as the
// upsert's EXCLUDED is bound) and runs the RETURNING SELECT over them on the CPU, before it
// commits; so a RETURNING expression that fails leaves the table as it was (and, in a
// transaction, aborts it, as in DuckDB).
#include "main/returning.hpp"

#include <algorithm>

#include "execution/expression_executor.hpp"
#include "main/prepared_query.hpp"
#include "planner/binder.hpp"
#include "storage/row_group.hpp"

namespace tessera {

namespace {

// DuckDB refuses aggregates ("not supported here") and window functions in RETURNING.
void CheckExpr(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::Function) {
    if (e.over)
      throw UserError(ErrorKind::Binder, "window functions are not supported in RETURNING", e.pos);
    if (IsAggregateName(e.name)) throw UserError(ErrorKind::Binder, "Aggregate functions are not supported here", e.pos);
  }
  for (auto& c : e.children)
    if (c) CheckExpr(*c);
}

// `table` with `data` in place of its rows, as the binder sees it.
std::shared_ptr<const TableEntry> WithData(const TableEntry& table, std::shared_ptr<TableData> data) {
  auto e = std::make_shared<TableEntry>(table);
  e->data = std::move(data);
  return e;
}

}  // namespace

void CheckReturning(Database& db, const TableEntry& table, const std::string& name, const ast::SelectStmt& returning) {
  for (auto& item : returning.select_list)
    if (item.expr) CheckExpr(*item.expr);
  Binder::TableOverrides overrides{{name, WithData(table, std::make_shared<TableData>())}};
  Binder binder(db.catalog());
  binder.SetTableOverrides(&overrides);
  binder.BindSelect(returning);
}

QueryResult RunReturning(Database& db, const TableEntry& table, const std::string& name,
                         const ast::SelectStmt& returning, std::vector<std::shared_ptr<const RowGroup>> rows) {
  auto data = std::make_shared<TableData>();
  for (auto& g : rows) data->row_count += g->count;
  data->row_groups = std::move(rows);
  Binder::TableOverrides overrides{{name, WithData(table, std::move(data))}};
  PreparedQuery q = PrepareSelect(db, returning, /*allow_gpu=*/false, {}, &overrides);
  return RunPrepared(db, returning, q);
}

std::vector<std::shared_ptr<const RowGroup>> RowsAt(const TableEntry& table, const TableData& data,
                                                    const std::vector<int64_t>& rows, bool keep_order) {
  std::vector<int64_t> sorted = rows;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const auto types = table.schema.types();
  // The rows in ascending order, a chunk per vector of the table they come from.
  std::vector<DataChunk> picked;
  DataChunk in;
  in.Init(types);
  std::vector<uint32_t> pick;
  size_t next = 0;  // the first of `sorted` not yet copied
  int64_t first = 0;
  for (auto& rg : data.row_groups) {
    const int64_t end = first + rg->count;
    for (uint32_t at = 0; at < rg->count && next < sorted.size() && sorted[next] < end; at += kVectorSize) {
      const uint32_t n = std::min<uint32_t>(kVectorSize, rg->count - at);
      pick.clear();
      while (next < sorted.size() && sorted[next] < first + at + n)
        pick.push_back((uint32_t)(sorted[next++] - first - at));
      if (pick.empty()) continue;
      for (size_t c = 0; c < types.size(); c++) {
        in.cols[c].Init(types[c]);
        rg->columns[c]->Read(at, n, in.cols[c]);
      }
      in.size = n;
      DataChunk out;
      out.Init(types);
      for (size_t c = 0; c < types.size(); c++) CopyRows(in.cols[c], pick.data(), (uint32_t)pick.size(), out.cols[c], 0);
      out.size = (uint32_t)pick.size();
      picked.push_back(std::move(out));
    }
    first = end;
  }
  RowGroupWriter writer(types);
  if (!keep_order) {
    for (auto& c : picked) writer.Append(c);
    return writer.Finish();
  }
  // In the order of `rows` (an upsert's, a row at a time): sorted[k] is row k of `picked`.
  std::vector<std::pair<uint32_t, uint32_t>> where;  // per sorted row: chunk, row
  for (uint32_t ci = 0; ci < picked.size(); ci++)
    for (uint32_t r = 0; r < picked[ci].size; r++) where.push_back({ci, r});
  DataChunk out;
  for (int64_t row : rows) {
    const size_t k = (size_t)(std::lower_bound(sorted.begin(), sorted.end(), row) - sorted.begin());
    if (k >= where.size() || sorted[k] != row) continue;
    out.Init(types, 1);
    for (size_t c = 0; c < types.size(); c++) CopyRows(picked[where[k].first].cols[c], &where[k].second, 1, out.cols[c], 0);
    out.size = 1;
    writer.Append(out);
  }
  return writer.Finish();
}

}  // namespace tessera
