// INSERT INTO t [(cols)] VALUES ... | query, and its upsert forms: ON CONFLICT [(cols)] DO
// NOTHING | DO UPDATE SET ... [WHERE ...], INSERT OR IGNORE, INSERT OR REPLACE.
//
// A plain INSERT appends its rows in one commit (Catalog::Append checks the keys). An
// upsert decides per new row, in order, against the conflict target's constraint (ON
// CONFLICT (cols): the constraint on exactly those columns; none given: every constraint for
// DO NOTHING, the only one for DO UPDATE): a row whose key equals a table row's conflicts
// with it (NULL keys never do); a row whose key equals an earlier new row's is dropped, as
// is a second row conflicting with the same table row (DuckDB 1.5 keeps the first). DO
// NOTHING drops conflicting rows; DO UPDATE runs its SELECT of changes (parse_insert.cpp)
// over the table and `excluded` (the conflicting new rows, each with the row number it
// conflicts with) and applies them as UPDATE does (data_change.cpp). The table's next
// snapshot, the changed rows and the new rows appended, is committed by one
// Catalog::ReplaceTable, which checks every key: atomic like UPDATE.
//
// RETURNING (returning.cpp) runs over the rows the statement adds (an upsert: the updated
// rows' new values, then the inserted rows) before they are committed.
#include "main/insert.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "execution/expression_executor.hpp"
#include "main/data_change.hpp"
#include "main/returning.hpp"
#include "main/statement_executor.hpp"
#include "planner/binder.hpp"
#include "storage/key_index.hpp"
#include "storage/row_group.hpp"

namespace tessera {

namespace {

// The constraints (indexes into schema.keys) an upsert's new rows are matched on.
std::vector<size_t> ConflictKeys(const TableSchema& schema, const ast::InsertStatement& ins) {
  std::vector<size_t> keys;
  if (!ins.conflict_columns.empty()) {
    std::vector<int> cols;
    for (auto& name : ins.conflict_columns) cols.push_back(schema.Find(name));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (size_t k = 0; k < schema.keys.size(); k++) {
      std::vector<int> kc(schema.keys[k].columns.begin(), schema.keys[k].columns.end());
      std::sort(kc.begin(), kc.end());
      if (kc == cols) keys.push_back(k);
    }
    if (keys.empty())
      throw UserError(ErrorKind::Binder,
                      "The specified columns as conflict target are not referenced by a UNIQUE/PRIMARY KEY CONSTRAINT "
                      "or INDEX",
                      ins.conflict_pos);
    return keys;
  }
  if (schema.keys.empty())
    throw UserError(ErrorKind::Binder,
                    "There are no UNIQUE/PRIMARY KEY constraints that refer to this table, specify ON CONFLICT "
                    "columns manually",
                    ins.conflict_pos);
  if (ins.on_conflict != ast::OnConflict::Nothing && schema.keys.size() > 1)
    throw UserError(ErrorKind::Binder,
                    "Conflict target has to be provided for a DO UPDATE operation when the table has multiple "
                    "UNIQUE/PRIMARY KEY constraints",
                    ins.conflict_pos);
  for (size_t k = 0; k < schema.keys.size(); k++) keys.push_back(k);
  return keys;
}

// Calls f(chunk, row) for every row of `groups`, all columns read a vector at a time.
template <class F>
void ForEachRow(const std::vector<Type>& types, const std::vector<std::shared_ptr<const RowGroup>>& groups, F&& f) {
  DataChunk in;
  in.Init(types);
  for (const auto& rg : groups)
    for (uint32_t at = 0; at < rg->count; at += kVectorSize) {
      const uint32_t n = std::min(kVectorSize, rg->count - at);
      for (size_t c = 0; c < types.size(); c++) {
        in.cols[c].Init(types[c]);
        rg->columns[c]->Read(at, n, in.cols[c]);
      }
      in.size = n;
      for (uint32_t r = 0; r < n; r++) f(in, r);
    }
}

// The key columns of each conflict constraint in a chunk of full table rows (copied once
// per chunk, at its row 0), and the encoded key of row r (false: a NULL in it).
struct ChunkKeys {
  std::vector<std::vector<Vector>> cols;  // per constraint
  void Load(const TableSchema& schema, const std::vector<size_t>& keys, const DataChunk& chunk) {
    cols.resize(keys.size());
    for (size_t k = 0; k < keys.size(); k++) {
      const auto& kc = schema.keys[keys[k]].columns;
      cols[k].resize(kc.size());
      for (size_t i = 0; i < kc.size(); i++) cols[k][i] = chunk.cols[kc[i]];
    }
  }
  bool Encode(size_t k, uint32_t r, std::string& out) const { return EncodeKey(cols[k], r, out); }
};

QueryResult ExecuteUpsert(Database& db, const ast::InsertStatement& ins, std::shared_ptr<const TableEntry> entry,
                          const std::vector<int>& targets, std::vector<DataChunk>& chunks) {
  const TableSchema& schema = entry->schema;
  const std::vector<size_t> keys = ConflictKeys(schema, ins);
  const auto types = schema.types();
  // DO UPDATE's SET targets.
  std::vector<int> set_targets;
  std::vector<SourcePos> set_pos;
  if (ins.on_conflict == ast::OnConflict::Update) {
    for (size_t k = 0; k < ins.set_columns.size(); k++) {
      int c = schema.Find(ins.set_columns[k]);
      if (c < 0)
        throw UserError(ErrorKind::Binder, "Referenced update column " + ins.set_columns[k] + " not found in table!",
                        ins.set_pos[k]);
      if (std::find(set_targets.begin(), set_targets.end(), c) != set_targets.end())
        throw UserError(ErrorKind::Binder, "multiple assignments to the same column \"" + ins.set_columns[k] + "\"",
                        ins.set_pos[k]);
      set_targets.push_back(c);
    }
    set_pos = ins.set_pos;
  } else if (ins.on_conflict == ast::OnConflict::Replace) {
    set_targets = targets;
    set_pos.assign(targets.size(), ins.conflict_pos);
  }

  uint64_t n = 0;
  auto fresh = ResultRowGroups(db, schema, chunks, targets, n);

  // The table's keys: encoded key -> row number, per conflict constraint.
  std::vector<std::unordered_map<std::string, int64_t>> existing(keys.size());
  ChunkKeys scratch;
  std::string buf;
  int64_t row = 0;
  ForEachRow(types, entry->data->row_groups, [&](const DataChunk& c, uint32_t r) {
    if (r == 0) scratch.Load(schema, keys, c);
    for (size_t k = 0; k < keys.size(); k++)
      if (scratch.Encode(k, r, buf)) existing[k].emplace(buf, row);
    row++;
  });

  // Each new row: inserted, dropped, or the update of a table row.
  std::vector<std::unordered_set<std::string>> seen(keys.size());
  std::unordered_set<int64_t> claimed;
  RowGroupWriter inserted(types);
  std::vector<Type> excluded_types = types;
  excluded_types.push_back(Type::BigInt());
  RowGroupWriter excluded(excluded_types);
  std::vector<int64_t> update_rows;
  uint64_t inserted_rows = 0;
  DataChunk one_in, one_ex;
  ForEachRow(types, fresh, [&](const DataChunk& c, uint32_t r) {
    if (r == 0) scratch.Load(schema, keys, c);
    int64_t hit = -1;
    bool duplicate = false;
    std::vector<std::string> encoded(keys.size());
    std::vector<bool> has(keys.size());
    for (size_t k = 0; k < keys.size() && hit < 0; k++) {
      has[k] = scratch.Encode(k, r, encoded[k]);
      if (!has[k]) continue;
      auto it = existing[k].find(encoded[k]);
      if (it != existing[k].end()) hit = it->second;
      else if (seen[k].count(encoded[k])) duplicate = true;
    }
    if (hit >= 0) {
      if (ins.on_conflict == ast::OnConflict::Nothing || !claimed.insert(hit).second) return;
      one_ex.Init(excluded_types, 1);
      for (size_t col = 0; col < types.size(); col++) one_ex.cols[col].SetValue(0, c.cols[col].GetValue(r));
      one_ex.cols[types.size()].SetValue(0, Value::BigInt(hit));
      one_ex.size = 1;
      excluded.Append(one_ex);
      update_rows.push_back(hit);
      return;
    }
    if (duplicate) return;
    for (size_t k = 0; k < keys.size(); k++)
      if (has[k]) seen[k].insert(std::move(encoded[k]));
    one_in.Init(types, 1);
    for (size_t col = 0; col < types.size(); col++) one_in.cols[col].SetValue(0, c.cols[col].GetValue(r));
    one_in.size = 1;
    inserted.Append(one_in);
    inserted_rows++;
  });

  std::shared_ptr<TableData> data;
  uint64_t changed = 0;
  auto excluded_groups = excluded.Finish();
  QueryResult r;  // the changes: row number, new values
  if (update_rows.empty()) {
    data = std::make_shared<TableData>(*entry->data);
  } else if (ins.on_conflict == ast::OnConflict::Replace) {
    // The new values of the inserted columns, as the result UpdatedData reads.
    std::vector<Type> rtypes{Type::BigInt()};
    for (int t : set_targets) rtypes.push_back(types[t]);
    ForEachRow(excluded_types, excluded_groups, [&](const DataChunk& c, uint32_t i) {
      DataChunk out;
      out.Init(rtypes, 1);
      out.cols[0].SetValue(0, c.cols[types.size()].GetValue(i));
      for (size_t k = 0; k < set_targets.size(); k++) out.cols[k + 1].SetValue(0, c.cols[set_targets[k]].GetValue(i));
      out.size = 1;
      r.chunks.push_back(std::move(out));
    });
    data = UpdatedData(*entry, r, set_targets, set_pos, ins.pos, changed);
  } else {
    // EXCLUDED: the table's columns (no constraints) and the row number each conflicts with.
    auto ex = std::make_shared<TableEntry>(*entry);
    ex->schema.name = ast::kExcludedTable;
    ex->schema.keys.clear();
    for (auto& col : ex->schema.columns) {
      col.not_null = false;
      col.default_sql.clear();
    }
    ex->schema.columns.push_back({ast::kConflictRowColumn, Type::BigInt(), true});
    auto exdata = std::make_shared<TableData>();
    exdata->row_count = update_rows.size();
    exdata->row_groups = std::move(excluded_groups);
    ex->data = std::move(exdata);
    Binder::TableOverrides extra{{ast::kExcludedTable, std::move(ex)}};
    r = RunRowQuery(db, *entry, ins.table, *ins.update_select, &extra);
    data = UpdatedData(*entry, r, set_targets, set_pos, ins.pos, changed);
  }
  auto inserted_groups = inserted.Finish();
  QueryResult returned;
  if (ins.returning) {  // as in DuckDB: the updated rows' new values, then the inserted rows
    std::unordered_set<int64_t> updated;  // DO UPDATE ... WHERE may leave some out
    for (auto& ch : r.chunks)
      for (uint32_t i = 0; i < ch.size; i++) updated.insert(ch.cols[0].data<int64_t>()[i]);
    std::vector<int64_t> rows;  // in the order of the new rows
    for (int64_t u : update_rows)
      if (updated.count(u)) rows.push_back(u);
    auto groups = RowsAt(*entry, *data, rows, /*keep_order=*/true);
    groups.insert(groups.end(), inserted_groups.begin(), inserted_groups.end());
    returned = RunReturning(db, *entry, ins.table, *ins.returning, std::move(groups));
  }
  for (auto& g : inserted_groups) {
    data->row_count += g->count;
    data->row_groups.push_back(std::move(g));
  }
  auto next = std::make_shared<TableEntry>(*entry);
  next->data = std::move(data);
  try {
    db.catalog().ReplaceTable(ins.table, entry.get(), std::move(next));
  } catch (const UserError& e) {
    if (e.kind() != ErrorKind::Constraint) throw;
    throw UserError(e.kind(), e.raw(), ins.pos);
  }
  if (ins.returning) return returned;
  return Status("INSERT " + std::to_string(inserted_rows + changed));
}

}  // namespace

QueryResult ExecuteInsert(Database& db, const ast::InsertStatement& ins) {
  auto entry = db.catalog().GetTable(ins.table);
  if (!entry) throw UserError(ErrorKind::Catalog, "table \"" + ins.table + "\" does not exist", ins.pos);
  auto targets = TargetColumns(entry->schema, ins.columns, ins.pos);
  if (ins.returning) CheckReturning(db, *entry, ins.table, *ins.returning);
  std::vector<DataChunk> chunks;
  if (ins.select) {
    auto r = RunSelect(db, *ins.select);
    // BY NAME: the query's columns go to the table's columns of their names (the others
    // get their defaults), as DuckDB.
    if (ins.by_name) targets = TargetColumns(entry->schema, r.names, ins.pos);
    if (r.types.size() != targets.size())
      throw UserError(ErrorKind::Binder,
                      "INSERT has " + std::to_string(targets.size()) + " target columns but the query returns " +
                          std::to_string(r.types.size()),
                      ins.pos);
    chunks = std::move(r.chunks);
  } else {
    Binder binder(db.catalog());
    std::vector<Type> types;
    for (int t : targets) types.push_back(entry->schema.columns[t].type);
    DataChunk c;
    c.Init(types, std::max<uint32_t>(1, (uint32_t)ins.rows.size()));
    for (size_t r = 0; r < ins.rows.size(); r++) {
      auto& row = ins.rows[r];
      if (row.size() != targets.size())
        throw UserError(ErrorKind::Binder,
                        "INSERT row has " + std::to_string(row.size()) + " values but " +
                            std::to_string(targets.size()) + " columns are targeted",
                        row.empty() ? ins.pos : row[0]->pos);
      for (size_t k = 0; k < row.size(); k++) {
        auto e = binder.BindStandalone(*row[k]);
        Value v = EvaluateConstant(*e);
        try {
          c.cols[k].SetValue((uint32_t)r, v.is_null() ? v : v.CastTo(types[k]));
        } catch (const UserError& err) {
          throw UserError(err.kind(), err.raw(), row[k]->pos);
        }
      }
    }
    c.size = (uint32_t)ins.rows.size();
    chunks.push_back(std::move(c));
  }
  if (ins.on_conflict != ast::OnConflict::None) return ExecuteUpsert(db, ins, std::move(entry), targets, chunks);
  if (!ins.returning) {
    uint64_t n = AppendResult(db, ins.table, chunks, targets);
    return Status("INSERT " + std::to_string(n));
  }
  // RETURNING: the new rows' result, made before they are appended (nothing is added when
  // it fails).
  uint64_t n = 0;
  auto groups = ResultRowGroups(db, entry->schema, chunks, targets, n);
  QueryResult returned = RunReturning(db, *entry, ins.table, *ins.returning, groups);
  db.catalog().Append(ins.table, std::move(groups));
  return returned;
}

}  // namespace tessera
