// UPDATE, DELETE, TRUNCATE and ALTER TABLE. Tables are immutable snapshots of row groups
// (storage/row_group.hpp), so a change builds the table's next snapshot and commits it in
// one step (Catalog::ReplaceTable): row groups it does not touch are shared with the old
// snapshot (and stay in their files on disk); the ones it touches are rebuilt whole.
//
// UPDATE and DELETE find their rows with a query: the parser made the statement's SELECT
// of the table's row numbers (ast::kRowIdColumn), the SET expressions and the WHERE
// condition; it runs (on the CPU, subqueries and all) over the table with a row-number
// column appended, and returns the rows to delete, or the rows to change with their new
// values. Every SET expression is evaluated against the old row (as in SQL), and the
// values are cast to the column types as INSERT casts them. NOT NULL is checked.
// RETURNING (returning.cpp) runs over the deleted rows or the changed rows' new values
// before the change commits.
#include "main/data_change.hpp"

#include <algorithm>
#include <numeric>

#include "execution/expression_executor.hpp"
#include "main/prepared_query.hpp"
#include "main/returning.hpp"
#include "main/statement_executor.hpp"
#include "parser/parser.hpp"
#include "planner/binder.hpp"
#include "storage/row_group.hpp"

namespace tessera {

namespace {

std::shared_ptr<const TableEntry> TableOrError(Database& db, const std::string& name, SourcePos pos) {
  auto entry = db.catalog().GetTable(name);
  if (!entry) {
    if (db.catalog().GetEntry(name))
      throw UserError(ErrorKind::Catalog, "\"" + name + "\" is a view, not a table", pos);
    throw UserError(ErrorKind::Catalog, "table \"" + name + "\" does not exist", pos);
  }
  return entry;
}

// A BIGINT chunk holding first, first + 1, ..., first + n - 1.
std::shared_ptr<const ColumnChunk> RowNumbers(int64_t first, uint32_t n) {
  auto buf = std::make_shared<std::vector<int64_t>>(n);
  std::iota(buf->begin(), buf->end(), first);
  auto c = std::make_shared<ColumnChunk>();
  c->type = Type::BigInt();
  c->count = n;
  c->data = reinterpret_cast<const uint8_t*>(buf->data());
  c->owner = buf;
  if (n > 0) {
    c->stats.has_stats = true;
    c->stats.min = Value::BigInt(first);
    c->stats.max = Value::BigInt(first + n - 1);
  }
  return c;
}

}  // namespace

// The table with its row numbers as one more column (what the statement's SELECT reads).
std::shared_ptr<const TableEntry> WithRowNumbers(const TableEntry& t) {
  auto e = std::make_shared<TableEntry>(t);
  e->schema.columns.push_back({ast::kRowIdColumn, Type::BigInt(), true});
  auto data = std::make_shared<TableData>();
  data->row_count = t.data->row_count;
  int64_t first = 0;
  for (auto& rg : t.data->row_groups) {
    auto g = std::make_shared<RowGroup>(*rg);
    g->file_id.clear();
    g->columns.push_back(RowNumbers(first, rg->count));
    first += rg->count;
    data->row_groups.push_back(std::move(g));
  }
  e->data = std::move(data);
  return e;
}

// Runs the statement's SELECT over the table with its row numbers.
QueryResult RunRowQuery(Database& db, const TableEntry& t, const std::string& name, const ast::SelectStmt& select,
                        const Binder::TableOverrides* extra) {
  for (auto& c : t.schema.columns)
    if (IdentEquals(c.name, ast::kRowIdColumn))
      throw UserError(ErrorKind::Catalog, std::string("a column named ") + ast::kRowIdColumn + " cannot be changed");
  Binder::TableOverrides overrides{{name, WithRowNumbers(t)}};
  if (extra) overrides.insert(extra->begin(), extra->end());
  PreparedQuery q = PrepareSelect(db, select, /*allow_gpu=*/false, {}, &overrides);
  return RunPrepared(db, select, q);
}

namespace {

// Row `row` of the result: which chunk and which row in it.
struct ResultRow {
  uint32_t chunk = 0, row = 0;
};

// Rebuilds one row group: rows for which `drop(i)` holds are left out, and `edit(out, i, r)`
// may change row r of the chunk `out`, which holds the group's row i (group-relative).
template <class Drop, class Edit>
std::vector<std::shared_ptr<const RowGroup>> Rebuild(const RowGroup& rg, const std::vector<Type>& types, Drop drop,
                                                     Edit edit) {
  RowGroupWriter writer(types);
  DataChunk in, out;
  in.Init(types);
  std::vector<uint32_t> keep;
  for (uint32_t start = 0; start < rg.count; start += kVectorSize) {
    const uint32_t n = std::min<uint32_t>(kVectorSize, rg.count - start);
    for (size_t c = 0; c < types.size(); c++) {
      in.cols[c].Init(types[c]);
      rg.columns[c]->Read(start, n, in.cols[c]);
    }
    in.size = n;
    keep.clear();
    for (uint32_t r = 0; r < n; r++)
      if (!drop(start + r)) keep.push_back(r);
    out.Init(types);
    for (size_t c = 0; c < types.size(); c++) CopyRows(in.cols[c], keep.data(), (uint32_t)keep.size(), out.cols[c], 0);
    out.size = (uint32_t)keep.size();
    for (uint32_t k = 0; k < out.size; k++) edit(out, start + keep[k], k);
    if (out.size) writer.Append(out);
  }
  return writer.Finish();
}

}  // namespace

BoundExprPtr BindColumnDefault(Catalog& catalog, const ColumnDef& col, SourcePos pos) {
  try {
    auto stmts = ParseSQL("SELECT " + col.default_sql);
    auto& select = *static_cast<const ast::SelectStatement&>(*stmts.at(0)).select;
    Binder binder(catalog);
    return binder.BindStandalone(*select.select_list.at(0).expr);
  } catch (const UserError& e) {
    throw UserError(e.kind(), "DEFAULT of column \"" + col.name + "\": " + e.raw(), pos);
  }
}

Value EvaluateColumnDefault(const BoundExpr& def, const ColumnDef& col, SourcePos pos) {
  try {
    Value v = EvaluateConstant(def);
    return v.is_null() ? Value::Null(col.type) : v.CastTo(col.type);
  } catch (const UserError& e) {
    throw UserError(e.kind(), "DEFAULT of column \"" + col.name + "\": " + e.raw(), pos);
  }
}

Value ColumnDefaultValue(Catalog& catalog, const ColumnDef& col, SourcePos pos) {
  if (col.default_sql.empty()) return Value::Null(col.type);
  return EvaluateColumnDefault(*BindColumnDefault(catalog, col, pos), col, pos);
}

QueryResult ExecuteDelete(Database& db, const ast::DeleteStatement& st) {
  auto entry = TableOrError(db, st.table, st.pos);
  if (st.returning) CheckReturning(db, *entry, st.table, *st.returning);
  QueryResult returned;
  auto next = std::make_shared<TableEntry>(*entry);
  auto data = std::make_shared<TableData>();
  uint64_t deleted = 0;
  if (st.truncate) {
    deleted = entry->data->row_count;
  } else {
    QueryResult r = RunRowQuery(db, *entry, st.table, *st.select);
    std::vector<uint8_t> gone(entry->data->row_count, 0);
    for (auto& ch : r.chunks)
      for (uint32_t i = 0; i < ch.size; i++) gone[(size_t)ch.cols[0].data<int64_t>()[i]] = 1;
    const auto types = entry->schema.types();
    uint64_t first = 0;
    for (auto& rg : entry->data->row_groups) {
      const uint8_t* g = gone.data() + first;
      const uint32_t n = (uint32_t)std::count(g, g + rg->count, 1);
      first += rg->count;
      deleted += n;
      if (n == 0) {
        data->row_groups.push_back(rg);
      } else if (n < rg->count) {
        for (auto& part : Rebuild(*rg, types, [&](uint32_t i) { return g[i] != 0; }, [](DataChunk&, uint32_t, uint32_t) {}))
          data->row_groups.push_back(std::move(part));
      }
    }
    for (auto& rg : data->row_groups) data->row_count += rg->count;
    if (st.returning) {  // the deleted rows, before the delete commits
      std::vector<int64_t> rows;
      for (size_t i = 0; i < gone.size(); i++)
        if (gone[i]) rows.push_back((int64_t)i);
      returned = RunReturning(db, *entry, st.table, *st.returning, RowsAt(*entry, *entry->data, rows));
    }
  }
  next->data = data;
  db.catalog().ReplaceTable(st.table, entry.get(), std::move(next));
  if (st.returning) return returned;
  return Status((st.truncate ? "TRUNCATE " : "DELETE ") + std::to_string(deleted));
}

QueryResult ExecuteUpdate(Database& db, const ast::UpdateStatement& st) {
  auto entry = TableOrError(db, st.table, st.pos);
  std::vector<int> targets;
  for (size_t k = 0; k < st.columns.size(); k++) {
    int c = entry->schema.Find(st.columns[k]);
    if (c < 0)
      throw UserError(ErrorKind::Binder, "table \"" + st.table + "\" has no column \"" + st.columns[k] + "\"",
                      st.column_pos[k]);
    if (std::find(targets.begin(), targets.end(), c) != targets.end())
      throw UserError(ErrorKind::Binder, "multiple assignments to the same column \"" + st.columns[k] + "\"",
                      st.column_pos[k]);
    targets.push_back(c);
  }
  if (st.returning) CheckReturning(db, *entry, st.table, *st.returning);
  QueryResult r = RunRowQuery(db, *entry, st.table, *st.select);
  uint64_t changed = 0;
  auto next = std::make_shared<TableEntry>(*entry);
  next->data = UpdatedData(*entry, r, targets, st.column_pos, st.pos, changed);
  QueryResult returned;
  if (st.returning) {  // the changed rows' new values, before the update commits
    std::vector<int64_t> rows;
    for (auto& ch : r.chunks)
      for (uint32_t i = 0; i < ch.size; i++) rows.push_back(ch.cols[0].data<int64_t>()[i]);
    returned = RunReturning(db, *entry, st.table, *st.returning, RowsAt(*entry, *next->data, rows));
  }
  db.catalog().ReplaceTable(st.table, entry.get(), std::move(next));
  if (st.returning) return returned;
  return Status("UPDATE " + std::to_string(changed));
}

std::shared_ptr<TableData> UpdatedData(const TableEntry& table, const QueryResult& r, const std::vector<int>& targets,
                                       const std::vector<SourcePos>& target_pos, SourcePos pos, uint64_t& changed) {
  const TableEntry* entry = &table;
  const auto& cols = entry->schema.columns;
  struct { SourcePos pos; } st{pos};
  const auto& column_pos = target_pos;
  std::vector<int64_t> where(entry->data->row_count, -1);  // row -> index into `rows`
  std::vector<ResultRow> rows;
  for (uint32_t ci = 0; ci < r.chunks.size(); ci++)
    for (uint32_t i = 0; i < r.chunks[ci].size; i++) {
      where[(size_t)r.chunks[ci].cols[0].data<int64_t>()[i]] = (int64_t)rows.size();
      rows.push_back({ci, i});
    }
  auto set_row = [&](DataChunk& out, int64_t index, uint32_t row) {
    const ResultRow& src = rows[(size_t)index];
    for (size_t k = 0; k < targets.size(); k++) {
      const int c = targets[k];
      Value v = r.chunks[src.chunk].cols[k + 1].GetValue(src.row);
      if (v.is_null()) {
        if (cols[c].not_null)
          throw UserError(ErrorKind::Constraint,
                          "NULL value in column \"" + cols[c].name + "\" violates its NOT NULL constraint", st.pos);
        out.cols[c].SetNull(row);
        continue;
      }
      try {
        out.cols[c].SetValue(row, v.CastTo(cols[c].type));
      } catch (const UserError& e) {
        throw UserError(e.kind(), e.raw(), column_pos[k]);
      }
      if (out.cols[c].has_nulls()) out.cols[c].validity()[row] = 1;
    }
  };
  auto data = std::make_shared<TableData>();
  data->row_count = entry->data->row_count;
  const auto types = entry->schema.types();
  uint64_t first = 0;
  for (auto& rg : entry->data->row_groups) {
    const int64_t* w = where.data() + first;
    first += rg->count;
    if (std::all_of(w, w + rg->count, [](int64_t x) { return x < 0; })) {
      data->row_groups.push_back(rg);
      continue;
    }
    auto edit = [&](DataChunk& out, uint32_t i, uint32_t row) {
      if (w[i] >= 0) set_row(out, w[i], row);
    };
    for (auto& part : Rebuild(*rg, types, [](uint32_t) { return false; }, edit)) data->row_groups.push_back(std::move(part));
  }
  // Rows matched more than once (UPDATE ... FROM) count once.
  changed = (uint64_t)std::count_if(where.begin(), where.end(), [](int64_t x) { return x >= 0; });
  return data;
}

QueryResult ExecuteAlterTable(Database& db, const ast::AlterTableStatement& st) {
  auto entry = db.catalog().GetTable(st.table);
  if (!entry) {
    if (st.if_exists && !db.catalog().GetEntry(st.table)) return Status("ALTER TABLE");
    entry = TableOrError(db, st.table, st.pos);
  }
  auto next = std::make_shared<TableEntry>(*entry);
  auto& schema = next->schema;
  auto data = std::make_shared<TableData>(*entry->data);
  switch (st.action) {
    case ast::AlterAction::RenameTable:
      schema.name = st.new_name;
      break;
    case ast::AlterAction::RenameColumn: {
      int c = schema.Find(st.name);
      if (c < 0) throw UserError(ErrorKind::Binder, "table \"" + st.table + "\" has no column \"" + st.name + "\"", st.pos);
      const int other = schema.Find(st.new_name);
      if (other >= 0 && other != c)  // a change of case only is a rename too
        throw UserError(ErrorKind::Catalog, "column \"" + st.new_name + "\" already exists in table \"" + st.table + "\"", st.pos);
      schema.columns[c].name = st.new_name;
      break;
    }
    case ast::AlterAction::DropColumn: {
      int c = schema.Find(st.name);
      if (c < 0) {
        if (st.column_if) return Status("ALTER TABLE");
        throw UserError(ErrorKind::Binder, "table \"" + st.table + "\" has no column \"" + st.name + "\"", st.pos);
      }
      if (schema.columns.size() == 1)
        throw UserError(ErrorKind::Catalog, "cannot drop column \"" + st.name + "\": it is the table's only column", st.pos);
      for (auto& key : schema.keys) {
        for (uint32_t& k : key.columns) {
          if (k == (uint32_t)c)
            throw UserError(ErrorKind::Catalog,
                            "Cannot drop column \"" + st.name + "\" because there is a " +
                                (key.primary ? "PRIMARY KEY" : "UNIQUE") + " constraint that depends on it",
                            st.pos);
          if (k > (uint32_t)c)  // DuckDB's rule too: keys are not renumbered
            throw UserError(ErrorKind::Catalog, "Cannot drop this column: an index depends on a column after it", st.pos);
        }
      }
      schema.columns.erase(schema.columns.begin() + c);
      for (auto& rg : data->row_groups) {
        auto g = std::make_shared<RowGroup>(*rg);
        g->file_id.clear();
        g->columns.erase(g->columns.begin() + c);
        rg = std::move(g);
      }
      break;
    }
    case ast::AlterAction::AddColumn: {
      const auto& def = st.column;
      if (schema.Find(def.name) >= 0) {
        if (st.column_if) return Status("ALTER TABLE");
        throw UserError(ErrorKind::Catalog, "column \"" + def.name + "\" already exists in table \"" + st.table + "\"", def.pos);
      }
      ColumnDef col{def.name, def.type, def.not_null, def.default_sql};
      const Value v = ColumnDefaultValue(db.catalog(), col, def.default_value ? def.default_value->pos : def.pos);
      if (v.is_null() && def.not_null && data->row_count > 0)
        throw UserError(ErrorKind::Constraint,
                        "NULL value in column \"" + def.name + "\" violates its NOT NULL constraint (give a DEFAULT)", def.pos);
      schema.columns.push_back(col);
      Vector block(def.type);
      for (uint32_t i = 0; i < kVectorSize; i++) {
        if (v.is_null()) block.SetNull(i);
        else block.SetValue(i, v);
      }
      for (auto& rg : data->row_groups) {
        ColumnChunkBuilder b(def.type);
        for (uint32_t done = 0; done < rg->count; done += kVectorSize)
          b.Append(block, std::min<uint32_t>(kVectorSize, rg->count - done));
        auto g = std::make_shared<RowGroup>(*rg);
        g->file_id.clear();
        g->columns.push_back(b.Finish());
        rg = std::move(g);
      }
      break;
    }
  }
  next->data = data;
  db.catalog().ReplaceTable(st.table, entry.get(), std::move(next));
  return Status("ALTER TABLE");
}

}  // namespace tessera
