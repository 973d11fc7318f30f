#include "main/statement_executor.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>

#include "common/ascii.hpp"
#include "execution/expression_executor.hpp"
#include "execution/operators/basic_operators.hpp"
#include "execution/physical_planner.hpp"
#include "execution/pipeline.hpp"
#include "gpu/gpu_executor.hpp"
#include "main/explain.hpp"
#include "main/insert.hpp"
#include "main/key_constraints.hpp"
#include "main/analyze.hpp"
#include "main/data_change.hpp"
#include "main/plan_cache.hpp"
#include "main/prepared_query.hpp"
#include "main/sequences.hpp"
#include "model/machine_probe.hpp"
#include "model/pipeline_traffic.hpp"
#include "optimizer/optimizer.hpp"
#include "planner/binder.hpp"
#include "storage/csv_reader.hpp"
#include "storage/column_names.hpp"
#include "storage/csv_writer.hpp"
#include "storage/file_table.hpp"
#include "storage/parquet/parquet_writer.hpp"

namespace tessera {

QueryResult Status(std::string msg) {
  QueryResult r;
  r.message = std::move(msg);
  return r;
}

// Query result chunks as row groups of a table with `schema`, each column cast to the
// table's type; `rows` counts them.
std::vector<std::shared_ptr<const RowGroup>> ResultRowGroups(Database& db, const TableSchema& schema,
                                                             std::vector<DataChunk>& chunks,
                                                             const std::vector<int>& target_cols, uint64_t& rows) {
  const auto& cols = schema.columns;
  RowGroupWriter writer(schema.types());
  rows = 0;
  // Columns the statement gives no value: their DEFAULT, else NULL.
  // A DEFAULT that calls a volatile function (nextval) gets a value per row.
  std::vector<Value> defaults;
  std::vector<BoundExprPtr> per_row(cols.size());
  for (size_t c = 0; c < cols.size(); c++) {
    const bool targeted = std::find(target_cols.begin(), target_cols.end(), (int)c) != target_cols.end();
    defaults.push_back(Value::Null(cols[c].type));
    if (targeted || cols[c].default_sql.empty()) continue;
    auto def = BindColumnDefault(db.catalog(), cols[c]);
    if (def->CallsVolatile()) per_row[c] = std::move(def);
    else defaults[c] = EvaluateColumnDefault(*def, cols[c]);
  }
  for (auto& ch : chunks) {
    DataChunk out;
    out.Init(schema.types(), std::max<uint32_t>(ch.size, 1));
    for (size_t c = 0; c < cols.size(); c++) {
      Vector& v = out.cols[c];
      uint8_t* valid = v.validity();
      std::fill(valid, valid + std::max<uint32_t>(ch.size, 1), 0);  // unspecified columns: NULL
      if (per_row[c]) {
        for (uint32_t r = 0; r < ch.size; r++) {
          const Value d = EvaluateColumnDefault(*per_row[c], cols[c]);
          if (d.is_null()) continue;
          v.SetValue(r, d);
          valid[r] = 1;
        }
      } else if (!defaults[c].is_null()) {
        for (uint32_t r = 0; r < ch.size; r++) {
          v.SetValue(r, defaults[c]);
          valid[r] = 1;
        }
      }
    }
    for (size_t i = 0; i < target_cols.size(); i++) {
      int tc = target_cols[i];
      const Vector& src = ch.cols[i];
      for (uint32_t r = 0; r < ch.size; r++) {
        Value v = src.GetValue(r);
        if (v.is_null()) {
          if (cols[tc].not_null)
            throw UserError(ErrorKind::Constraint, "NULL value in column \"" + cols[tc].name + "\" violates its NOT NULL constraint");
          continue;
        }
        out.cols[tc].SetValue(r, v.CastTo(cols[tc].type));
      }
    }
    for (size_t c = 0; c < cols.size(); c++) {
      bool targeted = std::find(target_cols.begin(), target_cols.end(), (int)c) != target_cols.end();
      if (!targeted && cols[c].not_null && !per_row[c] && defaults[c].is_null() && ch.size > 0)
        throw UserError(ErrorKind::Constraint, "NULL value in column \"" + cols[c].name + "\" violates its NOT NULL constraint");
    }
    out.size = ch.size;
    writer.Append(out);
    rows += ch.size;
  }
  return writer.Finish();
}

// Appends query result chunks to a table, casting each column to the table's type.
uint64_t AppendResult(Database& db, const std::string& table, std::vector<DataChunk>& chunks,
                      const std::vector<int>& target_cols) {
  auto entry = db.catalog().GetTable(table);
  uint64_t rows = 0;
  auto groups = ResultRowGroups(db, entry->schema, chunks, target_cols, rows);
  db.catalog().Append(table, std::move(groups));
  return rows;
}

// COPY t FROM 'f.parquet' (or FORMAT parquet): the file opened as a file table
// (storage/file_table.hpp), its columns by position cast to the table's types as INSERT
// does, appended in one commit (all or nothing).
uint64_t CopyFromParquet(Database& db, const ast::CopyStatement& cp) {
  for (const auto& [k, v] : cp.options)
    if (k != "format")
      throw UserError(ErrorKind::Input, "COPY option \"" + k + "\" does not apply to Parquet files", cp.pos);
  auto entry = db.catalog().GetTable(cp.table);
  FileTableRequest req;
  req.function = "read_parquet";
  req.patterns = {cp.path};
  req.pos = cp.path_pos;
  auto file = OpenFileTable(req);
  const size_t ncols = file->schema.columns.size();
  if (ncols != entry->schema.columns.size())
    throw UserError(ErrorKind::Binder,
                    "table \"" + cp.table + "\" has " + std::to_string(entry->schema.columns.size()) +
                        " columns but the Parquet file \"" + cp.path + "\" has " + std::to_string(ncols),
                    cp.pos);
  std::vector<DataChunk> chunks;
  const auto types = file->schema.types();
  for (const auto& rg : file->data->row_groups) {
    for (uint32_t at = 0; at < rg->count; at += kVectorSize) {
      const uint32_t n = std::min(kVectorSize, rg->count - at);
      DataChunk c;
      c.Init(types, n);
      for (size_t col = 0; col < ncols; col++) rg->columns[col]->Read(at, n, c.cols[col]);
      c.size = n;
      chunks.push_back(std::move(c));
    }
  }
  std::vector<int> all;
  for (size_t i = 0; i < ncols; i++) all.push_back((int)i);
  return AppendResult(db, cp.table, chunks, all);
}

std::vector<int> TargetColumns(const TableSchema& schema, const std::vector<std::string>& names, SourcePos pos) {
  std::vector<int> t;
  if (names.empty()) {
    for (size_t i = 0; i < schema.columns.size(); i++) t.push_back((int)i);
    return t;
  }
  for (auto& n : names) {
    int c = schema.Find(n);
    if (c < 0) throw UserError(ErrorKind::Binder, "column \"" + n + "\" of table \"" + schema.name + "\" does not exist", pos);
    if (std::find(t.begin(), t.end(), c) != t.end())
      throw UserError(ErrorKind::Binder, "Duplicate column name \"" + n + "\" in INSERT", pos);
    t.push_back(c);
  }
  return t;
}

QueryResult TextResult(const std::string& column, const std::vector<std::string>& lines) {
  QueryResult r;
  r.has_rows = true;
  r.names = {column};
  r.types = {Type::Varchar()};
  DataChunk c;
  c.Init(r.types, std::max<uint32_t>(1, (uint32_t)lines.size()));
  for (size_t i = 0; i < lines.size(); i++) c.cols[0].SetValue((uint32_t)i, Value::Varchar(lines[i]));
  c.size = (uint32_t)lines.size();
  r.row_count = c.size;
  r.chunks.push_back(std::move(c));
  return r;
}


QueryResult RunSelect(Database& db, const ast::SelectStmt& select, ResultConsumer* consumer) {
  QueryResult r;
  std::chrono::steady_clock::time_point t0;
  {
    auto q = PrepareSelect(db, select);
    r = RunPrepared(db, select, q, true, consumer);
    t0 = std::chrono::steady_clock::now();
  }
  r.phases.release_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

QueryResult ExecuteStatement(Database& db, const ast::Statement& stmt) {
  switch (stmt.kind) {
    case ast::StmtKind::Select:
      return RunSelect(db, *static_cast<const ast::SelectStatement&>(stmt).select);
    case ast::StmtKind::Explain:
      return ExecuteExplain(db, static_cast<const ast::ExplainStatement&>(stmt));
    case ast::StmtKind::CreateTable: {
      auto& ct = static_cast<const ast::CreateTableStatement&>(stmt);
      TableSchema schema;
      schema.name = ct.table;
      if (ct.as_select) {
        // Only the catalog the table goes to counts (`temp` for a TEMP table, else main).
        auto existing = ct.temporary ? db.catalog().GetTempEntry(ct.table) : db.catalog().GetMainEntry(ct.table);
        if (existing && !existing->is_view() && !ct.or_replace) {
          if (ct.if_not_exists) return Status("CREATE TABLE");
          throw UserError(ErrorKind::Catalog, "table \"" + ct.table + "\" already exists", stmt.pos);
        }
        auto r = RunSelect(db, *ct.as_select);
        // Names equal ignoring case get suffixes, as in DuckDB (a, A: a, A_1).
        const std::vector<std::string> names = UniqueColumnNames(r.names);
        for (size_t i = 0; i < names.size(); i++)
          schema.columns.push_back({names[i], r.types[i].id == TypeId::Null ? Type::Integer() : r.types[i], false});
        std::vector<int> all;
        for (size_t i = 0; i < schema.columns.size(); i++) all.push_back((int)i);
        // The table and its rows in one commit (a crash leaves all or nothing).
        uint64_t n = 0;
        auto groups = ResultRowGroups(db, schema, r.chunks, all, n);
        try {
          db.catalog().CreateTable(schema, false, std::move(groups), ct.or_replace, ct.temporary);
        } catch (const UserError& e) {
          throw UserError(e.kind(), e.raw(), stmt.pos);
        }
        return Status("CREATE TABLE " + std::to_string(n));
      }
      for (auto& c : ct.columns) schema.columns.push_back({c.name, c.type, c.not_null, c.default_sql});
      if (schema.columns.empty()) throw UserError(ErrorKind::Syntax, "a table needs at least one column", stmt.pos);
      schema.keys = BindKeyConstraints(ct, schema.columns);
      try {
        db.catalog().CreateTable(schema, ct.if_not_exists, {}, ct.or_replace, ct.temporary);
      } catch (const UserError& e) {
        throw UserError(e.kind(), e.raw(), stmt.pos);
      }
      return Status("CREATE TABLE");
    }
    case ast::StmtKind::DropTable: {
      auto& d = static_cast<const ast::DropStatement&>(stmt);
      try {
        db.catalog().DropTable(d.name, d.if_exists);
      } catch (const UserError& e) {
        throw UserError(e.kind(), e.raw(), stmt.pos);
      }
      return Status("DROP TABLE");
    }
    case ast::StmtKind::Insert: return ExecuteInsert(db, static_cast<const ast::InsertStatement&>(stmt));
    case ast::StmtKind::Update: return ExecuteUpdate(db, static_cast<const ast::UpdateStatement&>(stmt));
    case ast::StmtKind::Delete: return ExecuteDelete(db, static_cast<const ast::DeleteStatement&>(stmt));
    case ast::StmtKind::AlterTable: return ExecuteAlterTable(db, static_cast<const ast::AlterTableStatement&>(stmt));
    case ast::StmtKind::Analyze: return ExecuteAnalyze(db, static_cast<const ast::AnalyzeStatement&>(stmt));
    // Every commit is durable when it returns (storage/disk_backend): nothing to fold in.
    case ast::StmtKind::Checkpoint: return Status("CHECKPOINT");
    case ast::StmtKind::Copy: {
      auto& cp = static_cast<const ast::CopyStatement&>(stmt);
      if (cp.to) {
        CopyToOptions wopt = ParseCopyToOptions(cp.options, cp.path);
        auto r = RunSelect(db, *cp.query);
        uint64_t n = wopt.parquet
                         ? WriteParquetFile(cp.path, r.names, r.types, r.chunks, wopt.parquet_opt, db.threads())
                         : WriteCsvFile(cp.path, r.names, r.types, r.chunks, wopt.csv);
        return Status("COPY " + std::to_string(n));
      }
      if (!db.catalog().GetTable(cp.table))
        throw UserError(ErrorKind::Catalog, "table \"" + cp.table + "\" does not exist", stmt.pos);
      bool parquet = false, format_given = false;
      for (const auto& [k, v] : cp.options)
        if (k == "format") {
          format_given = true;
          parquet = AsciiLower(v) == "parquet";
        }
      if (parquet || (!format_given && IsParquetFile(cp.path)))
        return Status("COPY " + std::to_string(CopyFromParquet(db, cp)));
      CsvOptions opt = ParseCopyOptions(cp.options, cp.path);
      std::function<void(uint64_t, uint64_t)> progress;
      if (db.settings().progress) {
        progress = [last = -1](uint64_t done, uint64_t total) mutable {
          int pct = total ? (int)(100 * done / total) : 100;
          if (pct / 10 != last / 10) {
            std::fprintf(stderr, "\rCOPY: %d%%", pct);
            if (pct >= 100) std::fprintf(stderr, "\n");
            last = pct;
          }
        };
      }
      uint64_t n = CopyFromFile(db.catalog(), cp.table, cp.path, opt, db.threads(), progress);
      return Status("COPY " + std::to_string(n));
    }
    case ast::StmtKind::Set: {
      auto& s = static_cast<const ast::SetStatement&>(stmt);
      if (s.name == "threads") {
        long n = 0;
        try { n = std::stol(s.value); } catch (...) { n = -1; }
        if (n < 0 || n > 4096) throw UserError(ErrorKind::Conversion, "threads must be a number between 0 and 4096", stmt.pos);
        db.settings().threads = (unsigned)n;
        return Status("SET");
      }
      if (s.name == "device") {
        if (s.value != "cpu" && s.value != "gpu" && s.value != "auto")
          throw UserError(ErrorKind::Conversion, "device must be 'cpu', 'gpu' or 'auto'", stmt.pos);
        try {
          gpu::UseGpu(s.value);  // 'gpu' without a usable GPU is an error now, not at the next query
        } catch (const UserError& e) {
          throw UserError(e.kind(), e.raw(), stmt.pos);
        }
        db.settings().device = s.value;
        return Status("SET");
      }
      if (s.name == "plan_cache") {
        bool on = s.value == "true" || s.value == "on" || s.value == "1";
        bool off = s.value == "false" || s.value == "off" || s.value == "0";
        if (!on && !off) throw UserError(ErrorKind::Conversion, "plan_cache must be on or off", stmt.pos);
        db.settings().plan_cache = on;
        if (off) db.plan_cache().Clear();
        return Status("SET");
      }
      if (s.name == "join_filters") {
        bool on = s.value == "true" || s.value == "on" || s.value == "1";
        bool off = s.value == "false" || s.value == "off" || s.value == "0";
        if (!on && !off) throw UserError(ErrorKind::Conversion, "join_filters must be on or off", stmt.pos);
        db.settings().join_filters = on;  // the plan cache keys on it
        return Status("SET");
      }
      if (s.name == "progress") {
        db.settings().progress = s.value == "true" || s.value == "on" || s.value == "1";
        return Status("SET");
      }
      throw UserError(ErrorKind::Binder, "unknown setting \"" + s.name + "\" (known: threads, device, progress, plan_cache, join_filters)", stmt.pos);
    }
    case ast::StmtKind::CreateView: {
      auto& cv = static_cast<const ast::CreateViewStatement&>(stmt);
      // Bound now to report mistakes at creation; bound again wherever it is used.
      BoundQuery bq = Binder(db.catalog()).BindSelect(*cv.query);
      if (cv.column_aliases.size() > bq.names.size())
        throw UserError(ErrorKind::Binder, "view \"" + cv.name + "\" names " + std::to_string(cv.column_aliases.size()) +
                                               " columns but its query returns " + std::to_string(bq.names.size()),
                        stmt.pos);
      try {
        db.catalog().CreateView(cv.name, cv.query_sql, cv.column_aliases, cv.or_replace, cv.temporary);
      } catch (const UserError& e) {
        throw UserError(e.kind(), e.raw(), stmt.pos);
      }
      return Status("CREATE VIEW");
    }
    case ast::StmtKind::CreateSequence:
      return ExecuteCreateSequence(db, static_cast<const ast::CreateSequenceStatement&>(stmt));
    case ast::StmtKind::DropSequence:
      return ExecuteDropSequence(db, static_cast<const ast::DropStatement&>(stmt));
    case ast::StmtKind::Transaction:
      throw UserError(ErrorKind::Transaction, "transaction statements run on a connection", stmt.pos);
    case ast::StmtKind::Prepare:
    case ast::StmtKind::Execute:
    case ast::StmtKind::Deallocate:
      throw UserError(ErrorKind::Unsupported, "prepared statements run on a connection", stmt.pos);
    case ast::StmtKind::DropView: {
      auto& d = static_cast<const ast::DropStatement&>(stmt);
      try {
        db.catalog().DropView(d.name, d.if_exists);
      } catch (const UserError& e) {
        throw UserError(e.kind(), e.raw(), stmt.pos);
      }
      return Status("DROP VIEW");
    }
  }
  throw InternalError("unknown statement");
}

}  // namespace tessera
