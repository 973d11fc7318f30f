#include "main/analyze.hpp"

#include "main/statement_executor.hpp"
#include "storage/row_group.hpp"

namespace tessera {

namespace {

// The table's next snapshot with a sketch in every chunk, or nullptr when all have one.
std::shared_ptr<TableData> Sketched(const TableData& data) {
  auto next = std::make_shared<TableData>();
  next->row_count = data.row_count;
  bool changed = false;
  for (auto& rg : data.row_groups) {
    bool missing = false;
    for (auto& c : rg->columns) missing |= !c->stats.sketch;
    if (!missing) {
      next->row_groups.push_back(rg);
      continue;
    }
    auto copy = std::make_shared<RowGroup>();
    copy->count = rg->count;  // no file_id: the commit writes it as a new file
    for (auto& c : rg->columns) {
      if (c->stats.sketch) {
        copy->columns.push_back(c);
        continue;
      }
      auto sketch = BuildSketch(*c);  // reads (checks, decodes) the chunk
      auto chunk = std::make_shared<ColumnChunk>(*c);
      chunk->stats.sketch = std::move(sketch);
      chunk->verifier.reset();  // checked and loaded above; the buffers are in `owner`
      copy->columns.push_back(std::move(chunk));
    }
    next->row_groups.push_back(std::move(copy));
    changed = true;
  }
  return changed ? next : nullptr;
}

}  // namespace

QueryResult ExecuteAnalyze(Database& db, const ast::AnalyzeStatement& st) {
  Catalog& catalog = db.catalog();
  std::vector<std::string> names;
  if (st.table.empty()) {
    names = catalog.TableNames();
  } else {
    auto entry = catalog.GetTable(st.table);
    if (!entry) {
      if (catalog.GetEntry(st.table))
        throw UserError(ErrorKind::Catalog, "\"" + st.table + "\" is a view, not a table", st.table_pos);
      throw UserError(ErrorKind::Catalog, "table \"" + st.table + "\" does not exist", st.table_pos);
    }
    for (auto& col : st.columns) {
      if (entry->schema.Find(col) < 0)
        throw UserError(ErrorKind::Catalog, "table \"" + st.table + "\" does not have a column named \"" + col + "\"",
                        st.table_pos);
    }
    names.push_back(st.table);
  }
  for (auto& name : names) {
    auto entry = catalog.GetTable(name);
    if (!entry || entry->temporary) continue;  // views; temporary tables were sketched on import
    auto data = Sketched(*entry->data);
    if (!data) continue;
    auto next = std::make_shared<TableEntry>(*entry);
    next->data = std::move(data);
    catalog.ReplaceTable(name, entry.get(), std::move(next));
  }
  return Status("ANALYZE");
}

}  // namespace tessera
